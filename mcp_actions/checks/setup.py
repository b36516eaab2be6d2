"""A check's ``setup`` run on the check's own scratch page, so what appears only with data can be judged.

A to-do list starts empty: its rows, their checkboxes and "Clear completed"
exist only once something was added. A check may say how to get there:
``"setup": [{"type": "call", "tool": "todos.add", "arguments": {"title": "Buy milk"}}]``.
``mcp-actions check`` judges the page as loaded first, then runs every
check's ``call`` setup entries, in map order, on the same tab (a browser of
its own with an isolated profile: nothing reaches the user's data), and
judges again what could not be judged on load (docs/cli.md).

A ``call`` entry runs its tool's workflow (or legacy ``x_actions.execution``
steps) through the workflow interpreter with the entry's ``arguments``; a
tool with only a page handler cannot run here and is reported as such.
Entries of other types (``navigate`` in published maps) are not run. Each
entry gives one ``setup`` item of the report, at the severity of the tool it
calls: a mutating tool's failure is major drift, a read-only tool's minor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from ..manifest.model import Check, Manifest, Tool
from ..workflow.interpreter import CompiledWorkflow, run_workflow
from ..workflow.legacy import execution_steps, translate_execution
from .probe import PrimitiveCall

__all__ = ["SETUP_TIMEOUT_MS", "SetupRun", "run_setups", "setup_calls"]

#: The bound on one setup call (a tool that never finishes must not hang CI).
SETUP_TIMEOUT_MS = 15_000


def setup_calls(check: Check) -> list[tuple[int, dict[str, Any]]]:
    """``(index, entry)`` of the check's setup entries that ``check`` runs (``type: call`` naming a tool)."""
    return [(i, entry) for i, entry in enumerate(check.setup or []) if isinstance(entry, dict) and entry.get("type") == "call" and isinstance(entry.get("tool"), str)]


@dataclass
class SetupRun:
    """What running the setups gave: one report item per entry, and whether every entry succeeded."""

    items: list[dict[str, Any]] = field(default_factory=list)
    ran: bool = False  # at least one entry was run
    complete: bool = True  # every entry run succeeded


def _compiled(tool: Tool) -> CompiledWorkflow | None:
    workflow = tool.effective_workflow
    if workflow is not None:
        return CompiledWorkflow.compile(workflow.model_dump(mode="json", by_alias=True, exclude_none=True))
    if execution_steps(tool.x_actions.execution):
        return translate_execution(tool.x_actions.execution or {})
    return None


async def _run_tool(call: PrimitiveCall, tool: Tool, arguments: dict[str, Any]) -> Any:
    compiled = _compiled(tool)
    if compiled is None:
        raise ActionError(f"{tool.name} has no workflow or execution steps that check can run", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"tool": tool.name})

    async def caller(name: str, args: dict[str, Any], _timeout_ms: int | None) -> Any:
        return await call(name, args)

    return await run_workflow(compiled, arguments, caller, deadline=Deadline.after_ms(SETUP_TIMEOUT_MS))


async def run_setups(
    manifest: Manifest, call: PrimitiveCall, *, severity_of: Callable[[Tool], str], item: Callable[..., dict[str, Any]]
) -> SetupRun:
    """Run every check's ``call`` setup entries in map order; stop at the first failure (what follows relied on it)."""
    tools = {tool.name: tool for tool in manifest.tools}
    run = SetupRun()
    for check in manifest.checks:
        for index, entry in setup_calls(check):
            item_id = f"{check.id}/setup/{index}"
            name = str(entry["tool"])
            tool = tools.get(name)
            given = entry.get("arguments")
            arguments: dict[str, Any] = given if isinstance(given, dict) else {}
            evidence: dict[str, Any] = {"tool": name, "arguments": arguments}
            if not run.complete:
                run.items.append(item(
                    "setup", item_id, "pass", "info", f"{name}: not run, an earlier setup entry failed", evidence, note="not_run"))
                continue
            if tool is None:  # a tool of an import that did not load: validate names it
                run.complete = False
                run.items.append(item("setup", item_id, "error", "major", f"{name}: no such tool in the map", evidence))
                continue
            run.ran = True
            severity = severity_of(tool)
            try:
                output = await _run_tool(call, tool, arguments)
            except ActionError as exc:
                run.complete = False
                evidence["error"] = exc.to_error()
                status = "error" if exc.code == ErrorCode.CAPABILITY_UNAVAILABLE else "fail"
                run.items.append(item("setup", item_id, status, severity, f"{name} failed: {exc.code}: {exc.message}", evidence))
                continue
            evidence["output"] = output
            run.items.append(item("setup", item_id, "pass", severity, f"{name} ran", evidence))
    return run
