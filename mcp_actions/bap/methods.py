"""BAP's methods, each a call of the same core as MCP's tools (docs/bap.md, "What is supported").

``BapMethods`` is one connection's table of methods: the browser and pages (``pages.py``), the
actions (``actions.py``), and here the observations (``observe/*``, ``agent/observe``), the
composite steps (``agent/act``, bap/act.py), ``agent/extract`` (bap/extract.py) and discovery
(the catalogue's tools, run by ``mcp-actions/call`` steps). Every one is a call of a built-in or a
map tool through ``ActionService.handle`` (``BapCore.call``, core.py): nothing is built twice.
Screenshots answer ``data, format, width, height``, as the released client validates.
"""

from __future__ import annotations

import base64
import struct
from typing import TYPE_CHECKING, Any

from ..dispatch.builtins.reading.observe_since import Changes, element_lines
from ..errors import ErrorCode
from ..manifest.execution import ToolKind
from .act import SUBMIT, agent_act
from .actions import ActionMethods, Handler
from .core import REQUEST, VIEWPORT, options_of
from .elements import ACTION_HINTS, parse_observation, without_boxes
from .errors import BapError
from .extract import agent_extract
from .pages import PageMethods

if TYPE_CHECKING:
    from ..actions_app import ActionsApp
    from ..bridge.scope import SessionKey

__all__ = ["ACT_ACTIONS", "ACT_STEP_CALL", "BAP_VERSION", "BapMethods"]

#: The protocol version the released client speaks (its major must match ours).
BAP_VERSION = "0.2.0"
#: The ``agent/act`` step that runs any tool of the catalogue by its MCP name (maps, learned maps, page protocols).
ACT_STEP_CALL = "mcp-actions/call"
#: Steps ``agent/act`` takes: BAP's allowed actions that this server serves, and ours.
ACT_ACTIONS = (
    "action/click", "action/dblclick", "action/fill", "action/type", "action/press", "action/hover", "action/scroll",
    "action/select", "action/check", "action/uncheck", "action/clear", "action/upload", "action/drag",
    "page/navigate", "page/reload", "page/goBack", "page/goForward", ACT_STEP_CALL,
)  # fmt: skip


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
    item: dict[str, Any] = {"ref": e["ref"], "selector": {"type": "ref", "ref": e["ref"]}, "role": e["role"], "actionHints": ACTION_HINTS.get(e["role"], ["clickable"]), "tagName": e.get("tag", "")}
    if "name" in e:
        item["name"] = e["name"]
    if "value" in e:
        item["value"] = e["value"]
    if "disabled" in e["flags"]:
        item["disabled"] = True
    if "bounds" in e:
        item["bounds"] = e["bounds"]
    if e["ref"] in changes.replaced:
        item.update(stability="moved", previousRef=changes.replaced[e["ref"]])
    else:
        item["stability"] = "new" if changes.first or e["ref"] in changes.added else "stable"
    return item


