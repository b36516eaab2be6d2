"""Composition of imports: namespacing, conflicts, cycles, failures as problems, origins and trust.

Local, package and storage sources are real files (tests/fixtures/imports/,
the bundled manifests, tmp_path); http sources are covered in test_sources.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.catalog.catalog import Catalog
from mcp_actions.manifest.compose import Composition, ToolOrigin, compose
from mcp_actions.manifest.load import bundled_manifests_dir, load_paths
from mcp_actions.manifest.validate import check_manifest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
COMPOSED = FIXTURES / "composed"
FAILURES = FIXTURES / "failures"
CYCLE = FIXTURES / "cycle"


def tool(name: str, description: str = "a tool", **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": {"type": "object"}, "x_actions": {"handler": "page.run"}, **extra}


def manifest(*tools: dict[str, Any], **root: Any) -> dict[str, Any]:
    return {"protocol": "actions.json", "version": 1, "tools": list(tools), **root}


def write(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
    return path


def compose_file(path: Path, **options: Any) -> Composition:
    document = json.loads(path.read_text())
    assert check_manifest(document).valid, check_manifest(document).errors
    return compose(document, source=str(path), base_dir=path.parent, **options)


def names(document: dict[str, Any], key: str, name_key: str = "name") -> list[str]:
    return [entry[name_key] for entry in document.get(key, [])]


def codes(composition: Composition) -> list[tuple[str, str, str]]:
    return [(p.severity, p.code, p.path) for p in composition.problems]


# ------------------------------------------------------------------ namespacing


def test_nested_imports_namespace_every_name_and_reference() -> None:
    result = compose_file(COMPOSED / "actions.json")
    doc = result.document
    assert result.problems == []
    assert names(doc, "tools") == ["home.open", "shop.cart.add", "shop.cart.checkout", "shop.common.help.open"]
    assert names(doc, "states") == ["home_ready", "shop.cart_empty", "shop.cart_ready", "shop.common.help_visible"]
    assert names(doc, "signals") == ["shop.cart.changed"]
    assert names(doc, "transitions") == ["shop.add_first_item", "shop.cart_changed_elsewhere"]
    assert names(doc, "context", "id") == ["home.context", "shop.cart.context"]
    assert names(doc, "attachments", "id") == ["shop.cart-badge"]
    assert names(doc, "checks", "id") == ["shop.cart_flow"]
    assert names(doc, "state_projections") == ["shop.cart_state"]

    tools = {t["name"]: t for t in doc["tools"]}
    assert tools["home.open"]["target"]["state"] == "home_ready"  # the root's own names are untouched
    assert tools["shop.cart.add"]["target"]["state"] == "shop.cart_ready"
    assert tools["shop.cart.add"]["x_actions"]["handler"] == "shop.addToCart"  # page code names are not manifest names
    assert tools["shop.cart.add"]["x_actions"]["state_machine"] == {
        "initial_state": "shop.cart_empty",
        "terminal_state": "shop.cart_ready",
        "transitions": ["shop.add_first_item"],
    }
    workflow = tools["shop.cart.checkout"]["workflow"]
    assert workflow["postcondition"] == {"projection": "shop.cart_state"}
    assert workflow["steps"][0]["args"]["locator"]["state"] == "shop.cart_ready"
    assert workflow["steps"][0]["primitive"] == "locator.text_content"  # primitives are not renamed
    assert tools["shop.common.help.open"]["target"]["state"] == "shop.common.help_visible"

    states = {s["name"]: s for s in doc["states"]}
    assert states["shop.cart_empty"]["diagnostics"][0]["target"]["state"] == "shop.cart_empty"

    first, second = doc["transitions"]
    assert (first["from"], first["to"], first["tool"]) == ("shop.cart_empty", "shop.cart_ready", "shop.cart.add")
    assert first["preconditions"] == ["shop.cart_empty", "item_in_stock"]  # free-form conditions stay
    assert second["signal"] == "shop.cart.changed"

    cart_context = doc["context"][1]
    assert cart_context["available_tools"] == ["shop.cart.add", "shop.cart.checkout", "shop.common.help.open"]
    assert cart_context["load_when"]["states"] == ["shop.cart_ready", "shop.common.help_visible"]
    assert cart_context["next_states"] == ["shop.cart_ready"]

    attachment = doc["attachments"][0]
    assert attachment["target"]["state"] == "shop.cart_ready"
    assert attachment["affordance"]["opens"]["tool"] == "shop.cart.add"
    assert attachment["signals"] == {"attached": "shop.cart.changed"}

    assert doc["signals"][0]["target"]["state"] == "shop.cart_ready"
    check = doc["checks"][0]
    assert check["assertions"][0]["target"]["state"] == "shop.cart_ready"
    assert check["assertions"][1] == {"state": "shop.cart_ready", "attachment": "shop.cart-badge"}
    assert check["steps"][0]["tool"] == "shop.cart.add"


def test_composed_document_passes_the_validator_and_the_input_is_not_mutated() -> None:
    document = json.loads((COMPOSED / "actions.json").read_text())
    before = json.dumps(document, sort_keys=True)
    result = compose(document, source=str(COMPOSED / "actions.json"), base_dir=COMPOSED)
    report = check_manifest(result.document)
    assert report.errors == ()
    assert json.dumps(document, sort_keys=True) == before


def test_disabled_import_is_skipped_even_though_its_file_is_missing() -> None:
    result = compose_file(COMPOSED / "actions.json")
    assert not any(p.path.startswith("/imports/1") for p in result.problems)
    assert not any(name.startswith("off.") for name in names(result.document, "tools"))


def test_origins_of_nested_imports_name_file_import_chain_and_namespace() -> None:
    result = compose_file(COMPOSED / "actions.json", trust="local")
    assert result.origins == {
        "home.open": ToolOrigin(source=str(COMPOSED / "actions.json"), trust="local"),
        "shop.cart.add": ToolOrigin(str(COMPOSED / "shop" / "actions.json"), "local", "shop-map", "shop"),
        "shop.cart.checkout": ToolOrigin(str(COMPOSED / "shop" / "actions.json"), "local", "shop-map", "shop"),
        "shop.common.help.open": ToolOrigin(str(COMPOSED / "common" / "actions.json"), "local", "shop-map/common-help", "shop.common"),
    }


def test_a_diamond_is_not_a_cycle(tmp_path: Path) -> None:
    common = COMPOSED / "common" / "actions.json"
    root = write(
        tmp_path / "actions.json",
        manifest(
            tool("own"),
            imports=[
                {"id": "left", "kind": "local", "uri": common.as_uri(), "namespace": "left"},
                {"id": "right", "kind": "local", "uri": common.as_uri(), "namespace": "right"},
            ],
        ),
    )
    result = compose_file(root, local_root=FIXTURES.parent.parent)
    assert result.problems == []
    assert names(result.document, "tools") == ["own", "left.help.open", "right.help.open"]


def test_unnamespaced_import_merges_plain_names_when_allowed(tmp_path: Path) -> None:
    write(tmp_path / "lib.json", manifest(tool("lib.run"), states=[{"name": "lib_ready"}]))
    root = write(
        tmp_path / "actions.json",
        manifest(tool("own"), imports=[{"id": "lib", "kind": "local", "uri": "lib.json"}], composition={"namespace_required": False}),
    )
    result = compose_file(root)
    assert result.problems == []
    assert names(result.document, "tools") == ["own", "lib.run"]
    assert names(result.document, "states") == ["lib_ready"]
    assert result.origins["lib.run"] == ToolOrigin(str(tmp_path / "lib.json"), "local", "lib", None)


def test_package_import_resolves_inside_the_bundled_manifests() -> None:
    document = manifest(tool("own"), imports=[{"id": "demo", "kind": "package", "uri": "package:demo/actions.json", "namespace": "bundled"}])
    result = compose(document, source="inline", trust="local")
    assert result.problems == []
    bundled = json.loads((bundled_manifests_dir() / "demo" / "actions.json").read_text())
    assert names(result.document, "tools") == ["own", *(f"bundled.{t['name']}" for t in bundled["tools"])]
    origin = result.origins["bundled.demo.add_task"]
    assert origin == ToolOrigin(str((bundled_manifests_dir() / "demo" / "actions.json").resolve()), "local", "demo", "bundled")


# ------------------------------------------------------------------ failures


def _failing_root(entry: dict[str, Any], composition: dict[str, Any] | None = None) -> dict[str, Any]:
    # Two disabled imports come first, so a wrong index in a pointer would show.
    disabled = [{"id": f"off{i}", "kind": "local", "uri": "ok.json", "namespace": f"off{i}", "enabled": False} for i in range(2)]
    root = manifest(tool("own"), imports=[*disabled, {"id": "under-test", **entry}])
    if composition is not None:
        root["composition"] = composition
    return root


FAILURE_CASES = [
    # a file that does not exist
    ({"kind": "local", "uri": "missing.json", "namespace": "x"}, "import_not_found", "/imports/2/uri"),
    # truncated JSON
    ({"kind": "local", "uri": "not-json.json", "namespace": "x"}, "import_invalid_json", "/imports/2/uri"),
    # NaN is not JSON, though Python's parser accepts it
    ({"kind": "local", "uri": "nan.json", "namespace": "x"}, "import_invalid_json", "/imports/2/uri"),
    # a repeated key is ambiguous, so it is refused
    ({"kind": "local", "uri": "duplicate-keys.json", "namespace": "x"}, "import_invalid_json", "/imports/2/uri"),
    # bytes that are not UTF-8
    ({"kind": "local", "uri": "not-utf8.json", "namespace": "x"}, "import_invalid_json", "/imports/2/uri"),
    # the import's own validation errors
    ({"kind": "local", "uri": "invalid-manifest.json", "namespace": "x"}, "import_invalid", "/imports/2/uri"),
    # a problem two levels down is reported at the outer import
    ({"kind": "local", "uri": "nested-broken.json", "namespace": "x"}, "import_not_found", "/imports/2/uri"),
    # '..' climbing out of the root
    ({"kind": "local", "uri": "../outside/secret.json", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # an absolute path outside the root
    ({"kind": "local", "uri": str(FIXTURES / "outside" / "secret.json"), "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # a file: URI outside the root
    ({"kind": "local", "uri": (FIXTURES / "outside" / "secret.json").as_uri(), "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # website and public imports never name absolute local paths, even inside the root
    ({"kind": "website", "uri": str(FAILURES / "ok.json"), "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    ({"kind": "public", "uri": str(FAILURES / "ok.json"), "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # an unsupported scheme
    ({"kind": "website", "uri": "ftp://example.com/actions.json", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # plain http to a host that is not loopback
    ({"kind": "website", "uri": "http://example.com/actions.json", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # a package path climbing out of the bundled manifests
    ({"kind": "package", "uri": "package:../pyproject.toml", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # a bundled manifest that does not exist
    ({"kind": "package", "uri": "no-such-bundle/actions.json", "namespace": "x"}, "import_not_found", "/imports/2/uri"),
    # a storage URI with no storage root configured
    ({"kind": "storage", "uri": "storage:sites/example.com", "namespace": "x"}, "import_not_found", "/imports/2/uri"),
    # a malformed storage URI
    ({"kind": "storage", "uri": "storage:example.com", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # a storage URI on an import of another kind
    ({"kind": "local", "uri": "storage:sites/example.com", "namespace": "x"}, "import_uri_forbidden", "/imports/2/uri"),
    # no namespace while namespace_required defaults to true
    ({"kind": "local", "uri": "ok.json"}, "import_namespace_required", "/imports/2/namespace"),
]


@pytest.mark.parametrize(("entry", "code", "pointer"), FAILURE_CASES, ids=[f"{c}:{e['uri']}" for e, c, _ in FAILURE_CASES])
def test_import_failures_are_problems_with_exact_code_and_pointer(entry: dict[str, Any], code: str, pointer: str) -> None:
    result = compose(_failing_root(entry), source=str(FAILURES / "root.actions.json"), base_dir=FAILURES)
    assert {(p.severity, p.code, p.path) for p in result.problems} == {("error", code, pointer)}
    assert names(result.document, "tools") == ["own"]  # nothing of a failed import is merged


def test_import_invalid_names_the_imported_file_and_its_pointers() -> None:
    result = compose(_failing_root({"kind": "local", "uri": "invalid-manifest.json", "namespace": "x"}), source=str(FAILURES / "r.json"), base_dir=FAILURES)
    messages = [p.message for p in result.problems]
    imported = str(FAILURES / "invalid-manifest.json")
    assert any(m.startswith(f"{imported}#/version: unsupported_version") for m in messages), messages
    assert any(m.startswith(f"{imported}#/tools/0/name: invalid_identifier") for m in messages), messages


def test_nested_failure_message_names_the_inner_file_and_pointer() -> None:
    result = compose(_failing_root({"kind": "local", "uri": "nested-broken.json", "namespace": "x"}), source=str(FAILURES / "r.json"), base_dir=FAILURES)
    (problem,) = result.problems
    assert problem.message.startswith(f"{FAILURES / 'nested-broken.json'}#/imports/0/uri: nowhere.json")


def test_a_directory_import_means_its_actions_json() -> None:
    result = compose(_failing_root({"kind": "local", "uri": "as-directory", "namespace": "dir"}), source=str(FAILURES / "r.json"), base_dir=FAILURES)
    assert result.problems == []
    assert names(result.document, "tools") == ["own", "dir.ok"]


def test_inline_manifest_cannot_import_local_files() -> None:
    result = compose(manifest(tool("own"), imports=[{"id": "f", "kind": "local", "uri": "ok.json", "namespace": "f"}]), source="runtime:r1", trust="website")
    assert codes(result) == [("error", "import_uri_forbidden", "/imports/0/uri")]


def test_import_budget_bounds_fan_out(tmp_path: Path) -> None:
    write(tmp_path / "leaf.json", manifest(tool("leaf")))
    entries = [{"id": f"i{n}", "kind": "local", "uri": "leaf.json", "namespace": f"n{n}"} for n in range(3)]
    root = write(tmp_path / "actions.json", manifest(tool("own"), imports=entries))
    result = compose_file(root, max_imports=2)
    assert codes(result) == [("error", "import_limit_exceeded", "/imports/2/uri")]


# ------------------------------------------------------------------ cycles


CYCLE_CASES = [
    # A imports B, which imports A
    ("a.actions.json", ["a.actions.json", "b.actions.json", "a.actions.json"]),
    # A imports itself
    ("self.actions.json", ["self.actions.json", "self.actions.json"]),
    # three files in a ring
    ("x.actions.json", ["x.actions.json", "y.actions.json", "z.actions.json", "x.actions.json"]),
]


@pytest.mark.parametrize(("start", "chain"), CYCLE_CASES, ids=[c[0] for c in CYCLE_CASES])
def test_cycles_are_detected_at_any_depth(start: str, chain: list[str]) -> None:
    result = compose_file(CYCLE / start)
    (problem,) = result.problems
    assert (problem.severity, problem.code, problem.path) == ("error", "import_cycle", "/imports/0/uri")
    assert problem.message.endswith(" -> ".join(str((CYCLE / name).resolve()) for name in chain))


def test_cycle_makes_the_file_invalid_through_load_paths() -> None:
    result = load_paths([CYCLE / "a.actions.json"])
    (report,) = result.reports
    assert not report.valid
    assert [(p.code, p.path) for p in report.errors] == [("import_cycle", "/imports/0/uri")]
    assert result.manifests == []


# ------------------------------------------------------------------ conflicts


def _conflict_root(tmp_path: Path, composition: dict[str, Any] | None, *, namespace: str | None = "ext") -> Path:
    imported_name = "ping" if namespace else "ext.ping"
    write(tmp_path / "ext.json", manifest(tool(imported_name, "imported ping"), states=[{"name": "ready" if namespace is None else "x"}]))
    entry: dict[str, Any] = {"id": "ext", "kind": "local", "uri": "ext.json"}
    if namespace:
        entry["namespace"] = namespace
    root = manifest(tool("ext.ping", "local ping"), states=[{"name": "ready"}], imports=[entry])
    if composition is not None:
        root["composition"] = composition
    return write(tmp_path / "actions.json", root)


CONFLICT_CASES = [
    # no composition object: prefer_local, a warning
    (None, "ext", "warning", "local ping", "local"),
    # prefer_local keeps the importing map's entry
    ({"default_conflict_policy": "prefer_local"}, "ext", "warning", "local ping", "local"),
    # prefer_import replaces it with the import's
    ({"default_conflict_policy": "prefer_import"}, "ext", "warning", "imported ping", "import"),
    # error: the conflict is an error
    ({"default_conflict_policy": "error"}, "ext", "error", "local ping", "local"),
    # an un-namespaced import conflicts on its plain names, tools and states alike
    ({"namespace_required": False, "default_conflict_policy": "prefer_import"}, None, "warning", "imported ping", "import"),
]


@pytest.mark.parametrize(("composition", "namespace", "severity", "winner", "origin"), CONFLICT_CASES)
def test_conflicts_follow_the_policy_and_are_never_silent(
    tmp_path: Path, composition: dict[str, Any] | None, namespace: str | None, severity: str, winner: str, origin: str
) -> None:
    root = _conflict_root(tmp_path, composition, namespace=namespace)
    result = compose_file(root)
    conflicts = [p for p in result.problems if p.code == "name_conflict"]
    expected = 2 if namespace is None else 1  # the plain-name case also clashes on state 'ready'
    assert [(p.severity, p.path) for p in conflicts] == [(severity, "/imports/0")] * expected
    assert all(str(root) in p.message and str(tmp_path / "ext.json") in p.message for p in conflicts)
    assert "tool 'ext.ping'" in conflicts[0].message
    pings = [t for t in result.document["tools"] if t["name"] == "ext.ping"]
    assert [t["description"] for t in pings] == [winner]
    expected_source = str(root) if origin == "local" else str(tmp_path / "ext.json")
    assert result.origins["ext.ping"].source == expected_source


def test_conflict_between_two_imports(tmp_path: Path) -> None:
    write(tmp_path / "one.json", manifest(tool("run", "first")))
    write(tmp_path / "two.json", manifest(tool("run", "second")))
    imports = [{"id": "one", "kind": "local", "uri": "one.json", "namespace": "lib"}, {"id": "two", "kind": "local", "uri": "two.json", "namespace": "lib"}]
    root = write(tmp_path / "actions.json", manifest(tool("own"), imports=imports))
    result = compose_file(root)
    assert codes(result) == [("warning", "name_conflict", "/imports/1")]
    assert "import 'one'" in result.problems[0].message and "import 'two'" in result.problems[0].message
    assert [t["description"] for t in result.document["tools"]] == ["a tool", "first"]


def test_unknown_conflict_policy_is_an_error(tmp_path: Path) -> None:
    root = _conflict_root(tmp_path, {"default_conflict_policy": "merge_silently"})
    result = compose_file(root)
    assert codes(result) == [("error", "invalid_value", "/composition/default_conflict_policy")]


def test_conflict_policy_error_makes_load_paths_report_the_file_invalid(tmp_path: Path) -> None:
    root = _conflict_root(tmp_path, {"default_conflict_policy": "error"})
    result = load_paths([root])
    assert [(p.code, p.path) for p in result.reports[0].errors] == [("name_conflict", "/imports/0")]
    assert result.manifests == []


def test_prefer_local_warning_still_loads(tmp_path: Path) -> None:
    root = _conflict_root(tmp_path, None)
    result = load_paths([root])
    (loaded,) = result.manifests
    assert [(p.code, p.path) for p in loaded.report.warnings] == [("name_conflict", "/imports/0")]


# ------------------------------------------------------------------ trust


TRUST_CASES = [
    # a local import without trust gets its kind's default
    ("local", {}, "local", "local"),
    # a declared trust is used
    ("local", {"trust": "shared"}, "local", "shared"),
    # a public map cannot raise its import to private
    ("local", {"trust": "private"}, "public", "public"),
    # package imports default to local, capped by a website map
    ("package", {}, "website", "website"),
    # an explicitly unknown trust stays unknown
    ("local", {"trust": "unknown"}, "local", "unknown"),
]


@pytest.mark.parametrize(("kind", "extra", "root_trust", "expected"), TRUST_CASES)
def test_import_trust(kind: str, extra: dict[str, Any], root_trust: str, expected: str) -> None:
    uri = "package:demo/actions.json" if kind == "package" else "ok.json"
    document = manifest(tool("own"), imports=[{"id": "t", "kind": kind, "uri": uri, "namespace": "t", **extra}])
    result = compose(document, source=str(FAILURES / "root.actions.json"), base_dir=FAILURES, trust=root_trust)
    assert result.problems == []
    assert result.origins["own"].trust == root_trust
    imported = [origin for name, origin in result.origins.items() if name != "own"]
    assert imported and {o.trust for o in imported} == {expected}


def test_origins_reach_tool_provenance_through_load_paths_and_the_catalog() -> None:
    meta = FIXTURES / "meta"
    catalog = Catalog()
    catalog.set_manifests(load_paths([meta / "actions.json"]).manifests)
    bindings = [binding for binding in catalog.tools.values() if binding.kind != "builtin"]
    metas = {binding.name: binding.meta() for binding in bindings}
    provenance = {binding.name: binding.provenance() for binding in bindings}
    assert {name: (p["source"], p["trust"], p["manifest"]) for name, p in provenance.items()} == {
        "own.run": (str(meta / "actions.json"), "local", "meta"),
        # declared trust 'shared' on the import; the nested import (kind local, default local) is capped at shared
        "lib.run": (str(meta / "lib" / "actions.json"), "shared", "meta"),
        "lib.inner.run": (str(meta / "lib" / "inner" / "actions.json"), "shared", "meta"),
    }
    assert all(m["mcp-actions/tool"] == name for name, m in metas.items())
