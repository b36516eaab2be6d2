"""The documentation says what the code does: generated parts up to date, every name documented.

``docs/primitives.md`` and ``docs/errors.md`` are partly generated
(``python -m mcp_actions.docgen``); a change to the dictionary or to
``ErrorCode`` without regenerating them fails here. Every primitive, error
code and command-line option is named somewhere in ``docs/``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions import docgen
from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.items import RuntimeConfig, parse_item
from mcp_actions.checks.command import run_check_command
from mcp_actions.cli import build_parser, run_validate
from mcp_actions.demo.static import StaticSite
from mcp_actions.errors import ErrorCode
from mcp_actions.manifest.validate import check_manifest
from mcp_actions.primitive_dictionary import dictionary_names
from mcp_actions.server.mcp_server import build_server

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def docs_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.glob("*.md")))


def test_the_generated_parts_are_up_to_date():
    assert docgen.stale(DOCS) == [], "run `python -m mcp_actions.docgen` and commit docs/"


def test_the_generator_notices_a_stale_page_and_rewrites_only_its_region(tmp_path):
    for page in docgen.GENERATED:
        (tmp_path / page).write_text((DOCS / page).read_text(encoding="utf-8"), encoding="utf-8")
    errors = tmp_path / "errors.md"
    written = errors.read_text(encoding="utf-8")
    errors.write_text(written.replace(f"{len(ErrorCode)} codes.", "0 codes."), encoding="utf-8")
    assert docgen.main(["--check", "--docs", str(tmp_path)]) == 1
    assert docgen.main(["--docs", str(tmp_path)]) == 0
    assert errors.read_text(encoding="utf-8") == written and docgen.stale(tmp_path) == []


def test_a_page_without_its_markers_is_refused(tmp_path):
    for page in docgen.GENERATED:
        (tmp_path / page).write_text("# nothing generated here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no region"):
        docgen.stale(tmp_path)
    assert docgen.main(["--check", "--docs", str(tmp_path)]) == 2


def test_every_primitive_has_its_own_section():
    text = (DOCS / "primitives.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (\S+)$", text, flags=re.MULTILINE)
    assert headings == list(dictionary_names())


def test_every_error_code_is_in_the_table_once_with_its_meaning():
    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| ([a-z, ]+) \| (.*) \|$", text, flags=re.MULTILINE)
    assert [code for code, _, _ in rows] == [member.value for member in ErrorCode]
    for (code, groups, _), member in zip(rows, ErrorCode, strict=True):
        assert set(groups.split(", ")) == member.groups, code


def test_docs_name_every_primitive_and_every_error_code():
    text = docs_text()
    missing = [name for name in [*dictionary_names(), *(m.value for m in ErrorCode)] if f"`{name}`" not in text]
    assert missing == []


def test_the_cli_page_names_every_command_and_option():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command").choices  # argparse keeps sub-parsers there
    missing = []
    for name, sub in commands.items():
        if f"mcp-actions {name}" not in text:
            missing.append(f"mcp-actions {name}")
        for action in sub._actions:
            missing += [f"{name} {flag}" for flag in action.option_strings if flag not in ("-h", "--help") and not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text)]
            env = re.search(r"\[(MCP_ACTIONS_[A-Z_]+)", action.help or "")
            if env and env.group(1) not in text:
                missing.append(f"{name} {env.group(1)}")
    assert missing == []


# -- every code block ---------------------------------------------------------------------------

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", flags=re.MULTILINE | re.DOTALL)


def blocks(page: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall((DOCS / page).read_text(encoding="utf-8")) if lang == language]


@pytest.mark.parametrize("page", sorted(path.name for path in DOCS.glob("*.md")))
def test_every_json_block_is_json(page):
    for body in blocks(page, "json"):
        json.loads(body)


def test_the_examples_of_the_manifest_language_validate():
    # Whole maps as they are; workflows, tools and projections inside the smallest map that holds them.
    checked = 0
    for body in blocks("manifest-language.md", "json"):
        example = json.loads(body)
        if not isinstance(example, dict):
            continue
        if "expression_language" in example:
            example = tool_map(workflow=example)
        elif "input_schema" in example:
            example = {**tool_map(), "states": [{"name": "form_ready"}], "tools": [example]}
        elif "snapshot" in example:
            example = {**tool_map(), "state_projections": [example]}
        elif "protocol" not in example:
            continue
        assert check_manifest(example).errors == (), body
        checked += 1
    assert checked >= 4


def tool_map(**extra: Any) -> dict[str, Any]:
    tool = {"name": "x.y", "description": "d", "input_schema": {"type": "object"}, **extra}
    return {"protocol": "actions.json", "version": 1, "tools": [tool if extra else {**tool, "x_actions": {"handler": "x.y"}}]}


def test_the_wire_transcript_parses_as_the_bridge_parses_items():
    text = (DOCS / "bridge-protocol.md").read_text(encoding="utf-8")
    lines = re.findall(r"^[→←] (\{.*\})$", text, flags=re.MULTILINE)
    assert len(lines) >= 4
    for line in lines:
        item = json.loads(line)
        if item["type"] == "runtime_config":
            RuntimeConfig.model_validate(item)
        else:
            parse_item(line)
    for body in blocks("bridge-protocol.md", "json"):
        item = json.loads(body)
        RuntimeConfig.model_validate(item) if item["type"] == "runtime_config" else parse_item(item)


# -- the first map of getting-started.md is a fixture ------------------------------------------

FIRST_MAP = DOCS / "examples" / "first-map"
GUIDE = DOCS / "getting-started.md"


def test_the_guide_shows_the_fixture_files_exactly():
    text = GUIDE.read_text(encoding="utf-8")
    shown = dict(re.findall(r"^<!-- file: (\S+) -->\n```\w*\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL))
    assert set(shown) == {"docs/examples/first-map/index.html", "docs/examples/first-map/actions.json"}
    for path, body in shown.items():
        assert body == (ROOT / path).read_text(encoding="utf-8"), path


def test_the_guide_maps_validate_without_a_warning():
    smallest = next(json.loads(body) for body in blocks("getting-started.md", "json") if '"tools": []' in body)
    report = check_manifest(smallest)
    assert report.errors == () and report.warnings == ()
    out, err = io.StringIO(), io.StringIO()
    assert run_validate([str(FIRST_MAP / "actions.json")], as_json=False, out=out, err=err) == 0
    assert err.getvalue() == "" and out.getvalue() == "checked 1 manifest: 1 valid, 0 invalid (0 errors, 0 warnings)\n"
    assert out.getvalue().strip() in GUIDE.read_text(encoding="utf-8")


def test_the_guide_host_configurations_run_the_fixture():
    configs = [json.loads(body) for body in blocks("getting-started.md", "json") if "/path/to/mcp-actions/.venv/bin/mcp-actions" in body]
    assert len(configs) == 3  # Claude Desktop, VS Code, Cursor
    for config in configs:
        (server,) = (config.get("mcpServers") or config["servers"]).values()
        # The reader's own folder (section 3), never the repository's tracked example.
        assert server["args"] == ["--manifests", "/home/you/first-map"]
        assert build_parser().parse_args(["serve", *server["args"]]).manifests == ["/home/you/first-map"]


@contextlib.contextmanager
def served_first_map() -> Iterator[str]:
    """The first map's folder on a loopback HTTP server; its origin."""
    with StaticSite(FIRST_MAP) as site:
        yield site.url.rstrip("/")


