"""WAB discovery documents (``/agent-bridge.json``, ``/.well-known/wab.json``) as actions.json maps.

Two generations of the document are read:

- WAB 1.0 (the protocol text): ``wab_version``, ``provider``,
  ``capabilities.commands`` (objects with ``name``, ``trigger``, ``params``,
  ``requiresAuth``), ``capabilities.permissions``, ``transport`` (``js_global``
  and/or ``http.base_url``) and ``security.max_rate``;
- WAB 1.2 and later (what the WAB server middleware publishes): ``site``
  instead of ``provider``, the actions under a top-level ``actions`` list
  (``capabilities.commands`` becomes a list of generic verbs), ``endpoints``
  naming ``execute`` (``POST {action, params}`` answering ``{success, result,
  error}``) and ``security.rate_limit``.

Each action becomes one tool. Its ``params`` (a list of ``{name, type,
required, description, enum, default}``, or an object of name → such a spec)
become the input schema (``params_schema``: JSON Schema types, ``required``,
``enum``, ``default``, descriptions). It runs through the ``wab.execute``
primitive with the action's name bound, and, when the document names an HTTP
execute endpoint (``endpoints.execute``; or ``transport.http.base_url`` +
``/execute`` for a 1.0 document without the JS global), that endpoint bound as
``http: {url, body}``: the page then POSTs the command itself, with the
user's cookies (a command without a trigger is then an ``api`` command, which
needs ``apiAccess``). The permission each trigger needs, and whether the document
grants it, are kept under ``x_wab``; so are the document's permissions and
rate limit, which the server enforces when it serves the site.
"""

from __future__ import annotations

from typing import Any, TypeGuard
from urllib.parse import urljoin, urlsplit

from ..jsonutil import as_object
from .naming import safe_dotted_name, safe_identifier

__all__ = [
    "TRIGGER_PERMISSIONS",
    "http_transport",
    "is_wab_discovery",
    "max_rate_of",
    "params_schema",
    "wab_actions",
    "wab_to_actions",
]

#: The permission each trigger needs (WAB §4.5): a command whose permission is false is refused.
TRIGGER_PERMISSIONS: dict[str, str] = {
    "click": "click",
    "fill_and_submit": "fillForms",
    "scroll": "scroll",
    "navigate": "navigate",
    "api": "apiAccess",
}

_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
#: Type names WAB sites write that are not JSON Schema's own (``any`` and unknown names constrain nothing).
_TYPE_ALIASES = {
    "int": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "str": "string",
    "text": "string",
    "email": "string",
    "url": "string",
    "date": "string",
    "list": "array",
    "dict": "object",
    "map": "object",
}
_BOUNDS = {"minimum": (int, float), "maximum": (int, float), "minLength": (int,), "maxLength": (int,), "minItems": (int,), "maxItems": (int,)}


def _actions_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The action definitions: a top-level ``actions`` list (1.2) and object entries of ``capabilities.commands`` (1.0)."""
    found: list[dict[str, Any]] = []
    if isinstance(document.get("actions"), list):
        found += [a for a in document["actions"] if isinstance(a, dict)]
    capabilities = document.get("capabilities")
    if isinstance(capabilities, dict) and isinstance(capabilities.get("commands"), list):
        found += [c for c in capabilities["commands"] if isinstance(c, dict)]
    seen: set[str] = set()
    out = []
    for action in found:
        name = action.get("name")
        if isinstance(name, str) and name.strip() and name not in seen:
            seen.add(name)
            out.append(action)
    return out


def is_wab_discovery(document: Any) -> bool:
    """True for an object with ``wab_version`` and a list of actions (``actions``, or ``capabilities.commands``)."""
    if not isinstance(document, dict) or "wab_version" not in document:
        return False
    capabilities = document.get("capabilities")
    return isinstance(document.get("actions"), list) or (isinstance(capabilities, dict) and isinstance(capabilities.get("commands"), list))


def wab_actions(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's action definitions, each once (by name), in document order."""
    return _actions_of(document)


def _json_type(kind: Any) -> str | None:
    if not isinstance(kind, str):
        return None
    name = kind.strip().lower()
    if name in _JSON_TYPES:
        return name
    alias = _TYPE_ALIASES.get(name)
    return alias if isinstance(alias, str) else None


