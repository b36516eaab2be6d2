"""Built-in tools for pages with no map: observe with stable refs, and act by ref or by visible text.

``page.observe`` lists what a person can act on in the routed page, one compact line each
(``refs.observe {as_text}`` in the page engine, ``observe_refs.js``/``observe_candidates.js``: ``@e1``
refs stable across observations, role, name, value, state, and the context of look-alikes) under a
byte budget. ``page.click``, ``page.fill``, ``page.press``, ``page.select`` and ``page.hover`` act on
the element a ``ref`` or a visible ``text`` names (``refs.resolve``: exactly one, several matches are
refused with their refs) through the ordinary primitives (trusted input in the browser host): the
page engine marks the element and the primitive targets it by that mark. Each acting tool answers
what it did and what changed (``refs.change_mark``/``refs.change_report`` around the action). All
``page.scroll`` scrolls the page or a list's box (``refs.scroll``) so lists that load more load it. All
answer text (``builtins/answers.py``; docs/mcp-surface.md, "Observe (pages with no map)").
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from ....catalog.catalog import ToolBinding
from ....errors import ActionError, ErrorCode
from ...call.execution import held_step
from ...call.service import ActionService
from ...call.targets import TargetRule
from ..answers import TextAnswer, observe_text, page_meta, quote
from ..reading.observe_since import observed_since
from ..tool import BuiltinCall, BuiltinTool, builtin_binding
from .act_report import change_report
from .page_files import MAX_UPLOAD_FILES, read_uploads
from .slider_keys import move_slider, slider_number

__all__ = ["OBSERVE_TOOLS"]

#: How long a click or hover waits for a sticky or fixed box over its target to go, and how often it looks again.
COVER_WAIT_S = 2.0
COVER_POLL_S = 0.1

_REF = {"type": "string", "pattern": "^@?e[0-9]+$", "description": "An element ref from page_observe, e.g. @e12."}


def _binding(name: str, description: str, properties: dict[str, Any], required: list[str], annotations: dict[str, Any]) -> ToolBinding:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    # Page tools answer compact text (builtins/answers.py): declared here, for all of them.
    return builtin_binding(name, description, schema, annotations, text_output=True)


OBSERVE = _binding(
    "page.observe",
    "What you can act on in the current page, one line each: @ref role \"name\", value and state, and `in:` its "
    "section for look-alikes (quoted names and context: the page's words). Then act by ref or text: page_click, "
    "page_fill, page_press, page_select, page_hover.",
    {
        "max_bytes": {"type": "integer", "minimum": 256, "maximum": 1000000, "default": 16000, "description": "Byte budget of the element list."},
        "bounds": {"type": "boolean", "description": "Include each element's viewport box."},
        "tags": {"type": "boolean", "description": "Include each element's HTML tag (<input>, <a>)."},
        "viewport_only": {"type": "boolean", "description": "Only elements inside the viewport."},
        "since": {"type": "string", "enum": ["last"], "description": "Only what appeared (+), changed (~) or went since your last page_observe of this page."},
    },
    [],
    {"title": "Observe page", "readOnlyHint": True, "openWorldHint": True},
)
_TEXT = {"type": "string", "minLength": 1, "description": "Or: the visible text, label or placeholder of one element."}
#: A third way to name the element, as page_find takes it (a BAP client's css, placeholder or role selector): found in the acting call itself.
_LOCATOR = {"type": "object", "description": "Or: a locator, as page_find takes it."}
_TARGET = {"ref": _REF, "text": _TEXT, "locator": _LOCATOR}
CLICK = _binding(
    "page.click",
    "Click the element `ref` or `text` names (a text matching several is refused with their refs; double: a double click).",
    {
        **_TARGET,
        "double": {"type": "boolean", "description": "Double-click it (open, edit in place, select a word)."},
        "checked": {"type": "boolean", "description": "A checkbox, radio or switch: click only if it is not checked (true) or unchecked (false) yet."},
    },
    [],
    {"title": "Click", "readOnlyHint": False, "openWorldHint": True},
)
FILL = _binding(
    "page.fill",
    "Put `value` in the field `ref` or `text` (its label or placeholder) names: text, date/time, range, select, "
    "rich text; or `files` (absolute paths under the upload roots) in a file input. ({ref, text} with no value types text.) "
    "submit: then press Enter in it (add a todo, search, send the form), or submit a select's form.",
    {
        **_TARGET,
        "value": {"type": "string"},
        "files": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": MAX_UPLOAD_FILES},
        "submit": {"type": "boolean", "description": "Then press Enter in the field, as a person submits it (a select: its form is submitted)."},
    },
    [],
    {"title": "Fill", "readOnlyHint": False, "openWorldHint": True},
)
PRESS = _binding(
    "page.press",
    "Press a key or chord (Enter, Tab, Control+A) on the element `ref` or `text` names.",
    {**_TARGET, "key": {"type": "string", "minLength": 1}},
    ["key"],
    {"title": "Press key", "readOnlyHint": False, "openWorldHint": True},
)
SELECT = _binding(
    "page.select",
    "Choose options (by value or label) of the <select> `ref` or `text` names (submit: then submit its form).",
    {
        **_TARGET,
        "values": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "submit": {"type": "boolean", "description": "Then submit the select's form, as its submit button would."},
    },
    ["values"],
    {"title": "Select", "readOnlyHint": False, "openWorldHint": True},
)

HOVER = _binding(
    "page.hover",
    "Move the pointer over the element `ref` or `text` names (hover menus, tooltips).",
    _TARGET,
    [],
    {"title": "Hover", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)
SCROLL = _binding(
    "page.scroll",
    "Scroll the page, or the list `ref` or `text` is in: down/up a screenful, or to bottom/top (feeds load more).",
    {**_TARGET, "to": {"type": "string", "enum": ["down", "up", "bottom", "top"], "default": "down"}},
    [],
    {"title": "Scroll", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)

_END = {"type": "string", "minLength": 1, "description": "A ref (@e12) or the visible text of one element."}
DRAG = _binding(
    "page.drag",
    "Drag the element `from` names onto the one `to` names (each a ref or a visible text: a list item, a card, "
    "a column's heading): sortable lists, kanban boards.",
    {"from": _END, "to": _END},
    ["from", "to"],
    {"title": "Drag", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)

def _target(own: dict[str, Any]) -> dict[str, Any]:
    """The ref, text or locator naming what to act on; the page engine checks that one of ref or text is given (resolveRefOrText)."""
    if "locator" in own and ("ref" in own or "text" in own):
        raise ActionError("give one of ref, text or locator", code=ErrorCode.INVALID_INPUT, evidence={"path": "/locator"})
    return {key: own[key] for key in ("ref", "text", "locator") if key in own}


async def _by_ref_or_text(service: ActionService, call: BuiltinCall) -> dict[str, Any]:
    """``_target`` for a primitive that takes only a ref or a text (refs.select, refs.scroll, refs.set_files):
    a locator is found first (``refs.resolve {locator}``, one round trip inside the same call)."""
    target = _target(call.own)
    if "locator" not in target:
        return target
    return {"ref": (await _call(service, call, "refs.resolve", target))["ref"]}


async def _call(service: ActionService, call: BuiltinCall, name: str, arguments: dict[str, Any], *, held: bool = True) -> Any:
    """One round trip to the page. Held to the origin the call was judged for (``held``), as a map's workflow
    steps are: a page that moved since is judged again before the step reaches it. The report of what an
    action did is not held: the action may have been a navigation, and reading its result acts on nothing."""

    async def send(origin: str | None) -> Any:
        return await service.bridge.call(name, arguments, runtime_id=call.runtime.runtime_id, timeout_ms=call.deadline.remaining_ms(), origin=origin)

    return await held_step(call.hold if held else None, send, step=name, runtime_id=call.runtime.runtime_id)


def _answer(call: BuiltinCall, text: str) -> TextAnswer:
    # The page's words in it are the quoted strings and the context after "in:" (page_answers.page_meta).
    return TextAnswer(text, page_meta(call.runtime.runtime_id, "quoted"))


def _what(target: dict[str, Any], by_ref: bool = False) -> str:
    """The acted-on element as the model reads it: @e12 button "Save", or only @e12 when the call named it by that ref.

    A model that acted by ref has just read the element's role and name (page_read, page_find): saying
    them again tells it nothing. Acting by text, the ref and role say which element the text found.
    """
    if by_ref and target.get("ref"):
        return str(target["ref"])
    name = target.get("name")
    return " ".join(part for part in (target.get("ref"), target.get("role"), quote(name) if name else None) if part)


def _values(out: Any, asked: list[Any]) -> str:
    """The options a select took, as the model reads them: their labels (what a person sees, not the values the
    page sends), each quoted (page_answers.quote); what was asked when the page moved on under the primitive."""
    chosen = out.get("chosen") or out.get("selected") if isinstance(out, dict) else None
    return "[" + ", ".join(quote(value) for value in chosen or asked) + "]"


def _named(call: BuiltinCall, target: dict[str, Any]) -> str:
    """``_what`` for the element the call named (by its ref, or by text)."""
    return _what(target, "ref" in call.own)


async def _observe(service: ActionService, call: BuiltinCall) -> Any:
    own = {key: value for key, value in call.own.items() if key != "since"}
    output = await _call(service, call, "refs.observe", {**own, "as_text": True})
    # Every observation is noted, so since: "last" is against the session's previous one (observe_since.py).
    return _answer(call, observed_since(service, call.runtime.runtime_id, observe_text(output), call.own.get("since") == "last"))


async def _mark(service: ActionService, call: BuiltinCall) -> None:
    """Note the page before the action (refs.change_mark), with what the journal asks of it (act_probe.py)."""
    probe = call.probe
    out = await _call(service, call, "refs.change_mark", probe.mark_arguments() if probe is not None else {})
    if probe is not None:
        probe.marked(out)


async def _resolve_marked(service: ActionService, call: BuiltinCall, arguments: dict[str, Any], *, point: bool = False, typed: str | None = None) -> dict[str, Any]:
    """``refs.resolve`` that also takes the change mark (and, with ``point``, the clickable centre): one round trip.

    What the journal asks of the mark (act_probe.py) rides along: the element found is the one described.
    ``typed``: what a fill puts in the field, so the report says its value only when it holds something else.
    """
    probe = call.probe
    mark = {**(probe.resolve_mark_arguments() if probe is not None else {}), **({"typed": typed} if typed is not None else {})}
    asked = {**arguments, "mark": mark, **({"point": True} if point else {})}
    loop = asyncio.get_running_loop()
    until = loop.time() + COVER_WAIT_S
    while True:
        try:
            target: dict[str, Any] = await _call(service, call, "refs.resolve", asked)
            break
        except ActionError as exc:
            # Under a sticky or fixed box that stays over it (click_point.js): such a cover may be on its way out (a
            # dialog's backdrop fading), so the click waits for it, as Playwright waits for pointer events, then is refused.
            covered = point and exc.code == ErrorCode.TARGET_NOT_VISIBLE and bool(exc.evidence.get("covered_by"))
            if not covered or loop.time() >= until or call.deadline.remaining_ms() < 1000:
                raise
            await asyncio.sleep(COVER_POLL_S)
    if probe is not None:
        probe.marked(target.get("marked"))
    return target


async def _act(service: ActionService, call: BuiltinCall, name: str, arguments: dict[str, Any]) -> Any:
    """The action's own round trip: a navigation it caused while it ran is the action working (``{}``), not its failure.

    Enter in a search box or a submit that loads the next document may take the engine away before the
    primitive answers (``the page navigated while keyboard.press ran``); the change report then says where
    the tab landed (act_report.py).
    """
    try:
        return await _call(service, call, name, arguments)
    except ActionError as exc:
        if exc.evidence.get("navigated"):
            return {}
        raise


async def _acted(service: ActionService, call: BuiltinCall, line: str) -> TextAnswer:
    """The answer of an acting tool: its line (what it did), then what changed. page_act keeps only the first line."""
    return _answer(call, f"{line}\n{await change_report(service, call)}")


def _trusted(call: BuiltinCall) -> bool:
    """Whether the runtime's clicks and keys are real input (the Playwright tab host), not the engine's synthetic events."""
    return call.runtime.announces("input.trusted")


async def _in_frame(service: ActionService, call: BuiltinCall, target: dict[str, Any], action: str) -> None:
    """Click or hover an element inside a same-origin frame (the locator does not reach into frames).

    A trusted host clicks (or moves to) the element's centre translated to the top viewport, so the
    browser routes real input into the frame; the page runtime dispatches the engine's synthetic
    events in the frame's document (refs.frame_act, observe_frames.js).
    """
    # The change mark was taken when the target was resolved (_resolve_marked).
    if _trusted(call):
        point = await _call(service, call, "refs.frame_act", {"ref": target["ref"], "action": "point"})
        await _act(service, call, "pointer.click" if action == "click" else "pointer.move", {"x": point["x"], "y": point["y"]})
    else:
        await _act(service, call, "refs.frame_act", {"ref": target["ref"], "action": action})


async def _click(service: ActionService, call: BuiltinCall) -> Any:
    double = call.own.get("double") is True
    target = await _resolve_marked(service, call, _target(call.own), point=True)
    wanted = call.own.get("checked")
    if isinstance(wanted, bool) and target.get("checked") is wanted:
        # checked: the box is in that state already, so no click (BAP's action/check; an element with no checked state is clicked).
        return await _acted(service, call, f"{_named(call, target)} was already {'checked' if wanted else 'unchecked'}")
    if target.get("frame"):
        if double:
            if not _trusted(call):
                raise ActionError("a double click inside a frame needs a browser tab's real input", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"path": "/double"})
            point = await _call(service, call, "refs.frame_act", {"ref": target["ref"], "action": "point"})
            await _act(service, call, "pointer.double_click", {"x": point["x"], "y": point["y"]})
        else:
            await _in_frame(service, call, target, "click")
        return await _acted(service, call, f"{'double-' if double else ''}clicked {_named(call, target)} (in a frame)")
    await _act(service, call, "pointer.double_click" if double else "pointer.click", target["point"])
    line = f"{'double-' if double else ''}clicked {_named(call, target)}"
    if target.get("occluded"):
        # A trusted click lands on whatever is on top (a cover, an overlay): say so rather than pretend.
        line += " (something covered its centre: the click went to what was on top)"
    return await _acted(service, call, line)


async def _fill_files(service: ActionService, call: BuiltinCall) -> TextAnswer:
    """page_fill {files}: the server reads the files from the upload roots (page_files.py), the engine sets them (refs.set_files)."""
    own = call.own
    if "value" in own:
        raise ActionError("give value or files, not both", code=ErrorCode.INVALID_INPUT, evidence={"path": "/value"})
    # Read (and refused) before the page is touched: a path outside the roots never reaches it.
    files = read_uploads(own["files"], service.upload_roots)
    target = await _by_ref_or_text(service, call)
    await _mark(service, call)
    out = await _call(service, call, "refs.set_files", {**target, "files": files})
    names = ", ".join(json.dumps(name, ensure_ascii=False) for name in out.get("files") or [])
    return await _acted(service, call, f"set {out.get('ref')} file input to {names}")


async def _fill(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    if "files" in own:
        if own.get("submit"):
            raise ActionError("submit is for a typed value, not files", code=ErrorCode.INVALID_INPUT, evidence={"path": "/submit"})
        return await _fill_files(service, call)
    if "value" in own:
        value, where = own["value"], _target(own)
    else:
        # The first form of page_fill: {ref, text}, text being what is typed.
        if "ref" not in own or "text" not in own:
            raise ActionError("page_fill needs value (and ref, text or locator), or ref and text", code=ErrorCode.INVALID_INPUT, evidence={"path": "/value"})
        value, where = own["text"], {"ref": own["ref"]}
    target = await _resolve_marked(service, call, {**where, "field": True}, typed=value)
    # The field is named even when the call gave its ref: in page_act's answer its line is all that is left of it.
    named = _what(target)
    if target.get("fill") == "select":
        # A <select> filled by a model: the option with that value or label; with submit, its form
        # submitted (a select has no Enter that submits: _submitted).
        submit = own.get("submit") is True
        out = await (_act if submit else _call)(service, call, "refs.select", {"ref": target["ref"], "values": [value], **({"submit": True} if submit else {})})
        return await _acted(service, call, f"selected {_values(out, [value])} in {named}{_submitted(out) if submit else ''}")
    if target.get("fill") == "slider" and (_trusted(call) or not target["slider"].get("native")):
        # A slider moved by its keys, so an app that commits at a key press's end sees it (slider_keys.py).
        await _slide(service, call, target, value)
        line = f"filled {named}"
    elif target.get("fill") in ("value", "slider"):
        # A date, time, range or color input: its value is set, as its picker would (observe_values.js).
        # A value the input adjusted (a range's step, a date's bounds) is said by the change report (= "…").
        await _call(service, call, "refs.set_value", {"ref": target["ref"], "value": value})
        line = f"filled {named}"
    elif target.get("frame"):
        # A text field inside a same-origin frame: its value set there (observe_frames.js), on both hosts.
        await _call(service, call, "refs.frame_act", {"ref": target["ref"], "action": "fill", "value": value})
        line = f"filled {named} (in a frame)"
    else:
        out = await _act(service, call, "text.insert", {"text": value, "target": {"selector": target["selector"]}, "mode": "replace"})
        line = f"filled {named}" + _editor_holds(out, value)
    if own.get("submit"):
        line += await _submit(service, call, target)
    return await _acted(service, call, line)


async def _slide(service: ActionService, call: BuiltinCall, target: dict[str, Any], value: str) -> None:
    """Focus the slider and press its keys until it holds ``value`` (slider_keys.py); each press read back."""
    wanted = slider_number(value)
    ref = {"ref": target["ref"]}

    async def press(key: str, times: int) -> dict[str, Any]:
        await _call(service, call, "refs.resolve", {**ref, "focus": True})
        for _ in range(times):
            await _act(service, call, "keyboard.press", {"key": key})
        state: dict[str, Any] = (await _call(service, call, "refs.resolve", {**ref, "field": True})).get("slider") or {}
        return state

    await move_slider(target["slider"], wanted, press)


def _editor_holds(out: Any, typed: str) -> str:
    """What a code editor holds after page_fill, read back from its lines (page/editors.js), when it is not
    what was typed: an editor may close a bracket or indent a line, and the model must know the query it runs."""
    if not isinstance(out, dict) or not out.get("editor") or not isinstance(out.get("value"), str) or out["value"] == typed:
        return ""
    return f" (the editor now holds {quote(out['value'])})"


async def _submit(service: ActionService, call: BuiltinCall, target: dict[str, Any]) -> str:
    """page_fill {submit}: Enter pressed in the field just filled, as a person submits it (a form's implicit
    submission, a to-do list's or a search box's own Enter handler); the change report then covers both."""
    # Focused again: a framework's input handler may have moved the focus while the value was set.
    await _call(service, call, "refs.resolve", {"ref": target["ref"], "focus": True})
    await _act(service, call, "keyboard.press", {"key": "Enter"})
    return ", pressed Enter"


async def _hover(service: ActionService, call: BuiltinCall) -> Any:
    target = await _resolve_marked(service, call, _target(call.own), point=True)
    if target.get("frame"):
        await _in_frame(service, call, target, "hover")
        return await _acted(service, call, f"hovered {_named(call, target)} (in a frame)")
    await _act(service, call, "pointer.move", target["point"])
    return await _acted(service, call, f"hovered {_named(call, target)}")


async def _scroll(service: ActionService, call: BuiltinCall) -> Any:
    target = await _by_ref_or_text(service, call)
    await _mark(service, call)
    out = await _call(service, call, "refs.scroll", {**target, **({"to": call.own["to"]} if "to" in call.own else {})})
    line = _scrolled(out, call.own.get("to", "down"))
    report = await change_report(service, call)
    # Rows that came into view are the change a person sees: not "no visible change" after them.
    shown = out.get("came_into_view") or out.get("rows")
    return _answer(call, line if shown and report == "no visible change" else f"{line}\n{report}")


def _scrolled(out: dict[str, Any], to: str) -> str:
    """page_scroll's line: which box scrolled (refs.scroll, observe_scroll.js), how far, what came into view, what is left."""
    box = str(out.get("box") or "the page")
    where = box
    if out.get("ref") and box != "the page":
        # The box the model's element scrolls in: a grid's or a list's, with its role and name when it has them.
        named = "" if box.startswith("the ") else f" ({box})"
        where = f"the {'grid' if isinstance(out.get('rows'), dict) else 'list'} of {out['ref']}{named}"
    line = f"scrolled {where} {to} by {abs(int(out.get('moved') or 0))}px" + (" (at its end)" if out.get("at_end") else "")
    came = [str(c) for c in out.get("came") or []]
    if came:
        more = int(out.get("came_into_view") or 0) - len(came)
        line += "; came into view: " + ", ".join(came) + (f" (+{more})" if more > 0 else "")
    rows = out.get("rows")
    if isinstance(rows, dict):
        line += f"; rows {rows.get('first')}-{rows.get('last')} of {rows.get('total')} shown"
    if out.get("more_below"):
        line += f"; {out['more_below']} more below"
    return line