def documented(page: str, needle: str) -> Any:
    return next(json.loads(body) for body in blocks(page, "json") if needle in body)


@pytest.mark.browser
async def test_the_first_map_runs_in_chromium_through_an_mcp_client(tmp_path):
    with served_first_map() as origin:
        document = json.loads((FIRST_MAP / "actions.json").read_text(encoding="utf-8"))
        assert document["surface"]["origin"] == "http://127.0.0.1:8000"  # as the guide serves it
        document["surface"]["origin"] = origin  # here: wherever the test server listens
        (tmp_path / "actions.json").write_text(json.dumps(document), encoding="utf-8")
        app = ActionsApp(AppOptions(manifests=[str(tmp_path)], headless=True, isolated=True, serve_bridge=False))
        async with Client(build_server(app), mode="legacy") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"browser_navigate", "contact_send_message"}
            # The tool as mcp-surface.md shows it.
            assert tools["contact_send_message"].model_dump(by_alias=True, exclude_none=True, mode="json") == documented("mcp-surface.md", '"name": "contact_send_message"')
            opened = await client.call_tool("browser_navigate", {"url": f"{origin}/"})
            assert not opened.is_error and opened.structured_content["tab"]["title"] == "Contact us"
            arguments = documented("getting-started.md", '"email": "ada@example.com"')
            result = await client.call_tool("contact_send_message", arguments)
            assert not result.is_error, result.structured_content
            assert result.structured_content == documented("getting-started.md", '"sent": true')
            # A bad call, as mcp-surface.md shows it: an isError result naming the argument.
            bad = await client.call_tool("contact_send_message", {"name": "Ada", "email": "ada@example.com"})
            assert bad.is_error and bad.structured_content == documented("mcp-surface.md", '"code": "invalid_input"')


