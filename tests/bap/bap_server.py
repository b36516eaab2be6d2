"""The BAP server the tests of tests/bap/ share: ``serve --bap-port`` with a small map, a policy and an upload root.

``serve --transport streamable-http --bap-port …`` runs once for the session (tests/bap/conftest.py)
over the fixture pages (tests/fixtures/pages/bap/), with a map of the order form (one tool that
writes a note, one that asks the user before placing the order), a policy that denies every call
on the ``localhost`` origin, and an upload root holding one file.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from browseragentprotocol import BAPClient

from mcp_actions.demo.static import StaticSite
from tests.server.session_servers import free_port, http_serve

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
TOKEN = "bap-test-token"


@dataclass
class Server:
    bap_url: str
    site: str
    denied_site: str
    audit: Path
    stderr: Path
    origin: str
    uploads: Path
    mcp_url: str

    def page(self, name: str) -> str:
        """The URL of a fixture page of tests/fixtures/pages/bap/."""
        return f"{self.origin}/bap/{name}"


def _map(origin: str) -> dict[str, object]:
    """A small map of the order form: a tool that writes a note, and one that needs the user's yes."""
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin, "name": "BAP form"},
        "tools": [
            {
                "name": "bapform.write_note",
                "description": "Write a note into the order form's note field.",
                "input_schema": {"type": "object", "required": ["note"], "properties": {"note": {"type": "string", "minLength": 1}}, "additionalProperties": False},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [
                        {"id": "write", "primitive": "text.insert", "args": {"text": "{% input.note %}", "target": {"selector": "#note"}, "mode": "replace"}},
                        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#order"}}},
                    ],
                    "output": "{% {'written': input.note} %}",
                },
            },
            {
                "name": "bapform.place_order",
                "description": "Place the order as the form holds it.",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "x_actions": {"confirm": "Place this order?"},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "click", "primitive": "pointer.click", "args": {"target": {"selector": "button[type=submit]"}}}],
                    "output": "{% {'placed': true} %}",
                },
            },
        ],
    }


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"BAP port {port} never opened")


@contextmanager
def bap_server(tmp: Path) -> Iterator[Server]:
    """The server, its static site and its files, for as long as the block runs."""
    with StaticSite(PAGES) as site:
        origin = site.url.rstrip("/")
        maps = tmp / "maps"
        maps.mkdir()
        (maps / "bapform.actions.json").write_text(json.dumps(_map(origin)))
        policy = tmp / "policy.json"
        policy.write_text(json.dumps({"rules": [{"tools": "*", "origins": "http://localhost:*", "decision": "deny"}]}))
        uploads = tmp / "uploads"
        uploads.mkdir()
        (uploads / "receipt.txt").write_text("paid\n")
        port = free_port()
        args = ("--bap-port", str(port), "--bap-token", TOKEN, "--manifests", str(maps), "--policy", str(policy), "--upload-root", str(uploads))
        with http_serve(tmp / "server", *args) as served:
            _wait_for(port)
            yield Server(
                f"ws://127.0.0.1:{port}/",
                f"{origin}/bap/form.html",
                f"{origin.replace('127.0.0.1', 'localhost')}/bap/form.html",
                served.audit_log,
                served.stderr,
                origin,
                uploads,
                served.url,
            )


def client(server: Server, name: str = "bap-test", **options: object) -> BAPClient:
    """The released client, as an agent connects it."""
    return BAPClient(server.bap_url, token=TOKEN, name=name, timeout=30, **options)  # type: ignore[arg-type]  # options: the client's own keywords
