"""Attachments reach the runtimes whose pages a map covers, and their launchers' tools run when clicked.

A real bridge endpoint, a real WebSocket runtime (``wsclient.WsRuntime``) and
the SDK ``Client``: the runtime is told the attachments of the maps covering
its page in ``runtime_config`` (again when its page moves), reports their
states in ``runtime_status`` (shown in ``actions://runtimes``), and an
``attachment_open`` for a launcher that opens a map tool makes the bridge run
that tool, with the map's arguments, on that runtime.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from .wsclient import TOKEN, WsRuntime

MAPS = Path(__file__).resolve().parents[1] / "fixtures" / "attachments" / "maps"


def _app() -> ActionsApp:
    return ActionsApp(AppOptions(manifests=[str(MAPS)], browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))


async def _next_config(runtime: WsRuntime) -> dict[str, Any]:
    """The next runtime_config, past the calls the server makes of a page that just arrived (its WAB document)."""
    while True:
        item = await runtime.recv()
        if item["type"] == "runtime_config":
            return item
        if item["type"] == "action_call":
            await runtime.send({"type": "action_error", "call_id": item["call_id"], "runtime_id": runtime.runtime_id, "error": {"code": "unknown_action", "message": "not here"}})


async def _no_config(runtime: WsRuntime, seconds: float) -> None:
    try:
        async with asyncio.timeout(seconds):
            item = await _next_config(runtime)
    except TimeoutError:
        return
    raise AssertionError(f"expected no runtime_config, got {item}")


def _by_id(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["id"]: a for a in config.get("attachments", [])}


async def test_a_runtime_gets_its_maps_attachments_when_its_page_moves_there() -> None:
    app = _app()
    async with Client(build_server(app)):
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-att", url="about:blank").open()
        try:
            assert runtime.config is not None and "attachments" not in runtime.config  # a blank page: no map covers it
            await runtime.status(url="https://results.test/search?q=tea")
            config = await _next_config(runtime)
            attachments = _by_id(config)
            assert set(attachments) == {"results-categories-launcher", "results-panel-launcher", "missing-file-launcher"}
            overlay = attachments["results-categories-launcher"]
            assert overlay["namespace"] == "results"
            assert overlay["target"] == {"selector": "h2", "text_contains": "Results"}
            opens = overlay["affordance"]["opens"]
            # The file beside the map travels as html: the page never fetches anything.
            assert opens["kind"] == "primitive" and "html_source" not in opens["arguments"]
            assert "<td>Books</td>" in opens["arguments"]["html"]
            assert attachments["results-panel-launcher"]["affordance"]["opens"]["kind"] == "tool"
            broken = attachments["missing-file-launcher"]["affordance"]["opens"]
            assert broken["kind"] == "unavailable" and broken["error"]["code"] == "asset_not_found"
            assert config["listen"] == [{"name": "overlay.launcher_opened", "event": "actions-json:overlay-launcher-opened"}]
            # Another page of the same site: the same configuration, not sent again.
            await runtime.status(url="https://results.test/search?q=coffee")
            await _no_config(runtime, 0.3)
            # Away from the site: the attachments are withdrawn.
            await runtime.status(url="https://elsewhere.test/")
            config = await _next_config(runtime)
            assert "attachments" not in config and config["listen"] == []
        finally:
            await runtime.close()


async def test_reported_states_show_in_the_runtimes_resource() -> None:
    app = _app()
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-states", url="https://results.test/").open()
        try:
            await runtime.status(attachments=[{"id": "results-categories-launcher", "state": "attached"}, {"id": "missing-file-launcher", "state": "failed"}, {"state": "x"}])
            for _ in range(50):
                listed = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
                entry = next(r for r in listed["runtimes"] if r["runtime_id"] == "rt-states")
                if entry["attachments"]:
                    break
                await asyncio.sleep(0.02)
            assert entry["attachments"] == [{"id": "results-categories-launcher", "state": "attached"}, {"id": "missing-file-launcher", "state": "failed"}]
        finally:
            await runtime.close()


async def test_a_launcher_that_opens_a_map_tool_runs_it_on_its_own_runtime() -> None:
    app = _app()
    async with Client(build_server(app)):
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-open", url="https://results.test/", capabilities=["page.info"]).open()
        other = await WsRuntime(app.endpoint.url, "rt-other", url="https://results.test/other").open()
        try:
            runtime.serve()
            other.serve()
            await runtime.send({"type": "attachment_open", "runtime_id": "rt-open", "attachment_id": "results-panel-launcher", "launcher_id": "results-panel-launcher"})
            for _ in range(100):
                if runtime.calls:
                    break
                await asyncio.sleep(0.02)
            assert [(c["name"], c.get("handler"), c["arguments"]) for c in runtime.calls] == [("results.show_categories", "resultsPage.showCategories", {"panel": "categories"})]
            assert other.calls == []
            # A launcher that opens a primitive (the runtime runs it itself) or an id never configured: refused.
            await runtime.send({"type": "attachment_open", "runtime_id": "rt-open", "attachment_id": "results-categories-launcher"})
            await runtime.send({"type": "attachment_open", "runtime_id": "rt-open", "attachment_id": "made-up"})
            for _ in range(100):
                if len([o for o in runtime.others if o["type"] == "action_error"]) == 2:
                    break
                await asyncio.sleep(0.02)
            errors = [o["error"] for o in runtime.others if o["type"] == "action_error"]
            assert [e["code"] for e in errors] == ["invalid_item", "invalid_item"]
            assert len(runtime.calls) == 1
            recent = app.audit.recent()
            assert any(r["tool"] == "results.show_categories" and r["client"] == "page-launcher" and r["status"] == "ok" for r in recent)
        finally:
            await runtime.close()
            await other.close()


def _launcher_map(html_source: str) -> dict[str, Any]:
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": "https://results.test"},
        "tools": [],
        "attachments": [
            {
                "id": "launcher",
                "target": {"selector": "h2"},
                "affordance": {"label": "Open", "opens": {"tool": "overlay.open", "arguments": {"html_source": html_source}}},
                "lifecycle": {"install": "when_target_matches", "remove": "when_context_mismatch", "reattach": "on_url_or_dom_change"},
            }
        ],
    }


def test_an_html_source_stays_within_the_files_its_map_may_read(tmp_path: Path) -> None:
    from mcp_actions.catalog.attachments import attachment_configs
    from mcp_actions.manifest.load import load_paths

    site = ("sites", "results.test")
    for scope, text in (("private", "<p>private notes</p>"), ("public", "<p>public view</p>")):
        folder = tmp_path.joinpath("scopes", scope, *site)
        folder.mkdir(parents=True)
        (folder / "view.html").write_text(text)
    (tmp_path / "outside.html").write_text("<p>outside</p>")
    cases = {
        "view.html": ("primitive", "<p>public view</p>"),  # the public map's own site directory
        "sites/results.test/view.html": ("primitive", "<p>public view</p>"),
        "scopes/private/sites/results.test/view.html": ("unavailable", "storage_file_path_unauthorized"),  # a public map never reads private files
        "../../../../outside.html": ("unavailable", "storage_file_path_unauthorized"),
        "missing.html": ("unavailable", "asset_not_found"),
    }
    for html_source, (kind, expected) in cases.items():
        public_map = tmp_path.joinpath("scopes", "public", *site, "actions.json")
        public_map.write_text(json.dumps(_launcher_map(html_source)))
        result = load_paths([tmp_path])
        (loaded,) = [m for m in result.manifests if m.source == str(public_map)]
        opens = attachment_configs(loaded)[0]["affordance"]["opens"]
        assert opens["kind"] == kind, (html_source, opens)
        assert (opens["arguments"]["html"] if kind == "primitive" else opens["error"]["code"]) == expected, (html_source, opens)


async def test_an_attachments_lifecycle_signals_reach_the_events_log() -> None:
    app = _app()
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-life", url="https://results.test/").open()
        try:
            launcher = "results-categories-launcher"
            for state in ("waiting", "attached", "removed", "attached", "failed"):
                await runtime.status(attachments=[{"id": launcher, "state": state}, {"id": "results-panel-launcher", "state": state}])

            async def logged() -> list[dict[str, Any]]:
                events: list[dict[str, Any]] = json.loads((await client.read_resource("actions://runtimes/rt-life/events")).contents[0].text)["events"]  # type: ignore[union-attr]
                return events

            for _ in range(100):
                if len(await logged()) >= 4:
                    break
                await asyncio.sleep(0.02)
            events = await logged()
            # Only the attachment that names lifecycle signals has them; the state is the page's word.
            assert [(e["name"], e["payload"]) for e in events] == [
                ("attachment.attached", {"attachment_id": launcher, "state": "attached"}),
                ("attachment.removed", {"attachment_id": launcher, "state": "removed"}),
                ("attachment.reattached", {"attachment_id": launcher, "state": "attached"}),
                ("attachment.drifted", {"attachment_id": launcher, "state": "failed"}),
            ]
            assert {e["trust"] for e in events} == {"untrusted_page_data"}
        finally:
            await runtime.close()
