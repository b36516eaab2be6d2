"""The drafter: each form, WebMCP tool, search box, button and link of a page description as a drafted tool.

``Drafter(page, url, max_steps).draft()`` fills ``tools``, ``checks``, ``review`` and ``counts``;
``draft.draft_map`` composes them into the map (``draft.py`` says what is drafted, and how).
``draft_explore.py`` builds on the same drafter for what exploring revealed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..bounded_regex import pattern_problem
from ..convert.naming import safe_identifier
from ..protocols.naming import site_namespace
from .draft_steps import LOAD_ATTEMPTS, MAX_READS, READY_TIMEOUT_MS, SETTLE_TIMEOUT_MS, DraftWorkflow, click_step, output_expression, read_back, result_schema
from .draft_words import DESTRUCTIVE, RISKY_WORDS, Names, field_key, jsonata_string, quote, risk_word, slug

__all__ = ["MAX_BUTTONS", "MAX_LINKS", "Draft", "Drafter", "ReviewItem"]

#: At most this many buttons and links become tools (the page's main content first).
MAX_BUTTONS = 10
MAX_LINKS = 10
#: Where buttons and links are drafted from first.
_REGION_ORDER = {"main": 0, "dialog": 1, "body": 2, "header": 3, "nav": 4, "footer": 5}
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



class Drafter:
    def __init__(self, page: dict[str, Any], url: str, max_steps: int) -> None:
        self.page = page
        self.url = url
        self.max_steps = max_steps
        self.site = site_namespace(url)
        self.title = str(page.get("title") or page.get("heading") or urlsplit(url).hostname or "the page")
        self.names = Names()
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
        x_actions["confirm"] = f"{quote(label or tool['name'])} on {self.title} may {what}. Go ahead?"
        if word in DESTRUCTIVE:
            x_actions["annotations"] = {"destructiveHint": True}
        self.note("confirm", f"its name says {quote(word)}: it may {what}, so the draft asks the user first (x_actions.confirm); keep or remove that", tool["name"])

    # -- forms ---------------------------------------------------------------------

    def form(self, form: dict[str, Any]) -> None:
        fields = [f for f in form.get("fields") or [] if f.get("control") != "skipped"]
        label = form.get("label") or ""
        candidates = [label, form.get("name_attr") or "", form.get("id") or ""]
        form_slug = next((s for s in (slug(c, fallback="") for c in candidates) if s and not _GENERIC_FORM_NAMES.match(s)), "")
        submit = form.get("submit")
        if not form_slug:
            form_slug = slug((submit or {}).get("name") or form.get("heading") or "form", fallback="form")
        name = self.name(form_slug)
        workflow = DraftWorkflow(self.max_steps)
        schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
        required: list[str] = []
        keys = Names()
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
            key = keys.take(field_key(f.get("name") or f.get("id") or "") or field_key(slug(label_text, fallback="field")) or "field")
            needs = self._steps_needed(f) + (1 if f["control"] == "select" and observe_step is None else 0)
            if workflow.room() - overhead < needs:
                self.note("field", f"{quote(label_text)} is left out: the workflow would pass {self.max_steps} steps; split the form or fill it another way", name)
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
                click_step(workflow, f"set_{key}", f["locator"], when=given, click_when=f"{{% $exists(input.{key}) and steps.at_set_{key}.output.checked != input.{key} %}}")
            elif control == "radio":
                mapping = {o["value"]: o["locator"] for o in f["options"]}
                locator = f"{{% $lookup({json.dumps(mapping, ensure_ascii=False)}, input.{key}) %}}"  # a slot that evaluates to the option's locator
                given = f"{{% $exists(input.{key}) %}}"
                click_step(workflow, f"set_{key}", locator, when=given, click_when=f"{{% $exists(input.{key}) and steps.at_set_{key}.output.checked != true %}}")
            elif control == "checkboxes":
                for number, option in enumerate(f["options"], start=1):
                    sid = f"set_{key}_{number}"
                    wanted = f"({jsonata_string(option['value'])} in input.{key})"
                    given = f"{{% $exists(input.{key}) %}}"
                    click_step(workflow, sid, option["locator"], when=given, click_when=f"{{% $exists(input.{key}) and {wanted} != steps.at_{sid}.output.checked %}}")
            elif control == "select":
                if observe_step is None:
                    observe_step = workflow.add("observe", "refs.observe", {"max_bytes": 1000000}, description="the page's controls with refs, to choose options by ref")
                ref = f["ref"]
                pick = f"{{% steps.{observe_step}.output.elements[role = {jsonata_string(ref['role'])} and name = {jsonata_string(ref['name'])}][0].ref %}}"
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
            click_step(workflow, "submit", submit["locator"], settle_after=settle_after, description=f"click {quote(submit.get('name') or 'submit')}")
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
            self.note("form", f"the form has {form['other_submits']} more submit button(s); the tool clicks {quote((submit or {}).get('name') or '')}", name)
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
        reads = read_back(workflow, self.regions, region_ids)
        what = f"the {quote(label)} form" if label else f"the form under {quote(form['heading'])}" if form.get("heading") else "the form"
        button = f" with its {quote(submit['name'])} button" if submit and submit.get("name") else ""
        fields_text = f" Fields: {', '.join(filled)}." if filled else ""
        after = "the page it loads (URL, title, heading)" if extra else "the page's status text and URL after"
        if form.get("role") == "search":
            description = f"Search {self.title} with {what.replace('the form', 'its search form', 1)}{button}.{fields_text} Returns {after}."
        else:
            description = f"Fill in and submit {what} on {self.title}{button}.{fields_text} Returns {after}."
        tool: dict[str, Any] = {"name": name, "description": description, "input_schema": schema}
        if form.get("locator"):
            tool["target"] = dict(form["locator"])
        tool["workflow"] = workflow.document(output_expression(f"'submitted': {submitted}", reads, extra))
        tool["result_schema"] = result_schema("submitted", reads, navigates=bool(extra))
        self.guard(tool, (submit or {}).get("name") or label or form_slug, label, form.get("id") or "", form.get("action") or "")
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
                    self.note("field", f"{quote(label)} has a pattern JSON Schema cannot read ({f['pattern']}); the draft leaves it out", tool)
                else:
                    # Patterns also run on RE2 (docs/manifest-language.md, "Regular expressions"): one it cannot run would make the draft invalid.
                    if pattern_problem(pattern) is not None:
                        self.note("field", f"{quote(label)} has a pattern the server cannot check in linear time ({f['pattern']}); the draft leaves it out", tool)
                    else:
                        prop["pattern"] = pattern
            if f.get("type") == "password":
                prop["writeOnly"] = True
                self.note("field", f"{quote(label)} is a password field: the agent will type a secret into it; leave it out unless that is meant", tool)
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
            self.note("field", f"the field {quote(f.get('name') or f.get('id') or '?')} has no label: describe it", tool)
        return prop

    def _skipped(self, tool: str, f: dict[str, Any], label: str) -> None:
        reason = f.get("reason")
        what = quote(label or f.get("name") or f.get("type") or "?")
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
        workflow = DraftWorkflow(self.max_steps)
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
        name = self.name(f"search_{slug(label, fallback='box', limit=30)}" if many and slug(label, fallback="") not in ("", "search") else "search")
        workflow = DraftWorkflow(self.max_steps)
        workflow.add("ready", "locator.wait_for", {"locator": box["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description="wait for the search box")
        workflow.add("type", "text.insert", {"target": box["locator"], "text": "{% input.query %}", "mode": "replace"})
        workflow.add("enter", "keyboard.press", {"key": "Enter"}, description="some pages search on Enter, others as you type")
        reads = read_back(workflow, self.regions, [int(i) for i in box.get("regions") or []])
        tool = {
            "name": name,
            "description": f"Search {self.title}: type the query into its {quote(label)} box and press Enter. Returns the page's status text and URL after.",
            "input_schema": {"type": "object", "properties": {"query": {"type": "string", "description": label}}, "required": ["query"], "additionalProperties": False},
            "target": dict(box["locator"]),
            "workflow": workflow.document(output_expression("'searched': true", reads)),
            "result_schema": result_schema("searched", reads),
        }
        self.tools.append(tool)
        self.counts["search_boxes"] += 1

    def control(self, control: dict[str, Any], kind: str) -> None:
        label = control["name"]
        verb = "click" if kind == "button" else "open"
        name = self.name(f"{verb}_{slug(label, fallback=kind, limit=36)}")
        workflow = DraftWorkflow(self.max_steps)
        workflow.add("ready", "locator.wait_for", {"locator": control["locator"], "state": "visible", "timeout_ms": READY_TIMEOUT_MS}, description=f"wait for the {kind}")
        reads: list[tuple[str, str]] = []
        if kind == "button":
            click_step(workflow, "click", control["locator"])
            reads = read_back(workflow, self.regions, [int(i) for i in control.get("regions") or []][:1])
            output = output_expression("'clicked': true", reads)
        else:
            new_tab = control.get("target") == "_blank"
            if not new_tab:
                workflow.add("before", "page.info", {}, on_error="continue", description="where the tab is before the click")
            click_step(workflow, "click", control["locator"])
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
            description = f"Click the {quote(label)} button on {self.title}. Returns the page's status text and URL after."
        else:
            path = urlsplit(control.get("href") or "").path or "/"
            description = f"Follow the {quote(label)} link on {self.title} (to {path}). Returns the URL and title of the page it opens."
        flag = "clicked" if kind == "button" else "opened"
        tool: dict[str, Any] = {
            "name": name,
            "description": description,
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
            "target": dict(control["locator"]),
            "workflow": workflow.document(output),
            "result_schema": result_schema(flag, reads),
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
            left = ", ".join(quote(c["name"], 30) for c in ranked[limit : limit + 5])
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
