"""What a model needs to hear when a map's tool meets the wrong page, and how to put it right.

A map names its site (``surface.origin``), not the page its tools work on.
Two situations then look like a broken page but are not, and a model that
only sees ``target_not_found`` retries in vain:

- no page is open at all: the tab is blank, or its last navigation failed.
  ``no_page_open`` refuses the call before it reaches the tab, naming the
  site and telling the model to open the tool's page with
  ``browser_navigate`` first (not retryable as it stands);
- the tab is on another page than the tool's: another origin than the
  map's site, a URL its target does not name (``target.url_contains``), or
  the site's front page that the server opened by itself for this very call
  while the tool works on another page of the site. ``page_hint`` then adds
  "open that page with browser_navigate first" to the error.

On the tool's own page, a miss means something else, and the navigate hint
would send the model wandering (docs/mcp-surface.md, "Routing"):

- ``state_mismatch`` with no current state: the page no longer matches any
  state of the map; the map may be out of date (``mcp-actions check``);
- ``target_not_found`` from a locator whose filter (``has_text``, ``within``,
  ``has``; usually built from an argument) left nothing: no element matched
  that value, and what is there is listed (the page engine puts it in
  ``evidence.candidates``; the hint renders it within ``CANDIDATES_BUDGET``
  bytes when the message does not already).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from ...bridge.registry import RuntimeInfo
from ...bridge.routing import opens_itself, surface_matches
from ...catalog.catalog import ToolBinding
from ...errors import ActionError, ErrorCode
from ...manifest.model import Manifest

__all__ = ["CANDIDATES_BUDGET", "NAVIGATING_PRIMITIVES", "no_page_open", "opens_its_own_page", "page_hint", "shows_no_page"]

#: Primitives that bring a tab to a page: a workflow that starts with one needs no page open before.
NAVIGATING_PRIMITIVES = frozenset({"browser.navigate", "browser.open_tab"})
#: Errors of a tool that looked for its page's elements or state and did not find them.
_PAGE_MISSES = frozenset({ErrorCode.TARGET_NOT_FOUND, ErrorCode.TARGET_NOT_VISIBLE, ErrorCode.STATE_MISMATCH, ErrorCode.MISSING_HANDLER})
#: At most this many bytes of the page's candidates in a hint: the model pays for every byte of an error.
CANDIDATES_BUDGET = 200


def shows_no_page(url: str | None) -> bool:
    """Whether a tab at ``url`` shows no page of any site: blank, or the error page of a failed navigation."""
    return not url or url.startswith(("about:", "chrome-error:"))


def opens_its_own_page(binding: ToolBinding) -> bool:
    """Whether the tool's workflow navigates by itself (so a blank tab is a fine place to start it)."""
    workflow = binding.workflow
    return workflow is not None and any(step.primitive in NAVIGATING_PRIMITIVES for step in workflow.steps)


def site_name(binding: ToolBinding, manifest: Manifest | None) -> str:
    """How the model is told which site a tool belongs to: its map's origin, else its name, else the namespace."""
    surface = manifest.surface if manifest is not None else None
    if surface is not None and surface.origin and "*" not in surface.origin:
        return surface.origin
    if surface is not None and surface.name:
        return surface.name
    return binding.surface_origin or binding.namespace


def no_page_open(binding: ToolBinding, manifest: Manifest | None, runtime: RuntimeInfo) -> ActionError:
    """The refusal of a map's tool called while its tab shows no page (``runtime_not_found``, not retryable)."""
    site = site_name(binding, manifest)
    shown = runtime.url or "nothing"
    return ActionError(
        f"no page of {site} is open (the tab shows {shown}): call browser_navigate with the URL of the page "
        f"{binding.mcp_name} works on, then call {binding.mcp_name} again",
        code=ErrorCode.RUNTIME_NOT_FOUND,
        recoverable=False,
        evidence={"site": site, "url": runtime.url, "runtime_id": runtime.runtime_id, "retryable": False, "next": "browser_navigate"},
    )


def page_hint(error: ActionError, binding: ToolBinding, runtime: RuntimeInfo, *, opened_for_call: bool = False) -> ActionError:
    """``error`` with what to do next when a map's tool missed its page's elements or state (``error`` itself otherwise).

    ``opened_for_call``: the server opened the tab for this call (the site's front page, for a first call).
    """
    if error.code not in _PAGE_MISSES or binding.page_tool:
        return error
    elsewhere = _elsewhere(binding, runtime, opened_for_call)
    if elsewhere is not None:
        return _hinted(
            error,
            f"the tab shows {runtime.url}, {elsewhere}; if {binding.mcp_name} works on another page, open that page with browser_navigate first",
            next="browser_navigate",
            **({"front_page": runtime.url} if elsewhere.startswith("the front page") else {}),
        )
    candidates = error.evidence.get("candidates")
    if error.code == ErrorCode.TARGET_NOT_FOUND and isinstance(candidates, list):
        shown = "" if "there are:" in error.message else _rendered(candidates)
        there = f"; the page shows {shown}" if shown else ""
        return _hinted(error, f"no element matched that value{there}: call {binding.mcp_name} again with a value the page shows", next="retry_with_other_value")
    current = error.evidence.get("current_states")
    if error.code == ErrorCode.STATE_MISMATCH and isinstance(current, list) and not current:
        source = binding.origin.source
        check = f"mcp-actions check {source} --url {runtime.url}" if binding.origin.trust == "local" and not source.startswith("runtime:") else "mcp-actions check"
        return _hinted(
            error,
            f"the page matches none of the map's states: the page changed, or the map is out of date ({check} shows what drifted)",
            next="check_map",
        )
    return error


def _elsewhere(binding: ToolBinding, runtime: RuntimeInfo, opened_for_call: bool) -> str | None:
    """How the tab is on another page than the tool's, or None when nothing says it is."""
    origin, url = binding.surface_origin, runtime.url
    if not url:
        return None
    if origin and not surface_matches(origin, url):
        return f"not a page of {origin}, the site of {binding.mcp_name}'s map"
    target = binding.tool.target if binding.tool is not None else None
    wanted = target.url_contains if target is not None else None
    if wanted and wanted not in url:
        return f"not a page whose URL contains {wanted!r}, where {binding.mcp_name} works"
    if opened_for_call and opens_itself(origin) and urlsplit(url).path in ("", "/"):
        return "the front page of the site, opened for this call"
    return None


def _rendered(candidates: list[Any]) -> str:
    """The candidates' texts, quoted, within ``CANDIDATES_BUDGET`` bytes (an ellipsis for the rest)."""
    texts: list[str] = []
    for candidate in candidates:
        text = candidate.get("text") if isinstance(candidate, dict) else candidate if isinstance(candidate, str) else None
        if isinstance(text, str) and text.strip() and text.strip() not in texts:
            texts.append(text.strip())
    shown: list[str] = []
    used = 0
    for text in texts:
        quoted = json.dumps(text[:60] + ("…" if len(text) > 60 else ""), ensure_ascii=False)
        if used + len(quoted.encode()) + 2 > CANDIDATES_BUDGET:
            shown.append("…")
            break
        shown.append(quoted)
        used += len(quoted.encode()) + 2
    return ", ".join(shown)


def _hinted(error: ActionError, hint: str, **evidence: Any) -> ActionError:
    return ActionError(
        f"{error.message} ({hint})",
        code=error.code,
        severity=error.severity,
        recoverable=error.recoverable,
        evidence={**error.evidence, **evidence},
    )
