"""The page runtime gets the dictionary's data from Python: no JavaScript module keeps a copy.

``page_script`` sets ``M.DICTIONARY_NAMES`` and ``M.EXTENSION_CAPABILITIES``
in the script's header; these tests read ``dictionary.json`` on their own
(not through ``primitive_dictionary``) so that the one reader is checked too.
The live engine's answers (capabilities, capability_unavailable for every
dictionary name it lacks) are checked in ``test_engine.py``.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from mcp_actions.primitive_dictionary import dictionary_names
from mcp_actions.runtimes import page_script
from mcp_actions.runtimes.page_script import BOOT_MODULES, CLIENT_MODULES, ENGINE_EXTENSIONS, ENGINE_MODULES, ENGINE_PRIMITIVES

ALL_MODULES = ENGINE_MODULES + CLIENT_MODULES + BOOT_MODULES


def _json_names() -> list[str]:
    document = json.loads(resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text(encoding="utf-8"))
    return [entry["name"] for entry in document["primitives"]]


def _header_value(script: str, name: str) -> Any:
    found = re.findall(rf"^  M\.{name} = (.*);$", script, re.M)
    assert len(found) == 1, f"M.{name} is set {len(found)} times"
    return json.loads(found[0])


SCRIPTS = [
    pytest.param(page_script.engine_js, id="engine_js"),  # what the Playwright host injects
    pytest.param(page_script.runtime_js, id="runtime_js"),  # what the bridge serves at /runtime.js
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_header_sets_the_dictionary_names_and_extensions(script: Any) -> None:
    text = script()
    assert _header_value(text, "DICTIONARY_NAMES") == _json_names()
    assert _header_value(text, "EXTENSION_CAPABILITIES") == list(ENGINE_EXTENSIONS)
    # Set before the first module runs, so any module may read them at its top.
    first_module = text.index(f"// ---- {ALL_MODULES[0]} ----")
    assert all(text.index(f"M.{name} = ") < first_module for name in page_script.injected())


def test_the_one_reader_gives_the_json_names_in_document_order() -> None:
    assert list(dictionary_names()) == _json_names()
    assert page_script.injected()["DICTIONARY_NAMES"] == _json_names()


def test_each_extension_is_an_argument_capability_of_a_primitive_the_engine_has() -> None:
    document = json.loads(resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text(encoding="utf-8"))
    needed = {c for entry in document["primitives"] if entry["name"] in ENGINE_PRIMITIVES for caps in entry.get("argument_capabilities", {}).values() for c in caps}
    assert set(ENGINE_EXTENSIONS) <= needed


@pytest.mark.parametrize("module", ALL_MODULES)
def test_no_module_retypes_the_dictionary(module: str) -> None:
    source = page_script.module_source(module)
    # The injected names are read from M, never assigned a literal of their own.
    for name in page_script.injected():
        assert not re.search(rf"\b{name}\s*=\s*\[", source), f"{module} declares its own {name}"
    # No name of a primitive the engine does not implement is spelt out (engine.js once listed them all).
    spelt = [name for name in _json_names() if name not in ENGINE_PRIMITIVES and f'"{name}"' in source]
    assert spelt == []


def test_a_value_cannot_close_an_inline_script() -> None:
    # The header's JSON is also JavaScript inside <script> when a page inlines the runtime.
    assert page_script._js_literal(["</script>"]) == '["\\u003c/script>"]'
