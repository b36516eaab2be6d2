"""MCP authorization (issue 56, docs/deploying.md): the server as an OAuth 2.1 protected resource.

Real parts only: a small authorization server written with joserfc (``oauth_issuer.py``) serves
its metadata and JWKS on loopback; ``serve --transport streamable-http --oauth-issuer`` runs in a
subprocess; the SDK's ``Client`` calls with a token, plain HTTP requests without one or with a
wrong audience, an expired, a forged or an under-scoped token.
"""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .oauth_issuer import Issuer
from .session_servers import free_port, http_serve, wait_until

OPERATOR_TOKEN = "operator-http-token"
BRIDGE_TOKEN = "operator-bridge-token"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def issuer():
    with Issuer() as running:
        yield running


def _client(url: str, token: str) -> Client:
    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})), mode="legacy")


async def _initialize(url: str, token: str | None) -> httpx.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    async with httpx.AsyncClient() as http:
        return await http.post(url, json=INITIALIZE, headers=headers)


async def test_tokens_are_checked_and_the_subject_is_the_sessions_user(tmp_path, issuer):
    bridge = free_port()
    args = ("--browser", "none", "--oauth-issuer", issuer.url, "--oauth-scopes", "mcp", "--http-token", OPERATOR_TOKEN)
    with http_serve(tmp_path / "server", *args, "--bridge-port", str(bridge), "--bridge-token", BRIDGE_TOKEN) as served:
        url = served.url
        assert wait_until(lambda: f"MCP authorization: bearer tokens of {issuer.url} for {url}" in served.stderr.read_text())  # said once it serves
        # No token: 401, pointing to the protected-resource metadata, which names the issuer.
        refused = await _initialize(url, None)
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and 'resource_metadata="' in challenge
        metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
        assert metadata_url.endswith("/.well-known/oauth-protected-resource/mcp")
        async with httpx.AsyncClient() as http:
            for where in (metadata_url, metadata_url.removesuffix("/mcp")):
                metadata = (await http.get(where)).json()
                assert metadata["resource"] == url
                assert metadata["authorization_servers"] == [issuer.url]
                assert metadata["scopes_supported"] == ["mcp"]
        # Tokens the issuer did not issue for this server, for now, with these scopes: refused.
        assert (await _initialize(url, issuer.token("alice", "https://another.example/mcp"))).status_code == 401
        assert (await _initialize(url, issuer.token("alice", url, expires_in=-120))).status_code == 401
        assert (await _initialize(url, issuer.forged("alice", url))).status_code == 401
        assert (await _initialize(url, issuer.token("alice", url, issuer="https://someone-else.example"))).status_code == 401
        assert (await _initialize(url, "not.a.jwt")).status_code == 401
        under_scoped = await _initialize(url, issuer.token("alice", url, scope="read"))
        assert under_scoped.status_code == 403 and "insufficient_scope" in under_scoped.headers["www-authenticate"]
        # A valid token: the SDK's client works, and its subject is the user of the session and its calls.
        async with _client(url, issuer.token("alice", url)) as alice:
            assert (await alice.list_tools()).tools
            assert not (await alice.call_tool("actions_site", {"mode": "list"})).is_error
            async with httpx.AsyncClient() as http:
                page = (await http.get(f"http://127.0.0.1:{bridge}/", params={"token": BRIDGE_TOKEN})).text
            assert 'user <strong class="user">alice</strong>' in page
        # The operator's --http-token still opens a session, as the user "operator".
        async with _client(url, OPERATOR_TOKEN) as operator:
            assert not (await operator.call_tool("actions_site", {"mode": "list"})).is_error
        # A session is its token's principal's: another user's token cannot use it.
        bob = issuer.token("bob", url)
        opened = await _initialize(url, issuer.token("carol", url))
        assert opened.status_code == 200
        session = opened.headers["mcp-session-id"]
        async with httpx.AsyncClient() as http:
            taken = await http.post(
                url,
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                headers={**ACCEPT, "Authorization": f"Bearer {bob}", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
            )
        assert taken.status_code in (403, 404)
    lines = [json.loads(line) for line in served.audit_log.read_text().splitlines()]
    users = [line.get("user") for line in lines if line["tool"] == "actions.site"]
    assert users == ["alice", "operator"]
    assert "/jwks" in issuer.requests  # the keys came from the issuer's JWKS, found through its metadata
    assert issuer.requests.index("/.well-known/oauth-authorization-server") < issuer.requests.index("/jwks")


def test_oauth_is_for_the_http_transports(tmp_path, issuer):
    done = subprocess.run(
        [sys.executable, "-m", "mcp_actions", "serve", "--oauth-issuer", issuer.url, "--browser", "none"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "--oauth-issuer is for the HTTP transports" in done.stderr
    plain = subprocess.run(
        [sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--oauth-issuer", "http://auth.example.com", "--browser", "none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert plain.returncode == 2 and "is not an https URL" in plain.stderr


async def test_the_policy_names_users_and_a_bap_client_presents_the_same_token(tmp_path, issuer):
    import re

    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "actions.site", "users": ["bob"], "decision": "deny"}, {"tools": "actions.site", "scopes": ["admin:*"], "decision": "deny"}]}))
    args = ("--browser", "none", "--oauth-issuer", issuer.url, "--policy", str(policy), "--bap-port", "0", "--bap-token", "bap-token")
    with http_serve(tmp_path / "server", *args) as served:
        url = served.url
        async with _client(url, issuer.token("alice", url)) as alice:
            assert not (await alice.call_tool("actions_site", {"mode": "list"})).is_error
        async with _client(url, issuer.token("bob", url)) as bob:
            denied = await bob.call_tool("actions_site", {"mode": "list"})
            assert denied.is_error and "permission_denied" in denied.content[0].text
        async with _client(url, issuer.token("dave", url, scope="mcp admin:all")) as dave:
            assert (await dave.call_tool("actions_site", {"mode": "list"})).is_error
        said = re.search(r"BAP at (ws://127\.0\.0\.1:\d+/)", served.stderr.read_text())
        assert said is not None
        with pytest.raises(InvalidStatus) as forged:
            async with connect(said.group(1), additional_headers={"Authorization": f"Bearer {issuer.forged('alice', url)}"}):
                pass
        assert forged.value.response.status_code == 401
        async with connect(said.group(1), additional_headers={"Authorization": f"Bearer {issuer.token('carol', url)}"}) as ws:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "bap-host", "version": "1"}}}))
            assert "result" in json.loads(await ws.recv())
            step = {"action": "mcp-actions/call", "params": {"name": "actions_site", "arguments": {"mode": "list"}}}
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "agent/act", "params": {"steps": [step]}}))
            answer = json.loads(await ws.recv())
            assert "result" in answer, answer
    lines = [json.loads(line) for line in served.audit_log.read_text().splitlines()]
    seen = [(line.get("user"), line["decision"], line["status"], line.get("client")) for line in lines if line["tool"] == "actions.site"]
    assert [entry[:3] for entry in seen[:3]] == [("alice", "allowed", "ok"), ("bob", "denied", "error"), ("dave", "denied", "error")]
    assert seen[3][:3] == ("carol", "allowed", "ok") and seen[3][3] == "bap:bap-host"


async def test_the_sse_transport_takes_the_same_tokens(tmp_path, issuer):
    from mcp.client.sse import sse_client

    with http_serve(tmp_path / "server", "--browser", "none", "--oauth-issuer", issuer.url, "--transport", "sse") as served:
        url = served.url.removesuffix("/mcp") + "/sse"  # the default audience is the transport's own URL
        async with httpx.AsyncClient() as http:
            refused = await http.get(url, headers={"Authorization": f"Bearer {issuer.forged('erin', url)}"})
            assert refused.status_code == 401 and "resource_metadata" in refused.headers["www-authenticate"]
        async with Client(sse_client(url, headers={"Authorization": f"Bearer {issuer.token('erin', url)}"}), mode="legacy") as erin:
            assert not (await erin.call_tool("actions_site", {"mode": "list"})).is_error
    users = [json.loads(line).get("user") for line in served.audit_log.read_text().splitlines()]
    assert users == ["erin"]