def _param_schema(param: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    kind = _json_type(param.get("type"))
    if kind is not None:
        schema["type"] = kind
    if isinstance(param.get("description"), str) and param["description"]:
        schema["description"] = param["description"]
    if isinstance(param.get("enum"), list) and param["enum"]:
        schema["enum"] = list(param["enum"])
    for key, types in _BOUNDS.items():
        value = param.get(key)
        if isinstance(value, types) and not isinstance(value, bool):
            schema[key] = value
    if "default" in param:
        schema["default"] = param["default"]
    elif "defaultValue" in param:  # the WAB browser client's spelling
        schema["default"] = param["defaultValue"]
    return schema


def params_schema(params: Any) -> dict[str, Any]:
    """The JSON Schema of an action's ``params``: a list of param specs, or an object of name → spec (or type name).

    Anything else (``null``, missing) declares no parameters. The schema is closed
    (``additionalProperties: false``): an action takes what it declares.
    """
    entries: list[tuple[str, dict[str, Any]]] = []
    if isinstance(params, list):
        entries = [(p["name"], p) for p in params if isinstance(p, dict) and isinstance(p.get("name"), str) and p["name"]]
    elif isinstance(params, dict):
        for name, spec in params.items():
            if isinstance(name, str) and name:
                entries.append((name, spec if isinstance(spec, dict) else {"type": spec}))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in entries:
        if name in properties:
            continue
        properties[name] = _param_schema(param)
        if param.get("required") is True:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _enabled(block: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(block, dict) and block.get("enabled") is True


def http_transport(document: dict[str, Any], *, base: str | None = None) -> dict[str, str] | None:
    """``{url, body}`` of the document's HTTP execute endpoint, or None when commands go to the page's JS global.

    ``body`` is ``action`` (``{action, params}``, what ``endpoints.execute`` takes) or
    ``name`` (``{name, data}``, the 1.0 text's ``{base_url}/execute``). ``url`` is
    resolved against ``base`` (the document's own URL) when given.
    """
    found: dict[str, str] | None = None
    endpoints = document.get("endpoints")
    if isinstance(endpoints, dict) and isinstance(endpoints.get("execute"), str) and endpoints["execute"].strip():
        found = {"url": endpoints["execute"].strip(), "body": "action"}
    else:
        transport = as_object(document.get("transport"))
        http = transport.get("http")
        if _enabled(http) and not _enabled(transport.get("js_global")) and isinstance(http.get("base_url"), str) and http["base_url"].strip():
            found = {"url": http["base_url"].strip().rstrip("/") + "/execute", "body": "name"}
    if found is not None and base:
        found["url"] = urljoin(base, found["url"])
    return found


def _origin(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    parts = urlsplit(url.strip())
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


def _site(document: dict[str, Any]) -> dict[str, Any]:
    """The site block: ``provider`` (1.0) or ``site`` (1.2), else the document's own ``name`` (the browser client's)."""
    for key in ("provider", "site"):
        block = document.get(key)
        if isinstance(block, dict):
            return block
    return {k: document[k] for k in ("name", "category", "url") if k in document}


def _namespace(document: dict[str, Any]) -> str:
    return safe_identifier(str(_site(document).get("name") or "wab"), fallback="wab").lower()


def max_rate_of(document: dict[str, Any]) -> int:
    """The site's command budget per minute: ``security.max_rate`` (1.0) or ``security.rate_limit`` (1.2), default 60."""
    security = as_object(document.get("security"))
    for key in ("max_rate", "rate_limit"):
        rate = security.get(key)
        if isinstance(rate, int) and not isinstance(rate, bool) and rate >= 1:
            return rate
    return 60


def _tool(namespace: str, command: dict[str, Any], permissions: dict[str, Any], http: dict[str, str] | None) -> dict[str, Any]:
    name = str(command.get("name"))
    trigger = str(command.get("trigger") or "")
    if not trigger and http is not None:
        trigger = "api"  # a command POSTed to the site's endpoint calls its API
    permission = TRIGGER_PERMISSIONS.get(trigger)
    binding: dict[str, Any] = {"command": name}
    if http is not None:
        binding["http"] = dict(http)
    tool: dict[str, Any] = {
        "name": f"{namespace}.{safe_dotted_name(name, fallback='command')}",
        "description": str(command.get("description") or f"WAB command {name}"),
        "input_schema": params_schema(command.get("params")),
        "x_actions": {"direction": "agent_to_html", "handler": "wab.execute", "binding": {"arguments": binding}},
        "x_wab": {
            "command": name,
            "trigger": trigger,
            "requires_auth": command.get("requiresAuth") is True,
            "transport": "http" if http is not None else "js_global",
        },
    }
    if isinstance(command.get("category"), str) and command["category"]:
        tool["x_wab"]["category"] = command["category"]
    if permission is not None:
        tool["x_wab"]["permission"] = permission
        tool["x_wab"]["permitted"] = permissions.get(permission) is not False
    return tool


def wab_to_actions(document: dict[str, Any], *, source: str | None = None, base: str | None = None) -> dict[str, Any]:
    """The actions.json map of a WAB discovery document.

    ``base`` is the URL the document was read from (the HTTP endpoint is resolved
    against it); without it, an ``http(s)`` ``source`` is used.
    """
    site = _site(document)
    base = base or (source if _origin(source) else None)
    capabilities = as_object(document.get("capabilities"))
    permissions = as_object(capabilities.get("permissions"))
    namespace = _namespace(document)
    http = http_transport(document, base=base)
    tools = [_tool(namespace, command, permissions, http) for command in _actions_of(document)]
    surface: dict[str, Any] = {"name": str(site.get("name") or namespace), "kind": str(site.get("category") or "site")}
    origin = _origin(site.get("url")) or _origin(document.get("baseUrl")) or _origin(base)
    if origin is not None:
        surface["origin"] = origin
    manifest: dict[str, Any] = {
        "protocol": "actions.json",
        "version": 1,
        "surface": surface,
        "tools": tools,
        "x_wab": {"wab_version": str(document.get("wab_version")), "permissions": permissions, "max_rate": max_rate_of(document)},
        "provenance": {"generated_by": "mcp-actions convert", "converted_from": "wab"},
    }
    if http is not None:
        manifest["x_wab"]["execute"] = http
    if source:
        manifest["provenance"]["source"] = source
    return manifest