def _end(value: str) -> dict[str, str]:
    """A drag end as the engine takes it: a string shaped like a ref is a ref, anything else a text."""
    return {"ref": value} if re.fullmatch(r"@?e[0-9]+", value) else {"text": value}


async def _drag(service: ActionService, call: BuiltinCall) -> Any:
    ends = await _call(service, call, "refs.drag_resolve", {"from": _end(call.own["from"]), "to": _end(call.own["to"])})
    source, target = ends["from"], ends["to"]
    if source.get("frame") or target.get("frame"):
        raise ActionError("page_drag does not reach into frames yet", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"path": "/from" if source.get("frame") else "/to"})
    await _mark(service, call)
    # pointer.drag: a trusted press, moves and release on the Playwright tab (the browser runs HTML5 drag
    # and drop from them), drag.js's pointer and drag events on the page runtime.
    await _call(service, call, "pointer.drag", {"from": {"locator": {"selector": source["selector"]}}, "to": {"locator": {"selector": target["selector"]}}})
    return await _acted(service, call, f"dragged {_what(source, 'ref' in _end(call.own['from']))} onto {_what(target, 'ref' in _end(call.own['to']))}")


async def _press(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    target = await _resolve_marked(service, call, {**_target(own), "focus": True})
    out = await _act(service, call, "keyboard.press", {"key": own["key"]})
    return await _acted(service, call, f"pressed {_chord(out, own['key'])} on {_named(call, target)}")


def _chord(out: Any, asked: str) -> str:
    """The key or chord as pressed: its modifiers with its key (``Control+B``, not the ``b`` the primitive's key
    alone says), a letter under a modifier written as a person names the chord; what was asked when the page moved on."""
    if not isinstance(out, dict) or not out.get("key"):
        return asked
    key, modifiers = str(out["key"]), [str(m) for m in out.get("modifiers") or []]
    if modifiers and len(key) == 1 and key.isalpha():
        key = key.upper()
    return "+".join([*modifiers, key])


def _submitted(out: dict[str, Any]) -> str:
    """What a select's submit did (refs.select {submit}): its form submitted, or the field that stopped it.

    ``{}`` is a submit whose page moved on under the primitive: the form was submitted (the report says where it landed).
    """
    if out.get("submitted") is False:
        found = out.get("invalid")
        invalid: dict[str, Any] = found if isinstance(found, dict) else {}
        field = quote(invalid["name"]) if invalid.get("name") else "a field"
        message = f": {quote(invalid['message'])}" if invalid.get("message") else ""
        return f"; the form was not submitted, {field} is not valid{message}"
    return ", submitted its form" + (f" ({quote(out['button'])})" if out.get("button") else "")


async def _select(service: ActionService, call: BuiltinCall) -> Any:
    target = await _by_ref_or_text(service, call)
    await _mark(service, call)
    submit = call.own.get("submit") is True
    out = await _act(service, call, "refs.select", {**target, "values": call.own["values"], **({"submit": True} if submit else {})})
    # {} when the submit took the page away under the primitive: the call named the select.
    where = out.get("ref") or target.get("ref") or quote(target.get("text"))
    return await _acted(service, call, f"selected {_values(out, call.own['values'])} in {where}{_submitted(out) if submit else ''}")


#: The observe-and-act built-ins (group ``observe``), each with its runner.
OBSERVE_TOOLS: tuple[BuiltinTool, ...] = (
    BuiltinTool(OBSERVE, _observe, "observe", TargetRule("refs.observe", "reads")),
    BuiltinTool(CLICK, _click, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(FILL, _fill, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(PRESS, _press, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(SELECT, _select, "observe", TargetRule("refs.select", "acts")),
    BuiltinTool(HOVER, _hover, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(SCROLL, _scroll, "observe", TargetRule("refs.scroll", "acts")),
    BuiltinTool(DRAG, _drag, "observe", TargetRule("refs.drag_resolve", "acts")),
)
