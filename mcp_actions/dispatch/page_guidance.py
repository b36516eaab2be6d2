"""What a model needs to hear when a map's tool meets the wrong page, and how to put it right.

A map names its site (``surface.origin``), not the page its tools work on.
Two situations then look like a broken page but are not, and a model that
only sees ``target_not_found`` retries in vain:

- no page is open at all: the tab is blank, or its last navigation failed.
  ``no_page_open`` refuses the call before it reaches the tab, naming the
  site and telling the model to open the tool's page with
  ``browser_navigate`` first (not retryable as it stands);
- the tab shows the site's front page, which the server opens by itself
  for a first call, while the tool works on another page of the site.
  ``on_front_page`` adds that to the error the tool failed with.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..bridge.registry import RuntimeInfo
from ..bridge.routing import opens_itself, surface_matches
from ..catalog.catalog import ToolBinding
from ..errors import ActionError, ErrorCode
from ..manifest.model import Manifest

__all__ = ["NAVIGATING_PRIMITIVES", "no_page_open", "on_front_page", "opens_its_own_page", "shows_no_page"]

#: Primitives that bring a tab to a page: a workflow that starts with one needs no page open before.
NAVIGATING_PRIMITIVES = frozenset({"browser.navigate", "browser.open_tab"})
#: Errors of a tool that looked for its page's elements or state and did not find them.
_PAGE_MISSES = frozenset({ErrorCode.TARGET_NOT_FOUND, ErrorCode.TARGET_NOT_VISIBLE, ErrorCode.STATE_MISMATCH, ErrorCode.MISSING_HANDLER})


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


def on_front_page(error: ActionError, binding: ToolBinding, runtime: RuntimeInfo) -> ActionError:
    """``error``, saying so when the tool failed on its site's front page (``error`` itself otherwise).

    The front page is what the server opens for a map's first call; a tool that
    works on another page of the site misses its elements there, and the model
    should navigate to that page rather than retry.
    """
    origin = binding.surface_origin
    if error.code not in _PAGE_MISSES or binding.page_tool or not opens_itself(origin):
        return error
    if not surface_matches(origin, runtime.url) or urlsplit(runtime.url).path not in ("", "/"):
        return error
    return ActionError(
        f"{error.message} (the tab shows {runtime.url}, the front page of the site; if {binding.mcp_name} works on "
        "another page of it, open that page with browser_navigate first)",
        code=error.code,
        severity=error.severity,
        recoverable=error.recoverable,
        evidence={**error.evidence, "front_page": runtime.url, "next": "browser_navigate"},
    )
