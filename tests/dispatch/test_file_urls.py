"""Local files are closed to agents unless the operator opens them (issue 51, finding 9).

Real headless Chromium and the SDK's ``Client``. A local file (``secret.txt`` in the test's
folder) and the fixture pages on a free port of 127.0.0.1:

- by default, ``browser_navigate`` (in the tab, in a new tab), ``browser_open_tab`` and a map
  workflow's ``browser.navigate`` step to the file are refused with ``permission_denied`` and
  ``evidence.reason: "file_url"`` before anything reaches the browser, however the URL is
  spelled (upper case, ``view-source:``, blanks around it, a tab inside the scheme);
- a tab that shows a local file anyway (a browser the user attached, whose tab was there
  before) is not read by the page tools or the screenshot, and going back into its history to
  the file is refused and leaves the tab blank;
- with ``allow_file_urls`` (``serve --allow-file-urls``) the file opens and reads as before; a
  policy rule's ``origins`` names file URLs (``file:///…/*``), and the audit line names the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests.dispatch.test_call_path_chromium import _error, _ok, site  # noqa: F401  (site: the pages' server fixture)

pytestmark = pytest.mark.browser

SECRET = "TOP-SECRET-LOCAL-FILE-CONTENT"


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n", encoding="utf-8")
    return path


def _map(tmp_path: Path, port: int) -> str:
    """A map whose one tool opens the URL it is given (a workflow's ``browser.navigate`` step)."""
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": f"http://127.0.0.1:{port}", "name": "Opener"},
        "tools": [
            {
                "name": "opener.open",
                "description": "Open a page.",
                "input_schema": {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}}, "additionalProperties": False},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "go", "primitive": "browser.navigate", "args": {"url": "{% input.url %}"}}],
                    "output": "{% {'opened': true} %}",
                },
            }
        ],
    }
    path = tmp_path / "opener.actions.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def _app(tmp_path: Path, **options: Any) -> ActionsApp:
    return ActionsApp(AppOptions(browser="auto", headless=True, isolated=True, serve_bridge=False, watch=False, **options))


def _refused_as_file(result: Any, path: str = "/url") -> dict[str, Any]:
    error = _error(result)
    assert error["code"] == "permission_denied", error
    assert error["evidence"]["reason"] == "file_url" and error["evidence"]["path"] == path, error
    assert "--allow-file-urls" in error["message"]
    assert SECRET not in json.dumps(error)
    return error


