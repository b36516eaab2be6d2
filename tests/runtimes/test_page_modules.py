"""The page runtime's module layout: every module shipped, small, and declared in order."""

from __future__ import annotations

import re
from importlib import resources

from mcp_actions.runtimes import page_script
from mcp_actions.runtimes.page_script import BOOT_MODULES, CLIENT_MODULES, ENGINE_MODULES, ENGINE_PRIMITIVES

MAX_MODULE_LINES = 400
ALL_MODULES = ENGINE_MODULES + CLIENT_MODULES + BOOT_MODULES


def test_every_module_file_is_declared_once_and_exists() -> None:
    shipped = {p.name for p in resources.files("mcp_actions.runtimes").joinpath("page").iterdir() if p.name.endswith(".js")}
    assert len(ALL_MODULES) == len(set(ALL_MODULES))
    assert shipped == set(ALL_MODULES)


def test_no_module_exceeds_the_size_limit() -> None:
    sizes = {name: len(page_script.module_source(name).splitlines()) for name in ALL_MODULES}
    assert all(0 < n <= MAX_MODULE_LINES for n in sizes.values()), sizes


def test_modules_use_only_what_earlier_modules_registered() -> None:
    # `var x = M.x` at a module's top must name something a module before it set (`M.x = ...`),
    # or something the script's header sets from Python before any module runs.
    registered: set[str] = set(page_script.injected())
    for name in ALL_MODULES:
        source = page_script.module_source(name)
        used = set(re.findall(r"\b\w+ = M\.(\w+)[,;]", source))
        missing = used - registered
        assert not missing, f"{name} uses {sorted(missing)} before any module registers it"
        registered |= set(re.findall(r"^M\.(\w+) = ", source, re.M))


def test_engine_primitives_are_the_registrations_in_module_order() -> None:
    # The live engine's capabilities() is compared with ENGINE_PRIMITIVES in test_engine.py.
    # definePrimitive registers; overlay.js's defineLocked registers and locks its entries (docs/overlays.md).
    names = [n for m in ENGINE_MODULES for n in re.findall(r'^(?:definePrimitive|defineLocked)\("([^"]+)"', page_script.module_source(m), re.M)]
    assert tuple(names) == ENGINE_PRIMITIVES


def test_engine_js_is_runtime_js_without_the_client() -> None:
    assert "// ---- client.js ----" in page_script.runtime_js()
    assert "// ---- client.js ----" not in page_script.engine_js()
    assert page_script.engine_js().count("// ---- ") == len(ENGINE_MODULES + BOOT_MODULES)
