"""Authoring maps: ``mcp-actions init`` drafts an actions.json map of a live page.

The page is read in the browser by one JavaScript function (``reader.js``, run
with the page engine's own role, name, visibility and locator code, so each
locator it reports resolves to exactly one element the way the engine
resolves it); ``read_page`` runs it in a tab. ``draft_map`` turns that
page description into a map (forms, WebMCP tools, search boxes, main buttons
and links as tools, with a review list kept as ``x_init_review``) and returns a
``Draft`` of ``ReviewItem``s. ``draft_page`` opens a URL in headless Chromium
(the browser host, as ``mcp-actions check`` does), waits for it to settle and
drafts it; ``run_init_command`` is the command itself. Only the command line
imports this package.
"""

from .draft import Draft, ReviewItem, draft_map
from .init import draft_page, run_init_command
from .reader import read_page

__all__ = ["Draft", "ReviewItem", "draft_map", "draft_page", "read_page", "run_init_command"]
