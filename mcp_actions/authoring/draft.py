"""Turning a page description (``reader.js``) into a draft actions.json map and a review list.

``draft_map(page, url=..., created_at=...)`` is pure: the same page
description always gives the same map. What it drafts:

- each plain form: a tool ``<site>.<form>`` whose ``input_schema`` has one
  property per fillable field (text, search, email, url, tel, password,
  textarea → string with ``format``/length/pattern; number → integer, or
  number when its ``step`` is fractional or ``any``, with ``minimum``/``maximum``;
  one checkbox → boolean; several checkboxes of one name → array of their
  values; radios and selects → ``enum`` of their values; ``required``;
  descriptions from labels). Its workflow waits for the form (pages render
  late), fills each field given (``text.insert``; a checkbox or radio is
  clicked through ``locator.element_info`` + ``pointer.click`` when its state
  differs; a select is chosen with ``refs.observe`` + ``refs.select`` by its
  role and name), clicks the submit control, lets the page settle
  (``dom.settle``) and reads back the nearest status regions (again while one
  says work in progress, "Saving…") and the page's URL and title. A form whose
  submission no script of the page takes (``navigates``, which ``init`` asks
  the browser) loads another page: the tool notes the document before the
  click and waits for the next one (``webmcp.page_result`` with
  ``after_document``, the engine's document identity) before reading back;
- each tool the page declares with WebMCP (a declarative ``toolname`` form, or
  ``registerTool``; ``init`` lists them with ``webmcp.list_tools``): a tool with
  the declared name, description and input schema that runs the page's own
  declaration (``webmcp.call``, then ``webmcp.page_result`` when the submission
  loads a page);
- each search box outside a form: a tool that types the query and presses Enter;
- the main buttons and same-origin links outside forms (at most
  ``MAX_BUTTONS``/``MAX_LINKS``, the page's main content first): a click
  through ``locator.element_info`` + ``pointer.click``; a link's tool waits
  until the tab's URL changes and answers where it landed.

Tool names are ``<site namespace>.<slug>`` (``protocols.naming.site_namespace``,
the rule page-declared tools follow), unique. Locators come from the page as
the reader chose them (role and name, then stable attributes; never
positions) and only reference-dictionary arguments are used (no
``pointer.click`` ``target``), so ``validate`` has nothing to warn about. The
primitives are the reference dictionary's and, where it has none for the job,
the page engine's (``dom.settle``, ``refs.observe``/``refs.select``,
``webmcp.page_result``), which every runtime of mcp-actions runs. Tools
whose names say they delete, pay, buy, order or send get ``x_actions.confirm``
(and ``destructiveHint`` for deletions); every such choice is in the review
list, which ``init`` prints and also keeps in the map as ``x_init_review``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .. import __version__
from ..bounded_regex import pattern_problem
from ..convert.naming import safe_identifier
from ..manifest.limits import DEFAULT_LIMITS
from ..manifest.validate import check_manifest
from ..protocols.naming import site_namespace

if TYPE_CHECKING:
    from .explore import Exploration

__all__ = ["MAX_BUTTONS", "MAX_LINKS", "RISKY_WORDS", "Draft", "ReviewItem", "draft_map", "origin_of", "risk_word"]

#: At most this many buttons and links become tools (the page's main content first).
MAX_BUTTONS = 10
MAX_LINKS = 10
#: Words that make a tool ask the user first (x_actions.confirm), with what they may do.
RISKY_WORDS: dict[str, str] = {
    "delete": "delete something", "remove": "remove something", "erase": "erase something", "destroy": "destroy something",
    "discard": "discard something", "wipe": "wipe something", "reset": "reset something", "deactivate": "deactivate something",
    "close account": "close an account", "unsubscribe": "unsubscribe", "cancel order": "cancel an order",
    "cancel subscription": "cancel a subscription", "pay": "spend money", "payment": "spend money", "buy": "spend money",
    "purchase": "spend money", "checkout": "spend money", "check out": "spend money", "order": "place an order",
    "donate": "spend money", "subscribe": "start a subscription", "transfer": "move money or data", "withdraw": "move money",
    "send": "send something", "publish": "publish something", "post": "publish something", "book": "make a booking",
    "reserve": "make a reservation",
}  # fmt: skip
_RISKY = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(RISKY_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_DESTRUCTIVE = {"delete", "remove", "erase", "destroy", "discard", "wipe", "reset", "deactivate", "close account"}
#: Where buttons and links are drafted from first.
_REGION_ORDER = {"main": 0, "dialog": 1, "body": 2, "header": 3, "nav": 4, "footer": 5}
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
_GENERIC_FORM_NAMES = re.compile(r"^(x?form|main_?form|my_?form|form_?\d+|f\d*)$")
_STRING_FORMATS = {"email": "email", "url": "uri"}


@dataclass(frozen=True)
class ReviewItem:
    """One thing the author should look at: ``topic`` (names, page, confirm, field, form, control, webmcp, tool), a message, the tool it concerns."""

    topic: str
    message: str
    tool: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"topic": self.topic}
        if self.tool:
            out["tool"] = self.tool
        out["message"] = self.message
        return out

    def line(self) -> str:
        return f"{self.tool}: {self.message}" if self.tool else self.message


@dataclass
class Draft:
    """A drafted map (``manifest``, JSON-ready, ``x_init_review`` included), its review list and what it holds."""

    manifest: dict[str, Any]
    review: list[ReviewItem]
    counts: dict[str, int] = field(default_factory=dict)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` (the default port left out), what ``surface.origin`` holds."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    port = f":{parts.port}" if parts.port is not None and parts.port != default else ""
    return f"{parts.scheme}://{host}{port}"


def _slug(text: str, *, fallback: str, limit: int = 40) -> str:
    """Lower snake case ASCII, starting with a letter: "Create account" → ``create_account``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    if len(words) > limit:
        words = words[:limit].rsplit("_", 1)[0] if "_" in words[:limit] else words[:limit]
    if not words:
        return fallback
    return words if words[0].isalpha() else f"x{words}"


