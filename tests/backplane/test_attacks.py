"""Replicas trust only each other (issue 40, docs/threat-model.md "Replicas trust only each other", docs/deploying.md).

Each test is one attack by a plain NATS client that reaches the replicas'
NATS server but has not their secret (``tests/backplane/attacker.py``),
against real replicas (``serve --backplane``) on a real ``nats-server``:
reading a call's arguments on ``>``, injecting a call, forging and replaying
answers and calls, announcing a runtime as a fake replica, using what the
key-value store holds on ``/mcp``, and a second deployment on the same NATS.
Each attack must change nothing, and the replica that sees it must say so
(a warning naming what was refused, never what it held).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import pytest_asyncio

from mcp_actions.backplane.seal import Seal
from tests.backplane.attacker import Sniffer, as_json, kv_contents, soon
from tests.backplane.cluster import BRIDGE_TOKEN, HTTP_TOKEN, SECRET, NatsServer, Replica, mcp_client, shop_map
from tests.backplane.test_replicas import Cluster, _listed_is, cluster, error_of, fresh, listed, open_runtime, resource, until

pytestmark = pytest.mark.slow

VICTIM = "rt-victim"


def login_map(root: Path) -> Path:
    """The shop map with a tool whose argument is a password (what an attacker would read)."""
    shop_map(root)
    document = json.loads((root / "shop.actions.json").read_text())
    document["tools"].append(
        {
            "name": "shop.login",
            "description": "Sign in.",
            "input_schema": {"type": "object", "properties": {"password": {"type": "string"}, "wait_ms": {"type": "integer"}}},
            "x_actions": {"handler": "shop.login"},
        }
    )
    (root / "shop.actions.json").write_text(json.dumps(document))
    return root


def logins(runtime: Any) -> list[str]:
    """The passwords the runtime was asked to type, in order."""
    return [call["arguments"].get("password") for call in runtime.calls if call.get("handler") == "shop.login"]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Cluster]:
    """Two replicas serving the login map, started once for the attacks that leave them as they were (each
    enters it with ``fresh``). Each of those attacks makes its replicas refuse kinds of message no other one
    does: a refusal is warned once and then at most every 10 s per kind and reason (``REFUSAL_LOG_EVERY_S``),
    so the warning a test waits for is its own."""
    root = tmp_path_factory.mktemp("pair")
    login_map(root / "maps")
    async with cluster(root, 2) as c:
        yield c


async def refused_on(replica: Replica, what: str, timeout: float = 5.0) -> str:
    """Wait until ``replica`` warned that it refused ``what``; the warning lines."""

    async def said() -> bool:
        return any(f"refused {what}" in line for line in replica.stderr().splitlines())

    await until(said, timeout=timeout)
    return "\n".join(line for line in replica.stderr().splitlines() if "refused" in line)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_client_on_every_subject_reads_no_argument_answer_tool_runtime_or_replica(pair: Cluster) -> None:
    async with fresh(pair) as c:
        a, b = c.replicas
        async with Sniffer(c.nats.url) as sniffer:
            runtime = await open_runtime(a.bridge_url, VICTIM)
            try:
                async with mcp_client(b.mcp_url, keepalive=True) as on_b:
                    await until(lambda: _listed_is(on_b, {VICTIM}))
                    result = await on_b.call_tool("shop_login", {"password": "Victim-Pw-1", "target_runtime_id": VICTIM})
                    assert not result.is_error and result.structured_content == {"runtime": VICTIM, "n": None, "handler": "shop.login"}
                    replicas = [(await resource(client, "actions://bridge/launch"))["backplane"]["replica"] for client in (on_b,)]
                    async with mcp_client(a.mcp_url, keepalive=True) as on_a:
                        replicas.append((await resource(on_a, "actions://bridge/launch"))["backplane"]["replica"])
                await soon(1.5)  # a directory announcement or two
            finally:
                await runtime.close()
        assert logins(runtime) == ["Victim-Pw-1"]  # the call crossed the backplane
        assert sniffer.of(".call") and sniffer.of(".ev"), "the attacker saw the call go and come back"
        seen = sniffer.everything()
        # Neither the argument nor the answer, nor which tool, runtime or replica: only sealed bytes and opaque names.
        for secret in (b"Victim-Pw-1", b"shop.login", b"shop_login", VICTIM.encode(), *(r.encode() for r in replicas)):
            assert secret not in seen, secret
        assert all(as_json(s.data) is None for s in sniffer.seen if s.subject.startswith("mcpa."))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_call_injected_or_replayed_by_a_client_without_the_secret_never_runs(pair: Cluster) -> None:
    async with fresh(pair) as c:
        a, b = c.replicas
        async with Sniffer(c.nats.url) as attacker:
            runtime = await open_runtime(a.bridge_url, VICTIM)
            try:
                async with mcp_client(b.mcp_url, keepalive=True) as on_b:
                    await until(lambda: _listed_is(on_b, {VICTIM}))
                    result = await on_b.call_tool("shop_login", {"password": "Victim-Pw-1", "target_runtime_id": VICTIM})
                    assert not result.is_error, result
                    # A call as a replica sends one, to every replica's call subject the traffic shows.
                    call = {"type": "action_call", "call_id": "injected-1", "runtime_id": VICTIM, "name": "shop.ping", "handler": "shop.login", "arguments": {"password": "Injected"}, "timeout_ms": 5000}
                    forged = json.dumps({"caller": "attacker", "call": call}).encode()
                    # (Requests sent together: each waits its whole second for the reply that never comes.)
                    replies = list(await asyncio.gather(*(attacker.request(subject, forged) for subject in attacker.replica_subjects("call"))))
                    # And the call it saw, sent again as it was.
                    captured = attacker.of(".call")
                    assert captured
                    replies += await asyncio.gather(*(attacker.request(seen.subject, seen.data) for seen in captured))
                    await soon(1.0)
                    assert replies and all(reply is None for reply in replies), replies  # no replica even said it took one
                    assert logins(runtime) == ["Victim-Pw-1"]  # the runtime ran the victim's call once, and nothing else
                    # The victim's own calls still work.
                    again = await on_b.call_tool("shop_login", {"password": "Victim-Pw-2", "target_runtime_id": VICTIM})
                    assert not again.is_error and logins(runtime) == ["Victim-Pw-1", "Victim-Pw-2"]
            finally:
                await runtime.close()
        warnings = await refused_on(a, "a call")
        assert "not sealed with this deployment's secret" in warnings and "a replay" in warnings
        assert "Injected" not in a.stderr() and "Victim-Pw" not in a.stderr()  # the warning names what was refused, never what it held


@pytest.mark.asyncio(loop_scope="module")
async def test_a_forged_or_replayed_answer_does_not_answer_a_call(pair: Cluster) -> None:
    async with fresh(pair) as c:
        a, b = c.replicas
        async with Sniffer(c.nats.url) as attacker:
            runtime = await open_runtime(a.bridge_url, VICTIM)
            try:
                async with mcp_client(b.mcp_url, keepalive=True) as on_b:
                    await until(lambda: _listed_is(on_b, {VICTIM}))
                    first = await on_b.call_tool("shop_login", {"password": "Victim-Pw-1", "target_runtime_id": VICTIM})
                    assert not first.is_error, first
                    old_answers = list(attacker.of(".ev"))
                    assert old_answers
                    # The next call's runtime takes 1.5 s to answer: the attacker answers first.
                    calls_before = len(attacker.of(".call"))
                    pending = asyncio.create_task(on_b.call_tool("shop_login", {"password": "Victim-Pw-2", "wait_ms": 1500, "target_runtime_id": VICTIM}))
                    async with asyncio.timeout(5):
                        while len(attacker.of(".call")) == calls_before:
                            await asyncio.sleep(0.02)
                    request = attacker.of(".call")[-1]
                    readable = as_json(request.data) or {}
                    call_id = (readable.get("call") or {}).get("call_id", "a-guess")
                    forged = {"kind": "output", "call_id": call_id, "output": {"runtime": VICTIM, "n": None, "handler": "forged"}}
                    # A forged "not taken" to the request itself, a forged outcome to every replica, the first call's answers again.
                    await attacker.publish(request.reply, json.dumps({"taken": False, "error": {"code": "transport_failed", "message": "forged"}}).encode())
                    for subject in attacker.replica_subjects("ev"):
                        await attacker.publish(subject, json.dumps(forged).encode())
                    for seen in old_answers:
                        await attacker.publish(seen.subject, seen.data)
                    result = await pending
                    assert not result.is_error, result
                    assert result.structured_content == {"runtime": VICTIM, "n": None, "handler": "shop.login"}  # the runtime's own answer
            finally:
                await runtime.close()
        warnings = await refused_on(b, "a call's answer")
        assert "not sealed" in warnings and "a replay" in warnings


async def test_a_dead_replica_is_not_kept_alive_by_whoever_answers_its_pings(tmp_path: Path) -> None:
    """Posing as a replica that died: the attacker answers its pings, the others still drop it (and its runtimes) at once."""
    async with cluster(tmp_path, 2) as c:
        a, b = c.replicas
        async with Sniffer(c.nats.url) as attacker:
            runtime = await open_runtime(a.bridge_url, VICTIM)
            try:
                async with mcp_client(b.mcp_url, keepalive=True) as on_b:
                    await until(lambda: _listed_is(on_b, {VICTIM}))
                    await soon(0.5)  # pings both ways: the attacker knows both replicas' subjects

                    async def pose(msg: Any) -> None:
                        if msg.reply:
                            await msg.respond(b"{}")  # "alive", as the old backplane's replicas said it

                    for subject in attacker.replica_subjects("ping"):
                        await attacker.nc.subscribe(subject, cb=pose)
                    await attacker.nc.flush()
                    # And it repeats the replicas' last announcements, so that the dead one never goes silent either.
                    announcements = attacker.of(".dir")[-4:]

                    async def repeat() -> None:
                        while True:
                            for seen in announcements:
                                await attacker.publish(seen.subject, seen.data)
                            await asyncio.sleep(0.3)

                    repeating = asyncio.create_task(repeat())
                    killed = time.monotonic()
                    a.kill()

                    async def dropped() -> bool:
                        return await listed(on_b) == set()

                    try:
                        await until(dropped, timeout=12)
                    finally:
                        repeating.cancel()
                    assert time.monotonic() - killed < 6  # within a ping's time limit (1.5 s), not kept alive for ever
            finally:
                await runtime.close()
        assert "not sealed" in await refused_on(b, "an answer to a request")
        assert "a replay" in await refused_on(b, "a runtime announcement")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_fake_replica_cannot_announce_a_runtime_nor_receive_its_calls(pair: Cluster) -> None:
    async with fresh(pair) as c:
        a, b = c.replicas
        async with Sniffer(c.nats.url) as attacker:
            runtime = await open_runtime(a.bridge_url, VICTIM)
            try:
                async with mcp_client(b.mcp_url, keepalive=True) as on_b:
                    await until(lambda: _listed_is(on_b, {VICTIM}))
                    await soon(1.2)
                    (prefix,) = attacker.prefixes()
                    received: list[bytes] = []

                    async def fake_replica(msg: Any) -> None:
                        # Takes any call, and answers it as the runtime would (on the old backplane's subjects).
                        received.append(bytes(msg.data))
                        if msg.subject.endswith(".call"):
                            await msg.respond(b'{"taken": true}')
                            request = as_json(msg.data) or {}
                            output = {"kind": "output", "call_id": request["call"]["call_id"], "output": {"runtime": VICTIM, "n": None, "handler": "forged"}}
                            await attacker.nc.publish(f"{prefix}.r.{request['caller']}.ev", json.dumps(output).encode())
                        elif msg.reply:
                            await msg.respond(b"{}")

                    await attacker.nc.subscribe(f"{prefix}.r.fake.*", cb=fake_replica)
                    entry = {"runtime_id": VICTIM, "url": "https://shop.test/", "transport": "websocket", "trust": "host", "bound_at": time.time() + 3600, "connected_at": time.time()}
                    announcement = json.dumps({"replica": "fake", "runtimes": [entry]}).encode()
                    genuine = list(attacker.of(".dir"))
                    for _ in range(5):
                        await attacker.publish(f"{prefix}.dir", announcement)
                        for seen in genuine[-2:]:  # a replica's own announcements, again
                            await attacker.publish(seen.subject, seen.data)
                        await soon(0.2)
                    result = await on_b.call_tool("shop_login", {"password": "Victim-Pw-2", "target_runtime_id": VICTIM})
                    assert not result.is_error and result.structured_content == {"runtime": VICTIM, "n": None, "handler": "shop.login"}
                    assert received == []  # nothing was ever sent to the fake replica
                    assert logins(runtime) == ["Victim-Pw-2"]
                    listing = (await resource(on_b, "actions://runtimes"))["runtimes"]
                    assert [(r["runtime_id"], r.get("replica")) for r in listing] == [(VICTIM, (await _replica_of(a)))]
            finally:
                await runtime.close()
        warnings = await refused_on(b, "a runtime announcement")
        assert "not sealed" in warnings and "a replay" in warnings


async def _replica_of(replica: Replica) -> str:
    async with mcp_client(replica.mcp_url, keepalive=True) as client:
        return str((await resource(client, "actions://bridge/launch"))["backplane"]["replica"])


@pytest.mark.asyncio(loop_scope="module")
async def test_what_the_key_value_store_holds_opens_no_session_on_mcp(pair: Cluster) -> None:
    async with fresh(pair) as c:
        a, b = c.replicas
        headers = {"Authorization": f"Bearer {HTTP_TOKEN}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=20) as http:
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "victim-client", "version": "1"}}
            opened = await http.post(a.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers)
            session_id = opened.headers["mcp-session-id"]
            session = {**headers, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
            await http.post(a.mcp_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            # The session itself is served by the other replica (adopted from the store): the store works.
            served = await http.post(b.mcp_url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, headers=session)
            assert served.status_code == 200, served.text

            store = await kv_contents(c.nats.url)
            records = {key: value for bucket in store.values() for key, value in bucket.items()}
            assert records, store  # the attacker found the session records
            everything = b"\n".join(key.encode() + b" " + value for key, value in records.items())
            assert session_id.encode() not in everything and b"victim-client" not in everything
            for key in records:
                # Even with the HTTP token, what the store holds is no session on /mcp, on either replica.
                for replica in (a, b):
                    used = await http.post(replica.mcp_url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}, headers={**session, "mcp-session-id": key})
                    assert used.status_code in (400, 404), (used.status_code, used.text)


async def test_two_deployments_on_one_nats_neither_see_nor_disturb_each_other(tmp_path: Path) -> None:
    other_secret = b"the-other-deployments-secret-0123456789"
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    maps = shop_map(tmp_path / "maps")
    ours = [Replica(name, nats.url, maps, tmp_path, "--shared-browser-context").start() for name in ("a", "b")]
    theirs = Replica("z", nats.url, maps, tmp_path, "--shared-browser-context", secret=other_secret).start()
    everyone = [*ours, theirs]
    try:
        async with Sniffer(nats.url) as attacker:
            for replica in everyone:
                await asyncio.to_thread(replica.wait_ready)
            mine = await open_runtime(ours[0].bridge_url, "rt-ours")
            other = await open_runtime(theirs.bridge_url, "rt-theirs")
            try:
                async with mcp_client(ours[1].mcp_url, keepalive=True) as on_ours, mcp_client(theirs.mcp_url, keepalive=True) as on_theirs:
                    await until(lambda: _listed_is(on_ours, {"rt-ours"}))
                    await soon(2.5)  # every replica announced itself twice meanwhile
                    assert await listed(on_ours) == {"rt-ours"} and await listed(on_theirs) == {"rt-theirs"}
                    assert error_of(await on_ours.call_tool("shop_ping", {"n": 1, "target_runtime_id": "rt-theirs"}))["code"] == "runtime_not_found"
                    launch = await resource(on_ours, "actions://bridge/launch")
                    assert [r["replica"] for r in launch["backplane"]["replicas"]] == [await _replica_of(ours[0])]  # no replica of theirs
                    # They do not even share subjects: each deployment's prefix is its own secret's.
                    assert attacker.prefixes() == {f"mcpa.{Seal(SECRET).cluster}", f"mcpa.{Seal(other_secret).cluster}"}
                    # One deployment's messages, put on the other's subjects, are refused there.
                    ours_prefix = f"mcpa.{Seal(SECRET).cluster}"
                    for seen in [s for s in attacker.of(".dir") if not s.subject.startswith(ours_prefix)][-2:]:
                        await attacker.publish(f"{ours_prefix}.dir", seen.data)
                    await soon(0.5)
                    assert await listed(on_ours) == {"rt-ours"}
                    result = await on_ours.call_tool("shop_ping", {"n": 2, "target_runtime_id": "rt-ours"})
                    assert not result.is_error, result
            finally:
                await mine.close()
                await other.close()
        for replica in ours:
            assert "not sealed with this deployment's secret" in await refused_on(replica, "a runtime announcement")
        assert "refused" not in theirs.stderr()  # nothing of ours ever reached the other deployment's subjects
    finally:
        for replica in everyone:
            replica.stop()
        nats.stop()


async def test_nats_credentials_are_never_shown(tmp_path: Path) -> None:
    """A password in the --backplane URL, or in the environment: neither in actions://bridge/launch, the status page, nor a log line."""
    password = "Nats-Pw-9"
    nats = NatsServer(tmp_path / "jetstream", "--user", "natsuser", "--pass", password)
    nats.start()
    maps = shop_map(tmp_path / "maps")
    a = Replica("a", f"nats://natsuser:{password}@127.0.0.1:{nats.port}", maps, tmp_path, "--shared-browser-context").start()
    b = Replica("b", nats.url, maps, tmp_path, "--shared-browser-context", env={"MCP_ACTIONS_BACKPLANE_USER": "natsuser", "MCP_ACTIONS_BACKPLANE_PASSWORD": password}).start()
    logged: list[str] = []

    async def on_log(params: Any) -> None:
        logged.append(json.dumps(params.data))

    try:
        for replica in (a, b):
            await asyncio.to_thread(replica.wait_ready)
        runtime = await open_runtime(b.bridge_url, "rt-far")
        try:
            async with mcp_client(a.mcp_url, keepalive=True, logging_callback=on_log) as on_a:
                await on_a.set_logging_level("warning")
                await until(lambda: _listed_is(on_a, {"rt-far"}))  # both joined: the URL's password and the environment's work
                result = await on_a.call_tool("shop_ping", {"n": 1, "target_runtime_id": "rt-far"})
                assert not result.is_error, result
                launch = await resource(on_a, "actions://bridge/launch")
                assert launch["backplane"]["url"] == f"nats://127.0.0.1:{nats.port}"
                async with httpx2.AsyncClient() as http:
                    page = (await http.get(f"http://127.0.0.1:{a.bridge_port}/?token={BRIDGE_TOKEN}")).text
                assert f"nats://127.0.0.1:{nats.port}" in page
                nats.stop()  # "backplane … lost", said to the clients and on stderr

                async def lost() -> bool:
                    return any("lost" in line for line in logged)

                await until(lost, timeout=10)
                shown = json.dumps(launch) + page + "\n".join(logged) + a.stderr() + b.stderr()
                assert password not in shown and "natsuser" not in shown
        finally:
            await runtime.close()
    finally:
        for replica in (a, b):
            replica.stop()
        nats.stop()
