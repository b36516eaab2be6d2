"""What every page protocol's map has in common: its surface, its schemas, its page-supplied words marked, its names.

A page protocol (``page_protocol.py``) turns the tools a page declares into
one actions.json map of the runtime; these helpers keep those maps alike:
the surface is the page's site (``surface``), an input schema is always an
object (``object_schema``), every description starts with
``UNTRUSTED_DESCRIPTION`` and every title with ``UNTRUSTED_TITLE`` (``marked``), tools are named by the one naming
rule (``renamed``, ``naming.page_tool_name``) and a second tool of one safe
name is dropped (``unique``).

A page's descriptions are the page's words, read by the model as the tool's
meaning: each starts with ``UNTRUSTED_DESCRIPTION`` (and the MCP tool carries
``_meta["mcp-actions/untrusted"]``, ``server/tools.py``), so neither the model
nor the host takes them for the user's or a map's (docs/mcp-surface.md).
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

from ..page_chars import shown
from .naming import page_tool_name, site_namespace

__all__ = ["UNTRUSTED_DESCRIPTION", "UNTRUSTED_TITLE", "marked", "object_schema", "renamed", "surface", "unique"]

#: Before every description a page (or its site's WAB document) supplies. Short: a host pays
#: for each byte of tools/list on every turn.
UNTRUSTED_DESCRIPTION = "[page-supplied description, untrusted] "
#: Before a display title a page supplies (a host may show it to its user or its model as the tool's name).
UNTRUSTED_TITLE = "[page] "


def surface(url: str | None) -> dict[str, Any]:
    """The map's surface: the page's site namespace, and its origin when it has one."""
    found: dict[str, Any] = {"name": site_namespace(url), "kind": "page"}
    parts = urlsplit(url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        found["origin"] = f"{parts.scheme}://{parts.netloc}"
    return found


def object_schema(schema: Any) -> dict[str, Any]:
    """A page's input schema as an actions.json input schema (an object schema, without the page's ``$schema``)."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    copied: dict[str, Any] = copy.deepcopy(schema)
    copied.pop("$schema", None)  # a page's draft marker; ours is 2020-12
    copied.setdefault("type", "object")
    return copied


def marked(manifest: dict[str, Any]) -> dict[str, Any]:
    """Every tool's description, as the page gave it, after ``UNTRUSTED_DESCRIPTION``, and its title after ``UNTRUSTED_TITLE``.

    Both as a person would see them: no character that draws nothing (page_chars.shown: tag characters,
    bidi controls, zero-width characters) and no half of one.
    """
    for tool in manifest["tools"]:
        tool["description"] = UNTRUSTED_DESCRIPTION + shown(tool.get("description") or "")
        annotations = tool.get("annotations")
        if isinstance(annotations, dict) and isinstance(annotations.get("title"), str):
            annotations["title"] = UNTRUSTED_TITLE + shown(annotations["title"])
    return manifest


def unique(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools, each safe name once."""
    # Two page names that make the same safe name: the first keeps it, the rest are dropped (and
    # stay callable by their page names through the page itself).
    seen: set[str] = set()
    out = []
    for tool in tools:
        if tool["name"] not in seen:
            seen.add(tool["name"])
            out.append(tool)
    return out


def renamed(manifest: dict[str, Any], url: str | None, key: str, protocol: str) -> dict[str, Any]:
    """A converted map (``mcp_actions.convert``) named by the one rule: each tool after its page name ``x_<protocol>[key]``."""
    for tool in manifest["tools"]:
        own = tool[f"x_{protocol}"][key]
        tool["name"] = page_tool_name(url, own)
    manifest["tools"] = unique(manifest["tools"])
    manifest["surface"] = {**manifest["surface"], **{k: v for k, v in surface(url).items() if k == "origin"}}
    return manifest
