"""What a host is told about a tool beyond its schema: a title, behaviour hints, and whether to confirm.

MCP tool annotations are hints a host uses to decide how carefully to treat
a call. They are derived from the map:

- ``readOnlyHint`` (and then ``idempotentHint``): the tool is a workflow
  whose every step reads (``locator.text_content``, ``dom.extract``, ``page.info``, ...),
  which is what a read-only projection tool is. A handler's effect is
  unknown, so it is never called read-only.
- a transition the tool performs whose ``method`` is an input method
  (``click``, ``type``, ``navigation``, ...) or that leads to another state
  makes the tool not read-only;
- ``destructiveHint``: a related check has severity ``critical`` (the spec's
  word for credentials, payment, destructive operations, privacy);
- ``openWorldHint``: always true for a site's tools (they act on a live website).

A check is *related* to a tool when it names the tool anywhere in its body
(``setup``, ``steps``, ``on_fail``, or a ``tools`` list) or asserts on the
tool's own target. ``x_actions.annotations`` (or the tool's top-level
``annotations``) overrides any derived hint, key by key, in MCP's camelCase.

A tool needs the user's confirmation when ``x_actions.confirm`` is true (or a
message to show), or a related check of severity ``critical`` has
``on_fail.contingency`` ``handoff_to_user`` (``x_actions.confirm: false``
says no even then).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..manifest.model import Check, Manifest, Tool

__all__ = ["HINT_KEYS", "READ_PRIMITIVES", "confirmation", "derive_annotations", "related_checks", "tool_title"]

HINT_KEYS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

#: Primitives that only read the page (a workflow made only of these changes nothing).
READ_PRIMITIVES = frozenset(
    {
        "page.info",
        "dom.snapshot_text",
        "dom.list_sections",
        "dom.observe.visible",
        "dom.extract",
        "dom.settle",
        "locator.element_info",
        "locator.text_content",
        "locator.wait_for",
        "browser.screenshot",
        "browser.claimed_tabs.list",
        "clipboard.read",
        "transfer.read",
        "storage.read_file",
    }
)
_INPUT_METHODS = frozenset({"click", "type", "navigation", "scroll", "handler_call", "attachment_install"})


def _mentions(value: Any, name: str) -> bool:
    if isinstance(value, str):
        return value == name
    if isinstance(value, dict):
        return any(_mentions(v, name) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, name) for v in value)
    return False


def related_checks(tool: Tool, manifest: Manifest) -> Iterator[Check]:
    """The checks that concern ``tool`` (see the module docstring)."""
    target = tool.target.model_dump(mode="json", exclude_none=True) if tool.target is not None else None
    for check in manifest.checks:
        body = [check.setup, check.steps, check.on_fail, (check.model_extra or {}).get("tools")]
        if _mentions(body, tool.name):
            yield check
        elif target and any(isinstance(a, dict) and a.get("target") == target for a in check.assertions):
            yield check


def _overrides(tool: Tool) -> dict[str, Any]:
    explicit: dict[str, Any] = {}
    for source in (tool.annotations, (tool.x_actions.model_extra or {}).get("annotations")):
        if isinstance(source, dict):
            explicit.update({k: v for k, v in source.items() if k in HINT_KEYS})
    return explicit


def tool_title(tool: Tool) -> str:
    """A short human title: the explicit one, else from the dotted name (``contact.submit_name`` → ``Contact: submit name``)."""
    title = _overrides(tool).get("title")
    if isinstance(title, str) and title.strip():
        return title
    *namespace, last = tool.name.split(".")
    words = last.replace("_", " ").replace("-", " ").strip()
    words = words[:1].upper() + words[1:]
    if namespace:
        return f"{namespace[-1].replace('_', ' ').capitalize()}: {words[:1].lower() + words[1:]}"
    return words


def _reads_only(tool: Tool) -> bool:
    workflow = tool.effective_workflow
    if workflow is None or tool.x_actions.handler:
        return False
    primitives = [step.primitive for step in workflow.steps]
    primitives += [str(step.after_each.get("primitive")) for step in workflow.steps if step.after_each]
    return all(p in READ_PRIMITIVES for p in primitives)


def derive_annotations(tool: Tool, manifest: Manifest) -> dict[str, Any]:
    """The tool's MCP annotations (camelCase keys), derived and then overridden."""
    transitions = [t for t in manifest.transitions if t.tool == tool.name]
    moves = any((t.method in _INPUT_METHODS) or (t.from_ and t.to and t.from_ != t.to) for t in transitions)
    read_only = _reads_only(tool) and not moves
    hints: dict[str, Any] = {"readOnlyHint": read_only, "openWorldHint": True}
    if read_only:
        hints["idempotentHint"] = True
    else:
        critical = any(c.severity == "critical" for c in related_checks(tool, manifest))
        if critical:
            hints["destructiveHint"] = True
    hints["title"] = tool_title(tool)
    hints.update(_overrides(tool))
    return hints


def confirmation(tool: Tool, manifest: Manifest) -> str | None:
    """Why the user must confirm a call of ``tool`` (a message), or None when no confirmation is needed."""
    confirm = (tool.x_actions.model_extra or {}).get("confirm")
    if isinstance(confirm, str) and confirm.strip():
        return confirm
    if confirm is True:
        return f"Allow {tool.name}? {tool.description}"
    if confirm is False:
        return None  # an explicit "no" wins over a check's hand-off
    for check in related_checks(tool, manifest):
        # Only a critical check hands every call to the user: a major one's hand-off is what to do
        # once drift is found, and asking on every call would stop published maps (simple-form) cold.
        if check.severity == "critical" and isinstance(check.on_fail, dict) and check.on_fail.get("contingency") == "handoff_to_user":
            return f"Allow {tool.name}? The site's map hands this action to the user ({check.id}). {tool.description}"
    return None
