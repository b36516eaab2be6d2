"""A map's tool whose site shows in no tab is judged by the page the call would open, before anything opens (issue 29, finding 1).

The one resolver (``dispatch/call/targets.py``) gives such a call the page dispatch
would open for it (its map's ``surface.origin`` front page), and the policy
judges that page before the browser is launched or a tab opened. Real headless
Chromium and the SDK's ``Client``; the map and pages of
``tests/fixtures/pages/call-path/`` with the policy
``{"tools": "*", "origins": "http://127.0.0.1:P", "decision": "deny"}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests.dispatch.test_call_path_chromium import MAP, _error, _ok, site  # noqa: F401  (site: the pages' server fixture)

pytestmark = pytest.mark.browser


def _app(tmp_path: Path, port: int, denied: str) -> ActionsApp:
    document = json.loads(MAP.read_text(encoding="utf-8"))
    document["surface"]["origin"] = f"http://127.0.0.1:{port}"
    manifest = tmp_path / "bank.actions.json"
    manifest.write_text(json.dumps(document), encoding="utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "*", "origins": denied, "decision": "deny"}]}), encoding="utf-8")
    return ActionsApp(AppOptions(manifests=[str(manifest)], browser="auto", headless=True, isolated=True, serve_bridge=False, watch=False, policy=str(policy)))


async def test_a_tool_of_a_site_no_tab_shows_is_judged_by_the_page_it_would_open(tmp_path: Path, site: int) -> None:  # noqa: F811
    app = _app(tmp_path, site, f"http://127.0.0.1:{site}")
    async with Client(build_server(app)) as client:
        error = _error(await client.call_tool("bank_login", {"user": "ada", "password": "p"}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
        assert error["evidence"]["origin"] == f"http://127.0.0.1:{site}"
        # Refused before anything opened: no browser launched, no tab at the site.
        assert not app.browser.started
        assert app.bridge.registry.list() == []


async def test_the_same_tool_allowed_opens_its_site_and_runs(tmp_path: Path, site: int) -> None:  # noqa: F811
    app = _app(tmp_path, site, f"http://localhost:{site}")
    async with Client(build_server(app)) as client:
        # The site's front page is not the sign-in page: the call opens it, then fails to find the form there.
        result = await client.call_tool("bank_login", {"user": "ada", "password": "p", "timeout_ms": 8000})
        assert app.browser.started
        assert [r.url for r in app.bridge.registry.list() if not r.frame] == [f"http://127.0.0.1:{site}/"]
        assert result.is_error  # opened and tried (no #user on the site's front page), not refused by the policy
        assert _error(result)["code"] != "permission_denied"
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        assert _ok(await client.call_tool("bank_login", {"user": "ada", "password": "p"}))["greeting"] == "Logged in as ada"
