"""Everything the browser host runs in a page is strict (docs/threat-model.md, finding 7).

A page function the host's code calls (a replaced built-in, a getter the page put on its document) can
read the arguments of every sloppy function on the stack through ``caller`` and V8's call sites; a
strict function's cannot be read. Each module of the host that evaluates JavaScript in a page keeps its
functions as module constants: every one of them must open with "use strict" and take simple
parameters (destructuring runs the page's array iterator, and a function with such parameters cannot be
strict).
"""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from mcp_actions.runtimes import browser, clipboard, document, frame, outbox, tab

# A function's source: `function (...) {`, `(...) => {` or `async (...) => {`, then its first statement.
_FUNCTION = re.compile(r"^\s*(?:async\s+)?(?:function\s*\w*\s*\((?P<p1>[^)]*)\)|\((?P<p2>[^)]*)\)\s*=>)\s*(?P<body>\{)?")
_STRICT = re.compile(r'^\s*\{\s*"use strict";')
_MODULES: tuple[ModuleType, ...] = (outbox, document, tab, frame, clipboard, browser)


def _sources() -> list[tuple[str, str]]:
    """Every module constant of the host that is a JavaScript function's source: (name, source)."""
    found: list[tuple[str, str]] = []
    for module in _MODULES:
        for name, value in vars(module).items():
            if isinstance(value, str) and name.lstrip("_").isupper() and _FUNCTION.match(value) and value not in (v for _, v in found):
                found.append((f"{module.__name__}.{name}", value))  # once, in the module that defines it
    return found


def test_the_host_has_functions_to_check() -> None:
    names = {name.rsplit(".", 1)[1] for name, _ in _sources()}
    assert {"_MAKE", "CONFIGURE", "LISTEN", "_TAKE", "_TITLE", "_CHANNEL", "_APPLY_ATTACHMENTS", "_ENGINE_CALL", "_PROBE_POINT", "_IO"} <= names


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_every_function_the_host_runs_in_a_page_is_strict(name: str, source: str) -> None:
    match = _FUNCTION.match(source)
    assert match is not None
    parameters = match.group("p1") if match.group("p1") is not None else match.group("p2")
    assert "[" not in parameters and "{" not in parameters and "=" not in parameters, f"{name} takes non-simple parameters"
    assert match.group("body"), f"{name} has an expression body, which cannot say \"use strict\""
    assert _STRICT.match(source[match.start("body") :]), f"{name} does not open with \"use strict\""
