"""``agent/act``: composite steps in order, each with its ``condition`` and ``onError`` (docs/bap.md, "What is supported").

A step runs when its condition holds (``exists``, ``visible``, ``hidden``, ``enabled``,
``disabled``; else it fails, or is skipped with ``continueOnConditionFail``); a failing step
stops the sequence (``onError: "stop"``, the default, and ``stopOnFirstError``), is skipped
(``skip``) or tried again (``retry``: ``maxRetries`` more times, ``retryDelay`` ms apart). Each
step is a BAP method or an ``mcp-actions/call`` of a catalogue tool (``BapMethods._step``).

A fill followed by Enter pressed in the same field (``action/fill``, then ``action/press {key:
"Enter"}`` with the same selector, neither saying ``onError`` other than ``stop``, the press without a
condition) is one call of the core, ``page_fill {submit: true}``, as an MCP client's ``page_act`` makes
it (issue 55): the step runs with ``SUBMIT`` set, and the press's entry says it succeeded with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import ErrorCode
from .errors import BapError

__all__ = ["SUBMIT", "agent_act"]

#: Set on a fill step that also presses Enter in its field (the next step's press, run with it).
SUBMIT = "mcp-actions/submit"


def _submits_next(steps: list[Any], index: int) -> bool:
    """Whether step ``index`` is a fill and the next one Enter pressed in the same field, to run as one call."""
    if index + 1 >= len(steps):
        return False
    fill, press = steps[index], steps[index + 1]
    if not isinstance(fill, dict) or not isinstance(press, dict) or fill.get("action") != "action/fill" or press.get("action") != "action/press":
        return False
    if any(step.get("onError", "stop") != "stop" for step in (fill, press)) or press.get("condition") is not None:
        return False
    filled, pressed = fill.get("params"), press.get("params")
    if not isinstance(filled, dict) or not isinstance(pressed, dict) or pressed.get("key") != "Enter":
        return False
    return filled.get("selector") is not None and filled.get("selector") == pressed.get("selector") and filled.get("pageId") == pressed.get("pageId")


async def agent_act(
    params: dict[str, Any],
    page: str | None,
    run_step: Callable[[dict[str, Any], str | None], Awaitable[Any]],
    condition_holds: Callable[[Any, str | None], Awaitable[bool]],
) -> dict[str, Any]:
    """The ``AgentActResult`` of ``params.steps`` on ``page``: ``run_step`` runs one, ``condition_holds`` judges a condition."""
    steps = params.get("steps")
    if not isinstance(steps, list) or not steps:
        raise BapError("InvalidParams", "agent/act needs steps", details={"code": ErrorCode.INVALID_INPUT})
    stop_first = params.get("stopOnFirstError", True) is not False
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    failed_at: int | None = None
    joined: int | None = None  # a press run with the fill before it
    for index, step in enumerate(steps):
        step = step if isinstance(step, dict) else {}
        if index == joined:
            results.append({"step": index, "success": True, "duration": 0, "result": {}, **({"label": step["label"]} if step.get("label") else {})})
            continue
        if _submits_next(steps, index):
            step, joined = {**step, SUBMIT: True}, index + 1
        began = time.monotonic()
        entry: dict[str, Any] = {"step": index, "success": False, "duration": 0}
        if step.get("label"):
            entry["label"] = step["label"]
        on_error = step.get("onError", "stop")
        attempts = 1 + (int(step.get("maxRetries") or 1) if on_error == "retry" else 0)
        retries = 0
        for attempt in range(attempts):
            try:
                if not await condition_holds(step.get("condition"), page):
                    if params.get("continueOnConditionFail"):
                        entry.update(success=True, result={"skipped": "condition not met"})
                        break
                    raise BapError("ActionFailed", f"step {index}'s condition ({step['condition'].get('state')}) does not hold", details={"code": "condition_failed"})
                entry["result"] = await run_step(step, page)
                entry["success"] = True
                entry.pop("error", None)
                break
            except BapError as exc:
                entry["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
                if attempt + 1 < attempts:
                    retries += 1
                    await asyncio.sleep(max(0.1, min(5.0, int(step.get("retryDelay") or 500) / 1000)))
        if retries:
            entry["retries"] = retries
        entry["duration"] = int((time.monotonic() - began) * 1000)
        results.append(entry)
        if not entry["success"]:
            joined = None  # the press did not happen: it is not said to have
            if failed_at is None:
                failed_at = index
            if on_error == "skip":
                continue
            if stop_first or on_error in ("stop", "retry"):
                break
    completed = sum(1 for r in results if r["success"])
    out: dict[str, Any] = {"completed": completed, "total": len(steps), "success": completed == len(steps), "results": results, "duration": int((time.monotonic() - started) * 1000)}
    if failed_at is not None:
        out["failedAt"] = failed_at
    return out
