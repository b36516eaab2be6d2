"""A new page protocol is one module and one line (issue 29, finding 6; docs/development.md, "Adding a page protocol").

``toy_protocol.py`` is the module, written by the how-to. The line is the one
the how-to asks for in ``mcp_actions/protocols/registry.py``: the protocol's
object among the registry's (with its import). A fresh server process, whose
registry module is read with that line added and nothing else changed, is
driven through the MCP SDK's ``Client``; a runtime connects over a real
WebSocket and reports a page tool under ``page_tools["toy"]``. The tool is
listed with the page's mark (``_meta`` protocol ``toy``, untrusted) and a
call of it reaches the runtime as the protocol's primitive with the page's own
name. Without the line the bridge refuses the report (no such protocol) and
nothing is listed: the line is what makes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: The server process: the registry read with the line added (when asked), a runtime reporting a toy tool.
SCENARIO = r'''
import asyncio, importlib.abc, importlib.machinery, json, sys
from pathlib import Path

ADD_LINE = sys.argv[1] == "with-line"


class _Registry(importlib.abc.Loader):
    """registry.py as written, plus the how-to's line."""

    def __init__(self, origin):
        self.origin = origin

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        source = Path(self.origin).read_text(encoding="utf-8")
        if ADD_LINE:
            assert "(WEBMCP, ABP, WAB)" in source
            source = source.replace("(WEBMCP, ABP, WAB)", "(WEBMCP, ABP, WAB, __import__('tests.protocols.toy_protocol', fromlist=['TOY']).TOY)")
        exec(compile(source, self.origin, "exec"), module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "mcp_actions.protocols.registry":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = _Registry(spec.origin)
        return spec


sys.meta_path.insert(0, _Finder())

from mcp import Client
from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests.bridge.wsclient import TOKEN, WsRuntime

TOOL = {"name": "greet", "description": "Say hello to someone.", "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}}


async def main():
    out = {}
    app = ActionsApp(AppOptions(browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        runtime = WsRuntime(app.endpoint.url, "rt-toy", url="https://shop.test/", page_tools={"toy": [TOOL]})
        await runtime.open(ready=False)
        await runtime.send(runtime.ready_item())
        first = await runtime.recv()
        out["answer_to_ready"] = {"type": first["type"], "path": (first.get("error") or {}).get("evidence", {}).get("path")}

        async def answer(call):
            return {"said": f"hello {call['arguments']['arguments']['who']}"}

        runtime.serve(answer)
        listed = {}
        for _ in range(100):
            listed = {t.name: t for t in (await client.list_tools()).tools if (t.meta or {}).get("mcp-actions/protocol") == "toy"}
            if listed:
                break
            await asyncio.sleep(0.05)
        out["listed"] = {name: {"meta": {k: v for k, v in (t.meta or {}).items() if k in ("mcp-actions/protocol", "mcp-actions/untrusted")}, "description": t.description} for name, t in listed.items()}
        if listed:
            result = await client.call_tool(next(iter(listed)), {"who": "Ada"})
            out["result"] = {"is_error": result.is_error, "structured": result.structured_content}
            out["calls"] = [{"name": c["name"], "arguments": c["arguments"]} for c in runtime.calls]
        await runtime.close()
    print("RESULT " + json.dumps(out))


asyncio.run(main())
'''


def _serve(line: bool) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", SCENARIO, "with-line" if line else "as-shipped"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    found = [row for row in done.stdout.splitlines() if row.startswith("RESULT ")]
    assert done.returncode == 0 and found, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(found[-1][len("RESULT ") :])
    return result


def test_one_module_and_one_registry_line_make_a_protocol_the_server_lists_and_runs() -> None:
    served = _serve(line=True)
    assert served["answer_to_ready"]["type"] == "runtime_config"  # the bridge took page_tools["toy"]
    (name,) = served["listed"]
    listed = served["listed"][name]
    assert name == "shop_test_greet"
    assert listed["meta"] == {"mcp-actions/protocol": "toy", "mcp-actions/untrusted": True}
    assert listed["description"].startswith("[page-supplied description, untrusted] Say hello")
    assert served["result"] == {"is_error": False, "structured": {"said": "hello Ada"}}
    assert served["calls"] == [{"name": "toy.run", "arguments": {"tool": "greet", "arguments": {"who": "Ada"}}}]


def test_without_the_line_nothing_of_it_is_taken() -> None:
    served = _serve(line=False)
    assert served["answer_to_ready"] == {"type": "action_error", "path": "/page_tools/toy"}
    assert served["listed"] == {}
