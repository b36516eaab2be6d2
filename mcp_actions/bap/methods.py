"""BAP's methods, each a call of the same core as MCP's tools (docs/bap.md, "What is supported").

Every method that touches a page is one or two ``ActionService.handle`` calls of a built-in
(``browser_open_tab``, ``page_click``…) or of a map tool (``agent/act``'s ``mcp-actions/call``
step), with a ``CallContext`` naming the client (``bap:<clientInfo name>``): the guards (the
``--policy`` file, ``--tools``), the audit log, the per-session tabs and the tab's turn apply as
for an MCP call, and nothing is built a second time. A BAP ``pageId`` is the tab's runtime id
(``tab-3``), passed to the page tools as the routing field ``target_runtime_id``.

The answers are in the shapes the released Python client (``browser-agent-protocol`` 0.9.0)
validates: ``Page`` needs ``id, url, title, viewport, status``; ``browser/launch`` needs
``browserId, browser, version``; screenshots ``data, format, width, height``.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import struct
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..dispatch.builtins.reading.observe_since import Changes, ObserveMemory, element_lines
from ..dispatch.call.guards import CallContext, InputRequired
from ..errors import ActionError, ErrorCode
from ..manifest.execution import ToolKind
from .act import agent_act
from .approvals import APPROVAL_WAIT_MS, Approvals
from .elements import ACTION_HINTS, parse_observation
from .errors import BapError
from .events import EventRelay
from .extract import agent_extract
from .selectors import SelectorTarget, target_of

if TYPE_CHECKING:
    from ..actions_app import ActionsApp
    from ..bridge.scope import SessionKey

__all__ = ["ACT_STEP_CALL", "BAP_VERSION", "BapMethods"]

#: The protocol version the released client speaks (its major must match ours).
BAP_VERSION = "0.2.0"
#: The ``agent/act`` step that runs any tool of the catalogue by its MCP name (maps, learned maps, page protocols).
ACT_STEP_CALL = "mcp-actions/call"
#: Chromium's default viewport in the contexts the server opens (no ``viewport`` option is given).
_VIEWPORT = {"width": 1280, "height": 720}
#: Steps ``agent/act`` takes: BAP's allowed actions that this server serves, and ours.
_ACT_ACTIONS = (
    "action/click", "action/fill", "action/type", "action/press", "action/hover", "action/scroll", "action/select",
    "action/check", "action/uncheck", "action/clear", "page/navigate", "page/reload", ACT_STEP_CALL,
)  # fmt: skip

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
#: The BAP request being answered (its method and params): what an approval question names as ``originalRequest``.
_REQUEST: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("bap_request", default=None)


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG (its IHDR), or of a JPEG (its first SOF), 0×0 when neither."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    i = 2
    while i + 9 < len(data) and data[:2] == b"\xff\xd8":
        if data[i] != 0xFF:
            break
        marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
        if 0xC0 <= marker <= 0xC3:
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return 0, 0


def _element(e: dict[str, Any], changes: Changes) -> dict[str, Any]:
    """One ``page_observe`` element as BAP's ``InteractiveElement``; its ``stability`` from this connection's last observation."""
    item: dict[str, Any] = {"ref": e["ref"], "selector": {"type": "ref", "ref": e["ref"]}, "role": e["role"], "actionHints": ACTION_HINTS.get(e["role"], ["clickable"]), "tagName": ""}
    if "name" in e:
        item["name"] = e["name"]
    if "value" in e:
        item["value"] = e["value"]
    if "disabled" in e["flags"]:
        item["disabled"] = True
    if e["ref"] in changes.replaced:
        item.update(stability="moved", previousRef=changes.replaced[e["ref"]])
    else:
        item["stability"] = "new" if changes.first or e["ref"] in changes.added else "stable"
    return item


def _options(params: dict[str, Any]) -> dict[str, Any]:
    options = params.get("options")
    return options if isinstance(options, dict) else {}


class BapMethods:
    """The methods of one BAP connection (one agent session): each maps onto calls of the core."""

    def __init__(self, app: ActionsApp, key: SessionKey) -> None:
        self.app = app
        self.key = key
        self.client = "bap"  # "bap:<clientInfo name>" once initialized: the audit log's ``client``
        self.active: str | None = None  # the page BAP's client last created or activated
        self._memory = ObserveMemory()  # what agent/observe last saw, by page (stability, incremental changes)
        self._created = False
        #: The events this connection subscribed to, and the questions it is asked (set by the door, which owns the connection).
        self.relay: EventRelay | None = None
        self.approvals: Approvals | None = None
        self.table: dict[str, Handler] = {
            "browser/launch": self.launch,
            "browser/close": self.browser_close,
            "page/create": self.page_create,
            "page/navigate": self.page_navigate,
            "page/list": self.page_list,
            "page/close": self.page_close,
            "page/reload": self.page_reload,
            "page/activate": self.page_activate,
            "action/click": self._acting("page_click"),
            "action/hover": self._acting("page_hover"),
            "action/fill": self.fill,
            "action/clear": self.clear,
            "action/type": self.type_text,
            "action/press": self.press,
            "action/scroll": self.scroll,
            "action/select": self.select,
            "action/check": self._checking(True),
            "action/uncheck": self._checking(False),
            "observe/screenshot": self.screenshot,
            "observe/content": self.content,
            "observe/ariaSnapshot": self.aria_snapshot,
            "agent/observe": self.observe,
            "agent/act": self.act,
            "agent/extract": self.extract,
            "discovery/discover": self.discover,
        }

    # -- the core ----------------------------------------------------------------

    async def run(self, method: str, params: dict[str, Any]) -> Any:
        """Answer one request of the table (its method and params are what an approval question names)."""
        _REQUEST.set({"method": method, "params": params})
        return await self.table[method](params)

    async def _page_context(self) -> dict[str, str]:
        """``pageUrl`` and ``pageTitle`` of the page a question is about (the request's, else the active one)."""
        params = (_REQUEST.get() or {}).get("params") or {}
        page = self.page_of(params) or self.app.bridge.registry.active_id
        info = self.app.bridge.registry.get_visible(page) if page else None
        return {"pageUrl": info.url if info else "", "pageTitle": (info.title or "") if info else ""}

    def _confirmer(self) -> Any:
        if self.approvals is None:
            return None
        request = _REQUEST.get() or {}
        params = request.get("params") or {}
        given = params.get("timeout") if isinstance(params.get("timeout"), int) else _options(params).get("timeout")
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

    async def element(self, selector: Any, page: str | None) -> dict[str, str]:
        """The ``ref``/``text`` an acting tool takes for a BAP selector (a locator is found as exactly one ref first)."""
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

    # -- browser and pages -------------------------------------------------------

    async def launch(self, params: dict[str, Any]) -> dict[str, Any]:
        """The session's browser context is opened by its first page; ``launch`` names it (the client needs ``browser``)."""
        browser = params.get("browser")
        if browser not in (None, "chromium"):
            raise BapError.unsupported(f"browser {browser!r} (this server drives Chromium)")
        return {"browserId": self.key.id, "browser": "chromium", "version": f"mcp-actions {__version__}"}

    async def browser_close(self, params: dict[str, Any]) -> dict[str, Any]:
        """Close the session's browser context (its tabs and runtimes); the next page opens a fresh one."""
        await self.app.end_session(self.key.id, "the BAP client closed its browser")
        self.active, self._created = None, False
        return {}

    async def _tabs(self) -> list[dict[str, Any]]:
        listed = await self.call("browser_list_tabs", {})
        return [t for t in (listed.get("tabs") if isinstance(listed, dict) else None) or [] if isinstance(t, dict)]

    @staticmethod
    def _page(tab: dict[str, Any]) -> dict[str, Any]:
        return {"id": tab.get("runtime_id"), "url": tab.get("url") or "", "title": tab.get("title") or "", "viewport": dict(_VIEWPORT), "status": "ready"}

    async def _tab(self, page: str) -> dict[str, Any]:
        for tab in await self._tabs():
            if tab.get("runtime_id") == page:
                return tab
        raise BapError("PageNotFound", f"no page {page!r} in this session", details={"code": ErrorCode.RUNTIME_NOT_FOUND})

    async def page_create(self, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url") or "about:blank"
        tabs = await self._tabs() if not self._created else []
        blank = [t for t in tabs if t.get("url") in ("about:blank", "")]
        if not self._created and len(tabs) == 1 and blank:
            # The blank tab a new context opens with is this page: a client that creates one page sees one.
            page = str(blank[0]["runtime_id"])
            if url != "about:blank":
                await self.call("browser_navigate", {"url": url}, page)
        else:
            opened = await self.call("browser_open_tab", {"url": url})
            page = str(opened["runtime_id"])
        self._created = True
        self.active = page
        return self._page(await self._tab(page))

    async def page_navigate(self, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url")
        if not isinstance(url, str) or not url:
            raise BapError("InvalidParams", "page/navigate needs a url", details={"code": ErrorCode.INVALID_INPUT})
        out = await self.call("browser_navigate", {"url": url}, self.page_of(params))
        result: dict[str, Any] = {"url": str(out.get("url") or url) if isinstance(out, dict) else url}
        status = out.get("status") if isinstance(out, dict) else None
        if isinstance(status, int):
            result["status"] = status
        return result

    async def page_reload(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.call("browser_navigate", {"reload": True}, self.page_of(params))
        return {}

    async def page_list(self, params: dict[str, Any]) -> dict[str, Any]:
        tabs = await self._tabs()
        active = self.active or next((t.get("runtime_id") for t in tabs if t.get("active")), None)
        return {"pages": [self._page(t) for t in tabs], "activePage": active}

    async def page_close(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        if page is None:
            raise BapError("PageNotFound", "page/close needs a pageId", details={"code": ErrorCode.RUNTIME_NOT_FOUND})
        tab = await self._tab(page)
        await self.call("browser_close_tab", {"tab_id": tab["tab_id"]})
        for _ in range(40):  # the tab leaves the list when its runtime is gone, a moment after the close
            if all(t.get("runtime_id") != page for t in await self._tabs()):
                break
            await asyncio.sleep(0.05)
        if self.active == page:
            self.active = None
        self._memory.forget(page)
        return {}

    async def page_activate(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        if page is None:
            raise BapError("PageNotFound", "page/activate needs a pageId", details={"code": ErrorCode.RUNTIME_NOT_FOUND})
        tab = await self._tab(page)
        await self.call("browser_activate_tab", {"tab_id": tab["tab_id"]})
        self.active = page
        return {}

    # -- actions -----------------------------------------------------------------

    def _acting(self, tool: str) -> Handler:
        async def run(params: dict[str, Any]) -> dict[str, Any]:
            page = self.page_of(params)
            await self.call(tool, await self.element(params.get("selector"), page), page)
            return {}

        return run

    async def fill(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        value = params.get("value")
        if not isinstance(value, str):
            raise BapError("InvalidParams", "action/fill needs a value", details={"code": ErrorCode.INVALID_INPUT})
        await self.call("page_fill", {**await self.element(params.get("selector"), page), "value": value}, page)
        return {}

    async def clear(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        await self.call("page_fill", {**await self.element(params.get("selector"), page), "value": ""}, page)
        return {}

    async def type_text(self, params: dict[str, Any]) -> dict[str, Any]:
        """Type after what the field holds (``options.clear``: instead of it): the field's value is filled whole."""
        page = self.page_of(params)
        text = params.get("text")
        if not isinstance(text, str):
            raise BapError("InvalidParams", "action/type needs a text", details={"code": ErrorCode.INVALID_INPUT})
        where = await self.element(params.get("selector"), page)
        options = _options(params)
        before = ""
        if not options.get("clear"):
            if "text" in where:
                where = await self._as_ref(where, page)
            _, elements = parse_observation(str(await self.call("page_observe", {}, page)))
            before = next((str(e.get("value") or "") for e in elements if e["ref"] == where.get("ref")), "")
        await self.call("page_fill", {**where, "value": before + text}, page)
        return {}

    async def _as_ref(self, where: dict[str, str], page: str | None) -> dict[str, str]:
        """The ref a visible text names (exactly one element), from ``page_find``'s first, exact match."""
        found = str(await self.call("page_find", {"text": where["text"], "max_results": 2}, page))
        refs = [line.split(" ", 1)[0] for line in found.splitlines() if line.startswith("@e")]
        return {"ref": refs[0]} if len(refs) == 1 else where

    async def press(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        key = params.get("key")
        if not isinstance(key, str) or not key:
            raise BapError("InvalidParams", "action/press needs a key", details={"code": ErrorCode.INVALID_INPUT})
        if params.get("selector") is None:
            raise BapError.unsupported("action/press without a selector (name the element the key goes to)")
        await self.call("page_press", {**await self.element(params.get("selector"), page), "key": key}, page)
        return {}

    async def scroll(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        options = _options(params)
        direction = options.get("direction", "down")
        if direction not in ("up", "down"):
            raise BapError.unsupported(f"scrolling {direction} (up and down are)")
        where = await self.element(params["selector"], page) if params.get("selector") is not None else {}
        await self.call("page_scroll", {**where, "to": direction}, page)
        return {}

    async def select(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        values = params.get("values")
        listed = [values] if isinstance(values, str) else values
        if not isinstance(listed, list) or not listed:
            raise BapError("InvalidParams", "action/select needs values", details={"code": ErrorCode.INVALID_INPUT})
        await self.call("page_select", {**await self.element(params.get("selector"), page), "values": [str(v) for v in listed]}, page)
        return {}

    def _checking(self, checked: bool) -> Handler:
        async def run(params: dict[str, Any]) -> dict[str, Any]:
            page = self.page_of(params)
            where = await self.element(params.get("selector"), page)
            if "text" in where:
                where = await self._as_ref(where, page)
            _, elements = parse_observation(str(await self.call("page_observe", {}, page)))
            state = next((e["flags"] for e in elements if e["ref"] == where.get("ref")), None)
            if state is None or ("checked" in state) != checked:
                await self.call("page_click", where, page)
            return {}

        return run

    # -- observations ------------------------------------------------------------

    async def screenshot(self, params: dict[str, Any]) -> dict[str, Any]:
        options = _options(params)
        arguments: dict[str, Any] = {}
        if options.get("format") in ("png", "jpeg"):
            arguments["format"] = options["format"]
        if isinstance(options.get("quality"), int) and options["quality"] > 0:
            arguments["quality"] = options["quality"]
        out = await self.call("browser_screenshot", arguments, self.page_of(params))
        data = str(out.get("image") or "")
        width, height = _png_size(base64.b64decode(data[:4096] + "=" * (-len(data[:4096]) % 4)) if data else b"")
        fmt = "jpeg" if "jpeg" in str(out.get("mime_type") or "") else "png"
        return {"data": data, "format": fmt, "width": width, "height": height}

    async def content(self, params: dict[str, Any]) -> dict[str, Any]:
        fmt = params.get("format", "text")
        if fmt not in ("text", "markdown"):
            raise BapError.unsupported(f"observe/content format {fmt!r} (text and markdown are: the page as page_read reads it)")
        text = str(await self.call("page_read", {"max_bytes": 1000000}, self.page_of(params)))
        return {"content": text, "format": fmt}

    async def aria_snapshot(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        text = str(await self.call("page_read", {"max_bytes": 1000000}, page))
        meta, _ = parse_observation(str(await self.call("page_observe", {"max_bytes": 256}, page)))
        return {"snapshot": text, "url": meta["url"], "title": meta["title"]}

    async def observe(self, params: dict[str, Any]) -> dict[str, Any]:
        """``agent/observe``: the page's interactive elements with refs, ``stability`` and, with ``incremental``, ``changes``.

        What changed is since this connection's previous ``agent/observe`` of the page, by the
        mechanism of ``page_observe {since: "last"}`` (``dispatch/builtins/reading/observe_since.py``): an element
        re-rendered under a new ref is ``moved``, with its ``previousRef``.
        """
        page = self.page_of(params)
        text = str(await self.call("page_observe", {"max_bytes": 1000000}, page))
        meta, elements = parse_observation(text)
        changes = self._memory.compare(page or "active", element_lines(text))
        items = {e["ref"]: _element(e, changes) for e in elements}
        roles = params.get("filterRoles")
        if isinstance(roles, list) and roles:
            elements = [e for e in elements if e["role"] in roles]
        total = len(elements)
        limit = params.get("maxElements")
        if isinstance(limit, int) and limit > 0:
            elements = elements[:limit]
        out: dict[str, Any] = {"metadata": {**meta, "viewport": dict(_VIEWPORT)}, "totalInteractiveElements": total}
        if params.get("includeInteractiveElements", True) is not False:
            out["interactiveElements"] = [items[e["ref"]] for e in elements]
        if params.get("incremental") is True:
            out["changes"] = {"added": [items[r] for r in changes.added], "updated": [items[r] for r in changes.changed], "removed": list(changes.gone)}
        if params.get("includeScreenshot"):
            shot = await self.screenshot({"pageId": page} if page else {})
            out["screenshot"] = {**shot, "annotated": False}
        return out

    async def extract(self, params: dict[str, Any]) -> dict[str, Any]:
        """``agent/extract``: ``page_extract`` (bap/extract.py), on the part of the page the selector names, if any."""
        page = self.page_of(params)
        scope = None
        if params.get("selector") is not None:
            where = await self.element(params["selector"], page)
            scope = (await self._as_ref(where, page) if "text" in where else where).get("ref")
        return await agent_extract(params, lambda arguments: self.call("page_extract", arguments, page), scope)

    # -- composite steps and the catalogue's tools ----------------------------------

    async def discover(self, params: dict[str, Any]) -> dict[str, Any]:
        """The tools of maps, learned maps and page protocols this session may call, run by ``mcp-actions/call`` steps."""
        options = _options(params)
        schemas = options.get("includeInputSchemas", True) is not False
        app = self.app
        tools = [b for b in app.catalog.tools.values() if b.kind is not ToolKind.BUILTIN and app.visibility.listed(b)]
        limit = options.get("maxTools") if isinstance(options.get("maxTools"), int) else 50
        listed = []
        for b in tools[:limit]:
            item: dict[str, Any] = {"name": b.mcp_name, "description": b.description or "", "source": ACT_STEP_CALL}
            if schemas:
                item["inputSchema"] = b.input_schema
            listed.append(item)
        return {"tools": listed, "totalDiscovered": len(tools)}

    async def _step(self, step: dict[str, Any], page: str | None) -> Any:
        action, given = step.get("action"), step.get("params")
        params: dict[str, Any] = given if isinstance(given, dict) else {}
        if action == ACT_STEP_CALL:
            name, arguments = params.get("name"), params.get("arguments", {})
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise BapError("InvalidParams", f"{ACT_STEP_CALL} needs params {{name, arguments}}", details={"code": ErrorCode.INVALID_INPUT})
            output = await self.call(name, arguments)
            return str(output) if isinstance(output, str) else output
        if action not in _ACT_ACTIONS:
            raise BapError.unsupported(f"the agent/act step {action!r}")
        return await self.table[str(action)]({**({"pageId": page} if page else {}), **params})

    async def _condition_holds(self, condition: Any, page: str | None) -> bool:
        if not isinstance(condition, dict):
            return True
        state = condition.get("state")
        try:
            where = await self.element(condition.get("selector"), page)
        except BapError as exc:
            if exc.code == -32012:  # ElementNotFound
                return state == "hidden"
            raise
        if state in ("exists", "visible"):
            return True
        if state == "hidden":
            return False
        if "text" in where:
            where = await self._as_ref(where, page)
        _, elements = parse_observation(str(await self.call("page_observe", {"max_bytes": 1000000}, page)))
        flags: list[str] = next((e["flags"] for e in elements if e["ref"] == where.get("ref")), [])
        return ("disabled" in flags) == (state == "disabled")

    async def act(self, params: dict[str, Any]) -> dict[str, Any]:
        """``agent/act``: steps in order, each with its condition and ``onError`` (bap/act.py)."""
        return await agent_act(params, self.page_of(params), self._step, self._condition_holds)
