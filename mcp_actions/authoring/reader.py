"""Reading a live page for ``mcp-actions init``: one JavaScript function evaluated in the tab.

The function is ``reader.js`` and ``reader_explore.js`` (beside this file; the second reads what
exploring needs) run after the page engine's own ``intrinsics.js``, ``core.js``, ``geometry.js``, ``dom.js``, ``editors.js``,
``names.js``, ``locator_filters.js``, ``locators.js`` and ``describe.js`` (its rule for rows) (read through
``runtimes.page_script.module_source``, joined the way ``page_script`` joins the
engine: each module the body of a ``function (M, root)``). So what the reader
calls a role, an accessible name, visible, or a locator that names one element
is what the engine will find when the drafted map runs. The page is left as it
was: the function only reads, and its namespace ``M`` is a fresh object, not the
installed engine's.

``read_page(evaluate)`` takes the tab's ``evaluate(function_source)`` (for the
browser host, ``TabRuntime.evaluate``, over the tab's CDP session) and returns
the page description ``draft.draft_map`` turns into a map. ``native_submits(page)``
adds what JSON cannot carry: whether the page's script listens for each form's
submission (then a submit may stay on the page), or the browser's own
submission loads another page.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from playwright.async_api import CDPSession, Page

from ..runtimes.page_script import module_source

__all__ = ["ENGINE_MODULES_USED", "busy_count", "native_submits", "read_page", "read_rows", "reader_source"]

#: The engine modules the reader runs on, in the engine's own load order.
#: core.js and geometry.js read intrinsics.js; dom.js reads reach.js.
ENGINE_MODULES_USED: tuple[str, ...] = ("intrinsics.js", "core.js", "geometry.js", "reach.js", "dom.js", "click_point.js", "editors.js", "names.js", "locator_filters.js", "locators.js", "describe.js")

Evaluate = Callable[[str], Awaitable[Any]]


@functools.cache
def _modules() -> str:
    parts = [module_source(name) for name in ENGINE_MODULES_USED]
    for own in ("reader.js", "reader_explore.js"):  # the page description, then what exploring reads
        parts.append(resources.files("mcp_actions.authoring").joinpath(own).read_text(encoding="utf-8"))
    return "".join(f"(function (M, root) {{\n{part.rstrip()}\n}})(M, root);\n" for part in parts)


def reader_source(entry: str = "readPage", *args: Any) -> str:
    """A JavaScript function source: ``() => M.<entry>(...args)`` with the engine's modules and the reader loaded into a fresh ``M``.

    ``args`` go in as JSON literals (a JSON value is a JavaScript expression), never spliced as code.
    """
    given = ", ".join(json.dumps(arg, ensure_ascii=False) for arg in args)
    return f'function () {{\n"use strict";\nvar root = window, M = {{}};\n{_modules()}return M.{entry}({given});\n}}'


async def read_page(evaluate: Evaluate) -> dict[str, Any]:
    """The page description (see ``reader.js``: url, title, forms, search boxes, buttons, links, status regions)."""
    page = await evaluate(reader_source("readPage"))
    if not isinstance(page, dict):
        raise TypeError(f"the page reader answered {type(page).__name__}, not an object")
    return page


async def read_rows(evaluate: Evaluate, probe: str) -> dict[str, Any]:
    """Where the text ``probe`` shows now (``reader_explore.js`` ``readRows``): ``{found, count, row?}``, the row's selector, title and controls."""
    rows = await evaluate(reader_source("readRows", probe))
    return rows if isinstance(rows, dict) else {"found": False}


async def native_submits(page: Page) -> list[bool]:
    """Per form ``read_page`` reports: True when nothing of the page handles its submission, so submitting loads a page.

    Asked of the browser (CDP ``DOMDebugger.getEventListeners``, on a session of
    its own): a ``submit`` listener on the form, an ancestor or the document, or a
    ``click`` listener on its submit control, means the page's script takes the
    submission (and may or may not navigate); none means the browser's own
    submission, which loads the form's action. The window is not asked: the page
    engine listens for submits there itself.
    """
    session = await page.context.new_cdp_session(page)
    try:
        reply = await session.send("Runtime.evaluate", {"expression": f"({reader_source('submitTargets')})()", "returnByValue": False})
        if "exceptionDetails" in reply or "objectId" not in reply.get("result", {}):
            return []
        answers: list[bool] = []
        for chain in await _items(session, reply["result"]["objectId"]):
            handled = False
            for position, node in enumerate(await _items(session, chain) if chain else []):
                if node is None:
                    continue
                listeners = (await session.send("DOMDebugger.getEventListeners", {"objectId": node})).get("listeners", [])
                wanted = "click" if position == 0 else "submit"
                if any(listener.get("type") == wanted for listener in listeners):
                    handled = True
                    break
            answers.append(not handled)
        return answers
    finally:
        await session.detach()


async def _items(session: CDPSession, object_id: str) -> list[str | None]:
    """The object ids of an array's items, in order (None for null)."""
    reply = await session.send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
    indexed = [(int(p["name"]), p.get("value", {}).get("objectId")) for p in reply.get("result", []) if str(p.get("name", "")).isdigit()]
    return [object_id for _, object_id in sorted(indexed)]


async def busy_count(evaluate: Evaluate) -> int:
    """How many visible elements say ``aria-busy="true"`` (a skeleton, a loading list) now."""
    count = await evaluate(reader_source("readBusy"))
    return int(count) if isinstance(count, int | float) else 0
