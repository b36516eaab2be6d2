"""The audit log's own rules (issue 28): lines that cannot be written wait, calls are refused meanwhile, health says so.

``/dev/full`` fails every write with ENOSPC, a real device: no part of the log
is replaced. The whole server on a full disk is ``test_audit_disk.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcp_actions.audit_log import AuditLog
from mcp_actions.bridge.status_page import render_status_page
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.server.logs import redacted

FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


def _page(health: dict) -> str:
    return render_status_page([], pending_calls=0, bridge_url="ws://x/bridge", script_url="http://x/runtime.js?token=t", audit_health=health)


@needs_dev_full
def test_lines_that_cannot_be_written_wait_and_calls_are_refused(caplog):
    audit = AuditLog(FULL, min_free_bytes=0)
    audit.open()
    try:
        audit.record({"tool": "ran.first", "status": "ok"})
        with pytest.raises(ActionError) as refused:
            audit.check()
        assert refused.value.code == ErrorCode.AUDIT_UNAVAILABLE
        assert refused.value.evidence == {"log_file": str(FULL), "reason": "disk_full", "waiting_lines": 1}
        health = audit.health()
        assert health["ok"] is False and health["waiting_lines"] == 1 and health["problem"].startswith("disk_full")
        assert 'id="audit-health"' in _page(health) and "1 line(s) wait" in _page(health)
        # Said once per outage, however many calls are refused.
        with pytest.raises(ActionError):
            audit.check()
        assert len([r for r in caplog.records if "cannot take more lines" in r.getMessage()]) == 1
        assert [e["tool"] for e in audit.recent()] == ["ran.first"]  # still shown
    finally:
        audit.close()
    assert audit.lost == 1  # closing could not write it either: counted, and said on stderr


@needs_dev_full
def test_a_full_backlog_gives_up_refusals_before_the_lines_of_calls_that_ran():
    audit = AuditLog(FULL, min_free_bytes=0, backlog_size=3)
    audit.open()
    try:
        audit.record({"tool": "ran.a", "status": "ok"})
        audit.record({"tool": "ran.b", "status": "ok"})
        for _ in range(4):
            audit.record({"tool": "refused", "status": "error", "code": "audit_unavailable"})
        audit.record({"tool": "ran.c", "status": "ok"})
        waiting = [json.loads(line)["tool"] for line, _ in audit._backlog]
    finally:
        audit.close()
    assert waiting == ["ran.a", "ran.b", "ran.c"] and audit.lost == 4 + 3


def test_a_file_system_without_room_refuses_before_any_write(tmp_path):
    audit = AuditLog(tmp_path / "audit.jsonl", min_free_bytes=1 << 62)  # more than any disk has
    audit.open()
    try:
        with pytest.raises(ActionError) as refused:
            audit.check()
        assert refused.value.evidence["reason"] == "disk_full" and refused.value.evidence["waiting_lines"] == 0
    finally:
        audit.close()
    room = AuditLog(tmp_path / "audit.jsonl")
    room.open()
    try:
        room.check()  # a disk with room: nothing to say
        assert room.health()["ok"] is True and 'id="audit-health"' not in _page(room.health())
    finally:
        room.close()
    assert os.stat(tmp_path / "audit.jsonl").st_mode & 0o777 == 0o600


def test_a_closed_log_refuses_calls_and_counts_late_lines(tmp_path):
    audit = AuditLog(tmp_path / "audit.jsonl")
    audit.open()
    audit.record({"tool": "t"})
    audit.close()
    with pytest.raises(ActionError) as refused:
        audit.check()
    assert refused.value.evidence["reason"] == "closed"
    audit.record({"tool": "late"})
    assert audit.lost == 1 and [json.loads(line)["tool"] for line in (tmp_path / "audit.jsonl").read_text().splitlines()] == ["t"]


def test_an_unexpected_errors_text_is_logged_with_argument_values_masked():
    text = "bad path '/home/ada/hunter2.txt' (12345) for \"hunter2\""
    masked = redacted(text, {"path": "/home/ada/hunter2.txt", "n": 12345, "nested": {"word": ["hunter2"]}, "flag": True, "a": "x"})
    assert "hunter2" not in masked and "12345" not in masked and masked.startswith("bad path «argument value»")
