"""The layering stays true: the documented layer order, no import cycle, and the core never imports the MCP SDK.

``LAYERS`` is the order ``docs/development.md`` documents, lowest first: a
unit (a subpackage or a top-level module of ``mcp_actions``) imports only
units before it. A new unit must be placed in it, so the order is a decision,
not an accident.

The graph is read from the source (``ast``), so imports inside functions
(lazy ones) count as much as top-level ones, and a module name written as
a string for ``importlib.import_module`` counts too: none of them may hide
a cycle.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import mcp_actions

PACKAGE_ROOT = Path(mcp_actions.__file__).resolve().parent
#: The MCP adapter and the programs around it; everything else is the core.
SHELL = {"server", "launcher", "cli", "demo", "__main__"}

#: Every unit, lowest layer first (the "Layout" list of docs/development.md): each may import only those before it.
LAYERS = (
    # low-level helpers, below every package
    "errors", "jsonutil", "page_chars", "url_secrets", "file_urls", "defaults", "deadline", "events", "ports", "bounded_regex", "schema_check", "primitive_dictionary", "audit_log",
    "manifest", "workflow", "bridge", "operators", "transfer", "runtimes", "extension", "learning",
    "catalog", "projection", "resources", "convert", "protocols",
    "dispatch", "checks", "backplane", "agent_sessions", "app_options", "actions_app", "authoring",
    # the agent protocols' doors that need no MCP SDK (BAP), beside the MCP adapter below
    "bap",
    # the shell: the MCP adapter and the programs
    "server", "launcher", "demo", "cli", "__main__", "docgen",
)  # fmt: skip


def _unit(module: str) -> str:
    """The subpackage (or top-level module) a dotted ``mcp_actions`` module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        relative = path.relative_to(PACKAGE_ROOT).with_suffix("")
        parts = ["mcp_actions", *relative.parts]
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports, absolute, lazy and string imports included."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            yield prefix
            yield from (f"{prefix}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("mcp_actions."):
            yield node.value  # importlib.import_module("mcp_actions.x") and friends


def _units() -> set[str]:
    """The units that exist: each subpackage and top-level module of ``mcp_actions``."""
    return {_unit(module) for module, _ in _modules()} - {"__init__"}


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    units = _units()
    for module, path in _modules():
        unit = _unit(module)
        for target in _imports(module, path):
            if target == "mcp_actions" or not target.startswith("mcp_actions."):
                continue
            other = _unit(target)
            # ``from mcp_actions import __version__`` names the package itself; a logger name such as
            # "mcp_actions.audit" is a string that names no module: neither is a unit.
            if other != unit and other in units:
                graph.setdefault(unit, set()).add(other)
    return graph


def test_every_unit_has_its_place_in_the_layer_order():
    assert sorted(_units() - set(LAYERS)) == [], "place the new unit in LAYERS and in docs/development.md"
    assert sorted(set(LAYERS) - _units()) == [], "a unit in LAYERS no longer exists"


def _upward(graph: dict[str, set[str]], layers: tuple[str, ...] = LAYERS) -> list[str]:
    """The imports that point up (or sideways) in ``layers``."""
    rank = {unit: index for index, unit in enumerate(layers)}
    return [
        f"{unit} imports {other}"
        for unit, others in sorted(graph.items())
        for other in sorted(others)
        if rank.get(other, -1) >= rank.get(unit, len(layers))
    ]


def test_units_import_only_layers_below_them():
    assert _upward(_graph()) == []


def test_the_order_check_sees_an_upward_import():
    # The helper itself must be able to fail: bridge importing dispatch points up.
    assert _upward({"bridge": {"errors", "dispatch"}}) == ["bridge imports dispatch"]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_subpackages_import_each_other_without_cycles():
    assert _cycle(_graph()) is None


def _module_graph() -> dict[str, set[str]]:
    """Each module to the modules it imports (a name imported from a module counts as that module).

    A package's ``__init__`` is left out: it re-exports what its modules define, so it imports
    them and they may import it for a sibling's name without a real circle between two concepts.
    """
    modules = dict(_modules())
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        for target in _imports(module, path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module and modules[target].name != "__init__.py" and path.name != "__init__.py":
                graph.setdefault(module, set()).add(target)
    return graph


def test_modules_import_each_other_without_cycles():
    # Within a package too (issue 43): two modules that import each other, even only for types,
    # are one concept split in two, or one of them needs a narrower protocol of the other.
    assert _cycle(_module_graph()) is None


def test_the_core_imports_nothing_from_the_mcp_sdk():
    offenders = [
        f"{module} imports {target}"
        for module, path in _modules()
        if _unit(module) not in SHELL
        for target in _imports(module, path)
        if target.split(".")[0] in ("mcp", "mcp_types")
    ]
    assert offenders == []


def test_the_checker_sees_a_cycle():
    # The helper itself must be able to fail: a two-node cycle is reported.
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _documented_order(text: str) -> list[str]:
    """The units the "Layout" list of docs/development.md names, in its order (what its brackets say aside)."""
    start = text.index("- Layout, lowest layer first")
    end = text.index("\n- ", start + 1)
    outside, depth = [], 0
    for char in text[start:end]:
        depth += char == "("
        if depth == 0:
            outside.append(char)
        depth -= char == ")" and depth > 0
    order: list[str] = []
    for name in re.findall(r"`([^`]+)`", "".join(outside)):
        if name in LAYERS and name not in order:
            order.append(name)
    return order


def test_the_layer_order_is_the_one_the_docs_document():
    documented = _documented_order((PACKAGE_ROOT.parent / "docs" / "development.md").read_text(encoding="utf-8"))
    assert documented == list(LAYERS), "keep LAYERS and the Layout list of docs/development.md in one order"


def test_the_documented_order_is_read_from_the_list_itself():
    # Names in brackets are what a unit holds, not its place; a swapped pair is seen.
    text = "- Layout, lowest layer first: `errors`, `jsonutil` (not `dispatch`), `dispatch`;\n- next"
    assert _documented_order(text) == ["errors", "jsonutil", "dispatch"]
    assert _documented_order(text.replace("`errors`, `jsonutil`", "`jsonutil`, `errors`")) == ["jsonutil", "errors", "dispatch"]
