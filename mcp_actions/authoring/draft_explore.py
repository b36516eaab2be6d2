"""The tools ``init`` drafts from what exploring revealed (``explore.Exploration``).

- a lone text field that added a row when init typed and pressed Enter: ``add(title)``: type the title,
  press Enter, wait for the row whose title element shows exactly the title;
- each control of that row: ``toggle(title)`` for a checkbox, ``delete(title)`` for a button whose
  words say so (destroy, delete, remove: drafted with ``x_actions.confirm``, never pressed while
  exploring), ``<name>(title)`` for others. The locator is the control inside the row that has the
  title: ``{role: "checkbox", within: {selector: "ul.todo-list li", has: {selector: "label",
  text_equals: "{% input.title %}"}}}`` (docs/manifest-language.md, "Extensions"): the argument is
  compared, never spliced into a selector, and a look-alike row ("Buy milk" beside "Buy milk twice")
  is not the row. A control that shows only while the pointer is over its row is hovered first;
- checkboxes and switches outside forms and rows (``toggle_<name>(checked?)``), filters (links to
  this page's fragments in one list, tabs: ``show_<name>()``), the buttons and links that appeared
  only after exploring ("Clear completed"), the items a menu or dialog opener shows
  (``<opener>_<item>()``: open, then click), and the forms a dialog shows (the form's tool from
  ``draft.py``, opening the dialog first);
- a check ``after_exploring`` whose ``setup`` calls ``add`` and the row checkboxes init clicked, and
  whose assertions see the row and the controls that appeared only then (so ``check`` judges them);
- review lines: what init tried, what it skipped and why (each field by its label), what appears
  only later.

Without an exploration (``init --no-explore``), the lone text fields are named in the review as
skipped, with why.
"""

from __future__ import annotations

import json
from typing import Any

from .draft_steps import READY_TIMEOUT_MS, SETTLE_QUIET_MS, SETTLE_TIMEOUT_MS, DraftWorkflow, click_step
from .draft_words import quote, risk_word, slug
from .drafter import Drafter
from .explore import Adder, Exploration, Opened

__all__ = ["draft_explored"]

_TITLE = "{% input.title %}"
#: The row the drafted check adds (its setup) to see what exploring saw: an apostrophe and non-ASCII on purpose.
CHECK_TITLE = "Row of the check — l'essai"
_SETTLE = {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_TIMEOUT_MS}
#: How long add waits for its row before it looks whether its Enter was heard at all.
_FIRST_WAIT_MS = 2000


def _key(locator: Any) -> str:
    return json.dumps(locator, sort_keys=True, ensure_ascii=False)


def _label(f: dict[str, Any]) -> str:
    return str(f.get("label") or f.get("placeholder") or f.get("name") or f.get("id") or "a text field")


def _row_scope(row: dict[str, Any]) -> dict[str, Any]:
    """The row whose title element shows exactly the argument ``title``."""
    return {"selector": row["selector"], "has": {**row["title"], "text_equals": _TITLE}}


def _keep(d: Drafter, tool: dict[str, Any], label: str, *words: str, later: str | None = None) -> None:
    """Add ``tool`` to the draft: asked first when ``label`` or ``words`` carry a risk word, with when it appears."""
    d.guard(tool, label, *words)
    d.tools.append(tool)
    d.counts["explored"] += 1
    if later:
        d.note("explore", f"it appears only once {later}", tool["name"])


def _tool(
    name: str,
    description: str,
    workflow: dict[str, Any],
    result: dict[str, Any],
    *,
    target: dict[str, Any] | None,
    inputs: dict[str, Any] | None = None,
    required: bool = True,
) -> dict[str, Any]:
    """A tool entry: ``result`` the output's properties (the first one required unless not ``required``), ``inputs`` the input schema (none by default)."""
    tool: dict[str, Any] = {"name": name, "description": description, "input_schema": inputs or {"type": "object", "properties": {}, "additionalProperties": False}}
    if target is not None:
        tool["target"] = dict(target)
    tool["workflow"] = workflow
    tool["result_schema"] = {"type": "object", "required": list(result)[:1], "properties": result} if required else {"type": "object", "properties": result}
    return tool


