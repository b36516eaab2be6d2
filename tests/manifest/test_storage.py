"""Storage scopes: private over shared over public, storage imports, and the boundaries between scopes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.catalog.catalog import Catalog
from mcp_actions.manifest.compose import ToolOrigin, compose
from mcp_actions.manifest.load import load_paths
from mcp_actions.manifest.storage import (
    ShadowedManifest,
    StorageEntry,
    is_storage_root,
    load_storage,
    parse_storage_uri,
    resolve_site,
    site_namespace,
)

STORAGE = Path(__file__).resolve().parents[1] / "fixtures" / "storage"
ROOT = STORAGE / "root"
BOUNDARIES = STORAGE / "boundaries"


def sites(root: Path, scope: str) -> Path:
    return root / "scopes" / scope / "sites"


def test_precedence_chooses_one_manifest_per_site_and_lists_the_shadowed() -> None:
    assert load_storage(ROOT) == [
        StorageEntry(
            "example.com/cart",
            sites(ROOT, "shared") / "example.com/cart/actions.json",
            "shared",
            (ShadowedManifest("example.com/cart", sites(ROOT, "public") / "example.com/cart/actions.json", "public", "shared"),),
        ),
        StorageEntry(
            "example.com/search",
            sites(ROOT, "private") / "example.com/search/actions.json",
            "private",
            (
                ShadowedManifest("example.com/search", sites(ROOT, "shared") / "example.com/search/actions.json", "shared", "private"),
                ShadowedManifest("example.com/search", sites(ROOT, "public") / "example.com/search/actions.json", "public", "private"),
            ),
        ),
        StorageEntry("example.org", sites(ROOT, "public") / "example.org/actions.json", "public", ()),
    ]


def test_missing_scope_directories_are_empty(tmp_path: Path) -> None:
    (tmp_path / "scopes").mkdir()
    assert is_storage_root(tmp_path)
    assert load_storage(tmp_path) == []
    assert not is_storage_root(ROOT / "scopes")


URI_CASES = [
    # a site through the scope precedence
    ("storage:sites/example.com/search", (None, "example.com/search")),
    # a pinned scope
    ("storage:shared/sites/example.com/search", ("shared", "example.com/search")),
    # the manifest's file name may be spelled out
    ("storage:sites/example.org/actions.json", (None, "example.org")),
    # a host with a port
    ("storage:sites/localhost:8080/app", (None, "localhost:8080/app")),
    # climbing out of sites/
    ("storage:sites/../private/sites/x", None),
    # no sites/ segment
    ("storage:example.com", None),
    # an unknown scope reads as a missing sites/ segment
    ("storage:secret/sites/example.com", None),
    # not a storage URI at all
    ("https://example.com/actions.json", None),
    # an empty site key
    ("storage:sites/", None),
]


@pytest.mark.parametrize(("uri", "expected"), URI_CASES)
def test_parse_storage_uri(uri: str, expected: tuple[str | None, str] | None) -> None:
    assert parse_storage_uri(uri) == expected


RESOLVE_CASES = [
    # every scope allowed: private wins
    ("example.com/search", ("private", "shared", "public"), "private"),
    # a shared map sees shared and public
    ("example.com/search", ("shared", "public"), "shared"),
    # a public map sees public only
    ("example.com/search", ("public",), "public"),
    # only public has it
    ("example.org", ("private", "shared", "public"), "public"),
    # nobody has it
    ("example.net", ("private", "shared", "public"), None),
    # a site key that climbs
    ("../../private/sites/example.com/search", ("public",), None),
]


@pytest.mark.parametrize(("site_key", "allowed", "scope"), RESOLVE_CASES)
def test_resolve_site(site_key: str, allowed: tuple[str, ...], scope: str | None) -> None:
    entry = resolve_site(ROOT, site_key, allowed_scopes=allowed)
    assert (entry.scope if entry else None) == scope
    if entry:
        assert entry.path == sites(ROOT, scope) / site_key / "actions.json"


def test_load_paths_loads_chosen_manifests_with_scope_trust_and_site_namespace() -> None:
    result = load_paths([ROOT])
    assert [r.errors for r in result.reports] == [[], [], []]
    loaded = {m.namespace: m for m in result.manifests}
    assert sorted(loaded) == ["example-com-cart", "example-com-search", "example-org"]
    assert loaded["example-com-cart"].model.tools[0].description == "shared cart map"
    assert loaded["example-com-search"].model.tools[0].description == "private search map"
    search = sites(ROOT, "private") / "example.com/search"
    assert loaded["example-com-search"].origins == {
        "search.submit": ToolOrigin(str(search / "actions.json"), "private"),
        # storage:sites/example.org found in the public scope: public trust
        "org.org.home": ToolOrigin(str((sites(ROOT, "public") / "example.org/actions.json").resolve()), "public", "results", "org"),
        # a local import of a private map shares its scope
        "helpers.clear": ToolOrigin(str((search / "helpers.json").resolve()), "private", "helpers", "helpers"),
    }
    assert [(s.site_key, s.scope, s.shadowed_by) for s in result.shadowed] == [
        ("example.com/cart", "public", "shared"),
        ("example.com/search", "shared", "private"),
        ("example.com/search", "public", "private"),
    ]


def test_storage_trust_reaches_tool_provenance() -> None:
    catalog = Catalog()
    catalog.set_manifests(load_paths([ROOT]).manifests)
    trust = {b.name: (b.provenance()["trust"], b.provenance()["manifest"]) for b in catalog.tools.values() if b.kind != "builtin"}
    assert trust == {
        "cart.add": ("shared", "example-com-cart"),
        "search.submit": ("private", "example-com-search"),
        "org.org.home": ("public", "example-com-search"),
        "helpers.clear": ("private", "example-com-search"),
        "org.home": ("public", "example-org"),
    }


BOUNDARY_CASES = [
    # a public map asking for a site that exists only in private storage finds nothing
    ("reach-private.test", "import_not_found"),
    # a public map pinning the private scope is refused
    ("pin-private.test", "import_uri_forbidden"),
    # a public map climbing into the private scope by path is refused
    ("climb.test", "import_uri_forbidden"),
]


@pytest.mark.parametrize(("site", "code"), BOUNDARY_CASES)
def test_public_maps_cannot_reach_private_storage(site: str, code: str) -> None:
    result = load_paths([BOUNDARIES])
    report = next(r for r in result.reports if f"/{site}/" in r.file)
    assert [(p.code, p.path) for p in report.errors] == [(code, "/imports/0/uri")]
    assert not any(m.namespace == site_namespace(site) for m in result.manifests)


def test_a_public_map_cannot_declare_its_import_private() -> None:
    result = load_paths([BOUNDARIES])
    loaded = next(m for m in result.manifests if m.namespace == "trust-up-test")
    assert {name: origin.trust for name, origin in loaded.origins.items()} == {"up.run": "public", "up.helper.run": "public"}


def _importer(uri: str, kind: str = "storage") -> dict[str, Any]:
    return {
        "protocol": "actions.json",
        "version": 1,
        "tools": [],
        "imports": [{"id": "s", "kind": kind, "uri": uri, "namespace": "s"}],
    }


IMPORT_CASES = [
    # kind storage: precedence over every scope visible to a local map
    ("storage", "storage:sites/example.com/search", "local", "private search map", "private"),
    # kind shared: the shared scope only
    ("shared", "storage:sites/example.com/search", "local", "shared search map", "shared"),
    # kind public: the public scope only
    ("public", "storage:sites/example.com/search", "local", "public search map", "public"),
    # a pinned scope
    ("storage", "storage:public/sites/example.com/cart", "local", "public cart map", "public"),
    # a shared map's storage import skips private
    ("storage", "storage:sites/example.com/search", "shared", "shared search map", "shared"),
]


@pytest.mark.parametrize(("kind", "uri", "root_trust", "description", "trust"), IMPORT_CASES)
def test_storage_imports_resolve_through_the_same_precedence(kind: str, uri: str, root_trust: str, description: str, trust: str) -> None:
    result = compose(_importer(uri, kind), source="inline", trust=root_trust, storage_root=ROOT)
    assert [p for p in result.problems if p.severity == "error"] == []
    # The site's own tool comes first; the private search map brings its own imports after it.
    imported = result.document["tools"][0]
    assert imported["name"] in ("s.search.submit", "s.cart.add")
    assert imported["description"] == description
    assert result.origins[imported["name"]].trust == trust


def test_storage_import_of_unknown_site_is_not_found() -> None:
    result = compose(_importer("storage:sites/example.net"), source="inline", storage_root=ROOT)
    assert [(p.code, p.path) for p in result.problems] == [("import_not_found", "/imports/0/uri")]


def test_a_storage_root_next_to_plain_manifests_serves_their_storage_imports(tmp_path: Path) -> None:
    plain = tmp_path / "plain.actions.json"
    plain.write_text(json.dumps(_importer("storage:sites/example.org")))
    result = load_paths([plain, ROOT])
    assert [r.errors for r in result.reports] == [[], [], [], []]
    assert {m.namespace for m in result.manifests} == {"plain", "example-com-cart", "example-com-search", "example-org"}
    loaded = next(m for m in result.manifests if m.namespace == "plain")
    assert loaded.origins == {"s.org.home": ToolOrigin(str((sites(ROOT, "public") / "example.org/actions.json").resolve()), "public", "s", "s")}
