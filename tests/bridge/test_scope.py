"""The session model (bridge/scope.py, docs/sessions.md): keys, who sees what, per-session active runtimes, credentials."""

from __future__ import annotations

import pytest

from mcp_actions.bridge.registry import RuntimeInfo, RuntimeRegistry
from mcp_actions.bridge.scope import (
    SessionKey,
    current_session,
    mint_handle,
    session_credential,
    session_of_credential,
    session_scope,
    visible_to,
)

A = SessionKey.of_http("mcp-session-id-of-a")
B = SessionKey.of_http("mcp-session-id-of-b")
SHARED = SessionKey.of_http("mcp-session-id-of-c", isolated=False)


def test_keys_are_digests_stable_for_the_same_secret():
    assert A == SessionKey.of_http("mcp-session-id-of-a")  # another replica computes the same key
    assert A.id.startswith("h-") and "mcp-session-id-of-a" not in A.id
    handle = mint_handle()
    assert SessionKey.of_handle(handle).id.startswith("m-") and handle not in SessionKey.of_handle(handle).id
    assert SessionKey.of_connection() != SessionKey.of_connection()


@pytest.mark.parametrize(
    ("owner", "key", "visible"),
    [
        (None, None, True),  # no session (stdio, the operator): everything
        (A.id, None, True),
        (None, A, False),  # the operator's runtimes are not an isolated session's
        (A.id, A, True),
        (B.id, A, False),  # another session's: never
        (A.id, SHARED, True),  # --shared-browser-context: everything
        (None, SHARED, True),
    ],
)
def test_who_sees_which_runtime(owner, key, visible):
    assert visible_to(owner, key) is visible


def test_the_registry_answers_for_the_session_in_scope_and_keeps_an_active_runtime_each():
    registry = RuntimeRegistry()
    for runtime_id, owner in (("op", None), ("a1", A.id), ("b1", B.id), ("a2", A.id)):
        registry.add(RuntimeInfo(runtime_id=runtime_id, url=f"https://x.test/{runtime_id}", transport="inprocess", session=owner))
    registry.set_active("op")
    registry.set_active("a2")  # A's, whatever the scope
    registry.set_active("b1")
    with session_scope(A):
        assert current_session() == A
        assert [r.runtime_id for r in registry.visible()] == ["a1", "a2"]
        assert registry.get_visible("b1") is None and registry.get_visible("op") is None
        assert registry.active_id == "a2"
    with session_scope(B):
        assert registry.active_id == "b1"
    assert current_session() is None
    assert registry.active_id == "op" and len(registry.visible()) == 4
    registry.remove("a2")
    with session_scope(A):
        assert registry.active_id == "a1"  # the newest of A's own, never another's
    registry.remove("a1")
    with session_scope(A):
        assert registry.active_id is None and registry.visible() == []


def test_a_session_credential_proves_its_session_and_nothing_else():
    credential = session_credential("start-token", A.id)
    assert session_of_credential("start-token", credential) == A.id
    assert "start-token" not in credential
    assert session_of_credential("another-start-token", credential) is None  # another server's (or a guess)
    forged = credential.replace(A.id, B.id)
    assert session_of_credential("start-token", forged) is None
    assert session_of_credential("start-token", "start-token") is None
    assert session_of_credential("start-token", "ses..") is None
