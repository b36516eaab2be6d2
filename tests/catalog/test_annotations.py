"""What a host is told about a tool beyond its schema: its title, its behaviour hints (and which of them are worth listing), and when to confirm."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.catalog.annotations import confirmation, derive_annotations, related_checks, tool_title
from mcp_actions.manifest.model import Manifest, Tool
from mcp_actions.server.tools import listed_hints

from .maps import handler_tool, loaded, manifest, step, workflow_tool

TEXT = {"selector": "#title"}
READ = workflow_tool("notes.read_title", step("locator.text_content", locator=TEXT))
CLICK = workflow_tool("notes.save", step("pointer.click", x=1, y=2))
READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": True}
ACTS = {"readOnlyHint": False, "openWorldHint": True}


def _model(*tools: dict[str, Any], **root: Any) -> tuple[Manifest, dict[str, Tool]]:
    """The loaded map's model and its tools by name."""
    model = loaded(manifest(*tools, **root)).model
    return model, {tool.name: tool for tool in model.tools}


def _hints(tool: dict[str, Any], **root: Any) -> dict[str, Any]:
    model, tools = _model(tool, *root.pop("others", ()), **root)
    return derive_annotations(tools[tool["name"]], model)


@pytest.mark.parametrize(
    ("tool", "title"),
    [
        (handler_tool("contact.submit_name"), "Contact: submit name"),  # namespace, then the words of the last part
        (handler_tool("shop.Add_item"), "Shop: add item"),  # after the colon the words start lower case
        (handler_tool("my_shop.check-out"), "My shop: check out"),  # underscores and hyphens are spaces
        (handler_tool("a.b.c_d"), "B: c d"),  # only the last namespace part names the site
        (handler_tool("ping"), "Ping"),  # no namespace: the words, capitalised
        (handler_tool("notes.rename", annotations={"title": "Rename the note"}), "Rename the note"),  # the map's own title
        (handler_tool("notes.rename", x_actions={"handler": "n.r", "annotations": {"title": "Rename it"}}), "Rename it"),  # ... under x_actions too
        (handler_tool("notes.rename", annotations={"title": "  "}), "Notes: rename"),  # a blank title is no title
    ],
)
def test_the_title_is_the_maps_own_or_made_from_the_dotted_name(tool, title):
    _, tools = _model(tool)
    assert tool_title(tools[tool["name"]]) == title


@pytest.mark.parametrize(
    ("tool", "root", "hints"),
    [
        # A workflow whose every step reads: read-only, so idempotent too.
        (READ, {}, READ_ONLY),
        # A step that acts on the page: not read-only.
        (CLICK, {}, ACTS),
        # A reading workflow whose retry acts (after_each): not read-only either.
        (
            workflow_tool("notes.more", {**step("locator.text_content", locator=TEXT), "retry_until": "{% true %}", "max_attempts": 2, "after_each": {"primitive": "keyboard.press", "args": {"key": "End"}}}),
            {},
            ACTS,
        ),
        # A handler's effect is unknown: never read-only.
        (handler_tool("notes.read"), {}, ACTS),
        # A reading workflow that a transition performs with an input method: not read-only.
        (READ, {"states": [{"name": "viewing"}], "transitions": [{"name": "peek", "from": "viewing", "to": "viewing", "tool": "notes.read_title", "method": "click"}]}, ACTS),
        # ... or that leads to another state.
        (READ, {"states": [{"name": "viewing"}, {"name": "editing"}], "transitions": [{"name": "edit", "from": "viewing", "to": "editing", "tool": "notes.read_title"}]}, ACTS),
        # A transition of another tool changes nothing for this one.
        (READ, {"others": [CLICK], "states": [{"name": "viewing"}, {"name": "editing"}], "transitions": [{"name": "save", "from": "editing", "to": "viewing", "tool": "notes.save"}]}, READ_ONLY),
        # A related critical check: destructive.
        (handler_tool("notes.delete"), {"checks": [{"id": "deletes", "severity": "critical", "steps": [{"tool": "notes.delete"}]}]}, {**ACTS, "destructiveHint": True}),
        # A related check of lower severity: not.
        (handler_tool("notes.delete"), {"checks": [{"id": "deletes", "severity": "major", "steps": [{"tool": "notes.delete"}]}]}, ACTS),
        # A read-only tool is never called destructive, even with a critical check.
        (READ, {"checks": [{"id": "reads", "severity": "critical", "steps": [{"tool": "notes.read_title"}]}]}, READ_ONLY),
    ],
)
def test_hints_are_derived_from_the_map(tool, root, hints):
    assert {k: v for k, v in _hints(tool, **root).items() if k != "title"} == hints


