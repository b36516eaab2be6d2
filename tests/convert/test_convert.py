"""``mcp-actions convert``: WAB discovery documents and ABP manifests become valid actions.json maps.

The inputs are written from the specs' own text: the WAB example is the
discovery document printed in the WAB spec §4.2, the ABP manifest follows
the spec's ``ABPManifest`` type.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_actions.convert import abp_to_actions, convert_document, read_document, wab_to_actions
from mcp_actions.errors import ErrorCode, UsageError
from mcp_actions.manifest.validate import check_manifest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "convert"
WAB = FIXTURES / "acme.agent-bridge.json"
ABP = FIXTURES / "docs.abp-manifest.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_actions", *args], capture_output=True, text=True, timeout=60)


def test_wab_commands_become_tools_with_schemas_and_permissions():
    manifest = wab_to_actions(json.loads(WAB.read_text()))
    assert check_manifest(manifest).errors == ()
    tools = {tool["name"]: tool for tool in manifest["tools"]}
    assert sorted(tools) == ["acme_restaurant.placeOrder", "acme_restaurant.searchMenu", "acme_restaurant.viewMenu"]
    order = tools["acme_restaurant.placeOrder"]
    assert order["input_schema"] == {
        "type": "object",
        "properties": {
            "items": {"type": "array", "description": "List of menu item IDs"},
            "address": {"type": "string", "description": "Delivery address"},
        },
        "additionalProperties": False,
        "required": ["items", "address"],
    }
    assert order["x_actions"]["handler"] == "wab.execute"
    assert order["x_actions"]["binding"] == {"arguments": {"command": "placeOrder"}}
    # navigate is false in the document: the tool records that its trigger is not permitted
    assert tools["acme_restaurant.viewMenu"]["x_wab"] == {"command": "viewMenu", "trigger": "navigate", "requires_auth": False, "permission": "navigate", "permitted": False}
    assert tools["acme_restaurant.searchMenu"]["x_wab"]["permitted"] is True
    assert manifest["surface"]["origin"] == "https://acme-restaurant.com"
    assert manifest["x_wab"]["max_rate"] == 60


def test_abp_capabilities_become_tools_and_deprecated_ones_are_dropped():
    manifest = abp_to_actions(json.loads(ABP.read_text()))
    assert check_manifest(manifest).errors == ()
    tools = {tool["name"]: tool for tool in manifest["tools"]}
    assert sorted(tools) == ["docs-converter.convert.markdownToHtml", "docs-converter.export.pdf", "docs-converter.page_size"]
    md = tools["docs-converter.convert.markdownToHtml"]
    assert md["x_actions"]["binding"] == {"arguments": {"capability": "convert.markdownToHtml"}}
    assert md["x_actions"]["result_schema"] == {"type": "object", "properties": {"html": {"type": "string"}}}
    assert tools["docs-converter.export.pdf"]["description"].endswith("(experimental)")
    # a non-object params schema is wrapped so the tool's input stays an object
    assert tools["docs-converter.page_size"]["input_schema"]["properties"]["value"]["enum"] == ["letter", "a4"]


@pytest.mark.parametrize(
    "document",
    [
        {"protocol": "actions.json", "version": 1, "tools": []},  # already an actions.json map
        {"wab_version": "1.0"},  # WAB without capabilities.commands
        ["not", "an", "object"],
    ],
)
def test_other_documents_are_refused_with_a_stable_code(document):
    with pytest.raises(UsageError) as caught:
        convert_document(document)
    assert caught.value.code == ErrorCode.UNSUPPORTED_PROTOCOL


def test_cli_writes_a_map_that_validate_accepts(tmp_path):
    out = tmp_path / "acme.actions.json"
    done = run("convert", str(WAB), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "3 tools" in done.stderr
    assert run("validate", str(out)).returncode == 0


def test_cli_prints_to_stdout_without_output_file():
    done = run("convert", str(ABP))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["provenance"]["converted_from"] == "abp"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["convert", str(FIXTURES / "missing.json")], "cannot read"),  # I/O error
        (["convert", str(Path(__file__))], "not strict JSON"),  # not JSON at all
    ],
)
def test_cli_usage_and_io_errors_exit_2(args, message):
    done = run(*args)
    assert done.returncode == 2
    assert message in done.stderr


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@pytest.fixture
def served_fixtures() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(FIXTURES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_discovery_document_is_fetched_from_a_url(served_fixtures):
    document = read_document(f"{served_fixtures}/acme.agent-bridge.json")
    assert document["wab_version"] == "1.0"
    with pytest.raises(UsageError) as caught:
        read_document(f"{served_fixtures}/nothing-here.json")
    assert caught.value.code == ErrorCode.IO_ERROR
