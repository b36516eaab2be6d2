"""Replicas on a real NATS backplane act as one server (issue #33, docs/deploying.md).

Every part is real: a ``nats-server`` with JetStream, two or three ``serve
--transport streamable-http --backplane …`` processes, a round-robin TCP
balancer in front of their bridge ports and of their MCP ports (WebSocket
upgrades pass through it), WebSocket runtimes (``tests/bridge/wsclient.py``)
and the SDK's streamable-HTTP client. A replica is killed with SIGKILL
mid-call, and NATS is stopped mid-run and started again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
import pytest_asyncio
from mcp import Client

from tests.backplane.cluster import BRIDGE_TOKEN, HTTP_TOKEN, Balancer, NatsServer, Replica, mcp_client, shop_map
from tests.bridge.wsclient import WsRuntime

pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    nats: NatsServer
    replicas: list[Replica]
    http: Balancer
    ws: Balancer
    clients: dict[str, Client] = field(default_factory=dict)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http.port}/mcp"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws.port}/bridge"


@contextlib.asynccontextmanager
async def cluster(tmp_path: Path, count: int, *extra: str) -> AsyncIterator[Cluster]:
    """NATS, ``count`` replicas serving the shop map, and a balancer in front of each kind of port."""
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    maps = tmp_path / "maps"
    if not (maps / "shop.actions.json").exists():  # a test may have written its own map first
        shop_map(maps)
    # One team's replicas: every MCP session sees the operator's runtimes (sessions' own are tested apart).
    shared = () if "--isolated-sessions" in extra else ("--shared-browser-context",)
    extra = tuple(arg for arg in extra if arg != "--isolated-sessions")
    replicas = [Replica(chr(ord("a") + i), nats.url, maps, tmp_path, *shared, *extra).start() for i in range(count)]
    http = ws = None
    try:
        for replica in replicas:
            await asyncio.to_thread(replica.wait_ready)
        http = await Balancer([r.port for r in replicas]).start()
        ws = await Balancer([r.bridge_port for r in replicas]).start()
        yield Cluster(nats, replicas, http, ws)
    except BaseException:
        for replica in replicas:
            sys.stderr.write(f"--- replica {replica.name} stderr ---\n{replica.stderr()[-4000:]}\n")
        raise
    finally:
        for balancer in (http, ws):
            if balancer is not None:
                await balancer.stop()
        for replica in replicas:
            replica.stop()
        nats.stop()


@contextlib.asynccontextmanager
async def fresh(c: Cluster) -> AsyncIterator[Cluster]:
    """``c``, shared by the tests of a module, once more for the next test as if it were new: every process
    alive, no runtime listed on any replica (the last test's runtimes and their mirrors gone), the balancers'
    connection logs emptied and each replica's stderr read from here on (``Replica.mark_stderr``), so nothing
    a test asserts was left there by another."""
    assert c.nats.process is not None and c.nats.process.poll() is None, "the shared NATS server died"
    for replica in c.replicas:
        assert replica.process is not None and replica.process.poll() is None, f"shared replica {replica.name} died:\n{replica.stderr()[-4000:]}"
    for replica in c.replicas:
        async with mcp_client(replica.mcp_url, keepalive=True) as client:
            await until(lambda client=client: _listed_is(client, set()))
    c.http.connections.clear()
    c.ws.connections.clear()
    for replica in c.replicas:
        replica.mark_stderr()
    try:
        yield c
    except BaseException:
        for replica in c.replicas:
            sys.stderr.write(f"--- replica {replica.name} stderr (this test) ---\n{replica.stderr()[-4000:]}\n")
        raise


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Cluster]:
    """``cluster(tmp_path, 2)`` started once for the tests of this module that neither kill a replica, nor stop
    NATS, nor need options of their own (each enters it with ``fresh``): starting replicas is most of such a test's time."""
    async with cluster(tmp_path_factory.mktemp("pair"), 2) as c:
        yield c


def runtime_answer(runtime_id: str) -> Any:
    """A runtime's answer: who it is and what it was given (``wait_ms``: answer that much later; ``-1``: never)."""

    async def answer(call: dict[str, Any]) -> Any:
        arguments = call.get("arguments") or {}
        wait = arguments.get("wait_ms") or 0
        if wait < 0:
            return None
        if wait:
            await asyncio.sleep(wait / 1000)
        return {"runtime": runtime_id, "n": arguments.get("n"), "handler": call.get("handler")}

    return answer


async def open_runtime(url: str, runtime_id: str, **fields: Any) -> WsRuntime:
    runtime = await WsRuntime(url, runtime_id, url="https://shop.test/", token=BRIDGE_TOKEN, **fields).open()
    runtime.serve(runtime_answer(runtime_id), concurrent=True)
    return runtime


async def resource(client: Client, uri: str) -> Any:
    contents = (await client.read_resource(uri)).contents[0]
    assert isinstance(contents, types.TextResourceContents)
    return json.loads(contents.text)


async def listed(client: Client) -> set[str]:
    return {r["runtime_id"] for r in (await resource(client, "actions://runtimes"))["runtimes"]}


async def until(predicate: Any, timeout: float = 10.0, interval: float = 0.1) -> float:
    """Wait until the async ``predicate()`` holds; the seconds it took."""
    started = time.monotonic()
    async with asyncio.timeout(timeout):
        while not await predicate():
            await asyncio.sleep(interval)
    return time.monotonic() - started


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, result
    content = result.structured_content or {}
    error = content.get("error") if isinstance(content.get("error"), dict) else None
    if error is None:
        text = result.content[0]
        assert isinstance(text, types.TextContent)
        error = json.loads(text.text).get("error", {})
    return error


async def test_three_replicas_act_as_one_server(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "shop.secret", "decision": "deny"}]}))
    shop_map(tmp_path / "maps")
    document = json.loads((tmp_path / "maps" / "shop.actions.json").read_text())
    document["tools"].append({"name": "shop.secret", "description": "Denied by the policy.", "input_schema": {"type": "object"}, "x_actions": {"handler": "shop.secret"}})
    (tmp_path / "maps" / "shop.actions.json").write_text(json.dumps(document))
    notes: list[str] = []

    async def note(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            notes.append(message.method if hasattr(message, "method") else type(message).__name__)

    async with cluster(tmp_path, 3, "--policy", str(policy)) as c:
        a, b, third = c.replicas
        async with mcp_client(third.mcp_url, keepalive=True, message_handler=note) as watcher:
            await watcher.list_tools()  # known to replica c before any runtime arrives
            runtimes = [await open_runtime(c.ws_url, f"rt-{i}") for i in range(3)]
            try:
                # The balancer gave each replica one runtime's socket.
                assert sorted(c.ws.connections) == sorted(r.bridge_port for r in c.replicas)
                async with mcp_client(a.mcp_url, keepalive=True) as on_a, mcp_client(b.mcp_url, keepalive=True) as on_b:
                    everyone = {"rt-0", "rt-1", "rt-2"}
                    for client in (on_a, on_b, watcher):
                        await until(lambda client=client: _listed_is(client, everyone))
                    # Runtimes arriving on other replicas reached replica c's client as change notifications.
                    await until(lambda: _true(bool(notes)), timeout=5)
                    launch = [await resource(client, "actions://bridge/launch") for client in (on_a, on_b, watcher)]
                    ids = [report["backplane"]["replica"] for report in launch]
                    assert len(set(ids)) == 3 and all(report["backplane"]["connected"] for report in launch)

                # No sticky sessions: a 2025-11-25 client without keep-alive, each request through the balancer.
                async with mcp_client(c.http_url) as client:
                    for n in range(9):
                        target = f"rt-{n % 3}"
                        result = await client.call_tool("shop_ping", {"n": n, "target_runtime_id": target})
                        assert not result.is_error, result
                        # The runtime holding that socket ran it, and this call's answer came back to this call.
                        assert result.structured_content == {"runtime": target, "n": n, "handler": "shop.ping"}
                    denied = await client.call_tool("shop_secret", {"target_runtime_id": "rt-1"})
                    error = error_of(denied)
                    assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
                assert {p for p in c.http.connections} == {r.port for r in c.replicas}  # the requests were spread over every replica
                assert all(call.get("handler") != "shop.secret" for rt in runtimes for call in rt.calls)
                assert sorted(call["arguments"]["n"] for rt in runtimes for call in rt.calls if call.get("handler") == "shop.ping") == list(range(9))  # each call ran once

                # Audit lines carry the replica that took the MCP request.
                lines = []
                for replica, replica_id in zip(c.replicas, ids, strict=True):
                    own = [json.loads(line) for line in replica.audit.read_text().splitlines()] if replica.audit.exists() else []
                    assert all(line["replica"] == replica_id for line in own), own
                    lines += own
                assert sorted(line["status"] for line in lines if line["tool"] == "shop.ping") == ["ok"] * 9
                assert [line["decision"] for line in lines if line["tool"] == "shop.secret"] == ["denied"]

                # The status page of any replica shows every replica's runtimes, each with its replica.
                async with httpx2.AsyncClient() as http:
                    page = (await http.get(f"http://127.0.0.1:{b.bridge_port}/?token={BRIDGE_TOKEN}")).text
                assert 'id="backplane"' in page and all(f"on replica {replica_id}" in page for replica_id in ids)
            finally:
                for runtime in runtimes:
                    await runtime.close()


async def _listed_is(client: Client, expected: set[str]) -> bool:
    # Three lists in a row: through the round-robin balancer each goes to the next replica, so the
    # runtimes are listed by every replica (up to three), not only by the one that answered first.
    for _ in range(3):
        if await listed(client) != expected:
            return False
    return True


async def _true(value: bool) -> bool:
    return value


async def test_a_killed_replica_ends_its_calls_at_once_and_its_runtimes_come_back(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2) as c:
        a, b = c.replicas
        held = await open_runtime(a.bridge_url, "rt-k")  # its socket is on replica a
        async with mcp_client(b.mcp_url, keepalive=True) as on_b:
            await until(lambda: _listed_is(on_b, {"rt-k"}))
            # A call from replica b runs on replica a, whose runtime never answers it.
            call = asyncio.create_task(on_b.call_tool("shop_ping", {"n": 1, "wait_ms": -1, "target_runtime_id": "rt-k", "timeout_ms": 30000}))
            async with asyncio.timeout(5):
                # This very call, not another item the runtime got first (then the kill came before the
                # call was sent, and routing it after found no runtime: runtime_not_found, rightly).
                while not any(call.get("handler") == "shop.ping" and call["arguments"].get("n") == 1 for call in held.calls):
                    await asyncio.sleep(0.02)
            killed = time.monotonic()
            a.kill()
            result = await asyncio.wait_for(call, 10)
            ended_after = time.monotonic() - killed
            error = error_of(result)
            # Ended for its caller at once, as a dropped connection ends a call (never a hang until its 30 s limit).
            assert error["code"] == "transport_failed", error
            assert ended_after < 3.0, ended_after
            await held.drop()
            # The runtime reconnects through the balancer (a's port is dead, so b takes it) and is reachable again.
            came_back = time.monotonic()
            again = await open_runtime(c.ws_url, "rt-k")
            try:
                result = await on_b.call_tool("shop_ping", {"n": 2, "target_runtime_id": "rt-k"})
                assert not result.is_error and result.structured_content == {"runtime": "rt-k", "n": 2, "handler": "shop.ping"}
                assert time.monotonic() - came_back < 10
                assert await listed(on_b) == {"rt-k"}  # a's mirror of it is gone, the local one serves
                assert [call["arguments"]["n"] for call in again.calls if call.get("handler") == "shop.ping"] == [2]  # the first call never reached it
            finally:
                await again.close()


async def test_losing_nats_each_replica_serves_its_own_and_says_so_then_rejoins(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2) as c:
        a, b = c.replicas
        on_a_rt = await open_runtime(a.bridge_url, "rt-a")
        on_b_rt = await open_runtime(b.bridge_url, "rt-b")
        try:
            async with mcp_client(a.mcp_url, keepalive=True) as on_a, mcp_client(b.mcp_url, keepalive=True) as on_b:
                for client in (on_a, on_b):
                    await until(lambda client=client: _listed_is(client, {"rt-a", "rt-b"}))
                c.nats.stop()
                for client, own in ((on_a, "rt-a"), (on_b, "rt-b")):
                    await until(lambda client=client, own=own: _listed_is(client, {own}), timeout=10)
                    report = await resource(client, "actions://bridge/launch")
                    assert report["backplane"]["connected"] is False and "only this replica" in report["backplane"]["serving"]
                    # Its own runtime is served as ever; the other replica's is not reachable from here.
                    result = await client.call_tool("shop_ping", {"n": 5, "target_runtime_id": own})
                    assert not result.is_error and result.structured_content["runtime"] == own
                    other = "rt-b" if own == "rt-a" else "rt-a"
                    assert error_of(await client.call_tool("shop_ping", {"target_runtime_id": other}))["code"] == "runtime_not_found"
                async with httpx2.AsyncClient() as http:
                    page = (await http.get(f"http://127.0.0.1:{a.bridge_port}/?token={BRIDGE_TOKEN}")).text
                assert "unreachable: this replica serves only its own runtimes" in page
                # NATS returns on the same address: the replicas rejoin without a restart.
                c.nats.start()
                for client in (on_a, on_b):
                    await until(lambda client=client: _listed_is(client, {"rt-a", "rt-b"}), timeout=15)
                result = await on_a.call_tool("shop_ping", {"n": 6, "target_runtime_id": "rt-b"})
                assert not result.is_error and result.structured_content == {"runtime": "rt-b", "n": 6, "handler": "shop.ping"}
                assert (await resource(on_b, "actions://bridge/launch"))["backplane"]["connected"] is True
        finally:
            await on_a_rt.close()
            await on_b_rt.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_page_asks_the_user_of_the_caller_on_another_replica(pair: Cluster) -> None:
    """Elicitation crosses replicas: the runtime's input_request reaches the MCP client on the caller's replica, and the answer comes back."""
    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": True})

    async with fresh(pair) as c:
        a, b = c.replicas
        tool = {"name": "confirm_order", "description": "Confirms the order after asking.", "inputSchema": {"type": "object", "properties": {}}}
        page = await WsRuntime(a.bridge_url, "rt-web", url="https://shop.test/", token=BRIDGE_TOKEN, page_tools={"webmcp": [tool]}).open()
        answers: list[Any] = []

        async def serve_page() -> None:
            assert page.ws is not None
            async for frame in page.ws:
                item = json.loads(frame)
                if item.get("type") == "action_call" and item["name"] == "webmcp.call":
                    await page.send({"type": "input_request", "call_id": item["call_id"], "request_id": "q-1", "request": {"method": "requestUserInteraction"}})
                    pending = item
                elif item.get("type") == "input_response":
                    answers.append(item.get("response"))
                    await page.output(pending["call_id"], {"result": {"confirmed": item.get("response")}})

        serving = asyncio.create_task(serve_page())
        try:
            async with mcp_client(b.mcp_url, keepalive=True, elicitation_callback=elicit) as on_b:

                async def page_tool() -> bool:
                    return any(t.name.endswith("confirm_order") for t in (await on_b.list_tools()).tools)

                await until(page_tool)
                name = next(t.name for t in (await on_b.list_tools()).tools if t.name.endswith("confirm_order"))
                result = await on_b.call_tool(name, {"target_runtime_id": "rt-web"})
                assert not result.is_error, result
                assert len(asked) == 1 and answers == [{"granted": True}]
                assert result.structured_content == {"confirmed": {"granted": True}}
        finally:
            serving.cancel()
            with contextlib.suppress(BaseException):
                await serving
            await page.close()


def _cli(*args: str, preamble: str = "") -> subprocess.CompletedProcess[str]:
    code = f"import sys\n{preamble}\nfrom mcp_actions.cli import main\nsys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


USAGE_ERRORS = [
    # The NATS client missing (the nats extra not installed): one clear line, exit 2.
    (("serve", "--backplane", "nats://127.0.0.1:4222", "--bridge-token", "t"), "sys.modules['nats'] = None", "pip install 'mcp-actions[nats]'"),
    # Not a NATS URL.
    (("serve", "--backplane", "redis://127.0.0.1:6379", "--bridge-token", "t"), "", "--backplane must be a NATS URL"),
    # Replicas must share a bridge token: one generated per start differs on each.
    (("serve", "--backplane", "nats://127.0.0.1:4222"), "", "--backplane needs --bridge-token"),
    # Nor without an HTTP token (anyone could use a session on /mcp), nor without the secret that seals the backplane (issue 40).
    (("serve", "--backplane", "nats://127.0.0.1:4222", "--bridge-token", "t", "--backplane-secret-file", "{secret}"), "", "--backplane needs --http-token ("),
    (("serve", "--backplane", "nats://127.0.0.1:4222", "--bridge-token", "t", "--http-token", "h"), "", "--backplane needs --backplane-secret-file ("),
    (("serve", "--backplane", "nats://127.0.0.1:4222", "--bridge-token", "t"), "", "--backplane needs --http-token and --backplane-secret-file"),
    # A secret too short to be one, or no file at all.
    (("serve", "--backplane", "nats://h:4222", "--bridge-token", "t", "--http-token", "h", "--backplane-secret-file", "{short}"), "", "at least 32 are needed"),
    (("serve", "--backplane", "nats://h:4222", "--bridge-token", "t", "--http-token", "h", "--backplane-secret-file", "/nonexistent/s"), "", "cannot read it"),
    # A password in a URL that is refused is not repeated in the refusal.
    (("serve", "--backplane", "redis://u:Pw-in-url@h:6379", "--bridge-token", "t"), "", "not a redis:// URL"),
]


@pytest.fixture(scope="module")
def usage_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[tuple[str, ...], str, str], subprocess.CompletedProcess[str]]:
    """Each of ``USAGE_ERRORS``'s commands run once, all at once (each is an interpreter's start and nothing more)."""
    root = tmp_path_factory.mktemp("usage")
    (root / "secret").write_text("s" * 40 + "\n")
    (root / "short").write_text("not-long-enough\n")

    def one(case: tuple[tuple[str, ...], str, str]) -> subprocess.CompletedProcess[str]:
        args, preamble, _ = case
        return _cli(*(arg.format(secret=root / "secret", short=root / "short") for arg in args), preamble=preamble)

    with ThreadPoolExecutor(len(USAGE_ERRORS)) as pool:
        return dict(zip(USAGE_ERRORS, pool.map(one, USAGE_ERRORS), strict=True))


