"""The bridge package declares its public surface: exported, importable, and described."""

from __future__ import annotations

import re

import mcp_actions.bridge as bridge_package


def test_every_export_is_importable_and_described_in_the_docstring() -> None:
    doc = bridge_package.__doc__ or ""
    assert bridge_package.__all__, "the package re-exports its public surface"
    for name in bridge_package.__all__:
        assert getattr(bridge_package, name, None) is not None, name
        assert re.search(rf"``{name}``", doc), f"{name} is exported but the package docstring does not describe it"
    assert "bridge package." not in doc


def test_the_bridge_does_not_import_the_runtimes_or_mcp() -> None:
    # The page runtime's text reaches the bridge from the composition root, and the
    # dictionary through its low-level loader: the bridge's own modules point down only.
    import pathlib

    root = pathlib.Path(bridge_package.__file__).parent
    for module in sorted(root.glob("*.py")):
        source = module.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+(\.\.runtimes|mcp_actions\.runtimes|mcp\b|mcp_types\b)", source, re.M), module.name
        assert "importlib" not in source, module.name  # no string imports to dodge layers
