"""The nine primitives of issue 23 on both hosts, in real headless Chromium, through map tools.

Hosts (as in ``test_conformance.py``):
- ``page``: the page runtime (runtime.js) injected with the bookmarklet's own code,
  connected over a real WebSocket to a real BridgeServer;
- ``browser``: the Playwright browser host (BrowserHost / TabRuntime).

Calls go through ``ActionService`` (so ``ToolRun`` runs the server-side primitives)
over the fixture map ``tests/fixtures/transfer/actions.json``, loaded from a storage
root as a public map. ``storage.read_file`` and ``transfer.*`` run in the server and
succeed on both hosts (``transfer.insert`` through each host's own ``text.insert``);
``clipboard.*`` and ``runtime.session.*`` need the browser host, and the page runtime
refuses them with ``capability_unavailable``. Every output is checked against the
primitive's ``output_schema``. Fixture pages: tests/fixtures/pages/transfer/.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.naming import mcp_tool_name
from mcp_actions.dispatch.builtins.registry import BUILTIN_TOOLS, builtin_bindings
from mcp_actions.dispatch.call.service import ActionService
from mcp_actions.errors import ActionError
from mcp_actions.manifest.load import load_paths
from mcp_actions.runtimes.browser import BrowserHost
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import DICTIONARY, KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transfer"
PAYLOAD = "Quarterly total: 1 234,56 EUR (secret-7f3a)"


def storage_root(base: Path, origin: str) -> Path:
    """A storage root holding the fixture map as a public map of site transfer.test, and a private file beside it."""
    site = base / "scopes" / "public" / "sites" / "transfer.test"
    site.mkdir(parents=True)
    document = json.loads((FIXTURE / "actions.json").read_text())
    document["surface"]["origin"] = origin
    (site / "actions.json").write_text(json.dumps(document))
    shutil.copy(FIXTURE / "SKILL.md", site / "SKILL.md")
    private = base / "scopes" / "private" / "sites" / "transfer.test"
    private.mkdir(parents=True)
    (private / "secret.txt").write_text("never for a public map")
    return base


@dataclass
class Host:
    """One host under test: its bridge and service, and the runtimes of the pages it opened."""

    kind: str
    bridge: Bridge
    service: ActionService
    extra: dict[str, Any] = field(default_factory=dict)
    pages: dict[str, tuple[str, Page]] = field(default_factory=dict)  # fixture name -> (runtime id, page)

    async def open(self, name: str, url: str) -> str:
        """A fresh runtime on ``url`` (the page's previous one closed first); its runtime id."""
        if name in self.pages and not self.pages[name][1].is_closed():
            await self.pages[name][1].close()
        runtime_id, page = await open_runtime(self.kind, self.bridge, self.extra, url)
        self.pages[name] = (runtime_id, page)
        return runtime_id

    async def call(self, tool: str, arguments: dict[str, Any], runtime_id: str) -> Any:
        """Run a map tool on ``runtime_id``; a primitive's output is checked against its output_schema."""
        output = await self.service.call(mcp_tool_name(tool), {**arguments, "target_runtime_id": runtime_id})
        if tool in DICTIONARY:
            jsonschema.validate(output, DICTIONARY[tool]["output_schema"])
        return output

    async def fails(self, tool: str, arguments: dict[str, Any], runtime_id: str) -> ActionError:
        """Run a map tool that must fail; its error."""
        with pytest.raises(ActionError) as caught:
            await self.service.call(mcp_tool_name(tool), {**arguments, "target_runtime_id": runtime_id})
        return caught.value


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser, pages_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Host]:
    bridge = Bridge(default_timeout_ms=10_000)
    await bridge.start()
    loaded = load_paths([storage_root(tmp_path_factory.mktemp("store"), pages_url)])
    assert not loaded.failures, [r.to_dict() for r in loaded.failures]
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests(loaded.manifests)
    service = ActionService(bridge=bridge, catalog=catalog, browser=None, browser_mode="none", builtins=BUILTIN_TOOLS)
    async with serving(request.param, bridge, chromium) as extra:
        yield Host(request.param, bridge, service, extra=extra)
    await bridge.stop()


