"""What a learned tool answers: what its call changed on the page, as the acting page tools say it.

An acting page tool answers what its action changed (docs/mcp-surface.md, "What acting tools
answer"): the lines of text that appeared and went, dialogs opened and closed, a new URL. A learned
tool repeats several of those actions in one call, and without this its answer would be its last
step's output (a click's coordinates), so the agent would read the page again to learn whether the
booking went through. So the learned workflow itself brackets its actions, in the manifest's own
vocabulary (docs/manifest-language.md, workflows): a ``refs.change_mark`` step right before the
first action (after the first element was found, so late-rendered rows are not reported as the
call's doing), and a last ``refs.change_report`` step whose output, cut to what tells the agent
something, is the workflow's ``output`` and so the tool's result. Nothing in the server knows a
learned tool from a written one.

When the last action learned what the page answers (a ``settle_after`` on the text it made appear,
or a probe until its row went: workflow.py), that wait already held the call until the page
answered, and the report reads the page at once. Otherwise the report first waits as the acting
tools do (``settle``: until the page has done what the actions started), which costs a quiet window
and whatever timers the page keeps running.

A browser navigation between the steps replaces the page and its mark, so the mark goes after the
last one. An action that navigates the page itself (a link, a form post) leaves no page to report
on: the report step may fail (``on_error: continue``) and the answer says the page navigated.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MARK_ID", "OUTPUT", "REPORT_ID", "RESULT_SCHEMA", "SETTLE_QUIET_MS", "SETTLE_TIMEOUT_MS", "with_change_report"]

MARK_ID = "changes_mark"
REPORT_ID = "changes"
#: The report's settle: the acting page tools' (dispatch/builtins/acting/observe_tools.py): quiet this long with
#: nothing the actions started pending, at most the timeout.
SETTLE_QUIET_MS = 40
SETTLE_TIMEOUT_MS = 1500
#: Primitives that only wait: the mark goes after the first element was found, before the first action.
_WAITS = frozenset({"locator.wait_for"})

#: The answer, as short as the acting tools' (docs/mcp-surface.md, "What acting tools answer"): the
#: lines that appeared and went, a count only when more lines changed than are listed, dialogs and URL
#: only when there are any; ``{"changed": false}`` when nothing visible changed, and a note when the
#: report could not be read (the page navigated).
OUTPUT = (
    "{% ($r := steps." + REPORT_ID + ".output; $a := {"
    "'added': $count($r.added) > 0 ? $r.added, "
    "'added_count': $r.added_count > $count($r.added) ? $r.added_count, "
    "'removed': $count($r.removed) > 0 ? $r.removed, "
    "'removed_count': $r.removed_count > $count($r.removed) ? $r.removed_count, "
    "'dialogs_opened': $count($r.dialogs_opened) > 0 ? $r.dialogs_opened, "
    "'dialogs_closed': $r.dialogs_closed > 0 ? $r.dialogs_closed, "
    "'url': $r.url}; "
    "$not($r) ? {'navigated': true, 'note': 'the page navigated or reloaded: page_read to see the new one'} "
    ": $count($keys($a)) > 0 ? $a : {'changed': false}) %}"
)


_LINES = {"type": "array", "items": {"type": "string"}}
#: The answer's schema: the tool's ``result_schema``, so its MCP ``outputSchema`` says what it answers.
RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "added": {**_LINES, "description": "Lines of visible text the call made appear."},
        "added_count": {"type": "integer", "description": "How many appeared, when more than are listed."},
        "removed": {**_LINES, "description": "Lines of visible text the call made go."},
        "removed_count": {"type": "integer", "description": "How many went, when more than are listed."},
        "dialogs_opened": _LINES,
        "dialogs_closed": {"type": "integer"},
        "url": {"type": "string", "description": "The new URL of a same-document navigation."},
        "changed": {"const": False, "description": "Present when nothing visible changed."},
        "navigated": {"const": True, "description": "Present when the call left the page: read it to see the new one."},
        "note": {"type": "string"},
    },
    "additionalProperties": False,
}


def with_change_report(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The workflow's steps with the mark before the first action after the last navigation and the report last, and its output.

    The report waits for the page (``settle``) only when the last step learned no wait of its own.
    """
    start = max((i + 1 for i, step in enumerate(steps) if step["primitive"] == "browser.navigate"), default=0)
    first = next((i for i in range(start, len(steps)) if steps[i]["primitive"] not in _WAITS), len(steps))
    mark = {"id": MARK_ID, "primitive": "refs.change_mark", "args": {}, "description": "note the page before the actions: the answer says what they changed"}
    waited = bool(steps) and ("settle_after" in steps[-1] or "retry_until" in steps[-1])
    report = {
        "id": REPORT_ID,
        "primitive": "refs.change_report",
        "args": {} if waited else {"settle": {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_TIMEOUT_MS}},
        "on_error": "continue",
        "description": "what the call changed, once the page has done what it started: the tool's answer",
    }
    return [*steps[:first], mark, *steps[first:], report], OUTPUT
