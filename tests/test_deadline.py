"""The call's Deadline: time left, a bounded part, and handler_timeout instead of a token 1 ms."""

from __future__ import annotations

import time

import pytest

from mcp_actions.deadline import Deadline
from mcp_actions.errors import ActionError


def test_remaining_ms_counts_down_from_the_limit():
    deadline = Deadline.after_ms(5000)
    assert 4900 <= deadline.remaining_ms() <= 5000 and not deadline.expired


@pytest.mark.parametrize("phase", [None, "opening"])
def test_a_spent_deadline_is_handler_timeout_naming_the_limit_and_phase(phase):
    spent = Deadline(time.monotonic() - 0.01, 250)
    assert spent.expired
    with pytest.raises(ActionError) as caught:
        spent.remaining_ms(phase=phase)
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence == {"timeout_ms": 250, **({"phase": phase} if phase else {})}


def test_less_than_a_millisecond_left_is_spent_too():
    # int() of a fraction of a millisecond is 0: never sent to a runtime as timeout_ms.
    with pytest.raises(ActionError):
        Deadline(time.monotonic() + 0.0004, 1).remaining_ms()


@pytest.mark.parametrize(
    ("outer_ms", "part_ms", "low", "high"),
    [
        (5000, 1000, 900, 1000),  # the part's own limit is tighter
        (1000, 5000, 900, 1000),  # the call's deadline is tighter
        (1000, None, 900, 1000),  # no limit of its own: the call's
    ],
)
def test_a_child_never_outlives_its_parent(outer_ms, part_ms, low, high):
    assert low <= Deadline.after_ms(outer_ms).child(part_ms).remaining_ms() <= high