def test_the_guide_works_in_a_folder_of_its_own():
    # Every command and file of the guide is in ~/first-map; the tracked example is only named as kept.
    text = GUIDE.read_text(encoding="utf-8")
    commands = [line for body in blocks("getting-started.md", "sh") for line in body.splitlines()]
    assert commands and not [line for line in commands if "docs/examples" in line], commands
    assert "--directory ~/first-map" in text and "Create `~/first-map/actions.json`" in text


@pytest.mark.browser
def test_check_reports_on_the_first_map_as_the_guide_shows(tmp_path):
    text = GUIDE.read_text(encoding="utf-8")
    shown = next(body for body in blocks("getting-started.md", "text") if body.startswith("mcp-actions check:"))
    folder = tmp_path / "first-map"  # the reader's folder, as section 3 makes it
    shutil.copytree(FIRST_MAP, folder)
    with served_first_map() as origin:
        out, err = io.StringIO(), io.StringIO()
        status = run_check_command(str(folder / "actions.json"), f"{origin}/", as_json=False, fail_on="major", out=out, err=err)
    assert status == 0, err.getvalue()
    assert out.getvalue().replace(origin, "http://127.0.0.1:8000").replace(str(folder), "/home/you/first-map") == shown
    assert "check ~/first-map/actions.json --url http://127.0.0.1:8000/" in text


# -- links ----------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (``-`` and ``_`` kept), spaces as ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(heading) for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("page", ["README.md", *sorted(f"docs/{path.name}" for path in DOCS.glob("*.md"))])
def test_every_relative_link_reaches_a_file_and_its_heading(page):
    source = ROOT / page
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", source.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https://…, mailto:…
        file, _, anchor = target.partition("#")
        linked = (source.parent / file).resolve() if file else source
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(target)
    assert broken == []


# -- the README -----------------------------------------------------------------------------------

README = ROOT / "README.md"


def test_the_readme_is_short_and_keeps_the_quickstart_commands_ci_runs():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    commands = [body.strip() for lang, body in FENCE.findall(text) if lang == "sh"]
    assert commands[:2] == [
        'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/mcp-actions demo',
        ".venv/bin/python -m pytest -q",
    ]
    assert ".venv/bin/python -m pytest -q" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_host_configurations_parse_and_start_serve():
    configs = [json.loads(body) for lang, body in FENCE.findall(README.read_text(encoding="utf-8")) if lang == "json"]
    assert len(configs) == 3  # Claude Desktop, VS Code, Cursor
    for config in configs:
        (server,) = (config.get("mcpServers") or config["servers"]).values()
        assert server["command"].endswith("/.venv/bin/mcp-actions")
        build_parser().parse_args(["serve", *server.get("args", [])])