class BapMethods(PageMethods, ActionMethods):
    """The methods of one BAP connection (one agent session): each maps onto calls of the core."""

    def __init__(self, app: ActionsApp, key: SessionKey) -> None:
        super().__init__(app, key)
        self.table: dict[str, Handler] = {
            "browser/launch": self.launch,
            "browser/close": self.browser_close,
            "page/create": self.page_create,
            "page/navigate": self.page_navigate,
            "page/list": self.page_list,
            "page/close": self.page_close,
            "page/reload": self.page_reload,
            "page/goBack": self._history("back"),
            "page/goForward": self._history("forward"),
            "page/activate": self.page_activate,
            "dialog/handle": self.dialog_handle,
            "action/click": self.acting("page_click"),
            "action/dblclick": self.acting("page_click", double=True),
            "action/hover": self.acting("page_hover"),
            "action/fill": self.fill,
            "action/clear": self.clear,
            "action/type": self.type_text,
            "action/press": self.press,
            "action/scroll": self.scroll,
            "action/select": self.select,
            "action/check": self.checking(True),
            "action/uncheck": self.checking(False),
            "action/upload": self.upload,
            "action/drag": self.drag,
            "observe/screenshot": self.screenshot,
            "observe/content": self.content,
            "observe/ariaSnapshot": self.aria_snapshot,
            "agent/observe": self.observe,
            "agent/act": self.act,
            "agent/extract": self.extract,
            "discovery/discover": self.discover,
        }

    async def run(self, method: str, params: dict[str, Any]) -> Any:
        """Answer one request of the table (its method and params are what an approval question names)."""
        REQUEST.set({"method": method, "params": params})
        return await self.table[method](params)

    # -- observations ------------------------------------------------------------

    async def screenshot(self, params: dict[str, Any], *, marks: bool = False) -> dict[str, Any]:
        """``observe/screenshot``; ``marks``: with numbered badges, and their list under ``marks`` (agent/observe's annotation)."""
        options = options_of(params)
        arguments: dict[str, Any] = {}
        if options.get("format") in ("png", "jpeg"):
            arguments["format"] = options["format"]
        if isinstance(options.get("quality"), int) and options["quality"] > 0:
            arguments["quality"] = options["quality"]
        if marks:
            arguments["marks"] = True
        out = await self.call("browser_screenshot", arguments, self.page_of(params))
        data = str(out.get("image") or "")
        width, height = _png_size(base64.b64decode(data[:4096] + "=" * (-len(data[:4096]) % 4)) if data else b"")
        fmt = "jpeg" if "jpeg" in str(out.get("mime_type") or "") else "png"
        shot: dict[str, Any] = {"data": data, "format": fmt, "width": width, "height": height}
        if marks:
            shot["marks"] = [m for m in out.get("marks") or [] if isinstance(m, dict)]
        return shot

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
        # Each element's tag (BAP's tagName) and, unless includeBounds is false, its box: page_observe {tags, bounds}.
        boxes = params.get("includeBounds") is not False
        text = str(await self.call("page_observe", {"max_bytes": 1000000, "tags": True, **({"bounds": True} if boxes else {})}, page))
        meta, elements = parse_observation(text)
        changes = self.memory.compare(page or "active", element_lines(without_boxes(text)))
        items = {e["ref"]: _element(e, changes) for e in elements}
        roles = params.get("filterRoles")
        if isinstance(roles, list) and roles:
            elements = [e for e in elements if e["role"] in roles]
        total = len(elements)
        limit = params.get("maxElements")
        if isinstance(limit, int) and limit > 0:
            elements = elements[:limit]
        out: dict[str, Any] = {"metadata": {**meta, "viewport": dict(VIEWPORT)}, "totalInteractiveElements": total}
        if params.get("includeInteractiveElements", True) is not False:
            out["interactiveElements"] = [items[e["ref"]] for e in elements]
        if params.get("incremental") is True:
            out["changes"] = {"added": [items[r] for r in changes.added], "updated": [items[r] for r in changes.changed], "removed": list(changes.gone)}
        annotate = params.get("annotateScreenshot")
        # Set-of-marks: browser_screenshot {marks: true}, numbered badges on the elements listed in view (docs/bap.md).
        marked = annotate is True or (isinstance(annotate, dict) and annotate.get("enabled") is not False)
        if params.get("includeScreenshot") or marked:
            shot = await self.screenshot({"pageId": page} if page else {}, marks=marked)
            marks = shot.pop("marks", None)
            out["screenshot"] = {**shot, "annotated": marked}
            if marked:
                out["annotationMap"] = [{"label": str(m.get("n")), "ref": m.get("ref"), "position": m.get("bounds") or {}} for m in marks or []]
        return out

    async def extract(self, params: dict[str, Any]) -> dict[str, Any]:
        """``agent/extract``: ``page_extract`` (bap/extract.py), on the part of the page the selector names, if any."""
        page = self.page_of(params)
        scope = None
        if params.get("selector") is not None:
            where = await self.element(params["selector"], page)
            scope = (await self.as_ref(where, page)).get("ref")
        return await agent_extract(params, lambda arguments: self.call("page_extract", arguments, page), scope)

    # -- composite steps and the catalogue's tools ----------------------------------

    async def discover(self, params: dict[str, Any]) -> dict[str, Any]:
        """The tools of maps, learned maps and page protocols this session may call, run by ``mcp-actions/call`` steps."""
        options = options_of(params)
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
        if action not in ACT_ACTIONS:
            raise BapError.unsupported(f"the agent/act step {action!r}")
        routed = {**({"pageId": page} if page else {}), **params}

        if step.get(SUBMIT) is True:  # a fill, and Enter in its field: one call (bap/act.py)
            return await self.fill(routed, submit=True)
        return await self.table[str(action)](routed)

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
        where = await self.as_ref(where, page)
        _, elements = parse_observation(str(await self.call("page_observe", {"max_bytes": 1000000}, page)))
        flags: list[str] = next((e["flags"] for e in elements if e["ref"] == where.get("ref")), [])
        return ("disabled" in flags) == (state == "disabled")

    async def act(self, params: dict[str, Any]) -> dict[str, Any]:
        """``agent/act``: steps in order, each with its condition and ``onError`` (bap/act.py)."""
        # Each step is the one call of the core its page_act step would be: its selector is found by that call (core.py, target).
        return await agent_act(params, self.page_of(params), self._step, self._condition_holds)