async def test_storage_read_file_runs_in_the_server_on_both_hosts(host: Host, pages_url: str) -> None:
    runtime = await host.open("source", f"{pages_url}/transfer/source.html")
    skill = await host.call("storage.read_file", {"id": "SKILL.md"}, runtime)
    assert skill["path"] == "scopes/public/sites/transfer.test/SKILL.md" and skill["kind"] == "skill"
    assert skill["front_matter"] == {"name": "transfer-fixture", "description": "Move the weekly total between tabs", "tags": ["transfer", "fixture"]}
    # The fixture map is public: the private file beside it is out of its reach on every host.
    denied = await host.fails("storage.read_file", {"path": "scopes/private/sites/transfer.test/secret.txt"}, runtime)
    assert denied.code == "storage_file_path_unauthorized"
    assert (await host.fails("storage.read_file", {"path": "missing.md"}, runtime)).code == "storage_file_not_found"


async def test_transfer_from_one_page_into_another_pages_textarea_and_editor(host: Host, pages_url: str) -> None:
    source = await host.open("source", f"{pages_url}/transfer/source.html")
    notes = await host.open("notes", f"{pages_url}/transfer/notes.html")
    editor = await host.open("editor", f"{pages_url}/transfer/editor.html")
    written = await host.call("report.copy_total", {}, source)
    jsonschema.validate(written, DICTIONARY["transfer.write"]["output_schema"])
    assert written["label"] == "total" and written["size_bytes"] == len(PAYLOAD.encode()) and written["source"]["runtime_id"] == source
    pasted = await host.call("notes.paste", {"label": "total", "selector": "#notes"}, notes)
    assert pasted["inserted"] is True and pasted["inserted_bytes"] == len(PAYLOAD.encode()) and pasted["runtime_id"] == notes
    assert await host.pages["notes"][1].input_value("#notes") == PAYLOAD  # "old draft" replaced
    await host.call("report.copy_summary", {}, source)
    await host.call("notes.paste", {"label": "summary", "selector": "#editor", "render": {"template": "{{title}}: {{total}}"}}, editor)
    assert (await host.pages["editor"][1].inner_text("#editor")).strip() == f"Weekly report: {PAYLOAD}"
    for result in (written, pasted, await host.call("transfer.read", {"label": "total"}, notes)):
        assert PAYLOAD not in json.dumps(result)
    assert (await host.call("transfer.read", {"label": "total", "include_value": True}, editor))["value"] == PAYLOAD
    # The target must take text: the host's own text.insert says so.
    assert (await host.fails("transfer.insert", {"label": "total", "target": {"selector": "#static"}}, notes)).code == "target_not_editable"
    assert (await host.call("transfer.clear", {}, notes))["cleared_count"] == 2
    assert (await host.fails("transfer.insert", {"label": "total", "target": {"selector": "#notes"}}, notes)).code == "transfer_label_not_found"


async def test_clipboard_on_the_browser_host_and_not_in_a_page(host: Host, pages_url: str) -> None:
    runtime = await host.open("notes", f"{pages_url}/transfer/notes.html")
    if host.kind == "page":
        for tool, arguments in (("clipboard.write", {"text": "x"}), ("clipboard.read", {})):
            assert (await host.fails(tool, arguments, runtime)).code == "capability_unavailable"
        return
    assert await host.call("clipboard.write", {"text": "copied by the agent ✓"}, runtime) == {"written": True, "textLength": 21}
    assert await host.call("clipboard.read", {}, runtime) == {"text": "copied by the agent ✓"}
    # The permission was granted for the calls only: the site itself cannot read the clipboard afterwards.
    page = host.pages["notes"][1]
    state = await page.evaluate("async () => (await navigator.permissions.query({name: 'clipboard-read'})).state")
    assert state != "granted"


async def test_session_name_and_finalize_tabs_on_the_browser_host_only(host: Host, pages_url: str) -> None:
    runtime = await host.open("source", f"{pages_url}/transfer/source.html")
    if host.kind == "page":
        for tool, arguments in (("runtime.session.name", {"name": "x"}), ("runtime.session.finalize_tabs", {})):
            assert (await host.fails(tool, arguments, runtime)).code == "capability_unavailable"
        return
    assert (await host.call("runtime.session.name", {"name": "Weekly report  copy"}, runtime))["named"] is True
    listed = await host.bridge.call("browser.claimed_tabs.list", {}, runtime_id=runtime)
    assert listed["session"]["name"] == "Weekly report copy"
    extra = await host.open("extra", f"{pages_url}/transfer/notes.html")  # the active tab now
    browser_host: BrowserHost = host.extra["host"]
    before = {t.runtime_id for t in browser_host.tabs}
    done = await host.call("runtime.session.finalize_tabs", {}, runtime)
    assert done["finalized"] is True and done["session"] == "Weekly report copy"
    await eventually(lambda: {t.runtime_id for t in browser_host.tabs} == {runtime, extra}, timeout=5)
    assert len(done["closed_tab_ids"]) == len(before) - 2
