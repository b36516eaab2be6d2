"""``mcp-actions init`` as a user runs it: a subprocess, real headless Chromium, the fixture pages.

The draft goes to stdout or to ``-o``, validates with no error and no warning,
and the review list is on stderr; every usage or I/O error is exit 2 with one
line on stderr naming its ``ErrorCode``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.errors import ErrorCode

pytestmark = pytest.mark.browser


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_actions", *args], capture_output=True, text=True, timeout=120)


def validate_json(path: Path) -> dict:
    done = run("validate", str(path), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    [report] = json.loads(done.stdout)
    return report


def one_error_line(done: subprocess.CompletedProcess[str], code: ErrorCode) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"mcp-actions init: {code}: "), lines[0]
    return lines[0]


def test_init_writes_a_draft_that_validates_clean_and_tells_what_to_review(tmp_path, pages_url):
    out = tmp_path / "drafts" / "shop" / "draft.actions.json"  # -o into folders that do not exist yet: init makes them
    done = run("init", f"{pages_url}/simple-form/index.html", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # the map went to the file
    text = out.read_text(encoding="utf-8")
    draft = json.loads(text)
    assert text == json.dumps(draft, indent=2, ensure_ascii=False) + "\n"  # JSON, 2-space indent
    assert draft["surface"]["origin"] == pages_url and draft["surface"]["name"] == "actions.json simple form example"
    assert draft["provenance"]["created_by"].startswith("mcp-actions init")
    assert draft["provenance"]["source"] == f"{pages_url}/simple-form/index.html"
    assert [t["name"] for t in draft["tools"]] == ["x127_0_0_1.contact_form"]
    report = validate_json(out)
    assert report["valid"] and report["errors"] == [] and report["warnings"] == []
    # stderr: a summary and the review list, which the map keeps too.
    lines = done.stderr.splitlines()
    assert lines[0] == f"mcp-actions init: drafted 1 tool from {pages_url}/simple-form/index.html (1 form), written to {out}"
    assert lines[1] == "review before you use it:"
    assert [line[4:] for line in lines[2:]] == [
        (f"{item['tool']}: {item['message']}" if "tool" in item else item["message"]) for item in draft["x_init_review"]
    ]
    assert any("names and descriptions" in line for line in lines)


def test_init_prints_the_draft_on_stdout_without_o(pages_url):
    done = run("init", f"{pages_url}/signup/index.html")
    assert done.returncode == 0, done.stderr
    draft = json.loads(done.stdout)
    [tool] = draft["tools"]
    # The form renders 300 ms after load: init waited for it, and left the hidden look-alike out.
    assert tool["name"] == "x127_0_0_1.signup"
    assert list(tool["input_schema"]["properties"]) == ["first_name", "last_name", "email", "city"]
    assert done.stderr.startswith("mcp-actions init: drafted 1 tool from")


def test_init_of_the_fixture_pages_checks_clean_against_them(tmp_path, pages_url):
    # `check` judges a map against its page: a fresh draft is no drift (every locator found, none ambiguous).
    out = tmp_path / "pizza.actions.json"
    assert run("init", f"{pages_url}/authoring/index.html", "-o", str(out)).returncode == 0
    checked = run("check", str(out), "--url", f"{pages_url}/authoring/index.html", "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] and report["summary"]["fail"] == 0 and report["summary"]["warn"] == 0 and report["summary"]["error"] == 0


def test_a_url_that_does_not_load_is_io_error(pages_url):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    line = one_error_line(run("init", f"http://127.0.0.1:{port}/"), ErrorCode.IO_ERROR)
    assert f"127.0.0.1:{port}" in line and "ERR_CONNECTION_REFUSED" in line


def test_a_page_that_answers_an_http_error_is_io_error(pages_url):
    line = one_error_line(run("init", f"{pages_url}/no-such-page.html"), ErrorCode.IO_ERROR)
    assert line.endswith("answered HTTP 404")


def test_a_browser_that_does_not_start_is_capability_unavailable(pages_url):
    one_error_line(run("init", f"{pages_url}/simple-form/index.html", "--browser-path", "/bin/false"), ErrorCode.CAPABILITY_UNAVAILABLE)


@pytest.mark.parametrize("url", ["file:///etc/hostname", "ftp://example.com/", "example.com", "http://"])
def test_a_url_that_is_not_a_web_page_is_a_usage_error(url):
    line = one_error_line(run("init", url), ErrorCode.USAGE_ERROR)
    assert "http://" in line


def test_an_output_that_cannot_be_written_is_io_error_before_any_browser(tmp_path, pages_url):
    (tmp_path / "a-file").write_text("")
    line = one_error_line(run("init", f"{pages_url}/simple-form/index.html", "-o", str(tmp_path / "a-file" / "sub" / "map.json")), ErrorCode.IO_ERROR)
    assert "cannot write" in line and "no writable folder" in line  # a file where a folder would be made
    one_error_line(run("init", f"{pages_url}/simple-form/index.html", "-o", str(tmp_path)), ErrorCode.IO_ERROR)  # a folder


def test_init_without_a_url_is_a_usage_error():
    done = run("init")
    assert done.returncode == 2 and "URL" in done.stderr
