"""From a runtime's ``page_tools`` to actions.json maps the catalog exposes as that runtime's tools.

One map per protocol and runtime. WebMCP tools are converted here; ABP
capabilities and WAB commands go through ``mcp_actions.convert`` (the same
functions ``mcp-actions convert`` uses) and are then renamed by the one
naming rule (``naming.page_tool_name``). Each tool runs through its
protocol's page primitive (``webmcp.call``, ``abp.call``, ``wab.execute``)
with the page's own name bound in ``x_actions.binding.arguments``; the page's
input schema is the tool's, so arguments are checked before they reach the page.

A page's descriptions are the page's words, read by the model as the tool's
meaning: each starts with ``UNTRUSTED_DESCRIPTION`` (and the MCP tool carries
``_meta["mcp-actions/untrusted"]``, ``server/tools.py``), so neither the model
nor the host takes them for the user's or a map's (docs/mcp-surface.md).
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

from ..convert.abp import abp_to_actions
from ..convert.wab import wab_to_actions
from .naming import page_tool_name, site_namespace

__all__ = ["PAGE_PRIMITIVES", "UNTRUSTED_DESCRIPTION", "WAB_BRIDGES", "abp_manifest", "page_manifest", "wab_manifest", "webmcp_manifest"]

#: Before every description a page (or its site's WAB document) supplies. Short: a host pays
#: for each byte of tools/list on every turn.
UNTRUSTED_DESCRIPTION = "[page-supplied description, untrusted] "

#: The page primitive each protocol's tools run through, and the argument naming the tool.
PAGE_PRIMITIVES: dict[str, tuple[str, str]] = {
    "webmcp": ("webmcp.call", "tool"),
    "abp": ("abp.call", "capability"),
    "wab": ("wab.execute", "command"),
}


def _surface(url: str | None) -> dict[str, Any]:
    surface: dict[str, Any] = {"name": site_namespace(url), "kind": "page"}
    parts = urlsplit(url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        surface["origin"] = f"{parts.scheme}://{parts.netloc}"
    return surface


def _object_schema(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    copied: dict[str, Any] = copy.deepcopy(schema)
    copied.pop("$schema", None)  # a page's draft marker; ours is 2020-12
    copied.setdefault("type", "object")
    return copied


def _marked(manifest: dict[str, Any]) -> dict[str, Any]:
    """Every tool's description, as the page gave it, after ``UNTRUSTED_DESCRIPTION``."""
    for tool in manifest["tools"]:
        tool["description"] = UNTRUSTED_DESCRIPTION + str(tool.get("description") or "")
    return manifest


