"""The manifest package's declared public API, and its place in the layers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mcp_actions.manifest as package

ROOT = Path(package.__file__).parent


def test_every_export_is_documented_and_resolves() -> None:
    documented = set(re.findall(r"``([A-Za-z_]+)(?:\(|``)", package.__doc__ or ""))
    assert set(package.__all__) <= documented
    for name in package.__all__:
        assert getattr(package, name) is not None


#: The modules below every package (they import nothing of ours but each other).
LOW_LEVEL = ("errors", "jsonutil", "defaults", "bounded_regex", "schema_check", "primitive_dictionary")

#: Libraries imported where they are first needed, not at start: a server that compiles no
#: expression or fetches no remote import never pays for loading them (issue 55).
LAZY_LIBRARIES = ("jsonata", "httpx")


def test_no_lazy_string_or_upward_imports() -> None:
    """manifest/ imports at module level only (but the ``LAZY_LIBRARIES``), never by string, and nothing above it in the layers."""
    upward = ("workflow", "bridge", "runtimes", "catalog", "dispatch", "actions_app", "server", "cli", "demo", "mcp")
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [alias.name for alias in node.names]
                lazy = all(name.split(".")[0] in LAZY_LIBRARIES for name in names) and not getattr(node, "level", 0)
                assert id(node) in top_level or lazy, f"{path.name}:{node.lineno}: import inside a function"
                for name in names:
                    if isinstance(node, ast.ImportFrom) and node.level:
                        # A relative import that climbs to mcp_actions itself may reach only the layers below.
                        if node.level > (2 if path.parent.name == "rules" else 1):
                            assert name.split(".")[0] in LOW_LEVEL, f"{path.name}:{node.lineno}: imports {name}"
                    else:
                        parts = name.split(".")
                        assert parts[0] not in upward, f"{path.name}:{node.lineno}: imports {name}"
                        if parts[0] == "mcp_actions" and len(parts) > 1:
                            assert parts[1] in (*LOW_LEVEL, "manifest"), f"{path.name}:{node.lineno}: imports {name}"
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__"):
                raise AssertionError(f"{path.name}:{node.lineno}: string import")
