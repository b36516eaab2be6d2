"""``mcp-actions check`` on every page our maps were written from, and on a drifted copy of each.

Each case runs the real command line (``python -m mcp_actions check --json``)
in headless Chromium against a page served over HTTP: the unchanged page
must exit 0 with nothing failing at or above the threshold, and its drifted
copy (the same page with one small rename) must exit 1 naming exactly the
items that drifted. The drifted copies are checked to be that small rename
of their original, so they cannot silently grow apart from it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_actions.checks.drift import SEVERITY_ORDER
from mcp_actions.demo.static import StaticSite, demo_site_dir

from ..shared_specs import shared_spec, shared_specs_dirs

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
PAGES = FIXTURES / "pages"
MAPS = FIXTURES / "checks"
DEMO_MAP = ROOT / "manifests" / "demo" / "actions.json"
#: The published example's folder, found where the shared specs are (``tests/shared_specs.py``); the
#: cases that read it ask ``shared_spec`` again, which skips, or fails under CI, when it is absent.
PUBLISHED_NAME = "reference-examples/simple-form"
PUBLISHED = next((d / PUBLISHED_NAME for d in shared_specs_dirs() if (d / PUBLISHED_NAME).is_dir()), shared_specs_dirs()[-1] / PUBLISHED_NAME)

# (case id, map, page, --fail-on, items expected to fail (kind, id); empty means exit 0, else exit 1,
#  whether the page renders so late that the check must have waited for it)
CASES = [
    # The bundled demo map on the demo site, as `mcp-actions demo` serves it.
    ("demo", DEMO_MAP, "demo:", "major", set(), False),
    # The demo's search box renamed: the step that types into it, the tool's first action, finds nothing.
    ("demo-drifted", DEMO_MAP, "demo-drifted/index.html", "major", {("tool_step", "demo.search_tasks#type")}, False),
    # The board fixture's own map: checks, state, projection, areas, the clear-done step.
    ("board", PAGES / "board" / "actions.json", "board/index.html", "major", set(), False),
    # Card titles renamed and no ready marker: the check that asserts the marker and the projection fail.
    ("board-drifted", PAGES / "board" / "actions.json", "board-drifted/index.html", "major",
     {("check", "board_visible"), ("projection", "board.state")}, False),
    # The board map: three look-alike lists, a card-detail state that is not current at load.
    ("board-issue", MAPS / "board.actions.json", "board/index.html", "major", set(), False),
    # The same map on the drifted board: the card titles it asserts are gone.
    ("board-issue-drifted", MAPS / "board.actions.json", "board-drifted/index.html", "major", {("check", "card_titles")}, False),
    # The activity-log map (a projection only) on its page.
    ("board-history", PAGES / "board" / "history.actions.json", "board/index.html", "minor", set(), False),
    # Its entries renamed: the extract entry matches nothing, a minor failure (hence --fail-on minor).
    ("board-history-drifted", PAGES / "board" / "history.actions.json", "board-history-drifted/index.html", "minor",
     {("projection", "board.history")}, False),
    # The sprint board renders 1.5 s late behind a spinner; its dialog state is not current at load.
    ("sprint-board", MAPS / "sprint-board.actions.json", "sprint-board/index.html", "major", set(), True),
    # Its Add a card button renamed: the step before the tool's first click finds nothing.
    ("sprint-board-drifted", MAPS / "sprint-board.actions.json", "sprint-board-drifted/index.html", "major",
     {("tool_step", "board.add_card#open_at")}, False),
    # The sign-up form arrives 300 ms late, with a hidden honeypot look-alike; the greeting comes only after submit.
    ("signup", MAPS / "signup.actions.json", "signup/index.html", "major", set(), False),
    # The form's id renamed: its fields check and the wait before the first typing fail.
    ("signup-drifted", MAPS / "signup.actions.json", "signup-drifted/index.html", "major",
     {("check", "form_fields"), ("tool_step", "signup.create_account#form")}, False),
    # Twenty look-alike feed rows; the loading state is not current until the bottom is reached.
    ("feed", MAPS / "feed.actions.json", "feed/index.html", "major", set(), False),
    # The rows' data-item attribute renamed: both checks on the rows fail.
    ("feed-drifted", MAPS / "feed.actions.json", "feed-drifted/index.html", "major",
     {("check", "items_listed"), ("check", "first_item_titled")}, False),
    # The published simple-form map (copied into the fixtures) on its page; #result is empty there.
    ("simple-form", PAGES / "simple-form" / "actions.json", "simple-form/index.html", "major", set(), False),
    # The same map on the page without the handler: the map's steps would do the work, and find their elements.
    ("simple-form-nohandler", PAGES / "simple-form" / "actions.json", "simple-form-nohandler/index.html", "major", set(), False),
    # The valid-corpus copy of the same map, on the same page.
    ("simple-form-corpus", FIXTURES / "manifests" / "valid" / "simple_form.json", "simple-form/index.html", "major", set(), False),
    # The submit button renamed: the check naming #submit fails (the state still finds it through its fallback).
    ("simple-form-drifted", PAGES / "simple-form" / "actions.json", "simple-form-drifted/index.html", "major",
     {("check", "simple_form_targets_exist")}, False),
    # The published example itself, on the page published with it (when the shared specs are present).
    ("published-simple-form", PUBLISHED / "actions.json", "published:index.html", "major", set(), False),
    # The published map on the drifted copy of its page.
    ("published-simple-form-drifted", PUBLISHED / "actions.json", "simple-form-drifted/index.html", "major",
     {("check", "simple_form_targets_exist")}, False),
]

# (drifted copy, its original, the renames that make it, what each rename breaks)
DRIFTED = [
    ("board-drifted", PAGES / "board" / "index.html",
     [("<title>Board fixture</title>", "<title>Board fixture (drifted: card titles renamed, no ready marker)</title>"),
      ('title.setAttribute("data-testid", "card-title");', 'title.setAttribute("data-testid", "card-name");'),
      ('    board.setAttribute("data-ready", "true");\n', "")]),
    ("board-history-drifted", PAGES / "board" / "index.html",
     [('li.setAttribute("data-testid", "history-entry");', 'li.setAttribute("data-testid", "activity-entry");')]),
    ("sprint-board-drifted", PAGES / "sprint-board" / "index.html",
     [('id="add-card"', 'id="new-card"'), ('getElementById("add-card")', 'getElementById("new-card")')]),
    ("signup-drifted", PAGES / "signup" / "index.html", [('form.id = "signup";', 'form.id = "register";')]),
    ("feed-drifted", PAGES / "feed" / "index.html", [('article.dataset.item = "";', 'article.dataset.entry = "";')]),
    ("simple-form-drifted", PAGES / "simple-form" / "index.html",
     [('id="submit"', 'id="send"'), ('getElementById("submit")', 'getElementById("send")')]),
    ("demo-drifted", demo_site_dir() / "index.html",
     [('id="search"', 'id="filter"'), ('getElementById("search")', 'getElementById("filter")')]),
]


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    """The bundled demo site, served as ``mcp-actions demo`` serves it."""
    with StaticSite(demo_site_dir()) as site:
        yield site.url


@pytest.fixture(scope="module")
def published_url() -> Iterator[str]:
    """The published simple-form example's directory, served (skips, or fails under CI, when the shared specs are absent)."""
    with StaticSite(shared_spec(f"{PUBLISHED_NAME}/index.html").parent) as site:
        yield site.url


