"""The documentation says what the code does: generated parts up to date, every name documented.

``docs/primitives.md`` and ``docs/errors.md`` are partly generated
(``python -m mcp_actions.docgen``); a change to the dictionary or to
``ErrorCode`` without regenerating them fails here. Every primitive, error
code and command-line option is named somewhere in ``docs/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_actions import docgen
from mcp_actions.cli import build_parser
from mcp_actions.errors import ErrorCode
from mcp_actions.primitive_dictionary import dictionary_names

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