@pytest.mark.parametrize(("args", "preamble", "says"), USAGE_ERRORS)
def test_backplane_usage_errors_are_one_line_exit_2(args: tuple[str, ...], preamble: str, says: str, usage_runs: dict[tuple[tuple[str, ...], str, str], subprocess.CompletedProcess[str]]) -> None:
    done = usage_runs[(args, preamble, says)]
    assert "Pw-in-url" not in done.stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr


def test_without_backplane_nothing_of_nats_is_imported() -> None:
    code = (
        "import sys, asyncio\n"
        "from mcp_actions.actions_app import ActionsApp, AppOptions\n"
        "from mcp_actions.server.transports import http_app\n"
        "from mcp_actions.server.http_guard import HttpPolicy\n"
        "app = ActionsApp(AppOptions(browser='none', bridge_port=0, watch=False, audit_log=None))\n"
        "async def run():\n"
        "    await app.start()\n"
        "    http_app(app, 'streamable-http', HttpPolicy.for_bind('127.0.0.1'))\n"
        "    await app.stop()\n"
        "asyncio.run(run())\n"
        "assert app.backplane is None\n"
        "print(sorted(m for m in sys.modules if m == 'nats' or m.startswith('nats.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_a_sessions_own_runtime_on_one_replica_is_that_sessions_alone_on_every_replica(tmp_path: Path) -> None:
    """Isolated sessions (the default): a runtime that connected to replica a with a session's credential is reached by that session from replica b, and by no other session."""
    async with cluster(tmp_path, 2, "--isolated-sessions") as c:
        a, b = c.replicas
        async with mcp_client(b.mcp_url, keepalive=True) as mine, mcp_client(b.mcp_url, keepalive=True) as other:
            await other.list_tools()
            credential = (await resource(mine, "actions://bridge/launch"))["session"]["bridge_credential"]
            # The credential made on replica b is good on replica a (the same --bridge-token): the runtime is mine there.
            own = await WsRuntime(a.bridge_url, "rt-mine", url="https://shop.test/", token=credential).open()
            own.serve(runtime_answer("rt-mine"))
            operator = await open_runtime(a.bridge_url, "rt-operator")  # the operator's: no session sees it
            try:
                await until(lambda: _listed_is(mine, {"rt-mine"}))
                result = await mine.call_tool("shop_ping", {"n": 1, "target_runtime_id": "rt-mine"})
                assert not result.is_error and result.structured_content == {"runtime": "rt-mine", "n": 1, "handler": "shop.ping"}
                assert await listed(other) == set()
                refused = error_of(await other.call_tool("shop_ping", {"n": 2, "target_runtime_id": "rt-mine"}))
                assert refused["code"] == "runtime_not_found", refused
                assert [call["arguments"]["n"] for call in own.calls if call.get("handler") == "shop.ping"] == [1]
            finally:
                await operator.close()
        # The client ended its session (DELETE, on replica b): replica a ends it too, and closes its runtime there.
        try:
            code, _ = await own.wait_closed(timeout=10)
            assert code is not None
        finally:
            await own.close()


async def test_a_session_busy_on_one_replica_is_not_idle_on_another_and_ends_everywhere_when_idle(tmp_path: Path) -> None:
    """--session-idle-timeout across replicas: the replica holding a session's runtime hears the session is busy elsewhere, and ends it once idle everywhere."""
    async with cluster(tmp_path, 2, "--isolated-sessions", "--session-idle-timeout", "3") as c:
        a, b = c.replicas
        async with mcp_client(b.mcp_url, keepalive=True) as mine:
            credential = (await resource(mine, "actions://bridge/launch"))["session"]["bridge_credential"]
            own = await WsRuntime(a.bridge_url, "rt-mine", url="https://shop.test/", token=credential).open()
            own.serve(runtime_answer("rt-mine"))
            try:
                await until(lambda: _listed_is(mine, {"rt-mine"}))
                # Busy on replica b for twice the idle timeout: replica a, which sees none of its requests, keeps its runtime.
                busy_until = time.monotonic() + 6
                while time.monotonic() < busy_until:
                    result = await mine.call_tool("shop_ping", {"n": 1, "target_runtime_id": "rt-mine"})
                    assert not result.is_error, result
                    await asyncio.sleep(0.5)
                assert own.ws is not None and own.ws.close_code is None
                # Quiet now (the client keeps its session open): idle everywhere, so replica a ends it too.
                code, _ = await own.wait_closed(timeout=15)
                assert code is not None
            finally:
                await own.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_2026_client_listening_on_one_replica_hears_a_runtime_arrive_on_another(pair: Cluster) -> None:
    """Notifications of change reach a 2026-07-28 client's subscriptions/listen stream on every replica."""
    async with fresh(pair) as c:
        a, b = c.replicas
        async with mcp_client(b.mcp_url, keepalive=True, mode="2026-07-28") as on_b:
            async with on_b.listen(tools_list_changed=True, resources_list_changed=True, resource_subscriptions=["actions://runtimes"]) as events:
                runtime = await open_runtime(a.bridge_url, "rt-far")
                try:
                    seen: set[str] = set()
                    async with asyncio.timeout(10):
                        async for event in events:
                            seen.add(type(event).__name__)
                            if {"ResourceUpdated", "ResourcesListChanged"} <= seen:
                                break
                    assert "rt-far" in await listed(on_b)
                    result = await on_b.call_tool("shop_ping", {"n": 3, "target_runtime_id": "rt-far"})
                    assert not result.is_error and result.structured_content == {"runtime": "rt-far", "n": 3, "handler": "shop.ping"}
                finally:
                    await runtime.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_subscription_made_on_one_replica_is_notified_on_the_get_stream_another_holds(pair: Cluster) -> None:
    """A 2025-11-25 session subscribes on replica a while its GET stream is open on replica b: b sends resources/updated."""
    async with fresh(pair) as c:
        a, b = c.replicas
        headers = {"Authorization": f"Bearer {HTTP_TOKEN}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=20) as http:
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
            opened = await http.post(a.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers)
            session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
            await http.post(a.mcp_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            # Replica b adopts the session with one of its requests, then holds its GET stream.
            listed_on_b = await http.post(b.mcp_url, json={"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}}, headers=session)
            assert listed_on_b.status_code == 200, listed_on_b.text
            async with http.stream("GET", b.mcp_url, headers={**session, "Accept": "text/event-stream"}) as stream:
                subscribed = await http.post(a.mcp_url, json={"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": "actions://runtimes"}}, headers=session)
                assert subscribed.status_code == 200, subscribed.text
                await asyncio.sleep(0.5)  # the subscription crosses the backplane
                runtime = await open_runtime(a.bridge_url, "rt-sub")
                try:
                    heard: list[str] = []
                    async with asyncio.timeout(10):
                        async for line in stream.aiter_lines():
                            if line.startswith("data:"):
                                heard.append(json.loads(line[5:]).get("method", ""))
                                if "notifications/resources/updated" in heard:
                                    break
                finally:
                    await runtime.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_sessions_log_level_holds_on_every_replica(pair: Cluster) -> None:
    """logging/setLevel lands on one replica; the session's calls on every replica log at that level."""
    logged: list[Any] = []

    async def on_log(params: Any) -> None:
        if isinstance(params.data, dict) and params.data.get("event") == "call_started":
            logged.append(params.data)

    async with fresh(pair) as c:
        runtime = await open_runtime(c.replicas[0].bridge_url, "rt-log")
        try:
            async with mcp_client(c.http_url, logging_callback=on_log) as client:  # each request through the balancer
                await until(lambda: _listed_is(client, {"rt-log"}))
                await client.set_logging_level("info")
                await asyncio.sleep(0.5)  # the level crosses the backplane
                for n in range(4):
                    result = await client.call_tool("shop_ping", {"n": n, "target_runtime_id": "rt-log"})
                    assert not result.is_error, result
                assert len(logged) == 4, logged  # call_started is info: sent by whichever replica took the call
                assert {p for p in c.http.connections} == {r.port for r in c.replicas}
        finally:
            await runtime.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_acting_calls_from_two_replicas_take_turns_on_one_tab(pair: Cluster) -> None:
    """One acting call per tab at a time holds across replicas: calls from a and from b on a's runtime never overlap in the page."""
    spans: list[tuple[float, float]] = []

    async def slow(call: dict[str, Any]) -> Any:
        started = time.monotonic()
        await asyncio.sleep(0.2)
        if call.get("handler") == "shop.ping":  # not the replicas' own page reads (WAB discovery)
            spans.append((started, time.monotonic()))
        return {"runtime": "rt-turn", "n": call["arguments"].get("n"), "handler": call.get("handler")}

    async with fresh(pair) as c:
        a, b = c.replicas
        runtime = await WsRuntime(a.bridge_url, "rt-turn", url="https://shop.test/", token=BRIDGE_TOKEN).open()
        runtime.serve(slow, concurrent=True)  # the runtime itself would run them side by side
        try:
            async with mcp_client(a.mcp_url, keepalive=True) as on_a, mcp_client(b.mcp_url, keepalive=True) as on_b:
                await until(lambda: _listed_is(on_b, {"rt-turn"}))
                calls = [client.call_tool("shop_ping", {"n": n, "target_runtime_id": "rt-turn"}) for n in range(3) for client in (on_a, on_b)]
                results = await asyncio.gather(*calls)
                assert all(not r.is_error for r in results), results
            spans.sort()
            assert len(spans) == 6
            overlaps = [(x, y) for x, y in zip(spans, spans[1:], strict=False) if y[0] < x[1]]
            assert overlaps == [], overlaps
        finally:
            await runtime.close()