def run_check(manifest: Path, url: str, fail_on: str) -> tuple[int, dict, str]:
    """``python -m mcp_actions check MANIFEST --url URL --json --fail-on ...``: (exit status, report, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "check", str(manifest), "--url", url, "--json", "--fail-on", fail_on],
                          capture_output=True, text=True, timeout=180, env=env, cwd=ROOT)
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, report, done.stderr


def failing_items(report: dict, fail_on: str) -> set[tuple[str, str]]:
    floor = SEVERITY_ORDER.index(fail_on)
    return {(i["kind"], i["id"]) for i in report["items"] if i["status"] in ("fail", "error") and SEVERITY_ORDER.index(i["severity"]) >= floor}


@pytest.mark.parametrize(("case", "manifest", "page", "fail_on", "drifted", "late"), CASES, ids=[c[0] for c in CASES])
def test_unchanged_pages_exit_0_and_drifted_copies_exit_1(request, pages_url, case, manifest, page, fail_on, drifted, late):
    if manifest.is_relative_to(PUBLISHED):
        shared_spec(f"{PUBLISHED_NAME}/{manifest.name}")  # skips, or fails under CI, when the published map is absent
    if page.startswith("demo:"):
        url = request.getfixturevalue("demo_url") + page.removeprefix("demo:")
    elif page.startswith("published:"):
        url = request.getfixturevalue("published_url") + page.removeprefix("published:")
    else:
        url = f"{pages_url}/{page}"
    status, report, stderr = run_check(manifest, url, fail_on)
    assert report, stderr
    assert failing_items(report, fail_on) == drifted, json.dumps(report["items"], indent=1)[:4000]
    assert status == (1 if drifted else 0), stderr
    assert report["ok"] is (not drifted)
    # Every item keeps the report's shape: status is one of the four, note is null or a word.
    assert {i["status"] for i in report["items"]} <= {"pass", "warn", "fail", "error"}
    assert all(set(i) >= {"kind", "id", "status", "severity", "message", "evidence", "warnings", "note"} for i in report["items"])
    if late:  # the page renders after a spinner: the check waited for it instead of judging the spinner
        assert report["ready"]["waited_ms"] >= 1000 and report["ready"]["missing"] == 0


@pytest.mark.parametrize(("drifted", "original", "renames"), DRIFTED, ids=[d[0] for d in DRIFTED])
def test_each_drifted_copy_is_its_original_with_a_small_rename(drifted, original, renames):
    text = original.read_text(encoding="utf-8")
    for old, new in renames:
        assert text.count(old) == 1, f"{original} no longer has {old!r} exactly once: regenerate {drifted}"
        text = text.replace(old, new)
    assert (PAGES / drifted / "index.html").read_text(encoding="utf-8") == text
