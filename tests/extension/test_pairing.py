"""The extension's identity and its pairing with the bridge, without a browser.

The id comes from the manifest's public key the way Chrome computes it (the
browser test checks Chrome agrees); no private key is shipped. A pairing is
earned with the start token at ``GET /pair`` on a real bridge port, persisted
(only a digest of its secret), and its secret opens ``/bridge`` like the token,
for a bridge started later with another token too.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.pairings import PairingStore, state_dir
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.cli import main
from mcp_actions.extension import connect_url, extension_dir, extension_id, extension_info
from mcp_actions.extension.identity import id_from_key, manifest
from mcp_actions.runtimes.page_script import runtime_js


def test_the_id_is_chromes_mapping_of_the_key_digest() -> None:
    # "AAAA" is three zero bytes, whose SHA-256 is well known: 709e80c8…
    assert id_from_key("AAAA") == "".join("abcdefghijklmnop"["0123456789abcdef".index(c)] for c in "709e80c88487a2411e1ee4dfb9f22a86")
    assert len(extension_id()) == 32 and set(extension_id()) <= set("abcdefghijklmnop")


def test_the_package_ships_the_extension_without_a_private_key() -> None:
    files = {p.name for p in extension_dir().iterdir()}
    assert {"manifest.json", "sw.js", "offscreen.html", "connect.html", "popup.html", "engine.js"} <= files
    assert not any(name.endswith((".pem", ".key")) or name.startswith("_") for name in files)  # Chrome refuses "_" names
    assert manifest()["manifest_version"] == 3 and "key" in manifest()


def test_the_command_prints_path_id_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == extension_info()
    assert main(["extension"]) == 0
    text = capsys.readouterr().out
    assert "chrome://extensions" in text and "Load unpacked" in text and str(extension_dir()) in text


def test_the_connect_link_carries_bridge_and_token_in_its_fragment() -> None:
    assert connect_url("http://127.0.0.1:8765", "t&k") == f"chrome-extension://{extension_id()}/connect.html#bridge=http%3A%2F%2F127.0.0.1%3A8765&token=t%26k"


def test_the_state_directory_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path))
    assert state_dir() == tmp_path
    assert PairingStore().path == tmp_path / "pairings.json"


def test_a_pairing_persists_as_a_digest_and_can_be_replaced_or_revoked(tmp_path: Path) -> None:
    store = PairingStore(tmp_path / "pairings.json")
    first = store.create("chrome")
    assert PairingStore(tmp_path / "pairings.json").authorization_of(first.secret) == first.authorization_id  # another process, later
    assert first.secret not in (tmp_path / "pairings.json").read_text()
    second = store.create("chrome", replaces=first.authorization_id)
    assert store.authorization_of(first.secret) is None and store.authorization_of(second.secret) == second.authorization_id
    assert store.revoke(second.authorization_id) and store.authorization_of(second.secret) is None
    assert store.authorization_of("") is None


async def test_the_bridge_pairs_with_its_token_and_accepts_the_secret_after_a_restart(tmp_path: Path) -> None:
    store = PairingStore(tmp_path / "pairings.json")
    first = BridgeServer(Bridge(), port=0, token="start-one", runtime_script=runtime_js, pairings=store)
    await first.start()
    try:
        async with httpx.AsyncClient() as http:
            refused = await http.get(f"{first.http_url}/pair", headers={"Authorization": "Bearer wrong"})
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "permission_denied"
            answer = await http.get(f"{first.http_url}/pair", params={"label": "test"}, headers={"Authorization": "Bearer start-one"})
        assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers
        pairing = answer.json()
        assert pairing["authorization_id"].startswith("auth-") and pairing["server"] == "mcp-actions"
    finally:
        await first.stop()

    second = BridgeServer(Bridge(), port=0, token="start-two", runtime_script=runtime_js, pairings=PairingStore(tmp_path / "pairings.json"))
    await second.start()
    try:
        async with connect(f"{second.url}?token={pairing['secret']}"):
            pass  # the upgrade was accepted
        with pytest.raises(InvalidStatus):
            async with connect(f"{second.url}?token=start-one"):  # the old start token is not a pairing
                pass
        async with httpx.AsyncClient() as http:  # and a secret cannot make more pairings
            assert (await http.get(f"{second.http_url}/pair", headers={"Authorization": f"Bearer {pairing['secret']}"})).status_code == 401
    finally:
        await second.stop()


async def test_a_paired_connection_is_its_pairings_and_ends_when_the_pairing_is_forgotten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from mcp_actions.bridge import websocket

    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path))
    monkeypatch.setattr(websocket, "PAIRING_CHECK_S", 0.05)
    store = PairingStore()
    kept, forgotten = store.create("chrome at work"), store.create("chrome at home")
    bridge = Bridge()
    server = BridgeServer(bridge, port=0, token="start", runtime_script=runtime_js, pairings=store)
    await server.start()
    try:
        async with connect(f"{server.url}?token={kept.secret}") as work, connect(f"{server.url}?token={forgotten.secret}") as home:
            # A runtime cannot claim another pairing than the one its connection proved.
            for ws, number in ((work, 1), (home, 2)):
                await ws.send(json.dumps({"type": "runtime_ready", "runtime_id": f"tab-{number}", "url": "https://a.test/", "authorization_id": "auth-someone-else"}))
                assert json.loads(await ws.recv())["type"] == "runtime_config"
            assert {i.runtime_id: i.authorization_id for i in bridge.registry.list()} == {"tab-1": kept.authorization_id, "tab-2": forgotten.authorization_id}

            assert main(["extension", "--pairings", "--json"]) == 0
            listed = json.loads(capsys.readouterr().out)
            assert [e["authorization_id"] for e in listed] == [kept.authorization_id, forgotten.authorization_id]
            assert all(set(e) == {"authorization_id", "label", "created_at"} for e in listed)  # never a digest
            assert main(["extension", "--forget", forgotten.authorization_id]) == 0
            assert forgotten.authorization_id in capsys.readouterr().out
            # The running server ends the forgotten pairing's connection (4003: do not come back with it) and keeps the other.
            await home.wait_closed()
            assert home.close_code == websocket.CLOSE_REVOKED
            await work.send(json.dumps({"type": "runtime_status", "runtime_id": "tab-1"}))
            assert [i.runtime_id for i in bridge.registry.list()] == ["tab-1"]
            with pytest.raises(InvalidStatus):
                async with connect(f"{server.url}?token={forgotten.secret}"):
                    pass
        assert main(["extension", "--forget", "auth-nobody"]) == 1
        assert main(["extension", "--forget", "all"]) == 0
        assert PairingStore().entries() == []
    finally:
        await server.stop()
