"""What every BAP method of a connection stands on: one call of the core, the page a request names, its element.

Every method that touches a page is one or more ``ActionService.handle`` calls of a built-in
(``browser_open_tab``, ``page_click``…) or of a map tool, with a ``CallContext`` naming the
client (``bap:<clientInfo name>``): the guards (the ``--policy`` file, ``--tools``), the audit
log, the per-session tabs and the tab's turn apply as for an MCP call, and nothing is built a
second time. A BAP ``pageId`` is the tab's runtime id (``tab-3``), passed to the page tools as
the routing field ``target_runtime_id``. The methods themselves are ``pages.py`` (browser and
pages), ``actions.py`` (``action/*``) and ``methods.py`` (observations, ``agent/*``, discovery).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..dispatch.builtins.reading.observe_since import ObserveMemory
from ..dispatch.call.guards import CallContext, InputRequired
from ..errors import ActionError, ErrorCode
from .approvals import APPROVAL_WAIT_MS, Approvals
from .errors import BapError
from .events import EventRelay
from .selectors import SelectorTarget, target_of

if TYPE_CHECKING:
    from ..actions_app import ActionsApp
    from ..bridge.scope import SessionKey

__all__ = ["REQUEST", "VIEWPORT", "BapCore", "options_of"]

#: The BAP request being answered (its method and params): what an approval question names as ``originalRequest``.
REQUEST: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("bap_request", default=None)
#: Chromium's default viewport in the contexts the server opens (no ``viewport`` option is given).
VIEWPORT = {"width": 1280, "height": 720}
#: Selectors an element's own attribute names (its placeholder, its test id): within one ``agent/act``
#: the element found for one stays the one it names while it is on the page, found once (issue 55).
REMEMBERED_SELECTORS = ("placeholder", "testId")
#: During an agent/act (``BapCore.remembering``): the ref each remembered selector was found as. A context
#: variable, so that another request of the connection running meanwhile does not share it.
_REMEMBERED: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("bap_remembered", default=None)


def options_of(params: dict[str, Any]) -> dict[str, Any]:
    """A request's ``options`` object ({} when it has none)."""
    options = params.get("options")
    return options if isinstance(options, dict) else {}


