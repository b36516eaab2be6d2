"""Strict JSON beyond maps and bridge frames: the policy file, Responses-style arguments, and the audit line.

A repeated key is read one way by one parser and another way by the next, so
a reviewer of a policy could read the rule that is not in force; a lone
surrogate that a page put into its title must not crash the audit log's line.
"""

from __future__ import annotations

import json

import pytest

from mcp_actions.audit_log import AuditLog
from mcp_actions.bridge.responses import action_call_from_function_call
from mcp_actions.dispatch.call.policy import Policy, PolicyError
from mcp_actions.errors import ActionError


def test_a_policy_with_a_repeated_key_is_refused_naming_it(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text('{"rules": [{"tools": "*", "decision": "allow", "decision": "deny"}]}', encoding="utf-8")
    with pytest.raises(PolicyError) as caught:
        Policy.load(path)
    assert "strict JSON" in str(caught.value) and "/rules/0/decision" in str(caught.value)


def test_a_policy_with_nan_is_refused(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text('{"rules": [], "description": NaN}', encoding="utf-8")
    with pytest.raises(PolicyError):
        Policy.load(path)


def test_responses_arguments_with_a_repeated_key_are_refused():
    item = {"type": "function_call", "call_id": "c1", "name": "board.add_card", "arguments": '{"title": "a", "title": "b"}'}
    with pytest.raises(ActionError) as caught:
        action_call_from_function_call(item, runtime_id="r1")
    assert caught.value.evidence["path"] == "/arguments"


def test_an_audit_line_with_a_lone_surrogate_is_written_as_its_escape(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", min_free_bytes=0)
    log.open()
    try:
        log.record({"tool": "page.observe", "origin": "http://x.test", "title": "bad \udc80 title"})
    finally:
        log.close()
    line = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()[-1]
    assert json.loads(line)["title"] == "bad \udc80 title"
