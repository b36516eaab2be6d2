"""An in-process runtime's unexpected failure is logged without the call's argument values (issue 28).

A primitive of the server's own runtimes that fails in a way nobody wrote an error for
(a bug: an ``Exception`` that is no ``ActionError``) may say what it was given. The
in-process runtime logged that failure whole (``log.exception``: the message and its
traceback), and the product's log goes to stderr and to the host as MCP log
notifications. Here the whole server (``ActionsApp``) serves a map, the runtime is the
shipped ``MemoryRuntime`` whose page primitive fails quoting its argument, and the SDK's
``Client`` calls the tool: the model reads the failure, no log record and no log
notification carries the password, and where it failed is still logged.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.asyncio

SECRET = "hunter2-Correct-Horse-4711"
SITE = "https://bank.test"


def _map(root: Path) -> None:
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": SITE, "name": "Bank"},
        "tools": [
            {
                "name": "bank.login",
                "description": "Sign in.",
                "input_schema": {"type": "object", "required": ["password"], "properties": {"password": {"type": "string"}}},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "type", "primitive": "text.insert", "args": {"text": "{% input.password %}", "target": {"selector": "#password"}}}],
                    "output": "{% steps.type.output %}",
                },
            }
        ],
    }
    (root / "bank.actions.json").write_text(json.dumps(document), encoding="utf-8")


def _broken_insert(arguments: dict[str, Any]) -> Any:
    # A bug in a primitive: its message quotes what it was given.
    raise ValueError(f"cannot type {arguments['text']!r} here")


async def test_an_unexpected_failure_is_logged_without_argument_values(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    _map(tmp_path)
    heard: list[Any] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        heard.append(params.data)

    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", serve_bridge=False, watch=False))
    async with Client(build_server(app), logging_callback=on_log, mode="legacy") as client:
        await client.set_logging_level("debug")
        page = MemoryRuntime(app.bridge, runtime_id="bank-1", url=f"{SITE}/login", primitives={"text.insert": _broken_insert})
        await page.start()
        try:
            result = await client.call_tool("bank_login", {"password": SECRET})
        finally:
            await page.stop()
    assert result.is_error and result.structured_content is not None
    error = result.structured_content["error"]
    assert error["code"] == "handler_failed" and "ValueError" in error["message"]  # the model is told what failed
    logged = [f"{record.getMessage()} {record.exc_text or ''}" for record in caplog.records]
    failures = [line for line in logged if "failed running text.insert" in line]
    assert failures and "ValueError" in failures[0] and "_broken_insert" in failures[0]  # where: still on the record
    assert not [line for line in logged if SECRET in line]
    assert SECRET not in json.dumps(heard, default=str)