def _title_schema(description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"title": {"type": "string", "minLength": 1, "description": description}},
        "required": ["title"],
        "additionalProperties": False,
    }


def _adder(d: Drafter, adder: Adder, revealed_by: list[str]) -> list[dict[str, Any]]:
    """Draft ``add`` and the row actions; the calls that redo what exploring did (a check's setup)."""
    f = adder.field
    label = _label(f)
    row = adder.row
    name = d.name("add" if row is not None else f"submit_{slug(label, fallback='text', limit=30)}")
    workflow = DraftWorkflow(d.max_steps)
    workflow.add("ready", "locator.wait_for", {"locator": f["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the field (it may render late)")
    # A page shows its field before its script listens to it (handlers bound late, hydration): let it settle first.
    workflow.add("settle_first", "dom.settle", dict(_SETTLE), on_error="continue", description="let a page that renders late finish first")
    workflow.add("type", "text.insert", {"target": f["locator"], "text": _TITLE, "mode": "replace"})
    workflow.add("enter", "keyboard.press", {"key": "Enter"}, description="the field is outside any form: Enter submits it")
    if row is not None:
        scope = _row_scope(row)
        workflow.add("shown", "locator.wait_for", {"locator": scope, "state": "attached", "timeout_ms": _FIRST_WAIT_MS}, on_error="continue", description="wait for the row whose text is the title")
        # No row, and the field still holds the title: nothing took that Enter (the script was not listening yet),
        # so pressing it again adds one row, never two (a page that took it has emptied its field or shown the row).
        missing = "$not($exists(steps.shown.output.matched))"
        workflow.add("field", "locator.element_info", {"locator": f["locator"]}, when=f"{{% {missing} %}}", on_error="continue", description="what the field holds now")
        workflow.add("again", "keyboard.press", {"key": "Enter"}, when=f"{{% {missing} and steps.field.output.value = input.title %}}", description="Enter again: the first one was not heard")
        workflow.add(
            "shown_again", "locator.wait_for", {"locator": scope, "state": "attached", "timeout_ms": READY_TIMEOUT_MS}, when=f"{{% {missing} %}}", description="wait for the row whose text is the title"
        )
        description = f"Add a row to {d.title}: type the title into its {quote(label)} field and press Enter; waits until the row shows it."
        output = "{% {'added': input.title} %}"
        result = {"type": "object", "required": ["added"], "properties": {"added": {"type": "string"}}}
        d.note("explore", f"init typed into {quote(label)} and pressed Enter, and a row ({row['selector']}) showed the text: the tool waits for the row whose text is the title", name)
        revealed_by.append(f"a row was added (through {quote(label)})")
    else:
        workflow.add("settle", "dom.settle", dict(_SETTLE), on_error="continue", description="let the page answer")
        description = f"Type the text into the {quote(label)} field on {d.title} and press Enter."
        output = "{% {'submitted': input.title} %}"
        result = {"type": "object", "required": ["submitted"], "properties": {"submitted": {"type": "string"}}}
        d.note("explore", f"init typed into {quote(label)} and pressed Enter: the text showed on the page, but in no row or list item, so no row tools were drafted", name)
    tool: dict[str, Any] = {
        "name": name,
        "description": description,
        "input_schema": _title_schema(label),
        "target": dict(f["locator"]),
        "workflow": workflow.document(output),
        "result_schema": result,
    }
    _keep(d, tool, label)
    setup = [{"type": "call", "tool": name, "arguments": {"title": CHECK_TITLE}}]
    if row is not None:
        for control in row["controls"]:
            drafted = _row_control(d, row, control)
            if drafted is not None and control.get("pressed"):
                setup.append({"type": "call", "tool": drafted, "arguments": {"title": CHECK_TITLE}})
    return setup


def _row_tool_name(d: Drafter, control: dict[str, Any]) -> str:
    word = risk_word(str(control.get("words") or ""))
    if control["kind"] == "checkbox":
        return d.name("toggle")
    if word in ("delete", "remove", "destroy", "erase", "discard"):
        return d.name("delete")
    what = str(control.get("name") or control.get("class") or "")
    return d.name(slug(what, fallback=control["kind"], limit=30) if control["kind"] == "button" else f"open_{slug(what, fallback='link', limit=30)}")


def _control_words(control: dict[str, Any]) -> str:
    """How the review names a row's control: its name, else its class ("destroy"), else its kind."""
    return str(control.get("name") or control.get("class") or control["kind"])


def _row_control(d: Drafter, row: dict[str, Any], control: dict[str, Any]) -> str | None:
    """Draft the row action for ``control``; its tool's name, or None when nothing tells the control apart."""
    what = _control_words(control)
    if not control.get("locator"):
        d.note("explore", f"skipped the row's {control['kind']} '{what}': nothing in the row tells it apart (no role, name or class of its own)")
        return None
    scope = _row_scope(row)
    locator = {**control["locator"], "within": scope}
    name = _row_tool_name(d, control)
    workflow = DraftWorkflow(d.max_steps)
    workflow.add("ready", "locator.wait_for", {"locator": scope, "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the row whose text is the title (rows may render late)")
    if control.get("on_hover"):
        at_row = workflow.add("at_row", "locator.element_info", {"locator": scope})
        workflow.add(
            "hover",
            "pointer.move",
            {"x": f"{{% steps.{at_row}.output.clickable_center.x %}}", "y": f"{{% steps.{at_row}.output.clickable_center.y %}}"},
            description="the control shows only while the pointer is over its row",
        )
    click_step(workflow, "click", locator)
    workflow.add("settle", "dom.settle", dict(_SETTLE), on_error="continue", description="let the page answer")
    if control["kind"] == "checkbox":
        workflow.add("after", "locator.element_info", {"locator": locator}, on_error="continue", description="the checkbox now (gone when a filter hides the row)")
        output = "{% {'toggled': input.title, 'checked': steps.after.output.checked} %}"
        result = {"type": "object", "required": ["toggled"], "properties": {"toggled": {"type": "string"}, "checked": {"type": "boolean"}}}
        description = f"Toggle the row whose text is the title on {d.title} (its checkbox). Returns whether it is checked now."
    else:
        output = "{% {'clicked': input.title} %}"
        result = {"type": "object", "required": ["clicked"], "properties": {"clicked": {"type": "string"}}}
        verb = "Delete" if name.rsplit(".", 1)[-1].startswith("delete") else f"Click {quote(what)} in"
        description = f"{verb} the row whose text is the title on {d.title}."
    tool: dict[str, Any] = {
        "name": name,
        "description": description,
        "input_schema": _title_schema("the text of the row (exactly)"),
        "workflow": workflow.document(output),
        "result_schema": result,
    }
    _keep(d, tool, f"the row's {what}", str(control.get("words") or ""))
    d.note("explore", f"a row action: it acts inside the row ({row['selector']}) whose {row['title']['selector']} shows exactly the title, so a look-alike row is left alone", name)
    if control.get("on_hover"):
        d.note("explore", "the control shows only while the pointer is over its row: the tool moves the pointer there first (trusted input in the browser the server drives)", name)
    return name


def _toggle(d: Drafter, toggle: dict[str, Any], later: str | None) -> None:
    name = d.name(f"toggle_{slug(toggle['name'], fallback='switch', limit=30)}")
    workflow = DraftWorkflow(d.max_steps)
    workflow.add("ready", "locator.wait_for", {"locator": toggle["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description=f"wait for the {toggle.get('role') or 'checkbox'}")
    click_step(workflow, "click", toggle["locator"], click_when="{% $not($exists(input.checked)) or steps.at_click.output.checked != input.checked %}")
    workflow.add("settle", "dom.settle", dict(_SETTLE), on_error="continue", description="let the page answer")
    workflow.add("after", "locator.element_info", {"locator": toggle["locator"]}, on_error="continue")
    tool = _tool(
        name,
        f"Set {quote(toggle['name'])} on {d.title}: checked or not (without the argument: switch it).",
        workflow.document("{% {'checked': steps.after.output.checked} %}"),
        {"checked": {"type": "boolean"}},
        target=toggle["locator"],
        inputs={"type": "object", "properties": {"checked": {"type": "boolean", "description": "the state wanted"}}, "additionalProperties": False},
        required=False,  # the read after the click may fail (a page that re-renders the control away)
    )
    _keep(d, tool, toggle["name"], str(toggle.get("words") or ""), later=later)


def _filter(d: Drafter, item: dict[str, Any], later: str | None) -> None:
    name = d.name(f"show_{slug(item['name'], fallback='filter', limit=30)}")
    workflow = DraftWorkflow(d.max_steps)
    workflow.add("ready", "locator.wait_for", {"locator": item["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description=f"wait for the {item['kind']}")
    click_step(workflow, "click", item["locator"])
    workflow.add("settle", "dom.settle", dict(_SETTLE), on_error="continue", description="let the page show what the filter keeps")
    workflow.add("page", "page.info", {}, on_error="continue")
    kind = "tab" if item["kind"] == "tab" else "filter"
    output = f"{{% {{'shown': {json.dumps(item['name'], ensure_ascii=False)}, 'url': steps.page.output.url}} %}}"
    description = f"Show {quote(item['name'])} on {d.title} (a {kind}). Returns the URL after."
    tool = _tool(name, description, workflow.document(output), {"shown": {"type": "string"}, "url": {"type": "string"}}, target=item["locator"])
    _keep(d, tool, item["name"], later=later)


def _opened_form(d: Drafter, opener: dict[str, Any], form: dict[str, Any]) -> None:
    """A form a dialog shows: the form's tool (draft.py), opening the dialog first."""
    before = len(d.tools)
    d.form(form)
    if len(d.tools) == before:
        return
    tool = d.tools[-1]
    workflow = DraftWorkflow(d.max_steps)
    workflow.add("open_ready", "locator.wait_for", {"locator": opener["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the opener")
    click_step(workflow, "open", opener["locator"], description=f"open {quote(opener['name'])}: the form shows only then")
    tool["workflow"]["steps"][:0] = workflow.steps  # ids open_ready, at_open, open: none of a form's own
    tool["target"] = dict(opener["locator"])
    d.counts["forms"] -= 1
    d.counts["explored"] += 1
    d.note("explore", f"the form shows only once {quote(opener['name'])} is open: the tool opens it first", tool["name"])


def _opened(d: Drafter, opened: Opened) -> None:
    opener = opened.opener
    for form in opened.forms[:2]:
        _opened_form(d, opener, form)
    for control in opened.controls[:8]:
        name = d.name(f"{slug(opener['name'], fallback='menu', limit=20)}_{slug(control['name'], fallback='item', limit=20)}")
        workflow = DraftWorkflow(d.max_steps)
        workflow.add("ready", "locator.wait_for", {"locator": opener["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the opener")
        click_step(workflow, "open", opener["locator"], description=f"open {quote(opener['name'])}")
        workflow.add("shown", "locator.wait_for", {"locator": control["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the item")
        click_step(workflow, "click", control["locator"])
        workflow.add("settle", "dom.settle", dict(_SETTLE), on_error="continue", description="let the page answer")
        workflow.add("page", "page.info", {}, on_error="continue")
        description = f"Open {quote(opener['name'])} on {d.title} and choose {quote(control['name'])}."
        output = "{% {'clicked': true, 'url': steps.page.output.url, 'title': steps.page.output.title} %}"
        result = {"clicked": {"type": "boolean"}, "url": {"type": "string"}, "title": {"type": "string"}}
        tool = _tool(name, description, workflow.document(output), result, target=opener["locator"])
        _keep(d, tool, str(control["name"]), str(opener["name"]))
        d.note("explore", f"{quote(control['name'])} shows only once {quote(opener['name'])} is open: the tool opens it first", name)


def _row_words(found: Exploration) -> list[str]:
    """Names that belong to the rows init added (a row's own button, the probe's text): not page controls."""
    words = []
    for adder in found.adders:
        if adder.row is not None:
            words.append(str(adder.row.get("text") or ""))
            words.extend(str(c.get("name") or "") for c in adder.row["controls"])
    return [w for w in words if w]


def draft_explored(d: Drafter, found: Exploration | None) -> None:
    """Draft what ``found`` revealed into ``d`` (tools and review lines); without it, name the lone fields skipped."""
    first = d.page
    if found is None:
        for f in first.get("lone_fields") or []:
            d.note(
                "explore",
                f"skipped the field '{_label(f)}': it is outside any form and nothing but trying says what Enter does there; init did not explore (--no-explore), so it drafted no tool for it",
            )
        return
    if found.tried:
        d.note("explore", f"init explored on its own throwaway tab: {'; '.join(found.tried)}")
    for line in found.skipped:
        d.note("explore", line)
    if found.out_of_time:
        d.note("explore", "the exploring time was up before init tried everything: give it more with --explore-budget SECONDS")
    revealed_by: list[str] = []
    setup: list[dict[str, Any]] = []
    for adder in found.adders:
        setup += _adder(d, adder, revealed_by)
    for adder in found.adders:
        if adder.pressed:
            revealed_by.append(f"a row's {' and '.join(adder.pressed)} was clicked")
    later = " and ".join(revealed_by) or "init acted on the page"
    after = found.after or first
    known = {_key(c.get("locator")) for key in ("buttons", "links", "toggles", "filters") for c in first.get(key) or []}
    known |= {_key(c.get("locator")) for opened in found.opened for c in opened.controls}  # drafted with their opener
    in_rows = _row_words(found)

    def of_rows(control: dict[str, Any]) -> bool:
        name = str(control.get("name") or "")
        return any(name == w or (len(w) > 3 and w in name) for w in in_rows)

    for toggle in after.get("toggles") or []:
        if not of_rows(toggle):
            _toggle(d, toggle, None if _key(toggle["locator"]) in known else later)
    for item in after.get("filters") or []:
        _filter(d, item, None if _key(item["locator"]) in known else later)
    for kind in ("buttons", "links"):
        for control in after.get(kind) or []:
            if _key(control["locator"]) in known or of_rows(control):  # drafted already, or a row's own
                continue
            before = len(d.tools)
            d.control({**control, "regions": []}, kind[:-1])
            if len(d.tools) > before:
                d.counts[kind] -= 1  # counted as found by exploring, not as one of the page's buttons at load
                d.counts["explored"] += 1
                d.note("explore", f"it appears only once {later}: on a page without that, the tool waits {READY_TIMEOUT_MS // 1000} s and fails", d.tools[-1]["name"])
    for opened in found.opened:
        _opened(d, opened)
    later_tools = {item.tool for item in d.review if item.topic == "explore" and item.message.startswith("it appears only once")}
    _check(d, setup, [tool for tool in d.tools if tool["name"] in later_tools and tool.get("target")], found)


def _check(d: Drafter, setup: list[dict[str, Any]], revealed: list[dict[str, Any]], found: Exploration) -> None:
    """A check that redoes what exploring did (add a row, click its checkbox) and sees the controls that then appear.

    So ``mcp-actions check`` judges the row actions and the controls that appear later on a page where they
    are, not only on the empty page of a fresh load (docs/cli.md, "A check's setup: controls that appear only with data").
    """
    if not setup:
        return
    rows = [adder.row for adder in found.adders if adder.row is not None]
    assertions: list[dict[str, Any]] = [
        {"target": {"selector": row["selector"], "has": {**row["title"], "text_equals": CHECK_TITLE}}, "visible": True} for row in rows[:1]
    ]
    assertions += [{"target": dict(tool["target"]), "visible": True} for tool in revealed]
    if not assertions:
        return
    d.checks.append(
        {
            "id": "after_exploring",
            "description": "What init did while exploring (add a row, click its checkbox) shows the row and the controls that appear only then.",
            "severity": "major",
            "setup": setup,
            "assertions": assertions,
        }
    )
    seen = f"the row and the {len(revealed)} control(s) that appear only then are there" if revealed else "the row is there"
    d.note("explore", f"the check after_exploring redoes that on check's own page ({len(setup)} call(s)) and asserts that {seen}")
