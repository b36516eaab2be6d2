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

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .. import __version__
from ..manifest.limits import DEFAULT_LIMITS
from ..manifest.validate import check_manifest
from .draft_explore import draft_explored
from .draft_words import RISKY_WORDS, origin_of, risk_word
from .drafter import MAX_BUTTONS, MAX_LINKS, Draft, Drafter, ReviewItem

if TYPE_CHECKING:
    from .explore import Exploration

__all__ = ["MAX_BUTTONS", "MAX_LINKS", "RISKY_WORDS", "Draft", "ReviewItem", "draft_map", "origin_of", "risk_word"]


def draft_map(
    page: dict[str, Any], *, url: str, created_at: str, max_steps: int = DEFAULT_LIMITS.max_steps, exploration: Exploration | None = None
) -> Draft:
    """The draft map of the page ``reader.js`` described (``url`` is the page's; ``created_at`` an ISO time).

    ``exploration`` is what ``explore.explore`` found on the page: the tools it revealed are drafted by
    ``draft_explore.draft_explored``; without it, the lone text fields it would have tried are named in
    the review as skipped.
    """
    page_url = str(page.get("url") or url)
    drafter = Drafter(page, page_url, max_steps)
    drafter.draft()
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
