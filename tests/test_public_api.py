"""Each package declares its public surface: ``__all__`` in its ``__init__``, every name described in its docstring.

As httpx does, the test holds the export list and the documentation to each
other, so a name cannot be exported silently or documented without existing.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import mcp_actions

PACKAGES = sorted(
    info.name for info in pkgutil.iter_modules(mcp_actions.__path__, prefix="mcp_actions.") if info.ispkg
)


def test_every_package_is_checked():
    assert {"mcp_actions.bridge", "mcp_actions.manifest", "mcp_actions.runtimes", "mcp_actions.server", "mcp_actions.workflow"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_package_declares_and_documents_its_exports(name):
    package = importlib.import_module(name)
    doc = package.__doc__ or ""
    # A docstring that says what the package does, not just its name.
    assert len(doc.split()) >= 8, f"{name}: the docstring should say what the package is for"
    exports = getattr(package, "__all__", None)
    assert exports, f"{name}: no __all__"
    assert len(set(exports)) == len(exports), f"{name}: __all__ repeats a name"
    missing = [export for export in exports if not hasattr(package, export)]
    assert missing == [], f"{name}: exported but not defined: {missing}"
    undocumented = [export for export in exports if not re.search(rf"(?<![\w.]){re.escape(export)}(?!\w)", doc)]
    assert undocumented == [], f"{name}: exported but not named in the docstring: {undocumented}"


def test_no_two_public_classes_share_a_name():
    # One name per concept across the package: two ToolExecution classes (a plan and a run)
    # once meant two things, and a reader could not tell from an import which one was meant.
    import ast
    from collections import defaultdict
    from pathlib import Path

    root = Path(mcp_actions.__file__).resolve().parent
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(root)))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}
