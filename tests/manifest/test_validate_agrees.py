"""``validate`` agrees with ``serve``, and every map is strict JSON (issue 28).

Found on the previous version: a top-level map with ``"name"`` twice exposed the second
name, ``NaN`` was accepted at top level (imports refused both), and ``validate`` said
"valid" for maps whose imports ``serve`` refused (it never composed them). Each case
here runs ``mcp-actions validate`` (``run_validate``, as the command line does) and the
load ``serve`` runs (``load_paths``, what ``ActionsApp.load_manifests`` calls; and the
whole server behind the SDK's ``Client`` for what a host is shown), and asks for the
same verdict, code and pointer.
"""

from __future__ import annotations

import functools
import http.server
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.cli import run_validate
from mcp_actions.convert import read_document as read_convert_input
from mcp_actions.errors import UsageError
from mcp_actions.manifest.load import load_paths
from mcp_actions.server.mcp_server import build_server


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} (test)", "input_schema": {"type": "object"}, "x_actions": {"handler": "app.run"}}


def _map(*tools: str, **root: Any) -> dict[str, Any]:
    return {"protocol": "actions.json", "version": 1, "surface": {"origin": "https://example.com"}, "tools": [_tool(name) for name in tools], **root}


def _write(path: Path, content: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def validate(*paths: Path) -> tuple[int, list[dict[str, Any]]]:
    """``mcp-actions validate --json PATH...``: the exit status and the reports."""
    out, err = io.StringIO(), io.StringIO()
    status = run_validate([str(p) for p in paths], as_json=True, out=out, err=err)
    return status, json.loads(out.getvalue())


def verdicts(reports: list[dict[str, Any]]) -> dict[str, set[tuple[str, str]]]:
    return {Path(r["file"]).name if "scopes" not in r["file"] else r["file"]: {(e["code"], e["path"]) for e in r["errors"]} for r in reports}


def serve_verdicts(*paths: Path) -> dict[str, set[tuple[str, str]]]:
    """What serve's load makes of the same paths, in the same shape."""
    return verdicts([r.to_dict() for r in load_paths(list(paths)).reports])


# -- strict JSON at top level


DUPLICATE_NAME = json.dumps(_map("dup.t")).replace('"name": "dup.t"', '"name": "dup.t", "name": "dup.evil"')


@pytest.mark.parametrize(
    ("text", "pointer"),
    [
        (DUPLICATE_NAME, "/tools/0/name"),  # the reported case: the second name would be exposed
        (json.dumps(_map("a.b")).replace('"version": 1', '"version": 1, "version": 1', 1), "/version"),  # an equal copy is still two
        (json.dumps(_map("a.b")).replace('"version": 1', '"version": NaN', 1), "/version"),
        (json.dumps(_map("a.b", x_limit=1)).replace('"x_limit": 1', '"x_limit": Infinity'), "/x_limit"),
        (json.dumps(_map("a.b", x_limit=1)).replace('"x_limit": 1', '"x_limit": [-Infinity]'), "/x_limit/0"),
        (json.dumps(_map("a.b", x_limit=1)).replace('"x_limit": 1', '"x_limit": 1e999'), "/x_limit"),  # past a double: inf
    ],
    ids=["duplicate_name", "duplicate_equal", "nan", "infinity", "minus_infinity", "overflow"],
)
def test_a_map_file_that_is_not_strict_json_is_invalid_at_its_pointer_for_validate_and_serve(tmp_path: Path, text: str, pointer: str) -> None:
    path = _write(tmp_path / "maps" / "dup.actions.json", text)
    status, reports = validate(path)
    assert status == 1 and [(e["code"], e["path"]) for e in reports[0]["errors"]] == [("invalid_json", pointer)]
    assert serve_verdicts(path) == verdicts(reports)


async def test_the_server_exposes_no_tool_of_a_map_with_a_repeated_name(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    _write(maps / "dup.actions.json", DUPLICATE_NAME)
    _write(maps / "fine.actions.json", _map("fine.run"))
    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="none", serve_bridge=False, watch=False))
    async with Client(build_server(app)) as client:
        names = {(t.meta or {}).get("mcp-actions/tool", "") for t in (await client.list_tools()).tools}
        assert "fine.run" in names and not {n for n in names if n.startswith("dup.")}  # neither dup.t nor dup.evil
        failed = json.dumps([c.model_dump() for c in (await client.read_resource("actions://bridge/launch")).contents])
        assert "invalid_json" in failed and "/tools/0/name" in failed


def test_convert_inputs_are_strict_and_name_the_place(tmp_path: Path) -> None:
    path = _write(tmp_path / "wab.json", '{"wab_version": "1.0", "actions": [], "actions": [{"name": "evil"}]}')
    with pytest.raises(UsageError) as caught:
        read_convert_input(str(path))
    assert caught.value.code == "invalid_json" and "/actions" in caught.value.message


# -- validate composes as serve does: one test per divergence found


def test_a_missing_local_import(tmp_path: Path) -> None:
    # validate never composed: an import of a file that is not there was "valid".
    path = _write(tmp_path / "shop.actions.json", _map("shop.run", imports=[{"id": "h", "kind": "local", "uri": "./helpers.actions.json", "namespace": "h"}]))
    status, reports = validate(path)
    assert status == 1 and verdicts(reports) == {"shop.actions.json": {("import_not_found", "/imports/0/uri")}}
    assert serve_verdicts(path) == verdicts(reports)


