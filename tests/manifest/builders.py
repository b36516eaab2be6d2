"""Small valid manifests to mutate in tests, and JSON-Pointer edits on deep copies."""

from __future__ import annotations

import copy
from typing import Any

from mcp_actions.manifest.problems import pointer_tokens
from mcp_actions.manifest.validate import check_manifest


class _Delete:
    """The edit that removes a key; its repr is the same in every process, so test ids built from it are too
    (parallel workers must collect the same ids)."""

    def __repr__(self) -> str:
        return "<delete>"


_DELETE = _Delete()

WORKFLOW: dict[str, Any] = {
    "version": 1,
    "expression_language": "jsonata",
    "steps": [
        {"id": "find", "primitive": "locator.element_info", "args": {"locator": {"selector": "button[type='submit']"}}},
        {
            "id": "click",
            "primitive": "pointer.click",
            "args": {"x": "{% steps.find.output.clickable_center.x %}", "y": "{% steps.find.output.clickable_center.y %}"},
        },
    ],
    "output": "{% {'clicked': true} %}",
}

PROJECTION: dict[str, Any] = {
    "name": "site.board",
    "snapshot": {
        "version": 1,
        "source": "dom",
        "extract": [
            {
                "id": "lists",
                "selector": "[data-list]",
                "many": True,
                "fields": {
                    "name": {"selector": ".name", "property": "innerText", "trim": True},
                    "cards": {"selector": ".card", "many": True, "fields": {"title": {"selector": "h3"}}},
                },
            }
        ],
        "projection": {"language": "jsonata", "expression": "{% {'lists': records.lists} %}"},
        "output_schema": {"type": "object"},
    },
    "summaries": [{"name": "counts", "max_bytes": 2000, "expression": "{% {'n': $count(state.lists)} %}"}],
}


def base() -> dict[str, Any]:
    """A valid manifest using most sections: a handler tool, a workflow tool, a projection, a small graph."""
    return copy.deepcopy(
        {
            "protocol": "actions.json",
            "version": 1,
            "surface": {"origin": "https://example.com", "name": "Example form"},
            "tools": [
                {
                    "name": "form.submit",
                    "description": "Submit the form.",
                    "input_schema": {"type": "object"},
                    "x_actions": {"handler": "form.submit"},
                },
                {
                    "name": "form.click",
                    "description": "Click the submit button.",
                    "input_schema": {"type": "object"},
                    "workflow": WORKFLOW,
                },
            ],
            "states": [{"name": "form_ready"}, {"name": "form_submitted"}],
            "signals": [{"name": "form.submitted", "event": "form:submitted", "ingestion": "enabled"}],
            "attachments": [
                {"id": "status-badge", "target": {"selector": "#result"}, "lifecycle": {"install": "when_target_matches"}}
            ],
            "transitions": [{"name": "submit_form", "from": "form_ready", "to": "form_submitted", "tool": "form.submit"}],
            "checks": [
                {
                    "id": "form_visible",
                    "severity": "major",
                    "assertions": [{"target": {"selector": "form"}, "visible": True}],
                    "steps": [{"type": "call", "tool": "form.submit", "arguments": {}}],
                }
            ],
            "context": [{"id": "form.context", "available_tools": ["form.submit"], "load_when": {"states": ["form_ready"]}}],
            "state_projections": [PROJECTION],
        }
    )


def edit(document: Any, pointer: str, value: Any = _DELETE) -> Any:
    """A deep copy of ``document`` with the member at ``pointer`` set to ``value`` (deleted when omitted).

    Setting one past the end of an array appends.
    """
    document = copy.deepcopy(document)
    tokens = pointer_tokens(pointer)
    node = document
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    last: Any = tokens[-1]
    if isinstance(node, list):
        last = int(last)
    if value is _DELETE:
        del node[last]
    elif isinstance(node, list) and last == len(node):
        node.append(value)
    else:
        node[last] = value
    return document


def errors(document: Any, **options: Any) -> list[tuple[str, str]]:
    """The ``(code, path)`` of every error, in report order."""
    return [(problem.code, problem.path) for problem in check_manifest(document, **options).errors]


def warnings(document: Any, **options: Any) -> list[tuple[str, str]]:
    """The ``(code, path)`` of every warning, in report order."""
    return [(problem.code, problem.path) for problem in check_manifest(document, **options).warnings]
