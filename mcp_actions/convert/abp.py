"""ABP manifests (``<link rel="abp-manifest">``) as actions.json maps.

Each capability becomes one tool with the capability's ``inputSchema`` (an
empty object schema when it has none) and ``outputSchema`` as the result
schema; it runs through the ``abp.call`` primitive with the capability name
bound. Deprecated capabilities are skipped; experimental ones say so in
their description.
"""

from __future__ import annotations

from typing import Any

from .naming import safe_dotted_name, safe_identifier

__all__ = ["abp_to_actions", "is_abp_manifest"]


def is_abp_manifest(document: Any) -> bool:
    """True for an object with ``abp``, ``app`` and a ``capabilities`` list."""
    return isinstance(document, dict) and "abp" in document and isinstance(document.get("app"), dict) and isinstance(document.get("capabilities"), list)


def _object_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict) and schema.get("type", "object") == "object":
        return {"type": "object", **{k: v for k, v in schema.items() if k != "type"}}
    if isinstance(schema, dict):
        # ABP allows any schema for params; actions.json inputs are objects, so wrap it.
        return {"type": "object", "properties": {"value": schema}, "required": ["value"]}
    return {"type": "object", "properties": {}}


def _tool(namespace: str, capability: dict[str, Any]) -> dict[str, Any]:
    name = str(capability["name"])
    description = str(capability.get("description") or f"ABP capability {name}")
    if capability.get("experimental") is True:
        description += " (experimental)"
    x_actions: dict[str, Any] = {"direction": "agent_to_html", "handler": "abp.call", "binding": {"arguments": {"capability": name}}}
    if isinstance(capability.get("outputSchema"), dict):
        x_actions["result_schema"] = capability["outputSchema"]
    return {
        "name": f"{namespace}.{safe_dotted_name(name, fallback='capability')}",
        "description": description,
        "input_schema": _object_schema(capability.get("inputSchema")),
        "x_actions": x_actions,
        "x_abp": {"capability": name},
    }


def abp_to_actions(document: dict[str, Any], *, source: str | None = None) -> dict[str, Any]:
    """The actions.json map of an ABP manifest."""
    app = document["app"]
    namespace = safe_identifier(str(app.get("id") or app.get("name") or "abp").split(".")[-1], fallback="abp").lower()
    tools = [
        _tool(namespace, capability)
        for capability in document["capabilities"]
        if isinstance(capability, dict) and isinstance(capability.get("name"), str) and capability["name"] and capability.get("deprecated") is not True
    ]
    surface: dict[str, Any] = {"name": str(app.get("name") or namespace), "kind": "app"}
    if isinstance(app.get("description"), str):
        surface["description"] = app["description"]
    if isinstance(app.get("homepage"), str) and app["homepage"].startswith(("http://", "https://")):
        surface["origin"] = app["homepage"].rstrip("/")
    manifest: dict[str, Any] = {
        "protocol": "actions.json",
        "version": 1,
        "surface": surface,
        "tools": tools,
        "x_abp": {"abp": str(document.get("abp")), "app": {k: app[k] for k in ("id", "name", "version") if k in app}},
        "provenance": {"generated_by": "mcp-actions convert", "converted_from": "abp"},
    }
    if source:
        manifest["provenance"]["source"] = source
    return manifest
