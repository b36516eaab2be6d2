"""``mcp-actions init`` explores: it acts on its own throwaway tab to reveal controls that appear later.

TodoMVC's page has one control at load time, a text field outside any form
that Enter submits; its list, toggles, filters and "Clear completed" appear
only once a todo exists. So, after the first read and within a time budget
(``DEFAULT_BUDGET_S``; ``init --explore-budget SECONDS``, ``--no-explore``),
``explore``:

1. types a probe text into each lone text field (``reader.js`` ``loneFields``)
   and presses Enter, with the primitives a drafted tool uses (``text.insert``,
   ``keyboard.press``), then looks for the text on the page (``readRows``):
   the field adds a row, and the row's selector, title and controls are what
   row tools are drafted from ("toggle the row whose text is X");
2. moves the pointer over that row (a trusted move: controls such as TodoMVC's
   destroy button show only while hovered) and reads the row again;
3. clicks the row's checkboxes (a toggle reveals "Clear completed");
4. opens each menu or dialog opener (``aria-haspopup``, ``aria-expanded=false``),
   reads what it shows, and closes it again with Escape;
5. reads the whole page again: what is there now and was not at first was
   revealed by the exploration.

It never presses what the risk words mark (``draft.RISKY_WORDS``: delete, pay,
buy, send, remove...): such a field is not typed into, such a control not
clicked; both are named in ``skipped`` with the reason, and the draft may still
draft a tool for them (with ``x_actions.confirm``). The tab and its browser
profile are thrown away after ``init``, so nothing it did stays anywhere.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..errors import ActionError
from .draft_words import RISKY_WORDS, risk_word
from .reader import Evaluate, read_page, read_rows

__all__ = ["DEFAULT_BUDGET_S", "PROBE_TEXT", "Exploration", "Tab", "explore"]

#: How long init explores by default, in seconds (the first read and the drafting are not counted).
DEFAULT_BUDGET_S = 20.0
#: What init types into a lone field: a text no page shows by itself (an apostrophe and non-ASCII included,
#: so a field that mangles them is seen to). Its row's text must then be exactly this.
PROBE_TEXT = "Probe from mcp-actions init — l'essai"
#: At most this many lone fields and openers are tried.
MAX_FIELDS = 3
MAX_OPENERS = 5
_SETTLE = {"quiet_ms": 300, "timeout_ms": 2500}
#: A field that kept the probe after Enter is pressed again this many times at most, this long apart.
_ENTER_AGAIN = 4
_ENTER_AGAIN_AFTER_S = 0.5
#: How long past its budget an action may hang before exploring is cut off.
_GRACE_S = 5.0

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass
class Adder:
    """A lone field that added what was typed into it: ``field`` (reader's lone field), ``row`` (readRows' row, or None)."""

    field: dict[str, Any]
    row: dict[str, Any] | None
    pressed: list[str] = dc_field(default_factory=list)  # the row controls init clicked, by kind and name


@dataclass
class Opened:
    """A button that opens a menu or dialog, and the buttons and links (``controls``) and forms it showed."""

    opener: dict[str, Any]
    controls: list[dict[str, Any]]
    forms: list[dict[str, Any]] = dc_field(default_factory=list)


@dataclass
class Exploration:
    """What exploring found: adders, openers, the page read at the end (``after``), what was skipped and why."""

    adders: list[Adder] = dc_field(default_factory=list)
    opened: list[Opened] = dc_field(default_factory=list)
    after: dict[str, Any] | None = None
    skipped: list[str] = dc_field(default_factory=list)
    tried: list[str] = dc_field(default_factory=list)
    out_of_time: bool = False


def _quote(text: str) -> str:
    return f"'{text}'"


def _field_label(f: dict[str, Any]) -> str:
    return str(f.get("label") or f.get("placeholder") or f.get("name") or f.get("id") or "a text field")


def _form_key(form: dict[str, Any]) -> str:
    """What tells one form from another across two reads: its locator, id, heading and field labels."""
    return _locator_key([form.get("locator"), form.get("id"), form.get("heading"), [f.get("label") for f in form.get("fields") or []]])


def _locator_key(locator: Any) -> str:
    return json.dumps(locator, sort_keys=True, ensure_ascii=False)


@dataclass
class Tab:
    """What exploring needs of its tab besides primitives: where it is now, and how to load the page again."""

    url: Callable[[], str]
    reload: Callable[[], Awaitable[None]]


def _document(url: str) -> str:
    return url.split("#", 1)[0]  # a fragment (#/active) is the same page


class _Explorer:
    def __init__(self, call: Call, evaluate: Evaluate, budget_s: float, tab: Tab) -> None:
        self.call = call
        self.evaluate = evaluate
        self.deadline = time.monotonic() + budget_s
        self.found = Exploration()
        self.tab = tab
        self.home = _document(tab.url())

    async def went_away(self, what: str) -> bool:
        """Whether ``what`` (just done) loaded another page; then it is noted and the page is loaded again."""
        now = _document(self.tab.url())
        if now == self.home:
            return False
        self.found.skipped.append(f"{what} loaded another page ({now}); init went back and drafted nothing from it")
        await self.tab.reload()
        return True

    def time_left(self) -> bool:
        if time.monotonic() >= self.deadline:
            self.found.out_of_time = True
            return False
        return True

    async def settle(self) -> None:
        try:
            await self.call("dom.settle", dict(_SETTLE))
        except ActionError:
            pass  # a page that never goes quiet is read as it is

    async def click(self, locator: dict[str, Any]) -> None:
        """A trusted click at the element's clickable centre, as a drafted tool clicks."""
        at = await self.call("locator.element_info", {"locator": locator})
        center = at["clickable_center"]
        await self.call("pointer.click", {"x": center["x"], "y": center["y"]})

    async def holds(self, locator: dict[str, Any]) -> bool:
        """Whether the field still holds the probe text (and has the focus Enter goes to)."""
        try:
            at = await self.call("locator.element_info", {"locator": locator})
        except ActionError:
            return False
        return isinstance(at, dict) and at.get("value") == PROBE_TEXT

    async def hover(self, locator: dict[str, Any]) -> None:
        at = await self.call("locator.element_info", {"locator": locator})
        center = at["clickable_center"]
        await self.call("pointer.move", {"x": center["x"], "y": center["y"]})

    async def lone_field(self, f: dict[str, Any]) -> None:
        label = _field_label(f)
        if not f.get("locator"):
            self.found.skipped.append(f"skipped the field {_quote(label)}: it has no accessible name or stable attribute that names it alone")
            return
        word = risk_word(label, str(f.get("placeholder") or ""), str(f.get("name") or ""), str(f.get("id") or ""))
        if word is not None:
            self.found.skipped.append(f"skipped the field {_quote(label)} while exploring: its words say {_quote(word)} (it may {RISKY_WORDS[word]}), so init did not submit it")
            return
        try:
            await self.call("text.insert", {"target": f["locator"], "text": PROBE_TEXT, "mode": "replace"})
            await self.call("keyboard.press", {"key": "Enter"})
        except ActionError as exc:
            self.found.skipped.append(f"skipped the field {_quote(label)}: typing into it failed ({exc.code}: {exc.message})")
            return
        await self.settle()
        if await self.went_away(f"pressing Enter in the field {_quote(label)}"):
            return
        rows = await read_rows(self.evaluate, PROBE_TEXT)
        for _ in range(_ENTER_AGAIN):
            # Nothing showed and the field still holds the probe: the page was not listening yet (handlers bound
            # late, hydration). Wait a little and press Enter again, as the drafted add does once.
            if rows.get("found") or not self.time_left() or not await self.holds(f["locator"]):
                break
            await asyncio.sleep(_ENTER_AGAIN_AFTER_S)
            await self.call("keyboard.press", {"key": "Enter"})
            await self.settle()
            if await self.went_away(f"pressing Enter in the field {_quote(label)}"):
                return
            rows = await read_rows(self.evaluate, PROBE_TEXT)
        self.found.tried.append(f"typed into the field {_quote(label)} and pressed Enter")
        if not rows.get("found"):
            self.found.skipped.append(f"skipped the field {_quote(label)}: typing into it and pressing Enter showed nothing on the page")
            return
        adder = Adder(field=f, row=rows.get("row") if isinstance(rows.get("row"), dict) else None)
        self.found.adders.append(adder)
        if adder.row is not None:
            await self.row(adder)

    async def row(self, adder: Adder) -> None:
        """Hover the new row (controls shown on hover), read it again, click its harmless checkboxes."""
        assert adder.row is not None
        scope = {"selector": adder.row["selector"], "has": adder.row["title"]}
        try:
            await self.hover(scope)
            hovered = await read_rows(self.evaluate, PROBE_TEXT)
        except ActionError:
            hovered = {}
        before = {_locator_key(c.get("locator")): c for c in adder.row["controls"]}
        if isinstance(hovered.get("row"), dict):
            for control in hovered["row"]["controls"]:
                was = before.get(_locator_key(control.get("locator")))
                if was is not None and not was.get("visible") and control.get("visible"):
                    was["on_hover"] = True
                    was["visible"] = True
        for control in adder.row["controls"]:
            if not control.get("locator") or not control.get("visible"):
                continue
            what = control.get("name") or control.get("class") or control.get("kind")
            word = risk_word(str(control.get("words") or ""))
            if word is not None:
                self.found.skipped.append(f"did not press the row's {control['kind']} {_quote(str(what))} while exploring: its words say {_quote(word)} (it may {RISKY_WORDS[word]})")
                continue
            if control["kind"] != "checkbox" or not self.time_left():
                continue  # a row's other buttons (edit, open) are drafted, not pressed: what they open is another page's business
            try:
                if control.get("on_hover"):
                    await self.hover(scope)
                await self.click({**control["locator"], "within": scope})
            except ActionError as exc:
                self.found.skipped.append(f"could not click the row's checkbox {_quote(str(what))} ({exc.code})")
                continue
            control["pressed"] = True  # the draft's check repeats it (its setup) to reveal what it revealed
            adder.pressed.append(str(control["kind"]) if what == control["kind"] else f"{control['kind']} {_quote(str(what))}")
            self.found.tried.append(f"clicked the new row's {adder.pressed[-1]}")
            await self.settle()
            if await self.went_away(f"clicking the row's {adder.pressed[-1]}"):
                return

    async def opener(self, button: dict[str, Any]) -> None:
        name = str(button.get("name") or "")
        word = risk_word(name, str((button.get("attrs") or {}).get("id") or ""))
        if word is not None:
            self.found.skipped.append(f"did not open {_quote(name)} while exploring: its words say {_quote(word)} (it may {RISKY_WORDS[word]})")
            return
        before = await read_page(self.evaluate)
        known = {_locator_key(c["locator"]) for c in (before.get("buttons") or []) + (before.get("links") or [])}
        try:
            await self.click(button["locator"])
        except ActionError as exc:
            self.found.skipped.append(f"could not open {_quote(name)} ({exc.code})")
            return
        await self.settle()
        if await self.went_away(f"clicking {_quote(name)}"):
            return
        shown = await read_page(self.evaluate)
        new = [c for c in (shown.get("buttons") or []) + (shown.get("links") or []) if _locator_key(c["locator"]) not in known]
        # A dialog's form: listed only once shown (the reader lists the forms shown). Its submission is the page
        # script's (a dialog closes, the page stays), and its status regions are read on the page as loaded.
        had = {_form_key(f) for f in before.get("forms") or []}
        forms = [{**f, "regions": [], "navigates": False} for f in shown.get("forms") or [] if _form_key(f) not in had]
        names = [_quote(str(c["name"])) for c in new[:8]] + [f"a form ({_quote(str(f.get('label') or (f.get('submit') or {}).get('name') or f.get('heading') or '?'))})" for f in forms]
        self.found.tried.append(f"opened {_quote(name)}" + (f": it shows {', '.join(names)}" if names else ", which showed nothing new"))
        if new or forms:
            self.found.opened.append(Opened(opener=button, controls=new, forms=forms))
        try:
            await self.call("keyboard.press", {"key": "Escape"})
        except ActionError:
            pass
        await self.settle()


