"""Server-side primitives through map tools: transfer.*, storage.read_file, overlay template references.

A real Bridge, Catalog and ActionService; the page is the shipped MemoryRuntime,
whose ``text.insert`` and ``overlay.open`` record what reached the page. Maps are
loaded from a real storage root on disk (``load_paths``), so their scope and site
key come from where they were loaded, as in the product.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.manifest.load import LoadedManifest, load_paths

from .harness import manifest, running, workflow_tool

pytestmark = pytest.mark.asyncio

PAYLOAD = "Quarterly total: 1234.56 EUR (confidential)"


def native(name: str) -> dict[str, Any]:
    """A host-native tool: named after a primitive, nothing else to run."""
    return {"name": name, "description": f"{name} (host-native)", "input_schema": {"type": "object"}}


class Page:
    """What reached the page: every text.insert and overlay.open, with its arguments."""

    def __init__(self) -> None:
        self.inserted: list[dict[str, Any]] = []
        self.overlays: list[dict[str, Any]] = []

    def primitives(self) -> dict[str, Any]:
        return {
            "text.insert": lambda a: self.inserted.append(a) or {"inserted": True, "inserted_length": len(a["text"]), "matched_by": "selector"},
            "locator.text_content": lambda a: {"text": PAYLOAD, "matched_by": "selector"},
            "overlay.open": lambda a: self.overlays.append(a) or {"ok": True, "overlay_id": "ov-1"},
        }


def tools() -> list[dict[str, Any]]:
    copy = workflow_tool(
        "report.copy",
        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#total"}}},
        {"id": "write", "primitive": "transfer.write", "args": {"label": "total", "format": "text/plain", "value": "{% steps.read.output.text %}"}},
        output="{% steps.write.output %}",
    )
    paste = workflow_tool(
        "report.paste",
        {"id": "insert", "primitive": "transfer.insert", "args": {"label": "total", "target": {"selector": "#notes"}, "mode": "replace"}},
        output="{% steps.insert.output %}",
    )
    names = ["transfer.write", "transfer.read", "transfer.insert", "transfer.clear", "storage.read_file", "overlay.open"]
    return [copy, paste, *(native(n) for n in names)]


async def test_a_payload_moves_from_page_to_buffer_to_editor_without_appearing_in_results() -> None:
    page = Page()
    async with running(manifest(*tools()), primitives=page.primitives()) as h:
        written = await h.call("report.copy")
        assert written["label"] == "total" and written["format"] == "text/plain" and written["size_bytes"] == len(PAYLOAD.encode())
        assert written["id"].startswith("tr-") and "expires_at" in written
        pasted = await h.call("report.paste")
        assert page.inserted == [{"text": PAYLOAD, "mode": "replace", "target": {"selector": "#notes"}}]
        assert pasted["inserted"] is True and pasted["inserted_bytes"] == len(PAYLOAD.encode()) and pasted["label"] == "total"
        for result in (written, pasted, await h.call("transfer.read", {"label": "total"})):
            assert PAYLOAD not in json.dumps(result)
        assert (await h.call("transfer.read", {"label": "total", "include_value": True}))["value"] == PAYLOAD
        # The tool ran server-side: the page saw only its own primitives, never a transfer.*.
        assert [name for name in h.bridge_calls() if name.startswith("transfer.")] == []


async def test_append_render_select_clear_and_not_found() -> None:
    page = Page()
    async with running(manifest(*tools()), primitives=page.primitives()) as h:
        await h.call("transfer.write", {"label": "rows", "format": "application/json", "value": [{"t": "a", "n": 1}]})
        after = await h.call("transfer.write", {"label": "rows", "format": "application/json", "value": {"t": "b", "n": 2}, "mode": "append"})
        assert (await h.call("transfer.read", {"id": after["id"], "include_value": True}))["value"] == [{"t": "a", "n": 1}, {"t": "b", "n": 2}]
        with pytest.raises(ActionError) as wrong:
            await h.call("transfer.write", {"label": "rows", "format": "text/plain", "value": "x", "mode": "append"})
        assert wrong.value.code == "transfer_append_incompatible"
        await h.call("transfer.insert", {"label": "rows", "render": {"template": "{{t}}={{n}}", "separator": "; "}})
        await h.call("transfer.insert", {"label": "rows", "item_selector": {"where": {"t": "b"}}, "render": {"as": "json"}})
        await h.call("transfer.insert", {"label": "rows", "item_selector": {"index": -1}})
        assert [i["text"] for i in page.inserted] == ["a=1; b=2", '[{"t":"b","n":2}]', '{\n  "t": "b",\n  "n": 2\n}']
        assert page.inserted[0]["mode"] == "append" and "target" not in page.inserted[0]  # the focused editable
        assert (await h.call("transfer.clear", {"label": "rows"})) == {"cleared_count": 1}
        for call in (("transfer.read", {"label": "rows"}), ("transfer.insert", {"label": "rows"}), ("transfer.clear", {"id": "tr-000000000000"})):
            with pytest.raises(ActionError) as missing:
                await h.call(*call)
            assert missing.value.code == "transfer_label_not_found"
        with pytest.raises(ActionError) as unsupported:
            await h.call("transfer.write", {"label": "x", "format": "text/html", "value": "<b>"})
        assert unsupported.value.code == "invalid_input"  # the dictionary's enum, checked before the buffer sees it


async def test_an_item_expires_after_its_ttl() -> None:
    async with running(manifest(*tools()), primitives=Page().primitives()) as h:
        await h.call("transfer.write", {"label": "brief", "format": "text/plain", "value": "soon gone", "ttl_seconds": 1})
        assert (await h.call("transfer.read", {"label": "brief"}))["size_bytes"] == 9
        import asyncio

        await asyncio.sleep(1.1)
        with pytest.raises(ActionError) as expired:
            await h.call("transfer.read", {"label": "brief"})
        assert expired.value.code == "transfer_expired"


# -- storage ------------------------------------------------------------------------


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


SKILL = "---\nname: report-skill\ndescription: \"Summarise the report\"\ntags: [finance, weekly]\nsteps:\n  - read\n  - paste\nversion: 2\n---\n# Report skill\n\nBody text.\n"


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    """A storage root: a private and a public map for one site, files in all three scopes."""
    root = tmp_path / "store"
    document = json.dumps(manifest(*tools()))
    for scope, site in (("private", "mine.test"), ("public", "open.test"), ("shared", "team.test")):
        _write(root / "scopes" / scope / "sites" / site / "actions.json", document)
    _write(root / "scopes/private/sites/mine.test/SKILL.md", SKILL)
    _write(root / "scopes/private/sites/mine.test/notes/secret.txt", "private notes")
    _write(root / "scopes/private/sites/open.test/secret.txt", "private to open.test's owner")
    _write(root / "scopes/public/sites/open.test/readme.md", "public readme " * 100)
    _write(root / "scopes/public/sites/open.test/overlays/report/template.html", "<main>report</main>")
    _write(root / "scopes/public/sites/open.test/overlays/report/data.json", '{"total": 3}')
    _write(root / "scopes/public/sites/open.test/overlays/other/template.html", "<main>other</main>")
    _write(root / "scopes/public/sites/open.test/overlays/bad.json", "{not json")
    _write(root / "scopes/public/sites/open.test/logo.bin", b"\x89PNG\x00\x00")
    _write(root / "scopes/public/sites/mine.test/public.txt", "public beside private")
    return root


def _map(root: Path, site: str) -> LoadedManifest:
    loaded = load_paths([root])
    assert not loaded.failures, [r.to_dict() for r in loaded.failures]
    return next(m for m in loaded.manifests if m.source.endswith(f"/{site}/actions.json"))


async def _fails(h: Any, tool: str, arguments: dict[str, Any]) -> ActionError:
    with pytest.raises(ActionError) as caught:
        await h.call(tool, arguments)
    return caught.value


async def test_a_public_map_reads_public_files_and_never_private_ones(storage: Path) -> None:
    public = _map(storage, "open.test")
    async with running(public, primitives=Page().primitives()) as h:
        read = await h.call("storage.read_file", {"path": "scopes/public/sites/open.test/readme.md", "max_bytes": 20})
        assert read["text"] == "public readme public" and read["truncated"] is True and read["bytes"] == 1400
        assert read["relative_path"] == "readme.md" and read["kind"] == "markdown" and read["mime_type"] == "text/markdown"
        # The same file by its path inside the site directory and by id.
        assert (await h.call("storage.read_file", {"path": "readme.md"}))["path"] == "scopes/public/sites/open.test/readme.md"
        assert (await h.call("storage.read_file", {"id": "readme.md"}))["truncated"] is False
        denied = await _fails(h, "storage.read_file", {"path": "scopes/private/sites/open.test/secret.txt"})
        assert denied.code == "storage_file_path_unauthorized" and denied.evidence["scope"] == "private"
        # Found through the precedence, a private file is still out of a public map's sight.
        assert (await _fails(h, "storage.read_file", {"path": "secret.txt"})).code == "storage_file_not_found"
        assert (await _fails(h, "storage.read_file", {"id": "secret.txt"})).code == "storage_file_not_found"
        for outside in ("scopes/public/sites/mine.test/public.txt", "../../../private/sites/open.test/secret.txt", "/etc/passwd"):
            assert (await _fails(h, "storage.read_file", {"path": outside})).code == "storage_file_path_unauthorized", outside
        assert (await _fails(h, "storage.read_file", {"id": "template.html"})).code == "storage_file_ambiguous_id"
        assert (await h.call("storage.read_file", {"id": "overlays/report/template.html"}))["kind"] == "template"
        assert (await _fails(h, "storage.read_file", {"path": "logo.bin"})).code == "storage_file_not_text"
        assert (await _fails(h, "storage.read_file", {"path": "readme.md", "id": "readme.md"})).code == "invalid_input"


async def test_a_private_map_reads_its_skill_with_front_matter_and_lower_scopes(storage: Path) -> None:
    private = _map(storage, "mine.test")
    async with running(private, primitives=Page().primitives()) as h:
        skill = await h.call("storage.read_file", {"id": "SKILL.md"})
        assert skill["kind"] == "skill" and skill["path"] == "scopes/private/sites/mine.test/SKILL.md"
        assert skill["front_matter"] == {"name": "report-skill", "description": "Summarise the report", "tags": ["finance", "weekly"],
                                         "steps": ["read", "paste"], "version": 2}
        assert skill["text"].startswith("---\nname: report-skill")
        assert (await h.call("storage.read_file", {"id": "secret.txt"}))["text"] == "private notes"
        assert (await h.call("storage.read_file", {"path": "public.txt"}))["path"] == "scopes/public/sites/mine.test/public.txt"


async def test_overlay_template_and_data_references_become_html_and_data_json(storage: Path) -> None:
    public, page = _map(storage, "open.test"), Page()
    async with running(public, primitives=page.primitives()) as h:
        tool = "overlay.open"
        ref = {"template": {"scope": "public", "path": "sites/open.test/overlays/report/template.html"},
               "data": {"scope": "public", "path": "sites/open.test/overlays/report/data.json"}, "title": "Report"}
        assert (await h.call(tool, ref))["ok"] is True
        assert page.overlays == [{"title": "Report", "html": "<main>report</main>", "data_json": {"total": 3}}]
        cases = [
            ({"template": {"scope": "public", "path": "sites/open.test/../../private/sites/open.test/secret.txt"}}, "unsafe_path"),
            ({"template": {"scope": "public", "path": "sites/open.test/missing.html"}}, "asset_not_found"),
            ({**ref, "data": {"scope": "public", "path": "sites/open.test/overlays/bad.json"}}, "invalid_json"),
            ({**ref, "data": {"scope": "private", "path": "sites/open.test/secret.txt"}}, "storage_file_path_unauthorized"),
        ]
        for arguments, code in cases:
            assert (await _fails(h, tool, arguments)).code == code, arguments
        assert len(page.overlays) == 1  # nothing refused reached the page


async def test_a_map_outside_a_storage_root_reads_the_files_of_its_own_folder(tmp_path: Path) -> None:
    folder = tmp_path / "maps"
    _write(folder / "shop.actions.json", json.dumps(manifest(*tools())))
    _write(folder / "skills" / "SKILL.md", SKILL)
    _write(tmp_path / "outside.txt", "not the map's")
    loaded = load_paths([folder / "shop.actions.json"]).manifests[0]
    async with running(loaded, primitives=Page().primitives()) as h:
        read = await h.call("storage.read_file", {"path": "skills/SKILL.md"})
        assert read["path"] == "skills/SKILL.md" and read["front_matter"]["name"] == "report-skill"
        assert (await _fails(h, "storage.read_file", {"path": "../outside.txt"})).code == "storage_file_path_unauthorized"
    # A map that came from no file (inline, fetched) has no files at all.
    async with running(manifest(*tools()), primitives=Page().primitives()) as h:
        assert (await _fails(h, "storage.read_file", {"path": "SKILL.md"})).code == "storage_file_path_unauthorized"


async def test_the_reference_extensions_published_transfer_insert_runs_our_server_side_primitive() -> None:
    from mcp_actions.dispatch.primitives.context import ServerServices

    document = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "valid" / "extension_overlay.json").read_text())
    page = Page()
    async with running(document, primitives=page.primitives()) as h:
        ServerServices.of(h.service.bridge).transfer.write("copied", "text/plain", PAYLOAD)
        # The map names an extension-only handler (actionsJsonOverlay.transferInsert); our host runs the primitive.
        out = await h.call("transfer.insert", {"label": "copied", "target": {"selector": "#notes"}, "mode": "append"})
        assert out["inserted_bytes"] == len(PAYLOAD.encode()) and PAYLOAD not in json.dumps(out)
        assert page.inserted == [{"text": PAYLOAD, "mode": "append", "target": {"selector": "#notes"}}]
        assert "handler:actionsJsonOverlay.transferInsert" not in h.bridge_calls()


async def test_a_tool_requiring_a_server_side_primitive_runs_on_a_runtime_that_does_not_announce_it() -> None:
    page = Page()
    copy = {**tools()[0], "requires": ["transfer.write", "locator.text_content"]}
    async with running(manifest(copy), primitives=page.primitives(), capabilities=["locator.text_content"]) as h:
        assert (await h.call("report.copy"))["label"] == "total"
    lacking = {**tools()[0], "requires": ["transfer.write", "pointer.drag"]}
    async with running(manifest(lacking), primitives=page.primitives(), capabilities=["locator.text_content"]) as h:
        with pytest.raises(ActionError) as refused:
            await h.call("report.copy")
        assert refused.value.code == "capability_unavailable" and refused.value.evidence["missing"] == ["pointer.drag"]
