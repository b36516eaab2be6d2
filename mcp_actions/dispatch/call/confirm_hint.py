"""How to go on when a tool that asks the user first cannot ask: the policy rule to add, or the map field to change.

A tool whose map asks for the user's yes (``x_actions.confirm``, or a related
``critical`` check that hands the action to the user) is refused
``permission_denied`` (``reason: "no_elicitation"``) when the client cannot ask
its user. A refusal that stops there leaves the model, and the person reading
over its shoulder, with nowhere to go; ``way_on`` says the two ways on
(docs/mcp-surface.md, "Confirmation"):

- a ``--policy`` rule ``{"tools": "<dotted name>", "decision": "allow"}``: an
  explicit ``allow`` rule is the user's own yes, so the map's question is not
  asked (``dispatch/call/policy.py``);
- for a map the user holds as a file (trust ``local``), the field to change in
  it: remove ``x_actions.confirm``, or set it to ``false`` when the question
  comes from a check. A website's map is not the user's to edit: the policy
  rule is the only way named then.
"""

from __future__ import annotations

import json
from typing import Any

from ...catalog.catalog import ToolBinding

__all__ = ["way_on"]


def way_on(binding: ToolBinding) -> tuple[str, dict[str, Any]]:
    """``(sentence, evidence)``: how to run ``binding`` without asking; the evidence goes under ``evidence.way_on``."""
    rule = {"tools": binding.name, "decision": "allow"}
    evidence: dict[str, Any] = {"policy_rule": rule}
    sentence = f"to run it without asking, add the rule {json.dumps(rule)} to a --policy file (before any rule that names it)"
    tool = binding.tool
    if tool is not None and binding.origin.trust == "local" and not binding.page_tool:
        own = (tool.x_actions.model_extra or {}).get("confirm")
        where = f"tool {tool.name!r} in {binding.origin.source}"
        if own not in (None, False):
            change = f"remove x_actions.confirm from {where}"
        else:
            change = f"set x_actions.confirm to false on {where} (a critical check of the map hands it to the user)"
        evidence["map"] = {"file": binding.origin.source, "tool": tool.name, "change": change}
        sentence += f", or {change}"
    return sentence, evidence
