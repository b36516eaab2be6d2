"""Absurd storage names are ``invalid_input`` at their argument's pointer, never a crash (issue 28).

A 5,000-character ``storage.read_file`` path was a JSON-RPC -32603 and a stderr
traceback that printed the path. Here the whole server (``ActionsApp``) serves a map
from a real storage root, the SDK's ``Client`` calls its tools, the page is the shipped
``MemoryRuntime``; every log record of the run is kept and searched for the names.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.manifest.storage_files import check_name
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

SITE = "names.test"


def _native(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} (host-native)", "input_schema": {"type": "object"}}


def _storage(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    site = root / "scopes" / "public" / "sites" / SITE
    (site / "overlays").mkdir(parents=True)
    document = {"protocol": "actions.json", "version": 1, "surface": {"origin": f"https://{SITE}"},
                "tools": [_native("storage.read_file"), _native("overlay.open")]}
    (site / "actions.json").write_text(json.dumps(document))
    (site / "readme.md").write_text("hello")
    (site / "overlays" / "card.html").write_text("<p>card</p>")
    return root


#: Names no file system should see: each is refused before it does, with the reason given.
ABSURD = [
    ("a" * 5000, "too_long"),  # the reported case
    ("b/" * 5000 + "c", "too_long"),  # 10,000 characters of short segments
    ("x" * 300, "segment_too_long"),  # one name longer than a file system allows
    ("readme.md\x00.txt", "control_character"),  # a NUL byte
    ("read\nme.md", "control_character"),
    ("\ud800readme.md", "lone_surrogate"),
]


@pytest.mark.parametrize(("name", "reason"), ABSURD, ids=[r for _, r in ABSURD[:1]] + ["ten_thousand", "segment", "nul", "newline", "surrogate"])
def test_check_name_refuses_without_quoting(name: str, reason: str) -> None:
    from mcp_actions.errors import ActionError

    with pytest.raises(ActionError) as caught:
        check_name(name, "/path")
    error = caught.value
    assert error.code == "invalid_input" and error.evidence["path"] == "/path" and error.evidence["reason"] == reason
    assert name not in error.message and name not in json.dumps(error.evidence)


@pytest.mark.asyncio
async def test_absurd_names_are_invalid_input_at_their_pointer_and_never_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    app = ActionsApp(AppOptions(manifests=[str(_storage(tmp_path))], browser="none", serve_bridge=False, watch=False))
    async with Client(build_server(app)) as client:
        page = MemoryRuntime(app.bridge, runtime_id="names-1", url=f"https://{SITE}/", primitives={"overlay.open": lambda a: {"ok": True, "overlay_id": "ov"}})
        await page.start()
        try:
            tools = {(t.meta or {}).get("mcp-actions/tool"): t.name for t in (await client.list_tools()).tools}
            read, overlay = tools["storage.read_file"], tools["overlay.open"]
            assert not (await client.call_tool(read, {"path": "readme.md"})).is_error  # the map reads its files
            calls: list[tuple[str, dict[str, Any], str]] = [(read, {key: name}, f"/{key}") for name, _ in ABSURD for key in ("path", "id")]
            calls += [(overlay, {"template": {"scope": "public", "path": name}}, "/template/path") for name, _ in ABSURD]
            calls += [(overlay, {"template": {"scope": name, "path": f"sites/{SITE}/overlays/card.html"}}, "/template/scope") for name, _ in ABSURD]
            for tool, arguments, pointer in calls:
                result = await client.call_tool(tool, arguments)
                assert result.is_error and result.structured_content is not None, arguments
                error = result.structured_content["error"]
                assert error["code"] == "invalid_input" and error["evidence"]["path"] == pointer, (pointer, error)
            # An ordinary missing file names the argument too; the storage path it named is for the caller only.
            refused = (await client.call_tool(read, {"path": "nothing-here.md"})).structured_content
            assert refused is not None
            missing = refused["error"]
            assert missing["code"] == "storage_file_not_found" and missing["evidence"] == {"path": "/path", "storage_path": "nothing-here.md", "scopes": ["public"]}
        finally:
            await page.stop()
    logged = "\n".join(f"{record.getMessage()} {record.exc_text or ''}" for record in caplog.records)
    assert "Traceback" not in logged
    for name, _ in ABSURD:
        assert name[:60] not in logged and repr(name)[1:60] not in logged


@pytest.mark.asyncio
async def test_absurd_values_of_other_server_side_primitives_are_answered_never_a_crash(tmp_path: Path) -> None:
    # Checked beside storage: transfer.* take labels and values of any size. A lone surrogate in a
    # transfer value was an internal_error (its byte count raised UnicodeEncodeError).
    root = tmp_path / "store"
    site = root / "scopes" / "public" / "sites" / SITE
    names = ["transfer.write", "transfer.read", "transfer.insert", "transfer.clear", "text.insert"]
    document = {"protocol": "actions.json", "version": 1, "surface": {"origin": f"https://{SITE}"}, "tools": [_native(n) for n in names]}
    site.mkdir(parents=True)
    (site / "actions.json").write_text(json.dumps(document))
    app = ActionsApp(AppOptions(manifests=[str(root)], browser="none", serve_bridge=False, watch=False))
    inserted: list[dict[str, Any]] = []

    def insert(arguments: dict[str, Any]) -> dict[str, Any]:
        inserted.append(arguments)
        return {"inserted": True, "inserted_length": len(arguments["text"]), "matched_by": "selector"}

    async with Client(build_server(app)) as client:
        page = MemoryRuntime(app.bridge, runtime_id="names-2", url=f"https://{SITE}/", primitives={"text.insert": insert})
        await page.start()
        try:
            tools = {(t.meta or {}).get("mcp-actions/tool"): t.name for t in (await client.list_tools()).tools}
            for value in ("a" * 10_000, "x\x00y", "\ud800"):
                written = await client.call_tool(tools["transfer.write"], {"label": "t", "format": "text/plain", "value": value})
                assert not written.is_error and written.structured_content is not None, written.structured_content
                assert written.structured_content["size_bytes"] == len(value.encode("utf-8", "surrogatepass"))
                pasted = await client.call_tool(tools["transfer.insert"], {"label": "t", "target": {"selector": "#notes"}})
                assert not pasted.is_error, pasted.structured_content
                assert inserted[-1]["text"] == value
                assert not (await client.call_tool(tools["transfer.clear"], {"label": "t"})).is_error
        finally:
            await page.stop()
