"""WAB discovery documents (``/agent-bridge.json``) as actions.json maps.

Each command of ``capabilities.commands`` becomes one tool: its params become
the input schema (JSON Schema types, ``required``, ``enum``, ``default`` and
descriptions carried over), and it runs through the ``wab.execute`` primitive
with the command's name bound. The document's permissions and rate limit are
kept under ``x_wab`` so a reviewer sees them; the bridge enforces them when it
serves the site through its WAB adapter.
"""

from __future__ import annotations

from typing import Any

from .naming import safe_dotted_name, safe_identifier

__all__ = ["TRIGGER_PERMISSIONS", "is_wab_discovery", "wab_to_actions"]

#: The permission each trigger needs (WAB §4.5): a command whose permission is false is refused.
TRIGGER_PERMISSIONS: dict[str, str] = {
    "click": "click",
    "fill_and_submit": "fillForms",
    "scroll": "scroll",
    "navigate": "navigate",
    "api": "apiAccess",
}

_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})


def is_wab_discovery(document: Any) -> bool:
    """True for an object with ``wab_version`` and ``capabilities.commands``."""
    return (
        isinstance(document, dict)
        and "wab_version" in document
        and isinstance(document.get("capabilities"), dict)
        and isinstance(document["capabilities"].get("commands"), list)
    )


def _param_schema(param: dict[str, Any]) -> dict[str, Any]:
    kind = param.get("type")
    schema: dict[str, Any] = {"type": kind} if kind in _JSON_TYPES else {}
    if isinstance(param.get("description"), str) and param["description"]:
        schema["description"] = param["description"]
    if isinstance(param.get("enum"), list) and param["enum"]:
        schema["enum"] = list(param["enum"])
    if "default" in param:
        schema["default"] = param["default"]
    return schema


def _input_schema(params: list[Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in params:
        if not isinstance(param, dict) or not isinstance(param.get("name"), str) or not param["name"]:
            continue
        properties[param["name"]] = _param_schema(param)
        if param.get("required") is True:
            required.append(param["name"])
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _namespace(document: dict[str, Any]) -> str:
    provider = document.get("provider") if isinstance(document.get("provider"), dict) else {}
    return safe_identifier(str(provider.get("name") or "wab"), fallback="wab").lower()


def _tool(namespace: str, command: dict[str, Any], permissions: dict[str, Any]) -> dict[str, Any]:
    name = str(command.get("name") or "")
    trigger = str(command.get("trigger") or "")
    permission = TRIGGER_PERMISSIONS.get(trigger)
    tool: dict[str, Any] = {
        "name": f"{namespace}.{safe_dotted_name(name, fallback='command')}",
        "description": str(command.get("description") or f"WAB command {name}"),
        "input_schema": _input_schema(command.get("params") if isinstance(command.get("params"), list) else []),
        "x_actions": {
            "direction": "agent_to_html",
            "handler": "wab.execute",
            "binding": {"arguments": {"command": name}},
        },
        "x_wab": {"command": name, "trigger": trigger, "requires_auth": command.get("requiresAuth") is True},
    }
    if permission is not None:
        tool["x_wab"]["permission"] = permission
        tool["x_wab"]["permitted"] = permissions.get(permission) is not False
    return tool


def wab_to_actions(document: dict[str, Any], *, source: str | None = None) -> dict[str, Any]:
    """The actions.json map of a WAB discovery document."""
    provider = document.get("provider") if isinstance(document.get("provider"), dict) else {}
    capabilities = document["capabilities"]
    permissions = capabilities.get("permissions") if isinstance(capabilities.get("permissions"), dict) else {}
    namespace = _namespace(document)
    tools = [_tool(namespace, command, permissions) for command in capabilities["commands"] if isinstance(command, dict) and command.get("name")]
    surface: dict[str, Any] = {"name": str(provider.get("name") or namespace), "kind": str(provider.get("category") or "site")}
    if isinstance(provider.get("url"), str) and provider["url"].startswith(("http://", "https://")):
        surface["origin"] = provider["url"].rstrip("/")
    security = document.get("security") if isinstance(document.get("security"), dict) else {}
    manifest: dict[str, Any] = {
        "protocol": "actions.json",
        "version": 1,
        "surface": surface,
        "tools": tools,
        "x_wab": {
            "wab_version": str(document.get("wab_version")),
            "permissions": permissions,
            "max_rate": security.get("max_rate", 60),
        },
        "provenance": {"generated_by": "mcp-actions convert", "converted_from": "wab"},
    }
    if source:
        manifest["provenance"]["source"] = source
    return manifest
