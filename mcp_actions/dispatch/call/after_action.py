"""What happens after a call's action reached the page never turns its outcome into a failure (issue 42).

An agent told "failed" after the page acted tries again, and a second purchase is worse than a slow
one. So the work that follows the action (checking the output against the tool's ``result_schema``,
a postcondition that cannot be read, the state summary, what the action changed, the audit line,
the tab's turn ending) reports what it found beside the output, and fails the call only when it found
the action's result wrong:

- the output breaks the ``result_schema``: ``invalid_result``, whose message and evidence
  (``action_ran: true``) say the action ran and was not undone;
- a check cut short (it ran out of time, the schema cannot be compiled, the page could not be read
  again): the output is the answer, with an ``Unchecked`` note that says the action ran and which
  check is unknown (the MCP adapter puts it in ``_meta["mcp-actions/unchecked"]`` and one line the
  model reads; docs/mcp-surface.md).

A check's time is the call's deadline, but never less than ``CHECK_MIN_MS`` from when the answer came:
an answer that arrives as the deadline falls is still checked when that is quick. How the check is
bounded by the output's size is ``schema_check.check_bounded``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from ...catalog.catalog import ToolBinding
from ...deadline import Deadline
from ...errors import ActionError, ErrorCode
from ...schema_check import check_bounded

__all__ = ["CHECK_MIN_MS", "Unchecked", "check_result", "postcondition_unknown"]

log = logging.getLogger(__name__)

#: The least time a result check gets after the answer came, even when the call used up its own.
CHECK_MIN_MS = 250


@dataclass(frozen=True)
class Unchecked:
    """A check after the action that did not finish: the action ran, and this much is unknown."""

    #: Which check: ``result_schema`` or ``postcondition``.
    check: str
    #: Why it is unknown: the error code that cut it short (``handler_timeout``, ``invalid_schema``, …).
    reason: str
    #: The cause in a few words (the error's message).
    message: str

    @property
    def note(self) -> str:
        """The line the model reads: the action ran, what is unknown, and not to simply call again."""
        what = "its result was not checked against the tool's result_schema" if self.check == "result_schema" else "its postcondition could not be judged"
        return f"the action ran, but {what} ({self.reason}): treat the output as unverified; the action is done, do not repeat it to check"

    def to_meta(self) -> dict[str, Any]:
        """The entry of ``_meta["mcp-actions/unchecked"]``."""
        return {"check": self.check, "status": "unknown", "action_ran": True, "reason": self.reason, "message": self.message, "note": self.note}


async def check_result(binding: ToolBinding, output: Any, deadline: Deadline | None) -> Unchecked | None:
    """Check ``output`` against ``binding``'s ``result_schema``; None when it passed (or there is none).

    Raises ``invalid_result`` (saying the action ran) when the output breaks the schema; returns an
    ``Unchecked`` when the check could not finish, never a timeout of the call.
    """
    if not isinstance(binding.result_schema, dict):
        return None
    give_up_at = time.monotonic() + CHECK_MIN_MS / 1000
    if deadline is not None:
        give_up_at = max(give_up_at, deadline.at)
    try:
        await check_bounded(binding.check_result, output, give_up_at=give_up_at)
    except ActionError as exc:
        if exc.code == ErrorCode.INVALID_RESULT:
            exc.message = f"{exc.message} (the action ran and is not undone: do not simply call again)"
            exc.evidence["action_ran"] = True
            raise
        log.warning("%s ran, but its result could not be checked against its result_schema: %s: %s", binding.name, exc.code, exc.message)
        return Unchecked("result_schema", str(exc.code), exc.message)
    return None


def postcondition_unknown(exc: ActionError) -> Unchecked | None:
    """A postcondition's error as an ``Unchecked`` when it only says the check was cut short; None when it held false.

    ``state_mismatch`` is the page not as the tool promised: a failure of the call, as before.
    Anything else (the deadline, the page gone, a read that failed) leaves the postcondition unknown.
    """
    if exc.code == ErrorCode.STATE_MISMATCH:
        return None
    return Unchecked("postcondition", str(exc.code), exc.message)
