"""BAP's ``action/*`` methods, each a call of an acting built-in on the element a selector names (docs/bap.md).

``action/click`` and ``action/dblclick`` are ``page_click`` (``double: true``); ``action/hover``
``page_hover``; ``action/fill``, ``action/clear`` and ``action/upload`` ``page_fill`` (``value``,
``""``, ``files``); ``action/type`` ``page_press`` a key a character; ``action/press``
``page_press``; ``action/scroll`` ``page_scroll``; ``action/select`` ``page_select``;
``action/check``/``action/uncheck`` ``page_click {checked}`` (clicked only when the box is not in that state
yet, judged in the page by the same call); and ``action/drag`` ``page_drag``. A selector becomes the
``ref``, ``text`` or ``locator`` the tools take (``BapCore.target``, bap/selectors.py), found by the acting
call itself, so each action is one call of the core; an element error names that selector (``naming``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import ErrorCode
from .core import BapCore, options_of
from .elements import parse_observation
from .errors import BapError, naming

__all__ = ["ActionMethods", "Handler"]

Handler = Callable[[dict[str, Any]], Awaitable[Any]]

#: The key that types a character whose name is not the character itself (a chord's "+" is the plus key).
_KEY_OF = {"\n": "Enter", "\r": "Enter", "\t": "Tab", " ": "Space"}
#: The longest pause ``action/type``'s ``delay`` makes between two keys (a call must end within its deadline).
_MAX_KEY_DELAY_MS = 1000


def _invalid(message: str, **details: Any) -> BapError:
    return BapError("InvalidParams", message, details={"code": ErrorCode.INVALID_INPUT, **details})


def _upload_paths(files: Any) -> list[str]:
    """The paths of ``action/upload``'s files: each ``{path}`` (absolute, under an upload root), as ``page_fill {files}`` reads them.

    A file given as its bytes (``{name, mimeType, buffer}``, the client's own) is refused: the
    server puts only files under the operator's ``--upload-root`` in a page (docs/bap.md).
    """
    if not isinstance(files, list) or not files:
        raise _invalid("action/upload needs files: [{path}]")
    paths = []
    for index, item in enumerate(files):
        path = item.get("path") if isinstance(item, dict) else item if isinstance(item, str) else None
        if isinstance(path, str) and path:
            paths.append(path)
        elif isinstance(item, dict) and "buffer" in item:
            raise BapError(
                "InvalidParams",
                f"files[{index}] is given as its bytes; this server uploads only files named by path under its --upload-root",
                details={"code": ErrorCode.INVALID_INPUT, "evidence": {"path": f"/files/{index}/buffer"}},
                hint='name the file by its absolute path under the server\'s --upload-root: {"path": "/…/file.pdf"}',
            )
        else:
            raise _invalid(f"files[{index}] needs a path", evidence={"path": f"/files/{index}"})
    return paths


class ActionMethods(BapCore):
    """The ``action/*`` methods of one connection."""

    def acting(self, tool: str, **extra: Any) -> Handler:
        """A method that is ``tool`` (with ``extra`` arguments) on the element the request's selector names."""

        async def run(params: dict[str, Any]) -> dict[str, Any]:
            page = self.page_of(params)
            with naming(params.get("selector")):
                await self.call(tool, {**self.target(params.get("selector")), **extra}, page)
            return {}

        return run

    async def fill(self, params: dict[str, Any], *, submit: bool = False) -> dict[str, Any]:
        """``action/fill``; ``submit``: Enter pressed in the field too, in the same call (an agent/act's fill, then Enter in it: bap/act.py)."""
        page = self.page_of(params)
        value = params.get("value")
        if not isinstance(value, str):
            raise _invalid("action/fill needs a value")
        with naming(params.get("selector")):
            await self.call("page_fill", {**self.target(params.get("selector")), "value": value, **({"submit": True} if submit else {})}, page)
        return {}

    async def clear(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        with naming(params.get("selector")):
            await self.call("page_fill", {**self.target(params.get("selector")), "value": ""}, page)
        return {}

    async def _elements(self, page: str | None) -> list[dict[str, Any]]:
        _, elements = parse_observation(str(await self.call("page_observe", {"max_bytes": 1000000}, page)))
        return elements

    async def type_text(self, params: dict[str, Any]) -> dict[str, Any]:
        """Type key by key after what the field holds (``options.clear``: instead of it), ``options.delay`` ms apart.

        As BAP's own server does (a locator's ``pressSequentially``): one key press a character, so
        the page sees each key and input event a person's typing makes (a search box that suggests
        as it is typed, a counter). A character no key makes (é, an emoji) is put in with the rest
        of the text through ``page_fill``, after the field's value.
        """
        page = self.page_of(params)
        text = params.get("text")
        if not isinstance(text, str):
            raise _invalid("action/type needs a text")
        options = options_of(params)
        delay = options.get("delay")
        pause = min(max(delay, 0), _MAX_KEY_DELAY_MS) / 1000 if isinstance(delay, int | float) and not isinstance(delay, bool) else 0.0
        selector = params.get("selector")
        with naming(selector):
            # One ref for every key: the text that named the field may change as it is typed.
            where = await self.as_ref(await self.element(selector, page), page)
            if options.get("clear"):
                await self.call("page_fill", {**where, "value": ""}, page)
            else:
                # The caret after what the field holds, as typing appends (Control+End: a textarea's last line too).
                await self.call("page_press", {**where, "key": "Control+End"}, page)
            for index, char in enumerate(text):
                if index and pause:
                    await asyncio.sleep(pause)
                try:
                    await self.call("page_press", {**where, "key": _KEY_OF.get(char, char)}, page)
                except BapError as exc:
                    if (exc.data.get("details") or {}).get("code") != ErrorCode.INVALID_KEY:
                        raise
                    before = next((str(e.get("value") or "") for e in await self._elements(page) if e["ref"] == where.get("ref")), "")
                    await self.call("page_fill", {**where, "value": before + text[index:]}, page)
                    break
        return {}

    async def press(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        key = params.get("key")
        if not isinstance(key, str) or not key:
            raise _invalid("action/press needs a key")
        if params.get("selector") is None:
            raise BapError.unsupported("action/press without a selector (name the element the key goes to)")
        with naming(params.get("selector")):
            await self.call("page_press", {**self.target(params.get("selector")), "key": key}, page)
        return {}

    async def scroll(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        direction = options_of(params).get("direction", "down")
        if direction not in ("up", "down"):
            raise BapError.unsupported(f"scrolling {direction} (up and down are)")
        with naming(params.get("selector")):
            where = self.target(params["selector"]) if params.get("selector") is not None else {}
            await self.call("page_scroll", {**where, "to": direction}, page)
        return {}

    async def select(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        values = params.get("values")
        listed = [values] if isinstance(values, str) else values
        if not isinstance(listed, list) or not listed:
            raise _invalid("action/select needs values")
        with naming(params.get("selector")):
            await self.call("page_select", {**self.target(params.get("selector")), "values": [str(v) for v in listed]}, page)
        return {}

    def checking(self, checked: bool) -> Handler:
        """``action/check`` (``checked``) or ``action/uncheck``: one ``page_click {checked}``, which reads the box's
        state in the page as it resolves it and clicks only when the box is not in that state yet (a box checked
        stays checked); an element with no checked state is clicked."""

        async def run(params: dict[str, Any]) -> dict[str, Any]:
            page = self.page_of(params)
            with naming(params.get("selector")):
                await self.call("page_click", {**self.target(params.get("selector")), "checked": checked}, page)
            return {}

        return run

    async def upload(self, params: dict[str, Any]) -> dict[str, Any]:
        """``action/upload``: ``page_fill {files}``, the files read by the server from its upload roots."""
        page = self.page_of(params)
        paths = _upload_paths(params.get("files"))
        with naming(params.get("selector")):
            await self.call("page_fill", {**self.target(params.get("selector")), "files": paths}, page)
        return {}

    async def drag(self, params: dict[str, Any]) -> dict[str, Any]:
        """``action/drag``: ``page_drag`` from the element ``source`` names onto the one ``target`` names."""
        page = self.page_of(params)
        target = params.get("target")
        if isinstance(target, dict) and "type" not in target and {"x", "y"} <= set(target):
            raise BapError.unsupported("dragging to coordinates (drag onto an element: a ref from agent/observe, a role, a text)")
        ends = [await self.element(params.get(end), page) for end in ("source", "target")]
        source_end, target_end = (end.get("ref") or end["text"] for end in ends)
        await self.call("page_drag", {"from": source_end, "to": target_end}, page)
        return {}
