"""Reading a live page for ``mcp-actions init``: one JavaScript function evaluated in the tab.

The function is ``reader.js`` (beside this file) run after the page engine's own
``core.js``, ``dom.js``, ``names.js`` and ``locators.js`` (read through
``runtimes.page_script.module_source``, joined the way ``page_script`` joins the
engine: each module the body of a ``function (M, root)``). So what the reader
calls a role, an accessible name, visible, or a locator that names one element
is what the engine will find when the drafted map runs. The page is left as it
was: the function only reads, and its namespace ``M`` is a fresh object, not the
installed engine's.

``read_page(evaluate)`` takes the tab's ``evaluate(function_source)`` (for the
browser host, ``TabRuntime.evaluate``, over the tab's CDP session) and returns
the page description ``draft.draft_map`` turns into a map.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from ..runtimes.page_script import module_source

__all__ = ["ENGINE_MODULES_USED", "busy_count", "read_page", "reader_source"]

#: The engine modules the reader runs on, in the engine's own load order.
ENGINE_MODULES_USED: tuple[str, ...] = ("core.js", "dom.js", "names.js", "locators.js")

Evaluate = Callable[[str], Awaitable[Any]]


@functools.cache
def _modules() -> str:
    parts = [module_source(name) for name in ENGINE_MODULES_USED]
    parts.append(resources.files("mcp_actions.authoring").joinpath("reader.js").read_text(encoding="utf-8"))
    return "".join(f"(function (M, root) {{\n{part.rstrip()}\n}})(M, root);\n" for part in parts)


def reader_source(entry: str = "readPage") -> str:
    """A JavaScript function source: ``() => M.<entry>()`` with the engine's modules and the reader loaded into a fresh ``M``."""
    return f'function () {{\n"use strict";\nvar root = window, M = {{}};\n{_modules()}return M.{entry}();\n}}'


async def read_page(evaluate: Evaluate) -> dict[str, Any]:
    """The page description (see ``reader.js``: url, title, forms, search boxes, buttons, links, status regions)."""
    page = await evaluate(reader_source("readPage"))
    if not isinstance(page, dict):
        raise TypeError(f"the page reader answered {type(page).__name__}, not an object")
    return page


async def busy_count(evaluate: Evaluate) -> int:
    """How many visible elements say ``aria-busy="true"`` (a skeleton, a loading list) now."""
    count = await evaluate(reader_source("readBusy"))
    return int(count) if isinstance(count, int | float) else 0