def test_an_import_that_is_not_strict_json(tmp_path: Path) -> None:
    _write(tmp_path / "helpers.actions.json", DUPLICATE_NAME)
    path = _write(tmp_path / "shop.actions.json", _map("shop.run", imports=[{"id": "h", "kind": "local", "uri": "./helpers.actions.json", "namespace": "h"}]))
    status, reports = validate(path)
    assert status == 1 and verdicts(reports)["shop.actions.json"] == {("import_invalid_json", "/imports/0/uri")}
    assert serve_verdicts(path)["shop.actions.json"] == verdicts(reports)["shop.actions.json"]


def test_an_import_cycle(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.actions.json", _map("a.run", imports=[{"id": "b", "kind": "local", "uri": "./b.actions.json", "namespace": "b"}]))
    _write(tmp_path / "b.actions.json", _map("b.run", imports=[{"id": "a", "kind": "local", "uri": "./a.actions.json", "namespace": "a"}]))
    status, reports = validate(a)
    assert status == 1 and verdicts(reports) == {"a.actions.json": {("import_cycle", "/imports/0/uri")}}
    assert serve_verdicts(a) == verdicts(reports)


def _storage(tmp_path: Path) -> Path:
    """A storage root whose public map reaches for private files two ways."""
    root = tmp_path / "store"
    _write(root / "scopes/private/sites/bank.test/actions.json", _map("bank.secret"))
    climbing = {"id": "p", "kind": "local", "uri": "../../../private/sites/bank.test/actions.json", "namespace": "p"}
    _write(root / "scopes/public/sites/open.test/actions.json", _map("open.run", imports=[climbing]))
    pinned = {"id": "p", "kind": "storage", "uri": "storage:private/sites/bank.test", "namespace": "p"}
    _write(root / "scopes/public/sites/pinned.test/actions.json", _map("pinned.run", imports=[pinned]))
    return root


def test_a_storage_map_confined_to_its_scope_and_trust(tmp_path: Path) -> None:
    # serve loads a storage map with its scope's trust and its local imports inside its scope;
    # validate (given the directory) read it as a plain local map.
    root = _storage(tmp_path)
    status, reports = validate(root)
    found = verdicts(reports)
    assert status == 1
    assert found[str(root / "scopes/public/sites/open.test/actions.json")] == {("import_uri_forbidden", "/imports/0/uri")}
    assert found[str(root / "scopes/public/sites/pinned.test/actions.json")] == {("import_uri_forbidden", "/imports/0/uri")}
    assert found[str(root / "scopes/private/sites/bank.test/actions.json")] == set()
    assert serve_verdicts(root) == found


def test_a_plain_map_imports_from_the_storage_root_given_beside_it(tmp_path: Path) -> None:
    root = _storage(tmp_path)
    importing = {"id": "b", "kind": "storage", "uri": "storage:sites/bank.test", "namespace": "b"}
    plain = _write(tmp_path / "maps" / "mine.actions.json", _map("mine.run", imports=[importing]))
    # Alone, the storage import has nowhere to come from; beside the root, serve serves it from there.
    alone_status, alone = validate(plain)
    assert alone_status == 1 and verdicts(alone) == serve_verdicts(plain) == {"mine.actions.json": {("import_not_found", "/imports/0/uri")}}
    _, together = validate(plain, root)
    assert verdicts(together)["mine.actions.json"] == set() == serve_verdicts(plain, root)["mine.actions.json"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture()
def maps_site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback http site serving maps (serve's fetcher allows http to loopback only)."""
    directory = tmp_path / "site"
    directory.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", directory
    finally:
        server.shutdown()
        server.server_close()


def test_remote_imports_go_through_serves_fetcher_and_its_rules(tmp_path: Path, maps_site: tuple[str, Path]) -> None:
    url, directory = maps_site
    _write(directory / "good.actions.json", _map("good.run"))
    _write(directory / "dup.actions.json", DUPLICATE_NAME)
    imports = [
        {"id": "g", "kind": "website", "uri": f"{url}/good.actions.json", "namespace": "g"},  # fetched: fine
        {"id": "d", "kind": "website", "uri": f"{url}/dup.actions.json", "namespace": "d"},  # fetched: not strict JSON
        {"id": "m", "kind": "website", "uri": f"{url}/missing.actions.json", "namespace": "m"},  # HTTP 404
        {"id": "c", "kind": "website", "uri": f"http://user:pw@{url[7:]}/good.actions.json", "namespace": "c"},  # credentials
        {"id": "p", "kind": "website", "uri": "http://example.invalid/a.actions.json", "namespace": "p"},  # plain http off loopback
    ]
    path = _write(tmp_path / "remote.actions.json", _map("remote.run", imports=imports))
    status, reports = validate(path)
    assert status == 1
    assert verdicts(reports)["remote.actions.json"] == {
        ("import_invalid_json", "/imports/1/uri"),
        ("import_fetch_failed", "/imports/2/uri"),
        ("import_uri_forbidden", "/imports/3/uri"),
        ("import_uri_forbidden", "/imports/4/uri"),
    }
    assert serve_verdicts(path) == verdicts(reports)