def _key(raw: str) -> str:
    """An input property name that JSONata reads as a plain path step (``input.<key>``)."""
    key = re.sub(r"[^A-Za-z0-9_]+", "_", unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode("ascii")).strip("_")
    if not key:
        return ""
    return key if key[0].isalpha() else f"f_{key}"


def _jsonata_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _quote(text: str, limit: int = 60) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return f"“{short}”"


def _words(text: str) -> str:
    """``deleteAccount``, ``delete_account``, ``delete-account`` → ``delete Account`` / ``delete account``: words a regex can bound."""
    return re.sub(r"[_\-./]+", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text or ""))


def risk_word(*texts: str) -> str | None:
    """The first risk word (``RISKY_WORDS``) in ``texts`` (camelCase, snake_case and kebab-case split into words), or None."""
    for text in texts:
        found = _RISKY.search(_words(text))
        if found:
            return found.group(1).lower()
    return None


class _Names:
    """Unique tool names (and step ids, and input keys) in one namespace."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, wanted: str) -> str:
        name, n = wanted, 2
        while name in self.used:
            name = f"{wanted}_{n}"
            n += 1
        self.used.add(name)
        return name


@dataclass
class _Workflow:
    """Steps under construction, within the step limit."""

    max_steps: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    ids: _Names = field(default_factory=_Names)

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


def _click(
    workflow: _Workflow,
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


def _read_back(workflow: _Workflow, regions: list[dict[str, Any]], region_ids: list[int]) -> list[tuple[str, str]]:
    """Let the page answer, then read its status regions: [(key, JSONata of the text)].

    Each read may fail (the region is gone after a navigation: ``on_error: continue``). A text that
    ends in an ellipsis ("Saving…") is work in progress: it is read again, after the page settles,
    a few times at most; the last text read is the answer.
    """
    workflow.add(
        "settle", "dom.settle", {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_TIMEOUT_MS}, on_error="continue", description="let the page answer (no DOM change for a moment)"
    )
    reads: list[tuple[str, str]] = []
    keys = _Names()
    for index in region_ids[:MAX_READS]:
        if workflow.room() <= 2:
            break
        region = regions[index]
        key = keys.take(_slug(region.get("id") or region.get("label") or region.get("role") or "status", fallback="status", limit=30))
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


def _output(head: str, reads: list[tuple[str, str]], extra: tuple[str, ...] = ()) -> str:
    parts = [head, *extra]
    if len(reads) == 1:
        parts.append(f"'status': {reads[0][1]}")
    elif reads:
        inner = ", ".join(f"'{key}': {text}" for key, text in reads)
        parts.append(f"'status': {{{inner}}}")
    parts.append("'url': steps.page.output.url")
    parts.append("'title': steps.page.output.title")
    return "{% {" + ", ".join(parts) + "} %}"


def _result_schema(flag: str, reads: list[tuple[str, str]], *, navigates: bool = False) -> dict[str, Any]:
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


class _Drafter:
    def __init__(self, page: dict[str, Any], url: str, max_steps: int) -> None:
        self.page = page
        self.url = url
        self.max_steps = max_steps
        self.site = site_namespace(url)
        self.title = str(page.get("title") or page.get("heading") or urlsplit(url).hostname or "the page")
        self.names = _Names()
        self.tools: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []  # drafted from exploring (draft_explore): a setup that reveals what appears later
        self.review: list[ReviewItem] = []
        self.regions: list[dict[str, Any]] = list(page.get("regions") or [])
        self.counts = {"forms": 0, "webmcp_tools": 0, "search_boxes": 0, "buttons": 0, "links": 0, "explored": 0}

    # -- helpers -------------------------------------------------------------------

    def name(self, slug: str) -> str:
        return self.names.take(f"{self.site}.{slug}")

    def note(self, topic: str, message: str, tool: str | None = None) -> None:
        self.review.append(ReviewItem(topic, message, tool))

    def guard(self, tool: dict[str, Any], label: str, *texts: str) -> None:
        """Ask the user first when the tool's words (``label``, ``texts``) say it may do harm."""
        word = risk_word(label, *texts)
        if word is None:
            return
        what = RISKY_WORDS[word]
        x_actions = tool.setdefault("x_actions", {})
        x_actions["confirm"] = f"{_quote(label or tool['name'])} on {self.title} may {what}. Go ahead?"
        if word in _DESTRUCTIVE:
            x_actions["annotations"] = {"destructiveHint": True}
        self.note("confirm", f"its name says {_quote(word)}: it may {what}, so the draft asks the user first (x_actions.confirm); keep or remove that", tool["name"])

    # -- forms ---------------------------------------------------------------------

    def form(self, form: dict[str, Any]) -> None:
        fields = [f for f in form.get("fields") or [] if f.get("control") != "skipped"]
        label = form.get("label") or ""
        candidates = [label, form.get("name_attr") or "", form.get("id") or ""]
        slug = next((s for s in (_slug(c, fallback="") for c in candidates) if s and not _GENERIC_FORM_NAMES.match(s)), "")
        submit = form.get("submit")
        if not slug:
            slug = _slug((submit or {}).get("name") or form.get("heading") or "form", fallback="form")
        name = self.name(slug)
        workflow = _Workflow(self.max_steps)
        schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
        required: list[str] = []
        keys = _Names()
        first = next((f.get("locator") or f["options"][0]["locator"] for f in fields if f.get("locator") or f.get("options")), None)
        ready = first or (submit or {}).get("locator") or form.get("locator")
        if ready is None:
            self.note("form", f"a form ({form.get('id') or form.get('heading') or 'without a name'}) has nothing drafted: no field or control with a stable locator")
            self.names.used.discard(name)
            return
        workflow.add("ready", "locator.wait_for", {"locator": ready, "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the form (it may render late)")
        region_ids = [int(i) for i in form.get("regions") or []]
        navigates = bool(form.get("navigates"))
        # submit, the document before and after (a submission that loads a page), settle + page, reads
        overhead = (2 if submit else 1) + (2 if navigates else 0) + 2 + 2 * min(len(region_ids), MAX_READS)
        observe_step: str | None = None
        selects: list[str] = []
        filled: list[str] = []
        single_text: str | None = None
        for f in form.get("fields") or []:
            label_text = f.get("label") or f.get("hint") or f.get("placeholder") or f.get("name") or f.get("id") or ""
            if f.get("control") == "skipped":
                self._skipped(name, f, label_text)
                continue
            key = keys.take(_key(f.get("name") or f.get("id") or "") or _key(_slug(label_text, fallback="field")) or "field")
            needs = self._steps_needed(f) + (1 if f["control"] == "select" and observe_step is None else 0)
            if workflow.room() - overhead < needs:
                self.note("field", f"{_quote(label_text)} is left out: the workflow would pass {self.max_steps} steps; split the form or fill it another way", name)
                continue
            prop = self._property(f, name, label_text)
            when = None if f.get("required") else f"{{% $exists(input.{key}) %}}"
            control = f["control"]
            if control in ("text", "textarea", "number"):
                text = f"{{% $string(input.{key}) %}}" if control == "number" else f"{{% input.{key} %}}"
                workflow.add(f"fill_{key}", "text.insert", {"target": f["locator"], "text": text, "mode": "replace"}, when=when)
                if control != "textarea":
                    single_text = key if single_text is None else "many"
            elif control == "checkbox":
                given = f"{{% $exists(input.{key}) %}}"
                _click(workflow, f"set_{key}", f["locator"], when=given, click_when=f"{{% $exists(input.{key}) and steps.at_set_{key}.output.checked != input.{key} %}}")
            elif control == "radio":
                mapping = {o["value"]: o["locator"] for o in f["options"]}
                locator = f"{{% $lookup({json.dumps(mapping, ensure_ascii=False)}, input.{key}) %}}"  # a slot that evaluates to the option's locator
                given = f"{{% $exists(input.{key}) %}}"
                _click(workflow, f"set_{key}", locator, when=given, click_when=f"{{% $exists(input.{key}) and steps.at_set_{key}.output.checked != true %}}")
            elif control == "checkboxes":
                for number, option in enumerate(f["options"], start=1):
                    sid = f"set_{key}_{number}"
                    wanted = f"({_jsonata_string(option['value'])} in input.{key})"
                    given = f"{{% $exists(input.{key}) %}}"
                    _click(workflow, sid, option["locator"], when=given, click_when=f"{{% $exists(input.{key}) and {wanted} != steps.at_{sid}.output.checked %}}")
            elif control == "select":
                if observe_step is None:
                    observe_step = workflow.add("observe", "refs.observe", {"max_bytes": 1000000}, description="the page's controls with refs, to choose options by ref")
                ref = f["ref"]
                pick = f"{{% steps.{observe_step}.output.elements[role = {_jsonata_string(ref['role'])} and name = {_jsonata_string(ref['name'])}][0].ref %}}"
                value_arg = {"values": f"{{% input.{key} %}}"} if f.get("multiple") else {"value": f"{{% input.{key} %}}"}
                workflow.add(f"choose_{key}", "refs.select", {"ref": pick, **value_arg}, when=when)
                selects.append(key)
            schema["properties"][key] = prop
            if f.get("required"):
                required.append(key)
            filled.append(label_text)
        if selects and observe_step is not None:
            step = next(s for s in workflow.steps if s["id"] == observe_step)
            step["when"] = "{% " + " or ".join(f"$exists(input.{k})" for k in selects) + " %}"
            workflow.order(step)
        if required:
            schema["required"] = required
        settle_after = None
        if region_ids and not navigates:
            settle_after = {"locator": self.regions[region_ids[0]]["locator"], "state": "visible", "timeout_ms": SETTLE_TIMEOUT_MS}
        submitted = "true"
        # Without a submit control, Enter in a form's only field submits it (implicit submission); it is focused once typed in.
        enter_in = single_text if not submit and single_text not in (None, "many") and len(filled) == 1 else None
        can_submit = bool(submit) or enter_in is not None
        if navigates and can_submit:
            workflow.add("before", "webmcp.page_result", {}, on_error="continue", description="this document, to tell when the submission has loaded the next one")
        if submit:
            _click(workflow, "submit", submit["locator"], settle_after=settle_after, description=f"click {_quote(submit.get('name') or 'submit')}")
        elif enter_in is not None:
            workflow.add(
                "submit",
                "keyboard.press",
                {"key": "Enter"},
                when=None if enter_in in required else f"{{% $exists(input.{enter_in}) %}}",
                description="submit by pressing Enter in the field just typed in (the form has no submit button)",
            )
        else:
            submitted = "false"
            self.note("form", "the form has no submit control the draft can click: the tool only fills it; add the step that sends it", name)
        if form.get("other_submits"):
            self.note("form", f"the form has {form['other_submits']} more submit button(s); the tool clicks {_quote((submit or {}).get('name') or '')}", name)
        extra: tuple[str, ...] = ()
        if navigates and can_submit:
            workflow.add(
                "landed",
                "webmcp.page_result",
                {"after_document": "{% steps.before.output.document %}"},
                when="{% $exists(steps.before.output.document) %}",
                retry_until="{% $exists(steps.landed.output.url) %}",
                max_attempts=LOAD_ATTEMPTS,
                on_error="continue",
                description="the page's script does not take the submission: wait for the page it loads",
            )
            extra = ("'navigated': $exists(steps.landed.output.url)", "'heading': steps.landed.output.heading")
        reads = _read_back(workflow, self.regions, region_ids)
        what = f"the {_quote(label)} form" if label else f"the form under {_quote(form['heading'])}" if form.get("heading") else "the form"
        button = f" with its {_quote(submit['name'])} button" if submit and submit.get("name") else ""
        fields_text = f" Fields: {', '.join(filled)}." if filled else ""
        after = "the page it loads (URL, title, heading)" if extra else "the page's status text and URL after"
        if form.get("role") == "search":
            description = f"Search {self.title} with {what.replace('the form', 'its search form', 1)}{button}.{fields_text} Returns {after}."
        else:
            description = f"Fill in and submit {what} on {self.title}{button}.{fields_text} Returns {after}."
        tool: dict[str, Any] = {"name": name, "description": description, "input_schema": schema}
        if form.get("locator"):
            tool["target"] = dict(form["locator"])
        tool["workflow"] = workflow.document(_output(f"'submitted': {submitted}", reads, extra))
        tool["result_schema"] = _result_schema("submitted", reads, navigates=bool(extra))
        self.guard(tool, (submit or {}).get("name") or label or slug, label, form.get("id") or "", form.get("action") or "")
        self.tools.append(tool)
        self.counts["forms"] += 1
        if not filled:
            self.note("form", "no field of the form could be drafted: the tool only submits it", name)

    def _steps_needed(self, f: dict[str, Any]) -> int:
        control = f["control"]
        if control in ("checkbox", "radio"):
            return 2
        if control == "checkboxes":
            return 2 * len(f["options"])
        return 1

    def _property(self, f: dict[str, Any], tool: str, label: str) -> dict[str, Any]:
        control = f["control"]
        prop: dict[str, Any]
        if control in ("text", "textarea"):
            prop = {"type": "string"}
            if f.get("type") in _STRING_FORMATS:
                prop["format"] = _STRING_FORMATS[f["type"]]
            if f.get("minlength"):
                prop["minLength"] = f["minlength"]
            if f.get("maxlength"):
                prop["maxLength"] = f["maxlength"]
            if f.get("pattern"):
                pattern = f"^(?:{f['pattern']})$"
                try:
                    re.compile(pattern)
                except re.error:
                    self.note("field", f"{_quote(label)} has a pattern JSON Schema cannot read ({f['pattern']}); the draft leaves it out", tool)
                else:
                    # Patterns also run on RE2 (docs/manifest-language.md, "Regular expressions"): one it cannot run would make the draft invalid.
                    if pattern_problem(pattern) is not None:
                        self.note("field", f"{_quote(label)} has a pattern the server cannot check in linear time ({f['pattern']}); the draft leaves it out", tool)
                    else:
                        prop["pattern"] = pattern
            if f.get("type") == "password":
                prop["writeOnly"] = True
                self.note("field", f"{_quote(label)} is a password field: the agent will type a secret into it; leave it out unless that is meant", tool)
        elif control == "number":
            step = f.get("step")
            whole = step != "any" and (step is None or float(step).is_integer()) and all(
                f.get(bound) is None or float(f[bound]).is_integer() for bound in ("min", "max")
            )
            prop = {"type": "integer" if whole else "number"}
            if f.get("min") is not None:
                prop["minimum"] = int(f["min"]) if whole else f["min"]
            if f.get("max") is not None:
                prop["maximum"] = int(f["max"]) if whole else f["max"]
        elif control == "checkbox":
            prop = {"type": "boolean"}
        elif control in ("radio", "select", "checkboxes"):
            values = [o["value"] for o in f["options"]]
            labelled = [f"{o['value']} ({o['label']})" for o in f["options"] if o.get("label") and o["label"] != o["value"]]
            item: dict[str, Any] = {"type": "string", "enum": values}
            prop = {"type": "array", "items": item, "uniqueItems": True} if control == "checkboxes" or f.get("multiple") else dict(item)
            if labelled:
                label = f"{label}: {', '.join(labelled)}" if label else ", ".join(labelled)
        else:  # pragma: no cover - the reader reports no other control
            prop = {"type": "string"}
        described = label or f.get("hint") or f.get("placeholder")
        if f.get("placeholder") and f.get("label") and f["placeholder"] != f["label"] and control in ("text", "textarea", "number"):
            described = f"{label} (e.g. {f['placeholder']})"
        if described:
            prop["description"] = described
        else:
            self.note("field", f"the field {_quote(f.get('name') or f.get('id') or '?')} has no label: describe it", tool)
        return prop

    def _skipped(self, tool: str, f: dict[str, Any], label: str) -> None:
        reason = f.get("reason")
        what = _quote(label or f.get("name") or f.get("type") or "?")
        if reason == "hidden":
            return  # a honeypot or a field the page shows later: nothing for an agent to fill now
        messages = {
            "disabled": f"{what} is disabled now and left out",
            "readonly": f"{what} is read-only and left out",
            "unsupported_type": f"{what} ({f.get('type')}) is left out: no primitive of the dictionary sets a {f.get('type')} field; fill it another way",
            "no_locator": f"{what} is left out: it has no accessible name or stable attribute that names it alone",
            "no_unique_name": f"{what} (a select) is left out: options are chosen by the select's role and name, and it has no unique label",
            "no_options": f"{what} (a select) is left out: it has no option to choose",
        }
        self.note("field", messages.get(str(reason), f"{what} is left out ({reason})"), tool)

    def webmcp_tool(self, declared: dict[str, Any], form: dict[str, Any] | None) -> None:
        """A tool the page declares through WebMCP (a ``toolname`` form, or ``registerTool``): run it as the page declared it."""
        name = self.name(safe_identifier(str(declared["name"]), fallback="tool"))
        description = str(declared.get("description") or "")
        schema = declared.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            schema = {"type": "object", "properties": {}}
        workflow = _Workflow(self.max_steps)
        locator = (form or {}).get("locator")
        if locator:
            workflow.add("ready", "locator.wait_for", {"locator": locator, "state": "attached", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the form")
        call = workflow.add("call", "webmcp.call", {"tool": declared["name"], "arguments": "{% input %}"}, description="the page's own declaration runs the call")
        workflow.add(
            "next",
            "webmcp.page_result",
            {"after_document": f"{{% steps.{call}.output.document %}}"},
            when=f"{{% steps.{call}.output.navigating = true %}}",
            retry_until="{% $exists(steps.next.output.url) %}",
            max_attempts=20,
            description="the submission loads a page: read that page",
        )
        output = f"{{% steps.{call}.output.navigating = true ? {{'submitted': true, 'navigated': true, 'page': steps.next.output}} : steps.{call}.output.result %}}"
        kind = "form" if declared.get("kind") == "declarative" else "tool"
        tool: dict[str, Any] = {
            "name": name,
            "description": description or f"The {declared['name']} {kind} {self.title} declares with WebMCP.",
            "input_schema": json.loads(json.dumps(schema)),
        }
        if locator:
            tool["target"] = dict(locator)
        tool["workflow"] = workflow.document(output)
        self.note("webmcp", "the page declares this tool itself, and the server lists the page's own WebMCP tools beside the map's: keep this entry to review or pin it (a confirm question, a description), or delete it", name)
        if not description:
            self.note("names", "the page declares no description: write one", name)
        if kind == "form" and not declared.get("autosubmit"):
            self.note("form", "the page asks its user to submit this form (no toolautosubmit): a call fills it and waits for the user's click", name)
        self.guard(tool, str(declared["name"]), description)
        self.tools.append(tool)
        self.counts["webmcp_tools"] += 1

    # -- outside forms ---------------------------------------------------------------

    def search_box(self, box: dict[str, Any], many: bool) -> None:
        label = box.get("label") or box.get("placeholder") or "Search"
        name = self.name(f"search_{_slug(label, fallback='box', limit=30)}" if many and _slug(label, fallback="") not in ("", "search") else "search")
        workflow = _Workflow(self.max_steps)
        workflow.add("ready", "locator.wait_for", {"locator": box["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the search box")
        workflow.add("type", "text.insert", {"target": box["locator"], "text": "{% input.query %}", "mode": "replace"})
        workflow.add("enter", "keyboard.press", {"key": "Enter"}, description="some pages search on Enter, others as you type")
        reads = _read_back(workflow, self.regions, [int(i) for i in box.get("regions") or []])
        tool = {
            "name": name,
            "description": f"Search {self.title}: type the query into its {_quote(label)} box and press Enter. Returns the page's status text and URL after.",
            "input_schema": {"type": "object", "properties": {"query": {"type": "string", "description": label}}, "required": ["query"], "additionalProperties": False},
            "target": dict(box["locator"]),
            "workflow": workflow.document(_output("'searched': true", reads)),
            "result_schema": _result_schema("searched", reads),
        }
        self.tools.append(tool)
        self.counts["search_boxes"] += 1

    def control(self, control: dict[str, Any], kind: str) -> None:
        label = control["name"]
        verb = "click" if kind == "button" else "open"
        name = self.name(f"{verb}_{_slug(label, fallback=kind, limit=36)}")
        workflow = _Workflow(self.max_steps)
        workflow.add("ready", "locator.wait_for", {"locator": control["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description=f"wait for the {kind}")
        reads: list[tuple[str, str]] = []
        if kind == "button":
            _click(workflow, "click", control["locator"])
            reads = _read_back(workflow, self.regions, [int(i) for i in control.get("regions") or []][:1])
            output = _output("'clicked': true", reads)
        else:
            new_tab = control.get("target") == "_blank"
            if not new_tab:
                workflow.add("before", "page.info", {}, on_error="continue", description="where the tab is before the click")
            _click(workflow, "click", control["locator"])
            if new_tab:
                workflow.add("page", "page.info", {}, on_error="continue", description="where the tab is now")
            else:
                # webmcp.page_result answers only once a document has loaded (its title is there): the engine's page reading.
                workflow.add(
                    "page",
                    "webmcp.page_result",
                    {},
                    retry_until="{% steps.page.output.url != steps.before.output.url %}",
                    max_attempts=LOAD_ATTEMPTS,
                    on_error="continue",
                    description="wait for the page the link opens (a new document, or a new URL of this one)",
                )
            output = "{% {'opened': " + ("true" if new_tab else "$exists(steps.page.output.url)") + ", 'url': steps.page.output.url, 'title': steps.page.output.title} %}"
        if kind == "button":
            description = f"Click the {_quote(label)} button on {self.title}. Returns the page's status text and URL after."
        else:
            path = urlsplit(control.get("href") or "").path or "/"
            description = f"Follow the {_quote(label)} link on {self.title} (to {path}). Returns the URL and title of the page it opens."
        flag = "clicked" if kind == "button" else "opened"
        tool: dict[str, Any] = {
            "name": name,
            "description": description,
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
            "target": dict(control["locator"]),
            "workflow": workflow.document(output),
            "result_schema": _result_schema(flag, reads),
        }
        if kind == "link" and control.get("target") == "_blank":
            self.note("control", "the link opens a new tab: the tool's read-back describes this page, not the new one", name)
        self.guard(tool, label)
        self.tools.append(tool)
        self.counts["buttons" if kind == "button" else "links"] += 1

    def controls(self, items: list[dict[str, Any]], kind: str, limit: int) -> None:
        ranked = sorted(items, key=lambda c: _REGION_ORDER.get(str(c.get("region")), 9))
        for control in ranked[:limit]:
            self.control(control, kind)
        if len(ranked) > limit:
            left = ", ".join(_quote(c["name"], 30) for c in ranked[limit : limit + 5])
            more = " …" if len(ranked) > limit + 5 else ""
            self.note("control", f"{len(ranked) - limit} more {kind}s are not drafted (the first {limit} were, the page's main content first): {left}{more}")

    # -- the whole page --------------------------------------------------------------

    def draft(self) -> None:
        forms = list(self.page.get("forms") or [])
        declared = {str(t.get("name")): t for t in self.page.get("webmcp_tools") or [] if isinstance(t, dict) and t.get("name")}
        by_toolname = {str(f["webmcp"]["name"]): f for f in forms if f.get("webmcp")}
        for tool in declared.values():
            self.webmcp_tool(tool, by_toolname.get(str(tool["name"])))
        for form in forms:
            if form.get("webmcp") and str(form["webmcp"]["name"]) in declared:
                continue  # drafted as the page declares it
            self.form(form)
        boxes = list(self.page.get("search_boxes") or [])
        for box in boxes:
            self.search_box(box, many=len(boxes) > 1)
        self.controls(list(self.page.get("buttons") or []), "button", MAX_BUTTONS)
        self.controls(list(self.page.get("links") or []), "link", MAX_LINKS)


def draft_map(
    page: dict[str, Any], *, url: str, created_at: str, max_steps: int = DEFAULT_LIMITS.max_steps, exploration: Exploration | None = None
) -> Draft:
    """The draft map of the page ``reader.js`` described (``url`` is the page's; ``created_at`` an ISO time).

    ``exploration`` is what ``explore.explore`` found on the page: the tools it revealed are drafted by
    ``draft_explore.draft_explored``; without it, the lone text fields it would have tried are named in
    the review as skipped.
    """
    page_url = str(page.get("url") or url)
    drafter = _Drafter(page, page_url, max_steps)
    drafter.draft()
    from .draft_explore import draft_explored  # it builds on this module's drafter

    draft_explored(drafter, exploration)
    parts = urlsplit(page_url)
    where = parts.path or "/"
    general = [
        ReviewItem("names", "tool names and descriptions were drafted from the page's labels: read each one, rename and reword what an agent could misread"),
        ReviewItem("page", f"the tools work on {where}: an agent opens that page first (browser_navigate); surface.origin names only the site"),
    ]
    if not drafter.tools:
        # Name what was skipped (each line below says why): never a bare "nothing".
        skipped = [item.message.split(":", 1)[0] for item in drafter.review if item.topic == "explore" and item.message.startswith(("skipped", "did not"))]
        why = f" ({'; '.join(skipped)}: see why below)" if skipped else " (no form, search box, button or link with a stable locator)"
        general.append(ReviewItem("page", f"nothing on the page became a tool{why}"))
    review = general + drafter.review
    title = drafter.title
    manifest: dict[str, Any] = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin_of(page_url), "name": title, "description": f"Drafted by mcp-actions init from {where}; review before publishing."},
        "tools": drafter.tools,
        **({"checks": drafter.checks} if drafter.checks else {}),
        "provenance": {
            "created_by": f"mcp-actions init {__version__}",
            "created_at": created_at,
            "source": f"{origin_of(page_url)}{where}",
            "revision": "draft",
        },
    }
    _keep_valid(manifest, review)
    manifest["x_init_review"] = [item.to_json() for item in review]
    return Draft(manifest=manifest, review=review, counts={**drafter.counts, "tools": len(manifest["tools"])})


def _keep_valid(manifest: dict[str, Any], review: list[ReviewItem]) -> None:
    """Leave out any tool ``validate`` would refuse (a page's ``pattern`` that is no regular expression, say), saying why."""
    for _ in range(3):
        report = check_manifest(manifest)
        broken: dict[int, str] = {}
        for problem in report.errors:
            parts = problem.path.split("/")
            if parts[1:2] == ["checks"] and "checks" in manifest:
                # A drafted check names drafted tools: one left out (below) takes the check along.
                del manifest["checks"]
                review.append(ReviewItem("tool", f"the drafted check is left out: validate refuses it ({problem.code} at {problem.path}: {problem.message})"))
            if len(parts) > 2 and parts[1] == "tools" and parts[2].isdigit():
                broken.setdefault(int(parts[2]), f"{problem.code} at {problem.path}: {problem.message}")
        if not broken:
            if report.errors and "checks" not in manifest:
                continue  # only the check was wrong: validate again without it
            return
        for index in sorted(broken, reverse=True):
            tool = manifest["tools"].pop(index)
            review.append(ReviewItem("tool", f"left out of the draft: validate refuses it ({broken[index]})", str(tool.get("name"))))
