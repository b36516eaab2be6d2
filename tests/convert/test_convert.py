"""``mcp-actions convert``: WAB discovery documents and ABP manifests become valid actions.json maps.

The inputs are written from the specs' own text: the WAB example is the
discovery document printed in the WAB spec §4.2, the ABP manifest follows
the spec's ``ABPManifest`` type. ``techstore.wab.json`` is the discovery
document a WAB 1.2 store publishes, as the Web Agent Bridge project's server
middleware builds it (github.com/abokenan444/web-agent-bridge,
demo-store/wab-server.js: ``site``, ``actions`` with ``params`` lists,
``capabilities.commands`` as generic verbs, ``endpoints.execute``), for the
project's demo store (demo-store/server.js) and its eight actions; the test
store in tests/protocols/test_wab_store.py serves the same document.
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
from mcp_actions.convert.wab import params_schema
from mcp_actions.errors import ErrorCode, UsageError
from mcp_actions.manifest.validate import check_manifest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "convert"
WAB = FIXTURES / "acme.agent-bridge.json"
ABP = FIXTURES / "docs.abp-manifest.json"
STORE = FIXTURES / "techstore.wab.json"


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
    assert tools["acme_restaurant.viewMenu"]["x_wab"] == {
        "command": "viewMenu", "trigger": "navigate", "requires_auth": False, "transport": "js_global", "permission": "navigate", "permitted": False,
    }
    assert tools["acme_restaurant.searchMenu"]["x_wab"]["permitted"] is True
    assert manifest["surface"]["origin"] == "https://acme-restaurant.com"
    assert manifest["x_wab"]["max_rate"] == 60


def test_a_wab_1_2_store_document_becomes_its_eight_tools_posting_to_its_execute_endpoint():
    manifest = wab_to_actions(json.loads(STORE.read_text()))
    assert check_manifest(manifest).errors == ()
    tools = {tool["name"]: tool for tool in manifest["tools"]}
    assert list(tools) == [
        "techstore_demo.listProducts",
        "techstore_demo.getProduct",
        "techstore_demo.searchProducts",
        "techstore_demo.addToCart",
        "techstore_demo.viewCart",
        "techstore_demo.removeFromCart",
        "techstore_demo.checkout",
        "techstore_demo.getOrderStatus",
    ]
    add = tools["techstore_demo.addToCart"]
    assert add["input_schema"] == {
        "type": "object",
        "properties": {"productId": {"type": "number"}, "quantity": {"type": "number"}},
        "additionalProperties": False,
        "required": ["productId"],
    }
    assert tools["techstore_demo.viewCart"]["input_schema"] == {"type": "object", "properties": {}, "additionalProperties": False}
    # The document's endpoint is bound: the page POSTs {action, params} to it (a file gives no origin to resolve it on).
    assert add["x_actions"]["binding"] == {"arguments": {"command": "addToCart", "http": {"url": "/wab/execute", "body": "action"}}}
    # A command sent to the site's endpoint is an api command: apiAccess, which the store grants.
    assert add["x_wab"] == {
        "command": "addToCart", "trigger": "api", "requires_auth": False, "transport": "http", "category": "commerce",
        "permission": "apiAccess", "permitted": True,
    }
    assert manifest["surface"] == {"name": "TechStore Demo", "kind": "e-commerce"}
    assert manifest["x_wab"]["max_rate"] == 60 and manifest["x_wab"]["wab_version"] == "1.2.0"


def test_a_store_that_denies_api_access_keeps_its_tools_marked_not_permitted():
    document = json.loads(STORE.read_text())
    document["capabilities"]["permissions"]["apiAccess"] = False
    document["security"]["rate_limit"] = 12
    manifest = wab_to_actions(document)
    assert {tool["x_wab"]["permitted"] for tool in manifest["tools"]} == {False}
    assert manifest["x_wab"]["max_rate"] == 12


def test_params_lists_and_maps_become_json_schemas():
    assert params_schema(
        [
            {"name": "email", "type": "string", "required": True, "description": "Where the receipt goes"},
            {"name": "count", "type": "int", "required": False, "default": 1, "minimum": 1},
            {"name": "size", "type": "string", "enum": ["s", "m"], "required": "yes"},  # not true: optional
            {"name": "anything", "type": "any"},
            {"name": "page", "type": "number", "defaultValue": 2},
            {"type": "string"},  # no name: not a parameter
            {"name": "email", "type": "number"},  # a second email: the first one stands
        ]
    ) == {
        "type": "object",
        "properties": {
            "email": {"type": "string", "description": "Where the receipt goes"},
            "count": {"type": "integer", "minimum": 1, "default": 1},
            "size": {"type": "string", "enum": ["s", "m"]},
            "anything": {},
            "page": {"type": "number", "default": 2},
        },
        "additionalProperties": False,
        "required": ["email"],
    }
    # The object form some generators write: name -> spec (or a bare type name).
    assert params_schema({"query": {"type": "string", "required": True}, "limit": "integer"}) == {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["query"],
    }
    assert params_schema(None) == params_schema([]) == {"type": "object", "properties": {}, "additionalProperties": False}


def test_a_1_0_document_with_only_the_http_transport_posts_name_and_data_to_its_base_url():
    document = json.loads(WAB.read_text())
    document["transport"] = {"js_global": {"enabled": False}, "http": {"enabled": True, "base_url": "/api/wab"}}
    manifest = wab_to_actions(document, source="https://acme-restaurant.com/agent-bridge.json")
    search = next(t for t in manifest["tools"] if t["x_wab"]["command"] == "searchMenu")
    assert search["x_actions"]["binding"]["arguments"]["http"] == {"url": "https://acme-restaurant.com/api/wab/execute", "body": "name"}
    assert search["x_wab"]["trigger"] == "api" and search["x_wab"]["transport"] == "http"
    # With the JS global enabled too, commands go to the page's bridge.
    document["transport"]["js_global"]["enabled"] = True
    assert "http" not in wab_to_actions(document)["tools"][0]["x_actions"]["binding"]["arguments"]


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


def test_cli_converts_a_wab_1_2_store_document_that_validate_accepts(tmp_path):
    out = tmp_path / "techstore.actions.json"
    done = run("convert", str(STORE), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "8 tools" in done.stderr
    checked = run("validate", "--json", str(out))
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)[0]["valid"] is True


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
    def log_message(self, format: str, *args: object) -> None:
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


def test_a_store_document_fetched_from_its_site_binds_the_endpoint_on_that_origin(served_fixtures):
    source = f"{served_fixtures}/techstore.wab.json"
    manifest = convert_document(read_document(source), source=source)
    assert manifest["surface"]["origin"] == served_fixtures
    add = next(t for t in manifest["tools"] if t["x_wab"]["command"] == "addToCart")
    assert add["x_actions"]["binding"]["arguments"]["http"] == {"url": f"{served_fixtures}/wab/execute", "body": "action"}
    assert check_manifest(manifest).errors == ()