class BapCore:
    """One BAP connection (one agent session): its calls of the core, and what it remembers between requests."""

    def __init__(self, app: ActionsApp, key: SessionKey) -> None:
        self.app = app
        self.key = key
        self.client = "bap"  # "bap:<clientInfo name>" once initialized: the audit log's ``client``
        self.active: str | None = None  # the page BAP's client last created or activated
        self.memory = ObserveMemory()  # what agent/observe last saw, by page (stability, incremental changes)
        self.created = False
        #: The events this connection subscribed to, and the questions it is asked (set by the door, which owns the connection).
        self.relay: EventRelay | None = None
        self.approvals: Approvals | None = None

    async def _page_context(self) -> dict[str, str]:
        """``pageUrl`` and ``pageTitle`` of the page a question is about (the request's, else the active one)."""
        params = (REQUEST.get() or {}).get("params") or {}
        page = self.page_of(params) or self.app.bridge.registry.active_id
        info = self.app.bridge.registry.get_visible(page) if page else None
        return {"pageUrl": info.url if info else "", "pageTitle": (info.title or "") if info else ""}

    def _confirmer(self) -> Any:
        if self.approvals is None:
            return None
        request = REQUEST.get() or {}
        params = request.get("params") or {}
        given = params.get("timeout") if isinstance(params.get("timeout"), int) else options_of(params).get("timeout")
        wait_ms = given if isinstance(given, int) and given > 0 else APPROVAL_WAIT_MS
        return self.approvals.confirmer(request, wait_ms, self._page_context)

    async def call(self, tool: str, arguments: dict[str, Any], page: str | None = None) -> Any:
        """One call of a tool by its MCP name, through ``ActionService.handle``; ``BapError`` when it fails."""
        routed = {**arguments, **({"target_runtime_id": page} if page else {})}
        # A tool that needs the user's yes asks this client (approval/required, bap/approvals.py).
        context = CallContext(via="tools/call", client=self.client, confirm=self._confirmer())
        try:
            outcome = await self.app.service.handle(tool, routed, context)
        except ActionError as exc:
            raise BapError.of(exc) from exc
        except InputRequired as exc:  # only a 2026-07-28 MCP client is asked that way: never on this door
            raise BapError("ApprovalRequired", f"{tool} needs the user's yes", details={"code": ErrorCode.PERMISSION_DENIED}) from exc
        return outcome.output

    def page_of(self, params: dict[str, Any]) -> str | None:
        """The page a request names (``pageId``), else the one this connection made active (None: the session's active tab)."""
        page = params.get("pageId")
        return page if isinstance(page, str) and page else self.active

    @contextlib.contextmanager
    def remembering(self) -> Iterator[None]:
        """Within this block (one ``agent/act``), a ``REMEMBERED_SELECTORS`` selector is found once, not before every step.

        The steps of one act often name one field again and again (fill it, press Enter in it, three
        times): each ``page_find`` would find the same element. A step whose remembered element has
        left the page is run again with the selector found afresh (``forget``, bap/methods.py).
        """
        token = _REMEMBERED.set({})
        try:
            yield
        finally:
            _REMEMBERED.reset(token)

    def forget(self, selectors: list[Any]) -> bool:
        """Forget what ``selectors`` were found as in this act (on any page); whether any had been remembered."""
        remembered = _REMEMBERED.get()
        if not remembered:
            return False
        prefixes = tuple(key.split("\n", 1)[0] + "\n" for key in (_selector_key(selector, None) for selector in selectors) if key is not None)
        gone = [key for key in remembered if prefixes and key.startswith(prefixes)]
        for key in gone:
            del remembered[key]
        return bool(gone)

    async def element(self, selector: Any, page: str | None) -> dict[str, str]:
        """The ``ref``/``text`` an acting tool takes for a BAP selector (a locator is found as exactly one ref first)."""
        target: SelectorTarget = target_of(selector)
        if target.direct is not None:
            return target.direct
        remembered = _REMEMBERED.get()
        key = _selector_key(selector, page) if remembered is not None else None
        if key is not None and remembered is not None and key in remembered:
            return {"ref": remembered[key]}
        found = str(await self.call("page_find", {"locator": target.locator}, page))
        refs = [line.split(" ", 1)[0] for line in found.splitlines() if line.startswith("@e")]
        if not refs:
            raise BapError("ElementNotFound", f"no element matches the selector {selector}", retryable=True, details={"code": ErrorCode.TARGET_NOT_FOUND, "selector": selector})
        if len(refs) > 1:
            raise BapError(
                "SelectorAmbiguous",
                f"{len(refs)} elements match the selector; act on one by its ref:\n{found}",
                details={"code": ErrorCode.MULTIPLE_TARGETS, "candidates": refs},
                hint="name one element: a ref from agent/observe, or a narrower selector",
            )
        if key is not None and remembered is not None:
            remembered[key] = refs[0]
        return {"ref": refs[0]}

    async def as_ref(self, where: dict[str, str], page: str | None) -> dict[str, str]:
        """The ref a visible text names (exactly one element), from ``page_find``'s first, exact match."""
        if "text" not in where:
            return where
        found = str(await self.call("page_find", {"text": where["text"], "max_results": 2}, page))
        refs = [line.split(" ", 1)[0] for line in found.splitlines() if line.startswith("@e")]
        return {"ref": refs[0]} if len(refs) == 1 else where


def _selector_key(selector: Any, page: str | None) -> str | None:
    """What a remembered selector is kept under (its JSON, then its page), or None for one not remembered."""
    if not isinstance(selector, dict) or selector.get("type") not in REMEMBERED_SELECTORS:
        return None
    return json.dumps(selector, sort_keys=True) + "\n" + (page or "")
