"""Ports as users meet them: a second server beside the first, a chosen port that is taken, a terminal.

Real processes and real sockets throughout. The default ports (bridge 17345,
HTTP 8931) may be held by anything on this machine, another test included, so
each test either holds the port itself or reads which port the server really
took and checks what it said about it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.defaults import DEFAULT_BRIDGE_PORT, DEFAULT_MCP_PORT
from mcp_actions.ports import PortInUse, listen_sockets

#: Variables that would choose a port, which these tests leave to the default unless they set them.
_PORT_VARIABLES = ("MCP_ACTIONS_BRIDGE_PORT", "MCP_ACTIONS_PORT", "MCP_ACTIONS_TRANSPORT")
_CONNECT_RE = re.compile(r"runtimes connect at ws://127\.0\.0\.1:(\d+)/bridge")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _PORT_VARIABLES}
    env.update({"MCP_ACTIONS_HEADLESS": "1", "PYTHONUNBUFFERED": "1", **extra})
    return env


def _serve_args(maps: Path, *more: str) -> list[str]:
    # No browser and an empty map folder: the server is light, and nothing but ports is under test.
    return ["-m", "mcp_actions", "serve", "--browser", "none", "--manifests", str(maps), "--no-watch", *more]


@pytest.fixture
def maps(tmp_path: Path) -> Path:
    folder = tmp_path / "maps"
    folder.mkdir()
    return folder


@contextlib.contextmanager
def _held(port: int = 0):
    """A socket listening on 127.0.0.1:``port`` (0: a free one) for the block; yields its port, or None when taken."""
    sock = socket.socket()
    if os.name == "posix":
        # As the server does: connections of earlier tests in TIME_WAIT must not make a free port look taken.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            yield None  # someone else holds it: it is taken all the same
            return
        sock.listen()
        yield sock.getsockname()[1]
    finally:
        sock.close()


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def _wait_for_text(path: Path, pattern: str, process: subprocess.Popen, timeout: float = 30) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        found = re.search(pattern, text)
        if found:
            return found
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode} before saying {pattern!r}:\n{text}")
        time.sleep(0.05)
    raise AssertionError(f"server never said {pattern!r}:\n{path.read_text(errors='replace')}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


# -- two servers side by side ------------------------------------------------


async def test_two_servers_side_by_side_with_default_options_both_serve(maps: Path, tmp_path: Path) -> None:
    logs = [tmp_path / "first.err", tmp_path / "second.err"]
    reports = []
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for log in logs:
            errlog = stack.enter_context(log.open("w"))
            params = StdioServerParameters(command=sys.executable, args=_serve_args(maps), env=_env())
            clients.append(await stack.enter_async_context(Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60)))
        for client in clients:
            # Each one answers initialize (entering the client) and tools/list over its own stdio.
            tools = (await client.list_tools()).tools
            assert tools and all("mcp-actions/tool" in (tool.meta or {}) for tool in tools)
            launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
            reports.append(launch["bridge"])
        urls = [report["websocket_url"] for report in reports]
        assert urls[0] != urls[1], urls  # each reports its own bridge
        ports = [int(re.fullmatch(r"ws://127\.0\.0\.1:(\d+)/bridge", url).group(1)) for url in urls]
        # At most one of them can hold the default port; whoever does not says so, once.
        assert ports.count(DEFAULT_BRIDGE_PORT) <= 1
        async with httpx.AsyncClient(timeout=10) as http:
            for log, port, report in zip(logs, ports, reports, strict=True):
                stderr = log.read_text()
                assert [int(p) for p in _CONNECT_RE.findall(stderr)] == [port]
                notes = [line for line in stderr.splitlines() if "is in use" in line]
                token = re.search(r"status page \S+\?token=(\S+)", stderr).group(1)  # the start line's own link
                page = (await http.get(f"{report['status_page']}?token={token}")).text
                if port == DEFAULT_BRIDGE_PORT:
                    assert notes == [] and 'id="port-note"' not in page and report["port_note"] is None
                else:
                    # actions://bridge/launch says it too, for a host that shows no stderr.
                    assert f"default bridge port {DEFAULT_BRIDGE_PORT} is in use" in report["port_note"] and f"serving on {port}" in report["port_note"]
                    assert notes == [
                        f"mcp-actions: the default bridge port {DEFAULT_BRIDGE_PORT} is in use (by another mcp-actions?), "
                        f"so serving on {port} instead; choose the port with --bridge-port"
                    ], stderr
                    assert re.search(rf'id="port-note".*{DEFAULT_BRIDGE_PORT} is in use.*serving on {port}', page)
                assert "Traceback" not in stderr
                assert "waiting for an MCP client" not in stderr  # stdin is a pipe here, not a terminal


# -- a chosen port that is taken ---------------------------------------------


@pytest.mark.parametrize("how", ["option", "variable"])
def test_a_chosen_bridge_port_that_is_taken_is_one_line_and_exit_2(maps: Path, how: str) -> None:
    with _held() as port:
        if how == "option":
            done = _run(_serve_args(maps, "--bridge-port", str(port)), _env())
            fix = "choose another with --bridge-port, or 0 for any free port"
        else:
            done = _run(_serve_args(maps), _env(MCP_ACTIONS_BRIDGE_PORT=str(port)))
            fix = "choose another with MCP_ACTIONS_BRIDGE_PORT or --bridge-port, or 0 for any free port"
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [f"mcp-actions: bridge port {port} on 127.0.0.1 is in use (by another mcp-actions?); {fix}"]


@pytest.mark.parametrize(("transport", "how"), [("streamable-http", "option"), ("sse", "variable")])
def test_a_chosen_http_port_that_is_taken_is_one_line_and_exit_2(maps: Path, transport: str, how: str) -> None:
    with _held() as port:
        if how == "option":
            done = _run(_serve_args(maps, "--transport", transport, "--port", str(port)), _env())
            fix = "choose another with --port, or 0 for any free port"
        else:
            done = _run(_serve_args(maps, "--transport", transport), _env(MCP_ACTIONS_PORT=str(port)))
            fix = "choose another with MCP_ACTIONS_PORT or --port, or 0 for any free port"
    assert done.returncode == 2, done.stderr
    # One line, and nothing else started: no bridge was bound, no token printed.
    assert done.stderr.splitlines() == [f"mcp-actions: HTTP port {port} on 127.0.0.1 is in use (by another mcp-actions?); {fix}"]


def test_a_port_out_of_range_is_a_usage_error(maps: Path) -> None:
    done = _run(_serve_args(maps, "--bridge-port", "70000"), _env())
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["mcp-actions: --bridge-port must be a port between 0 and 65535 (0: any free port), not 70000"]


# -- the HTTP transports' default port ---------------------------------------


async def test_http_default_port_taken_serves_on_a_free_port_and_prints_its_url(maps: Path, tmp_path: Path) -> None:
    log = tmp_path / "http.err"
    with _held(DEFAULT_MCP_PORT), log.open("w") as errlog:
        # Held by this test, or by something else: taken either way.
        process = subprocess.Popen(
            [sys.executable, *_serve_args(maps, "--transport", "streamable-http", "--bridge-port", "0")],
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errlog,
        )
        try:
            url = _wait_for_text(log, r"mcp-actions: MCP over streamable HTTP at (http://127\.0\.0\.1:(\d+)/mcp)\n", process)
            port = int(url.group(2))
            if port == DEFAULT_MCP_PORT:
                pytest.skip(f"port {DEFAULT_MCP_PORT} was let go by another program before the server started")
            async with Client(url.group(1)) as client:
                assert (await client.list_tools()).tools
                mcp = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)["mcp"]
                assert mcp["url"] == url.group(1) and f"HTTP port {DEFAULT_MCP_PORT} is in use" in mcp["port_note"]
        finally:
            _stop(process)
    stderr = log.read_text()
    assert [line for line in stderr.splitlines() if "in use" in line] == [
        f"mcp-actions: the default HTTP port {DEFAULT_MCP_PORT} is in use (by another mcp-actions?), so serving on {port} instead; choose the port with --port"
    ]
    assert stderr.count("MCP over streamable HTTP at") == 1
    assert "Traceback" not in stderr


async def test_http_port_0_serves_on_a_free_port_and_prints_its_url(maps: Path, tmp_path: Path) -> None:
    log = tmp_path / "sse.err"
    with log.open("w") as errlog:
        process = subprocess.Popen(
            [sys.executable, *_serve_args(maps, "--transport", "sse", "--port", "0", "--bridge-port", "0")],
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errlog,
        )
        try:
            url = _wait_for_text(log, r"mcp-actions: MCP over SSE at (http://127\.0\.0\.1:(\d+)/sse)\n", process).group(1)
            async with httpx.AsyncClient(timeout=10) as http, http.stream("GET", url) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
        finally:
            _stop(process)
    assert "in use" not in log.read_text()  # 0 is "any free port": nothing gave way


# -- a terminal --------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize(("ending", "status"), [("end of input", 0), ("ctrl-c", 130)])
def test_stdio_on_a_terminal_says_it_waits_and_how_to_try_it(maps: Path, tmp_path: Path, ending: str, status: int) -> None:
    log = tmp_path / "tty.err"
    controller, terminal = os.openpty()
    try:
        with log.open("w") as errlog:
            process = subprocess.Popen(
                [sys.executable, *_serve_args(maps, "--bridge-port", "0")],
                env=_env(),
                stdin=terminal,
                stdout=subprocess.PIPE,
                stderr=errlog,
            )
            os.close(terminal)
            terminal = -1
            try:
                _wait_for_text(log, r"Ctrl-C stops this server\.\n", process)
                started = time.monotonic()
                if ending == "end of input":
                    os.write(controller, b"\x04")  # Ctrl-D at the start of a line: the terminal's end of input
                else:
                    process.send_signal(signal.SIGINT)
                stdout, _ = process.communicate(timeout=20)
                assert time.monotonic() - started < 15
            finally:
                _stop(process)
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    assert process.returncode == status
    assert stdout == b""  # stdout is the MCP wire, even on a terminal
    stderr = log.read_text()
    hint = [line for line in stderr.splitlines() if "waiting for an MCP client" in line or "to try it" in line]
    assert len(hint) == 2, stderr
    assert hint[0].startswith("mcp-actions: waiting for an MCP client on stdio")
    command = f"{sys.executable} -m mcp_actions"
    assert f"`{command} demo`" in hint[1]
    # The Inspector is told to start this same server, with the options it was given.
    assert f"`npx @modelcontextprotocol/inspector -- {command} serve --browser none --manifests {maps} --no-watch --bridge-port 0`" in hint[1]


# -- in process: the bridge and the port helper --------------------------------


async def test_bridge_server_gives_way_only_with_fallback() -> None:
    with _held() as port:
        server = BridgeServer(Bridge(), port=port, fallback=True, token="t", runtime_script=lambda: "")
        await server.start()
        try:
            assert (server.requested_port, server.port_fallback) == (port, True)
            assert server.port != port and server.url == f"ws://127.0.0.1:{server.port}/bridge"
            assert server.port_note == f"bridge port {port} is in use (by another mcp-actions?), so serving on {server.port} instead"
        finally:
            await server.stop()
        strict = BridgeServer(Bridge(), port=port, token="t", runtime_script=lambda: "")
        with pytest.raises(PortInUse) as refused:
            await strict.start()
        assert (refused.value.code, refused.value.evidence) == ("usage_error", {"service": "bridge", "host": "127.0.0.1", "port": port})
        assert strict.port_note is None
    # Nothing of the refused start is left: the port is free again once the holder lets go.
    with _held(port) as again:
        assert again == port


async def test_bridge_server_on_a_free_port_has_no_note() -> None:
    server = BridgeServer(Bridge(), port=0, fallback=True, token="t", runtime_script=lambda: "")
    async with server:
        assert server.port != 0 and server.port_note is None
        async with httpx.AsyncClient(timeout=10) as http:
            page = (await http.get(server.status_url())).text
        assert 'id="port-note"' not in page


def test_listen_sockets_gives_way_only_with_fallback() -> None:
    with _held() as port:
        listening = listen_sockets("127.0.0.1", port, service="HTTP", fallback=True, default=port)
        try:
            assert (listening.requested, listening.port != port) == (port, True)
            assert listening.note == f"the default HTTP port {port} is in use (by another mcp-actions?), so serving on {listening.port} instead"
            with socket.create_connection(("127.0.0.1", listening.port), timeout=5):
                pass  # listening already: nobody can take the port between binding and serving
        finally:
            listening.close()
        with pytest.raises(PortInUse):
            listen_sockets("127.0.0.1", port, service="HTTP", fallback=False)


def test_listen_sockets_binds_every_address_of_a_name_on_one_port() -> None:
    listening = listen_sockets("localhost", 0, service="HTTP", fallback=False)
    try:
        ports = {sock.getsockname()[1] for sock in listening.sockets}
        assert ports == {listening.port} and listening.note is None
    finally:
        listening.close()
    assert all(sock.fileno() == -1 for sock in listening.sockets)
