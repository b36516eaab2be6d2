"""The page reader of ``init`` loads every engine module its modules call into.

The reader joins only a part of the engine (``authoring/reader.py`` ``ENGINE_MODULES_USED``). When an
engine module it loads starts calling a function of a module it does not load, every draft fails in
the page ("M.rectOf is not a function", then "M.isEditorField is not a function", each time only
in the full run of the authoring tests). This reads the modules' text: each ``M.name`` a loaded module
uses is defined by itself or by a module loaded before it, in the engine's own order.
"""

from __future__ import annotations

import re

from mcp_actions.authoring.reader import ENGINE_MODULES_USED
from mcp_actions.runtimes.page_script import ENGINE_MODULES, module_source

#: Names used but not loaded, each with why that is safe.
NOT_NEEDED = {
    "isInteractiveElement": "dom.js reads it only behind `M.isInteractiveElement &&`",
    "inFrame": "describe.js reads it only behind `M.inFrame &&`",
    "elementOfRef": "only refs.describe's handler (describe.js) reads it, and the reader never calls that primitive",
}
_DEFINED = re.compile(r"\bM\.([A-Za-z_]\w*)\s*=(?!=)")
_USED = re.compile(r"\bM\.([A-Za-z_]\w*)\b")


def test_the_reader_loads_its_modules_in_the_engines_order() -> None:
    order = [module for module in ENGINE_MODULES if module in ENGINE_MODULES_USED]
    assert list(ENGINE_MODULES_USED) == order


def test_every_function_the_readers_modules_call_is_loaded_before_them() -> None:
    defined: set[str] = set()
    missing: dict[str, list[str]] = {}
    for module in ENGINE_MODULES_USED:
        source = module_source(module)
        own = set(_DEFINED.findall(source))
        unknown = set(_USED.findall(source)) - own - defined - set(NOT_NEEDED)
        if unknown:
            missing[module] = sorted(unknown)
        defined |= own
    assert missing == {}