def _unique(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Two page names that make the same safe name: the first keeps it, the rest are dropped (and
    # stay callable by their page names through the page itself).
    seen: set[str] = set()
    out = []
    for tool in tools:
        if tool["name"] not in seen:
            seen.add(tool["name"])
            out.append(tool)
    return out


def webmcp_manifest(tools: list[dict[str, Any]], *, url: str | None) -> dict[str, Any]:
    """The actions.json map of a page's WebMCP tools (descriptors from ``webmcp.list_tools``)."""
    converted = []
    for tool in tools:
        name = tool["name"]
        entry: dict[str, Any] = {
            "name": page_tool_name(url, name),
            "description": tool.get("description") or f"WebMCP tool {name} of this page",
            "input_schema": _object_schema(tool.get("inputSchema")),
            "x_actions": {"direction": "agent_to_html", "handler": "webmcp.call", "binding": {"arguments": {"tool": name}}},
            "x_webmcp": {"tool": name, "kind": tool.get("kind", "imperative")},
        }
        # The page's hints become MCP's: readOnlyHint as it is, the tool's title as the display title.
        hints: dict[str, Any] = {}
        annotations = tool.get("annotations")
        if isinstance(annotations, dict) and isinstance(annotations.get("readOnlyHint"), bool):
            hints["readOnlyHint"] = annotations["readOnlyHint"]
        if isinstance(tool.get("title"), str) and tool["title"].strip():
            hints["title"] = tool["title"].strip()[:200]
        if hints:
            entry["annotations"] = hints
        converted.append(entry)
    return _marked(
        {
            "protocol": "actions.json",
            "version": 1,
            "surface": _surface(url),
            "tools": _unique(converted),
            "provenance": {"generated_by": "mcp-actions", "converted_from": "webmcp"},
        }
    )


def _renamed(manifest: dict[str, Any], url: str | None, key: str, protocol: str) -> dict[str, Any]:
    for tool in manifest["tools"]:
        own = tool[f"x_{protocol}"][key]
        tool["name"] = page_tool_name(url, own)
    manifest["tools"] = _unique(manifest["tools"])
    manifest["surface"] = {**manifest["surface"], **{k: v for k, v in _surface(url).items() if k == "origin"}}
    return manifest


def abp_manifest(tools: list[dict[str, Any]], *, url: str | None, app: dict[str, Any] | None = None) -> dict[str, Any]:
    """The actions.json map of a page's available ABP capabilities (through ``convert.abp``)."""
    document = {"abp": "0.1", "app": app or {"id": site_namespace(url), "name": site_namespace(url)}, "capabilities": tools}
    return _marked(_renamed(abp_to_actions(document), url, "capability", "abp"))


#: Where a page's own WAB bridge lives (``bridge`` of ``wab.execute``), by the name the page reports.
WAB_BRIDGES = ("__wab_protocol", "AICommands")


def _wab_page_actions(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The actions a page's WAB bridge lists (``page_tools["wab"]``: ``{name, description, params, trigger?, bridge}``)."""
    actions: list[dict[str, Any]] = []
    for tool in tools:
        action: dict[str, Any] = {k: tool[k] for k in ("name", "description", "params", "trigger", "category") if k in tool}
        actions.append(action)
    return actions


def wab_manifest(
    document: dict[str, Any] | None,
    *,
    url: str | None,
    document_url: str | None = None,
    page_tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The actions.json map of a site's WAB commands (through ``convert.wab``).

    ``document`` is the site's discovery document (read at ``document_url``; its HTTP
    execute endpoint is resolved against it), ``page_tools`` the actions the page's own
    bridge lists (``window.__wab_protocol.actions`` of the WAB browser client, or
    ``AICommands.getActions()``), run through that bridge. A name both declare is the
    document's. Permissions and the rate limit are the document's (default 60 a minute).
    """
    base = document_url or url
    manifest = wab_to_actions(document, base=base) if document is not None else None
    permissions = manifest["x_wab"]["permissions"] if manifest is not None else {}
    if page_tools:
        own = wab_to_actions(
            {"wab_version": "page", "actions": _wab_page_actions(page_tools), "capabilities": {"permissions": permissions}},
            base=base,
        )
        bridges = {str(t.get("name")): t.get("bridge") for t in page_tools}
        for tool in own["tools"]:
            command = tool["x_wab"]["command"]
            bridge = bridges.get(command)
            if bridge in WAB_BRIDGES:
                tool["x_actions"]["binding"]["arguments"]["bridge"] = bridge
                tool["x_wab"]["interface"] = f"window.{bridge}"
        if manifest is None:
            manifest = own
            manifest["x_wab"]["wab_version"] = "page"
        else:
            manifest["tools"] += own["tools"]  # after the document's: a name both declare stays the document's
    if manifest is None:
        raise ValueError("a WAB map needs a discovery document or page tools")
    manifest = _renamed(manifest, url, "command", "wab")
    # Commands whose trigger needs a permission the site denies stay listed: calling one
    # answers permission_denied (the runner checks before anything reaches the page).
    max_rate = manifest["x_wab"].get("max_rate")
    for tool in manifest["tools"]:
        tool["x_wab"]["max_rate"] = max_rate if isinstance(max_rate, int) and not isinstance(max_rate, bool) and max_rate >= 1 else 60
    return _marked(manifest)


def page_manifest(protocol: str, tools: list[dict[str, Any]], *, url: str | None) -> dict[str, Any]:
    """The actions.json map of one protocol's reported page tools."""
    if protocol == "webmcp":
        return webmcp_manifest(tools, url=url)
    if protocol == "abp":
        return abp_manifest(tools, url=url)
    raise ValueError(f"no page tools of protocol {protocol!r}")
