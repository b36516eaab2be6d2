"""What the backplane's seal refuses, message by message (``mcp_actions/backplane/seal.py``).

The process-level attacks are in ``test_attacks.py``; here each rule is
pinned on its own: a message opens only on the subject it was sealed for,
once, within the time window, under the same secret; an answer only for its
request; a record only under its own name; names are opaque and per secret.
"""

from __future__ import annotations

import pytest

from mcp_actions.backplane.seal import Refused, Seal

SECRET = b"a-secret-of-at-least-thirty-two-bytes!"
OTHER = b"another-secret-of-at-least-thirty-two-b"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_message_opens_once_on_its_subject_under_its_secret() -> None:
    sender, receiver = Seal(SECRET), Seal(SECRET)
    data = sender.seal("mcpa.x.r.a.call", {"password": "Victim-Pw-1"})
    assert b"Victim-Pw-1" not in data
    with pytest.raises(Refused, match="not sealed"):
        receiver.open("mcpa.x.r.b.call", data)  # moved to another replica's subject
    with pytest.raises(Refused, match="not sealed"):
        Seal(OTHER).open("mcpa.x.r.a.call", data)  # another deployment
    assert receiver.open("mcpa.x.r.a.call", data) == {"password": "Victim-Pw-1"}
    with pytest.raises(Refused, match="a replay"):
        receiver.open("mcpa.x.r.a.call", data)
    tampered = data[:-1] + bytes([data[-1] ^ 1])
    with pytest.raises(Refused, match="not sealed"):
        Seal(SECRET).open("mcpa.x.r.a.call", tampered)
    for junk in (b"", b"{}", b'{"kind": "output"}', b"\x01" + bytes(40)):
        with pytest.raises(Refused, match="not sealed"):
            receiver.open("mcpa.x.r.a.call", junk)


@pytest.mark.parametrize("skew", [-31.0, 31.0])  # sealed too long ago (a late replay), or ahead (clocks apart)
def test_a_message_outside_the_window_is_refused(skew: float) -> None:
    sender_clock, receiver_clock = Clock(), Clock()
    sender_clock.now += skew
    data = Seal(SECRET, clock=sender_clock).seal("s", {"n": 1})
    with pytest.raises(Refused, match="window"):
        Seal(SECRET, clock=receiver_clock).open("s", data)
    sender_clock.now = receiver_clock.now - 29  # within it
    assert Seal(SECRET, clock=receiver_clock).open("s", Seal(SECRET, clock=sender_clock).seal("s", {"n": 2})) == {"n": 2}


def test_an_answer_opens_only_for_its_request() -> None:
    caller, holder = Seal(SECRET), Seal(SECRET)
    first, second = caller.seal("s", {"n": 1}), caller.seal("s", {"n": 2})
    answer = holder.seal_reply(first, {"taken": True})
    with pytest.raises(Refused):
        caller.open_reply(second, answer)
    assert caller.open_reply(first, answer) == {"taken": True}
    with pytest.raises(Refused, match="a replay"):
        caller.open_reply(first, answer)


def test_a_record_opens_only_under_its_name_and_names_are_opaque_per_secret() -> None:
    seal = Seal(SECRET)
    name = seal.record_name("session-id-123")
    assert "session-id-123" not in name and name == Seal(SECRET).record_name("session-id-123") != Seal(OTHER).record_name("session-id-123")
    record = seal.seal_record(name, {"client": "victim"})
    assert b"victim" not in record
    assert Seal(SECRET).open_record(name, record) == {"client": "victim"}
    assert Seal(SECRET).open_record(name, record) == {"client": "victim"}  # a record is read many times
    with pytest.raises(Refused):
        seal.open_record(seal.record_name("another-session"), record)
    assert seal.cluster == Seal(SECRET).cluster != Seal(OTHER).cluster
    assert seal.tag("vm-1-abc") != Seal(OTHER).tag("vm-1-abc") and "vm" not in seal.tag("vm-1-abc")


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 32"):
        Seal(b"short")


def test_nonces_never_repeat_within_a_process() -> None:
    seal = Seal(SECRET)
    nonces = {seal.seal("s", {})[1:13] for _ in range(10_000)}
    assert len(nonces) == 10_000
