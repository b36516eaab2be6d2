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

import contextvars
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

    def target(self, selector: Any) -> dict[str, Any]:
        """What an acting tool is told for a BAP selector: its ``ref``, ``text`` or ``locator``, found by the acting call itself.

        No call of its own: a locator (css, xpath, testId, placeholder, role) is found in the page by the
        call that acts (``refs.resolve {locator}``), so an ``agent/act`` makes the calls ``page_act`` makes (issue 55).
        """
        found: SelectorTarget = target_of(selector)
        return found.direct if found.direct is not None else {"locator": found.locator}

    async def element(self, selector: Any, page: str | None) -> dict[str, str]:
        """The ``ref``/``text`` a BAP selector names, a locator found as exactly one ref first (``page_find {locator}``).

        For what needs a ref before it acts (``action/type``'s keys, a drag's ends, a step's condition, an
        extract's scope); an acting method names its element with ``target``, found in its own call.
        """
        target: SelectorTarget = target_of(selector)
        if target.direct is not None:
            return target.direct
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
        return {"ref": refs[0]}

    async def as_ref(self, where: dict[str, str], page: str | None) -> dict[str, str]:
        """The ref a visible text names (exactly one element), from ``page_find``'s first, exact match."""
        if "text" not in where:
            return where
        found = str(await self.call("page_find", {"text": where["text"], "max_results": 2}, page))
        refs = [line.split(" ", 1)[0] for line in found.splitlines() if line.startswith("@e")]
        return {"ref": refs[0]} if len(refs) == 1 else where

