"""``page.act``: several acting page steps in one call, each still its own call (contract §6; issue 44).

A model that knows the next three steps (fill the title, fill the date, click Save) pays a turn and an
answer per step with the single tools. ``page_act {steps: [{tool, arguments, on_error?}, …]}`` runs them
in order in one call, and each step is exactly the call the host would have made: it goes through
``ActionService.handle`` (as ``actions.site``'s call mode does), so the guards, the policy, a
confirmation, the tab's turn, the audit log's line and the journal ``actions_save_tool`` learns from
apply to it as to a direct call. ``page.act`` itself holds no turn of the tab (``TargetRule`` turn
``none``): its steps take it one after the other, and holding it here would wait on itself.

It stops at the first step that fails, unless that step says ``"on_error": "skip"`` (go on) or
``"retry"`` (run it once more, then stop). The answer is each step's line (what it did, the first line
of its own answer) and, once, what the whole call changed: the page engine's second mark (``refs.change_mark
{slot: "act"}``, taken before the first step) reported after the last (``act_report.change_report``),
rather than every step's own change lines. A step that failed says so in its line, and the steps not run
are named; a call whose first step failed before anything ran is that step's error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ....errors import ActionError
from ...call.execution import held_step
from ...call.service import ActionService
from ...call.targets import TargetRule
from ..answers import TextAnswer, page_meta
from ..tool import BuiltinCall, BuiltinTool, builtin_binding
from .act_report import change_report

__all__ = ["ACT_STEP_TOOLS", "ACT_TOOL", "MAX_STEPS"]

#: The acting page tools a step may be (their MCP names, as the host calls them).
ACT_STEP_TOOLS: tuple[str, ...] = ("page_click", "page_fill", "page_press", "page_select", "page_hover", "page_scroll", "page_drag")
#: Steps in one call: a form or a short flow, not a script.
MAX_STEPS = 20

ACT = builtin_binding(
    "page.act",
    "Several acting steps in one call, in order: steps: [{tool: page_click|page_fill|…, arguments: {…}, "
    "on_error?: stop|skip|retry}]. Each step is judged and recorded as its own call; it stops at the first "
    "failure (unless skip, or retry once). Answers each step's line, then what the whole call changed.",
    {
        "type": "object",
        "required": ["steps"],
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_STEPS,
                "items": {
                    "type": "object",
                    "required": ["tool"],
                    "properties": {
                        "tool": {"type": "string", "enum": list(ACT_STEP_TOOLS)},
                        "arguments": {"type": "object"},
                        "on_error": {"type": "string", "enum": ["stop", "skip", "retry"], "default": "stop"},
                    },
                    "additionalProperties": False,
                },
            }
        },
        "additionalProperties": False,
    },
    {"title": "Act in steps", "readOnlyHint": False, "openWorldHint": True},
    text_output=True,
)


def _first_line(output: Any) -> str:
    """A step's line: the first line of its answer (the acting tools' "what it did"; observe_tools._acted)."""
    return str(output).split("\n", 1)[0]


async def _run_step(service: ActionService, call: BuiltinCall, step: dict[str, Any]) -> str:
    """One step as the host's own call of its tool, on page.act's tab and within its time; its line."""
    arguments = {**(step.get("arguments") or {}), "target_runtime_id": call.runtime.runtime_id, "timeout_ms": max(1, call.deadline.remaining_ms())}
    # The caller's context (how to ask the user, its client for the audit), the way in said: the guards
    # hold a step to what a direct call may reach.
    context = replace(service.current_context(), via="page.act", on_admitted=None)
    outcome = await service.handle(step["tool"], arguments, context)
    return _first_line(outcome.output)


async def _act_steps(service: ActionService, call: BuiltinCall) -> TextAnswer:
    steps: list[dict[str, Any]] = call.own["steps"]
    runtime_id = call.runtime.runtime_id

    async def mark(origin: str | None) -> Any:
        return await service.bridge.call("refs.change_mark", {"slot": "act"}, runtime_id=runtime_id, timeout_ms=call.deadline.remaining_ms(), origin=origin)

    await held_step(call.hold, mark, step="refs.change_mark", runtime_id=runtime_id)
    lines: list[str] = []
    ran = 0
    for number, step in enumerate(steps, 1):
        on_error = step.get("on_error", "stop")
        failure: ActionError | None = None
        for _attempt in range(2 if on_error == "retry" else 1):
            try:
                lines.append(await _run_step(service, call, step))
            except ActionError as exc:
                failure = exc
                continue
            failure = None
            ran += 1
            break
        if failure is None:
            continue
        said = f"step {number} ({step['tool']}) failed: {failure.code}: {failure.message}"
        if on_error == "skip":
            lines.append(said + " (skipped)")
            continue
        if ran == 0:
            # Nothing ran: the call failed as its first step did, said as that step.
            failure.message = f"step {number} ({step['tool']}): {failure.message}"
            raise failure
        lines.append(said)
        if number < len(steps):
            lines.append(f"not run: steps {number + 1}–{len(steps)}" if number + 1 < len(steps) else f"not run: step {number + 1}")
        break
    # The steps settled the page each; the whole call's change is read at once.
    lines.append(await change_report(service, call, slot="act", settle=False))
    return TextAnswer("\n".join(lines), page_meta(runtime_id, "quoted"))


#: ``page.act``: on the routed tab (its runtime must mark changes), judged for that page, holding no turn.
ACT_TOOL = BuiltinTool(ACT, _act_steps, "observe", TargetRule("refs.change_mark", "none"))