def _openers(page: dict[str, Any]) -> list[dict[str, Any]]:
    """The buttons that say they open a menu, a listbox or a dialog (aria-haspopup, or aria-expanded="false")."""
    out = []
    for button in page.get("buttons") or []:
        attrs = button.get("attrs") or {}
        popup = attrs.get("aria-haspopup")
        if (popup is not None and popup != "false") or attrs.get("aria-expanded") == "false":
            out.append(button)
    return out


async def explore(call: Call, evaluate: Evaluate, page: dict[str, Any], tab: Tab, *, budget_s: float = DEFAULT_BUDGET_S) -> Exploration:
    """Explore the page ``page`` describes (see the module docstring), for at most about ``budget_s`` seconds.

    ``call(primitive, args)`` runs a primitive on the tab (the bridge), ``evaluate`` a function in it.
    The budget is checked before each action; a page that hangs an action is cut off a little after
    it (``_GRACE_S``), and what was found until then is kept.
    """
    explorer = _Explorer(call, evaluate, budget_s, tab)
    try:
        async with asyncio.timeout(budget_s + _GRACE_S):
            await _explore(explorer, page)
    except TimeoutError:
        explorer.found.out_of_time = True
        explorer.found.after = None  # the page is mid-action: the draft keeps to what was read before
    except (ActionError, PlaywrightError) as exc:  # the page went away under an action: keep what was found
        explorer.found.skipped.append(f"exploring stopped early: {(str(exc).strip().splitlines() or [type(exc).__name__])[0]}")
        explorer.found.after = None
    return explorer.found


async def _explore(explorer: _Explorer, page: dict[str, Any]) -> None:
    fields = list(page.get("lone_fields") or [])
    for f in fields[:MAX_FIELDS]:
        if not explorer.time_left():
            explorer.found.skipped.append(f"skipped the field {_quote(_field_label(f))}: the exploring time was up")
            continue
        await explorer.lone_field(f)
    for f in fields[MAX_FIELDS:]:
        explorer.found.skipped.append(f"skipped the field {_quote(_field_label(f))}: init tries {MAX_FIELDS} lone fields at most")
    current = await read_page(explorer.evaluate)
    for button in _openers(current)[:MAX_OPENERS]:
        if not explorer.time_left():
            explorer.found.skipped.append(f"did not open {_quote(str(button.get('name')))}: the exploring time was up")
            continue
        await explorer.opener(button)
    explorer.found.after = await read_page(explorer.evaluate)
