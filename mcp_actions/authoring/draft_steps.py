"""The workflow steps a drafted tool is made of: wait, fill, click, let the page settle, read back what it said.

``DraftWorkflow`` collects a tool's steps; ``click_step`` clicks through ``locator.element_info`` and
``pointer.click``; ``read_back`` reads the status regions near the action (again while one says work
in progress); ``output_expression`` and ``result_schema`` say what the tool answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .draft_words import Names, slug

__all__ = ["LOAD_ATTEMPTS", "MAX_READS", "READY_TIMEOUT_MS", "READ_ATTEMPTS", "SETTLE_QUIET_MS", "SETTLE_TIMEOUT_MS", "DraftWorkflow", "click_step", "output_expression", "read_back", "result_schema"]

#: How long a tool waits for its form or control to be there (a page that renders late).
READY_TIMEOUT_MS = 5000
#: After the action: no DOM change for this long counts as the page's answer (bounded by SETTLE_TIMEOUT_MS).
SETTLE_QUIET_MS = 300
SETTLE_TIMEOUT_MS = 2500
#: Status regions read back after an action, each read at most this often while it says "…" (work in progress).
MAX_READS = 2
READ_ATTEMPTS = 4
#: How often a tool looks for the page a submission or a link loads (the interpreter lets the page settle
#: between looks; an after_each would fail the step when the navigation cuts it short).
LOAD_ATTEMPTS = 20
#: A status text that ends like this is work in progress ("Saving…", "Loading...").
_IN_PROGRESS = r"/(…|\.\.\.)\s*$/"


@dataclass
class DraftWorkflow:
    """Steps under construction, within the step limit."""

    max_steps: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    ids: Names = field(default_factory=Names)

    def room(self) -> int:
        return self.max_steps - len(self.steps)

    def add(self, step_id: str, primitive: str, args: dict[str, Any], **extra: Any) -> str:
        """Append a step (keys in reading order: id, primitive, when, args, the rest, description); return its id."""
        sid = self.ids.take(step_id)
        self.steps.append({"id": sid, "primitive": primitive, "args": args, **{k: v for k, v in extra.items() if v is not None}})
        self.order(self.steps[-1])
        return sid

    @staticmethod
    def order(step: dict[str, Any]) -> None:
        keys = sorted(step, key=lambda k: ("id", "primitive", "when", "args").index(k) if k in ("id", "primitive", "when", "args") else 9 if k == "description" else 5)
        items = [(k, step.pop(k)) for k in keys]
        step.update(items)

    def document(self, output: str) -> dict[str, Any]:
        return {"version": 1, "expression_language": "jsonata", "steps": self.steps, "output": output}


def click_step(
    workflow: DraftWorkflow,
    step_id: str,
    locator: dict[str, Any] | str,
    *,
    when: str | None = None,
    click_when: str | None = None,
    settle_after: dict[str, Any] | None = None,
    description: str | None = None,
) -> str:
    """``locator.element_info`` then ``pointer.click`` at its clickable centre (the reference dictionary's way to click an element).

    ``when`` guards both steps; ``click_when``, when given, the click alone (it may read what ``at_<id>`` found).
    """
    at = workflow.add(f"at_{step_id}", "locator.element_info", {"locator": locator}, when=when)
    center = f"steps.{at}.output.clickable_center"
    args = {"x": f"{{% {center}.x %}}", "y": f"{{% {center}.y %}}"}
    return workflow.add(step_id, "pointer.click", args, when=click_when or when, settle_after=settle_after, description=description)


def read_back(workflow: DraftWorkflow, regions: list[dict[str, Any]], region_ids: list[int]) -> list[tuple[str, str]]:
    """Let the page answer, then read its status regions: [(key, JSONata of the text)].

    Each read may fail (the region is gone after a navigation: ``on_error: continue``). A text that
    ends in an ellipsis ("Saving…") is work in progress: it is read again, after the page settles,
    a few times at most; the last text read is the answer.
    """
    workflow.add(
        "settle", "dom.settle", {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_TIMEOUT_MS}, on_error="continue", description="let the page answer (no DOM change for a moment)"
    )
    reads: list[tuple[str, str]] = []
    keys = Names()
    for index in region_ids[:MAX_READS]:
        if workflow.room() <= 2:
            break
        region = regions[index]
        key = keys.take(slug(region.get("id") or region.get("label") or region.get("role") or "status", fallback="status", limit=30))
        first = workflow.add(f"read_{key}", "locator.text_content", {"locator": region["locator"]}, on_error="continue", description="what the page says now")
        again = f"reread_{key}"
        busy = f"$contains(steps.{first}.output.text, {_IN_PROGRESS})"
        workflow.add(
            again,
            "locator.text_content",
            {"locator": region["locator"]},
            when=f"{{% $exists(steps.{first}.output.text) and {busy} %}}",
            retry_until=f"{{% $not($contains(steps.{again}.output.text, {_IN_PROGRESS})) %}}",
            max_attempts=READ_ATTEMPTS,
            after_each={"primitive": "dom.settle", "args": {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_TIMEOUT_MS}},
            on_error="continue",
            description="it said work in progress (…): read it again once the page changes",
        )
        reads.append((key, f"($exists(steps.{again}.output.text) ? steps.{again}.output.text : steps.{first}.output.text)"))
    workflow.add("page", "page.info", {}, on_error="continue", description="where the page is now (a submit may load another)")
    return reads


def output_expression(head: str, reads: list[tuple[str, str]], extra: tuple[str, ...] = ()) -> str:
    parts = [head, *extra]
    if len(reads) == 1:
        parts.append(f"'status': {reads[0][1]}")
    elif reads:
        inner = ", ".join(f"'{key}': {text}" for key, text in reads)
        parts.append(f"'status': {{{inner}}}")
    parts.append("'url': steps.page.output.url")
    parts.append("'title': steps.page.output.title")
    return "{% {" + ", ".join(parts) + "} %}"


def result_schema(flag: str, reads: list[tuple[str, str]], *, navigates: bool = False) -> dict[str, Any]:
    status: dict[str, Any] = {"type": "string", "description": "the text of the page's status region after the action"}
    if len(reads) > 1:
        status = {"type": "object", "description": "the text of the page's status regions after the action", "properties": {key: {"type": "string"} for key, _ in reads}}
    properties: dict[str, Any] = {flag: {"type": "boolean"}}
    if navigates:
        properties["navigated"] = {"type": "boolean", "description": "whether the submission loaded another page"}
        properties["heading"] = {"type": "string", "description": "the loaded page's main heading"}
    properties.update({"url": {"type": "string"}, "title": {"type": "string"}})
    if reads:
        properties["status"] = status
    return {"type": "object", "required": [flag], "properties": properties}