@pytest.mark.parametrize(
    ("tool", "hints"),
    [
        # The map says a handler tool reads only: it wins, key by key (openWorldHint stays derived).
        (handler_tool("notes.read", annotations={"readOnlyHint": True, "idempotentHint": True}), {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": True}),
        # Under x_actions, the same; a tool acting on one closed page may say it is not open-world.
        (handler_tool("notes.read", x_actions={"handler": "n.r", "annotations": {"openWorldHint": False}}), {"readOnlyHint": False, "openWorldHint": False}),
        # x_actions.annotations wins over the top-level annotations.
        (handler_tool("notes.read", annotations={"destructiveHint": True}, x_actions={"handler": "n.r", "annotations": {"destructiveHint": False}}), {"readOnlyHint": False, "openWorldHint": True, "destructiveHint": False}),
        # Keys that are not MCP hints are ignored.
        (handler_tool("notes.read", annotations={"dangerous": True, "read_only_hint": True}), {"readOnlyHint": False, "openWorldHint": True}),
    ],
)
def test_the_maps_annotations_override_derived_hints(tool, hints):
    assert {k: v for k, v in _hints(tool).items() if k != "title"} == hints


@pytest.mark.parametrize(
    ("check", "related"),
    [
        ({"id": "k", "steps": [{"tool": "notes.delete"}]}, True),  # named in a step
        ({"id": "k", "setup": [{"tool": "notes.delete"}]}, True),  # ... in the setup
        ({"id": "k", "on_fail": {"contingency": "handoff_to_user", "tool": "notes.delete"}}, True),  # ... in on_fail
        ({"id": "k", "tools": ["notes.delete"]}, True),  # ... in a tools list
        ({"id": "k", "assertions": [{"target": {"selector": "#delete"}, "visible": True}]}, True),  # asserting on the tool's own target
        ({"id": "k", "assertions": [{"target": {"selector": "#other"}, "visible": True}]}, False),  # another target
        ({"id": "k", "steps": [{"tool": "notes.save"}]}, False),  # another tool
        ({"id": "k", "description": "notes.delete"}, False),  # a description that mentions it is not a reference
    ],
)
def test_a_check_is_related_when_it_names_the_tool_or_asserts_on_its_target(check, related):
    model, tools = _model(handler_tool("notes.delete", target={"selector": "#delete"}), handler_tool("notes.save"), checks=[check])
    assert [c.id for c in related_checks(tools["notes.delete"], model)] == (["k"] if related else [])


HANDOFF = {"contingency": "handoff_to_user"}


@pytest.mark.parametrize(
    ("x_actions", "checks", "question"),
    [
        ({}, [], None),  # nothing asks
        ({"confirm": True}, [], "Allow notes.delete? The notes.delete action."),  # the map asks
        ({"confirm": "Really delete the note?"}, [], "Really delete the note?"),  # ... in its own words
        ({"confirm": "  "}, [], None),  # a blank message is not a question
        ({}, [{"id": "gone", "severity": "critical", "steps": [{"tool": "notes.delete"}], "on_fail": HANDOFF}], "Allow notes.delete? The site's map hands this action to the user (gone). The notes.delete action."),
        ({}, [{"id": "gone", "severity": "major", "steps": [{"tool": "notes.delete"}], "on_fail": HANDOFF}], None),  # a major check's hand-off is for drift, not every call
        ({}, [{"id": "gone", "severity": "critical", "steps": [{"tool": "notes.delete"}], "on_fail": {"contingency": "retry"}}], None),  # critical, but no hand-off
        ({"confirm": False}, [{"id": "gone", "severity": "critical", "steps": [{"tool": "notes.delete"}], "on_fail": HANDOFF}], None),  # an explicit no wins
    ],
)
def test_when_a_call_needs_the_users_confirmation(x_actions, checks, question):
    model, tools = _model(handler_tool("notes.delete", x_actions={"handler": "notes.delete", **x_actions}), checks=checks)
    assert confirmation(tools["notes.delete"], model) == question


@pytest.mark.parametrize(
    ("tool", "root", "listed"),
    [
        # Read-only: only readOnlyHint is worth its bytes (idempotent means nothing for a read-only tool, open-world is the default).
        (READ, {}, {"readOnlyHint": True}),
        # A plain acting tool says nothing MCP does not assume.
        (CLICK, {}, {}),
        # A destructive one says so.
        (handler_tool("notes.delete"), {"checks": [{"id": "k", "severity": "critical", "steps": [{"tool": "notes.delete"}]}]}, {"destructiveHint": True}),
        # An override that differs from MCP's default is kept ...
        (handler_tool("notes.read", annotations={"openWorldHint": False, "idempotentHint": True}), {}, {"openWorldHint": False, "idempotentHint": True}),
        # ... and a map's explicit destructiveHint: false too (MCP assumes true).
        (handler_tool("notes.read", annotations={"destructiveHint": False}), {}, {"destructiveHint": False}),
        # A map that calls a tool read-only and destructive: read-only wins, destructive means nothing then.
        (handler_tool("notes.read", annotations={"readOnlyHint": True, "destructiveHint": True}), {}, {"readOnlyHint": True}),
    ],
)
def test_tools_list_carries_only_the_hints_that_differ_from_mcps_defaults(tool, root, listed):
    # The title is the tool's own field in tools/list, never repeated among the hints.
    assert listed_hints(_hints(tool, **root)) == listed