async def test_file_urls_are_refused_by_default_before_the_browser(tmp_path: Path, site: int) -> None:  # noqa: F811
    secret = _secret(tmp_path)
    uri = secret.as_uri()
    app = _app(tmp_path, manifests=[_map(tmp_path, site)])
    async with Client(build_server(app)) as client:
        for url in (uri, uri.upper().replace("FILE:", "FILE:", 1), f"view-source:{uri}", f"  {uri}  ", "fi\tle" + uri[4:], "file:" + str(secret)):
            _refused_as_file(await client.call_tool("browser_navigate", {"url": url}))
        assert not app.browser.started  # refused before anything reached (or launched) the browser
        _refused_as_file(await client.call_tool("browser_navigate", {"url": uri, "new_tab": True}))
        _refused_as_file(await client.call_tool("browser_open_tab", {"url": uri}))
        assert not app.browser.started
        # A web page opens as ever; from it, a map's workflow step to the file is refused too.
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        error = _error(await client.call_tool("opener_open", {"url": uri}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "file_url", error
        assert all(not r.url.startswith(("file:", "view-source:")) for r in app.bridge.registry.list())
        read = await client.call_tool("page_read", {})
        assert not read.is_error and SECRET not in json.dumps(read.model_dump(mode="json"))


async def test_a_tab_already_showing_a_file_is_not_read(tmp_path: Path, site: int) -> None:  # noqa: F811
    """A tab that shows a local file anyway (a tab of an attached browser, there before): nothing reads it."""
    secret = _secret(tmp_path)
    app = _app(tmp_path)
    async with Client(build_server(app)) as client:
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        tab = app.browser.tabs[0]  # the user's own tab, as a browser attached with --cdp-endpoint would show it
        await tab.page.goto(secret.as_uri())
        await tab.report(url=tab.page.url, title="secret")
        for tool, arguments in (("page_read", {}), ("page_find", {"text": SECRET}), ("page_observe", {}), ("browser_screenshot", {})):
            result = await client.call_tool(tool, arguments)
            # The page tools answer text; their errors are text too, the code first.
            said = result.structured_content["error"] if result.structured_content else {"code": result.content[0].text.split(":")[0]}
            assert result.is_error and said["code"] == "permission_denied", (tool, result.content)
            assert "local file" in json.dumps(result.model_dump(mode="json")), tool
            assert SECRET not in json.dumps(result.model_dump(mode="json"))
        # Leaving it for a web page is allowed.
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        # Going back into the tab's past lands on the file: refused, and the tab is not left there.
        back = await client.call_tool("browser_navigate", {"history": "back"})
        error = _error(back)
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "file_url", error
        assert SECRET not in json.dumps(back.model_dump(mode="json"))
        assert tab.page.url == "about:blank"


async def test_opened_by_the_operator_file_pages_work_and_the_policy_and_audit_name_the_file(tmp_path: Path, site: int) -> None:  # noqa: F811
    secret = _secret(tmp_path)
    other = tmp_path / "public" / "notes.txt"
    other.parent.mkdir()
    other.write_text("public notes\n", encoding="utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "page.*", "origins": f"file://{tmp_path}/secret*", "decision": "deny"}]}), encoding="utf-8")
    log_file = tmp_path / "audit.jsonl"
    app = _app(tmp_path, allow_file_urls=True, policy=str(policy), audit_log=str(log_file))
    async with Client(build_server(app)) as client:
        opened = _ok(await client.call_tool("browser_navigate", {"url": other.as_uri()}))
        assert opened["tab"]["url"] == other.as_uri()
        read = await client.call_tool("page_read", {})
        assert not read.is_error and "public notes" in json.dumps(read.model_dump(mode="json"))
        _ok(await client.call_tool("browser_navigate", {"url": secret.as_uri()}))
        denied = await client.call_tool("page_read", {})
        assert denied.is_error and denied.content[0].text.startswith("permission_denied") and "denied by the policy" in denied.content[0].text
        assert SECRET not in json.dumps(denied.model_dump(mode="json"))
    lines = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    assert [(e["tool"], e["origin"], e["decision"]) for e in lines] == [
        ("browser.navigate", other.as_uri(), "allowed"),
        ("page.read", other.as_uri(), "allowed"),
        ("browser.navigate", secret.as_uri(), "allowed"),
        ("page.read", secret.as_uri(), "denied"),
    ]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("FILE:///etc/passwd?x#y", "file:///etc/passwd"),
        ("file:/etc/passwd", "file:///etc/passwd"),
        ("file:etc/passwd", "file:///etc/passwd"),
        ("file://localhost/etc/passwd", "file:///etc/passwd"),
        ("file:\\\\\\etc\\passwd", "file:///etc/passwd"),
        (" \x00file:///etc/passwd\n", "file:///etc/passwd"),
        ("f\ti\nle:///etc/passwd", "file:///etc/passwd"),
        ("view-source:file:///etc/passwd", "file:///etc/passwd"),
        ("view-source: view-source:file:///etc/passwd", "file:///etc/passwd"),
        ("filesystem:file:///temporary/x", "file:///temporary/x"),
        ("https://example.com/file:///etc/passwd", None),
        ("view-source:https://example.com/", None),
        ("data:text/html,file:///etc/passwd", None),
        ("secret.txt", None),
        ("about:blank", None),
    ],
)
def test_what_shows_a_local_file(url: str, shown: str | None) -> None:
    from mcp_actions.file_urls import local_file

    assert local_file(url) == shown


def test_the_option_and_its_environment_variable_open_local_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_actions.cli import _serve_options, build_parser

    def bridge_allows(*argv: str) -> bool:
        return ActionsApp(_serve_options(build_parser().parse_args(["serve", "--browser", "none", *argv]))[0]).bridge.allow_file_urls

    monkeypatch.delenv("MCP_ACTIONS_ALLOW_FILE_URLS", raising=False)
    assert bridge_allows() is False  # closed by default
    assert bridge_allows("--allow-file-urls") is True
    monkeypatch.setenv("MCP_ACTIONS_ALLOW_FILE_URLS", "1")
    assert bridge_allows() is True
