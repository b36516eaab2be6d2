"""What the page tools answer the model: compact text that costs what it carries (docs/mcp-surface.md).

A page tool's binding declares ``text_output``: its runner returns a :class:`TextAnswer`, the
text the model reads, sent once as the result's one text content (no ``structuredContent``, no
``outputSchema``). What only the host needs (the runtime the call ran on) rides in the
answer's ``meta``, which the MCP adapter puts in the result's ``_meta``.

A tool whose structured answer programs rely on (``browser_navigate``: its ``tab``, ``runtime_id``
and ``status``) returns a :class:`BriefAnswer` instead: the dict stays the ``structuredContent``,
and its text content is one short line for the model rather than the same JSON again (a host may
hand the model both).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from ...page_chars import shown

__all__ = [
    "META_PAGE_TEXT",
    "META_RUNTIME",
    "META_UNTRUSTED",
    "BriefAnswer",
    "TextAnswer",
    "change_text",
    "errors_text",
    "message_lines",
    "navigate_text",
    "observe_text",
    "page_meta",
    "page_text",
    "quote",
]

#: ``_meta`` key of the runtime a page tool ran on (for a host that routes the next call itself).
META_RUNTIME = "mcp-actions/runtime_id"
#: Marks words a page wrote: a page's own tools and their results, and every answer that hands on page text.
META_UNTRUSTED = "mcp-actions/untrusted"
#: Which part of a page tool's answer is the page's (docs/mcp-surface.md, "Page text"): ``"text"``, all of it
#: but the product's ``[…]`` tokens and notes (page_read); ``"quoted"``, the quoted strings and what follows
#: ``in:`` (page_observe, page_find and the acting tools' change reports).
META_PAGE_TEXT = "mcp-actions/page_text"


#: Where page text would begin one of the product's refs (@e12) or tokens ([button …], [/dialog]): see page_text.
_REF_START = re.compile(r"@(?=e[0-9]|e?\Z)")
_TOKEN_START = re.compile(r"\[(?=[a-z][a-z]|/|[a-z]?\Z)")
#: Line breaks JSON leaves as they are.
_BREAKS = str.maketrans({"\x85": " ", "\u2028": " ", "\u2029": " "})


def page_text(text: object) -> str:
    """Page text as the model reads it: never one of the product's refs or tokens (docs/mcp-surface.md, "Page text").

    The page engine's rule (runtimes/page/core.js ``pageText``), for the answers the server writes itself
    (change reports, page_find's lines, titles): an ``@`` that would begin a ref is ``＠``, a ``[`` that would
    begin a token ``［`` (also at the text's end), NEL, U+2028 and U+2029 are spaces, and no character a person
    cannot see is left (page_chars.shown: tag characters, bidi controls, zero-width characters; lone surrogates).
    """
    return _TOKEN_START.sub("\uff3b", _REF_START.sub("\uff20", shown(text))).translate(_BREAKS)


def quote(text: object) -> str:
    """A page string as the model reads it: a JSON string (quotes and newlines escaped) of its ``page_text``."""
    return json.dumps(page_text(text), ensure_ascii=False)


class TextAnswer(str):
    """A tool's answer text, with ``meta`` for the result's ``_meta`` (server/tools.py success_result)."""

    meta: dict[str, Any]

    def __new__(cls, text: str, meta: dict[str, Any] | None = None) -> TextAnswer:
        answer = super().__new__(cls, text)
        answer.meta = dict(meta or {})
        return answer


def page_meta(runtime_id: str, part: str) -> dict[str, Any]:
    """The ``_meta`` of a page tool's answer: the runtime it ran on, and that (``part``) of it is the page's, untrusted."""
    return {META_RUNTIME: runtime_id, META_UNTRUSTED: True, META_PAGE_TEXT: part}


class BriefAnswer(dict[str, Any]):
    """A structured answer (the result's ``structuredContent``) with ``text``, the line the model reads in its place.

    ``meta``: for the result's ``_meta`` (a page's words in the text: ``page_meta``).
    """

    text: str
    meta: dict[str, Any]

    def __init__(self, output: dict[str, Any], text: str, meta: dict[str, Any] | None = None) -> None:
        super().__init__(output)
        self.text = text
        self.meta = dict(meta or {})


def navigate_text(output: dict[str, Any], asked: str | None = None) -> str:
    """``browser_navigate``'s answer as the model reads it: the tab, then the page's title and URL, and a failed status.

    ``tab 1: "Team board" https://example.com/board``; ``, status 404`` only when the page did not load
    (a status of 400 or more). The runtime id stays in ``structuredContent`` for hosts that route calls.
    ``asked``: the URL the call gave. The page landed there is something the model already knows, so the
    URL is said only when the tab is elsewhere (a redirect, a relative URL resolved, a reload or a step
    back in history, where the model gave none) or the page has no title: ``tab 1: "Team board"``.
    """
    found = output.get("tab")
    tab: dict[str, Any] = found if isinstance(found, dict) else {}
    title = str(tab.get("title") or "")
    landed = str(tab.get("url") or output.get("url") or "")
    # A page with no title is still named, by its URL.
    url = "" if title and asked is not None and same_address(asked, landed) else landed
    where = " ".join(part for part in (quote(title) if title else "", url) if part)
    line = f"tab {tab['tab_id']}: {where}" if tab.get("tab_id") is not None else f"page: {where}"
    status = output.get("status")
    if isinstance(status, int) and status >= 400:
        line += f", status {status}"
    return line


def same_address(asked: str, landed: str) -> bool:
    """Whether ``landed`` is the absolute URL ``asked`` names, as a browser writes it (scheme and host in
    lower case, an empty path as ``/``); a relative or different URL is not."""
    try:
        one, two = urlsplit(asked.strip()), urlsplit(landed)
    except ValueError:
        return False
    if not one.scheme or not one.netloc:
        return False
    return (one.scheme.lower(), one.netloc.lower(), one.path or "/", one.query, one.fragment) == (
        two.scheme.lower(),
        two.netloc.lower(),
        two.path or "/",
        two.query,
        two.fragment,
    )


def observe_text(output: dict[str, Any]) -> str:
    """``refs.observe {as_text: true}``'s output as the model reads it: a page line, one line per element, and a cut line."""
    title = str(output.get("title") or "")
    head = f"page: {quote(title)} {output.get('url', '')}" if title else f"page: {output.get('url', '')}"
    lines = [head]
    errors = errors_text(output.get("page_errors"))
    if errors:
        lines.append(errors)
    text = str(output.get("text") or "")
    if text:
        lines.append(text)
    else:
        lines.append("(nothing to act on is visible)")
    if output.get("truncated"):
        lines.append(f"({output.get('returned')} of {output.get('total')} shown; raise max_bytes, pass viewport_only, or page_find by text)")
    # viewport_only: what lies past the window's edge, per box that scrolls it (observe_scroll.js withFold).
    for fold in output.get("fold") or []:
        box = str(fold.get("box") or "the page")
        if fold.get("below"):
            lines.append(f"+{fold['below']} more below the fold of {box}: page_scroll")
        if fold.get("above"):
            lines.append(f'+{fold["above"]} more above the fold of {box}: page_scroll {{"to": "up"}}')
    return "\n".join(lines)


def errors_text(errors: Any, label: str = "page error") -> str | None:
    """The page's errors in one line: the first, quoted (the page's words), and how many more; None for none.

    ``page errors: "ReferenceError: Backbone is not defined" (+14)``: a page whose script failed looks
    fine otherwise, and every action on it would answer "no visible change".
    """
    if not isinstance(errors, dict) or not int(errors.get("count") or 0):
        return None
    count = int(errors["count"])
    first = str(errors.get("first") or errors.get("latest") or "")
    line = f"{label}{'s' if count > 1 else ''}: {quote(first)}" if first else f"{label}s: {count}"
    return line + (f" (+{count - 1})" if count > 1 and first else "")


def _control(sign: str, control: dict[str, Any]) -> str:
    """A control that was shown or hidden, as page_observe lines it: ``+ @e10 button "Remove Todo"``."""
    name = control.get("name")
    parts = (sign, str(control.get("ref") or ""), str(control.get("role") or ""), quote(name) if name else "", "required" if control.get("required") else "")
    return " ".join(part for part in parts if part)


def _state(state: dict[str, Any]) -> str:
    """A control whose state the action changed, as ``page_observe {since: "last"}`` lines it:
    ``~ @e29 checkbox "Staff status" checked``, ``~ @e22 combobox "Author" = "Ada Castillo"``."""
    name, value = state.get("name"), state.get("value")
    parts = ("~", str(state.get("ref") or ""), str(state.get("role") or ""), quote(name) if name else "", f"= {quote(value)}" if isinstance(value, str) else "", str(state.get("state") or ""))
    return " ".join(part for part in parts if part)


def message_lines(messages: Any, count: Any = None) -> list[str]:
    """Messages the page showed (an alert, a status region, a message list's item), quoted: ``message: "Saved."``."""
    said = [str(text) for text in messages or [] if str(text)]
    lines = [f"message: {quote(text)}" for text in said]
    more = int(count or 0) - len(said)
    if said and more > 0:
        lines.append(f"message: … {more} more")
    return lines


def change_text(report: dict[str, Any]) -> str:
    """``refs.change_report`` as a few lines: a navigation, dialogs opened/closed, the page's messages, controls whose
    state changed (~), text that appeared (+) and went (-), controls shown (+) or hidden (-) that no such line names,
    and the page's new errors; ``no visible change`` otherwise, with the page's earlier errors when it had some."""
    lines = []
    if report.get("url"):
        lines.append(f"now at {report['url']}")
    lines.extend(f"dialog opened: {quote(name)}" for name in report.get("dialogs_opened") or [])
    closed = report.get("dialogs_closed") or 0
    if closed:
        lines.append("dialog closed" if closed == 1 else f"{closed} dialogs closed")
    messages = [str(text) for text in report.get("messages") or []]
    lines.extend(message_lines(messages, report.get("messages_count")))
    if report.get("selection"):
        # What the action selected (Control+A or Shift+End in an editor, a double-click on a word): what a next key acts on.
        lines.append(f"selected {quote(report['selection'])}")
    states = [s for s in report.get("states") or [] if isinstance(s, dict)]
    lines.extend(_state(state) for state in states)
    more_states = int(report.get("states_count") or 0) - len(states)
    if more_states > 0:
        lines.append(f"~ … {more_states} more controls")
    # Lines that run sibling labels together (inline links with nothing between them), by their labels.
    found = report.get("labels")
    labels: dict[str, Any] = found if isinstance(found, dict) else {}
    for sign, key in (("+", "added"), ("-", "removed")):
        # A line a message already quotes is not said twice (the data stays whole for the journal).
        shown = [text for text in report.get(key) or [] if not (sign == "+" and any(str(text) in message for message in messages))]
        # The page's lines, quoted: the data stays raw for the journal (learned settles wait for the page's own text).
        lines.extend(f"{sign} {' '.join(quote(label) for label in labels[text]) if isinstance(labels.get(text), list) else quote(text)}" for text in shown)
        more = int(report.get(f"{key}_count") or 0) - len(report.get(key) or [])
        if more > 0:
            lines.append(f"{sign} … {more} more lines")
    for sign, key in (("+", "controls_shown"), ("-", "controls_hidden")):
        controls = [c for c in report.get(key) or [] if isinstance(c, dict)]
        lines.extend(_control(sign, control) for control in controls)
        more = int(report.get(f"{key}_count") or 0) - len(controls)
        if more > 0:
            lines.append(f"{sign} … {more} more controls")
    errors = errors_text(report.get("errors"))
    if errors:
        lines.append(errors)
    if lines:
        return "\n".join(lines)
    # Nothing changed on a page that threw before the action: likely why, said with it (a dead page never looks fine).
    before = errors_text(report.get("errors_before"), "earlier page error")
    return f"no visible change; {before}" if before else "no visible change"
