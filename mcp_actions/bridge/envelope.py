"""What a call's ``action_call_output`` means: the spec's ``{ok, result}`` envelope, or a plain output.

The bridge protocol's text shows a runtime answering

    "output": {"ok": true, "result": {...}}      the call's output is ``result``
    "output": {"ok": false, "error": {...}}      the call failed with that error

while our own page runtime answers with the output itself. docs/bridge-protocol.md (action_call_output) makes
both work: an ``output`` that is such an envelope is unwrapped here, anything
else is the output as it is. An envelope is recognised strictly (``ok`` is a
boolean, and ``result`` is present when it is true), so a plain output that
merely has an ``ok`` field, such as ``{"ok": true, "cart_size": 1}``, stays
what it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["is_envelope", "runtime_error", "unwrap_output"]

_KNOWN_CODES = frozenset(ErrorCode)


def is_envelope(output: Any) -> bool:
    """True when ``output`` is the spec's ``{"ok": true, "result": R}`` or ``{"ok": false, "error": E}``."""
    if not isinstance(output, dict) or not isinstance(output.get("ok"), bool):
        return False
    return "result" in output if output["ok"] else "error" in output


def unwrap_output(output: Any) -> Any:
    """The call's output; raises the runtime's ``ActionError`` for ``{"ok": false, "error": …}``.

    An ``error`` that is not an object with a string ``code`` still fails the
    call, as ``handler_failed`` carrying what the runtime sent.
    """
    if not is_envelope(output):
        return output
    if output["ok"]:
        return output["result"]
    error = output["error"]
    if isinstance(error, dict) and isinstance(error.get("code"), str) and error["code"]:
        raise runtime_error(error)
    raise ActionError(
        "the runtime reported a failure without a structured error",
        code=ErrorCode.HANDLER_FAILED,
        evidence={"error": error},
    )


def runtime_error(error: Mapping[str, Any]) -> ActionError:
    """The ``ActionError`` a runtime's ``error`` object stands for, in our one vocabulary.

    A code that is an ``ErrorCode`` member (the spec's stable codes and the
    dictionary's primitive errors) is kept. Any other code becomes
    ``handler_failed``, the runtime's own code kept as ``evidence.runtime_code``,
    so agents only ever see documented codes.
    """
    failure = ActionError.from_error(dict(error))
    if failure.code in _KNOWN_CODES:
        return failure
    failure.evidence = {**failure.evidence, "runtime_code": failure.code}
    failure.code = ErrorCode.HANDLER_FAILED
    return failure
