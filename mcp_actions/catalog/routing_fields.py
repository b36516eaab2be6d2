"""The routing fields every tool accepts: which runtime a call runs on, and its time limit (docs/mcp-surface.md, Tools).

Flat (``target_runtime_id``, ``target_runtime_key``, ``target_url_contains``,
``target_title_contains``, ``timeout_ms``) or as one ``target`` object; a tool's own input
property of the same name belongs to the tool. ``with_routing_fields`` is what every listed
inputSchema shows of them, ``split_routing`` separates them from a call's own arguments, and
``ROUTING_HELP`` describes them once, in the server's instructions.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from ..defaults import DEFAULT_TIMEOUT_MS
from ..errors import ActionError, ErrorCode
from ..jsonutil import json_pointer

__all__ = ["ADVERTISED_ROUTING", "ROUTE_SELECTORS", "ROUTING_HELP", "ROUTING_PROPERTIES", "TARGET_KEYS", "is_routing_object", "split_routing", "with_routing_fields"]


#: Optional arguments every tool accepts to choose its runtime and bound its time (docs/mcp-surface.md, Tools),
#: flat. They are accepted by every tool but not spelled out in each schema: see ADVERTISED_ROUTING.
ROUTING_PROPERTIES: dict[str, dict[str, Any]] = {
    "target_runtime_id": {"type": "string", "description": "Run on the runtime with this id (see actions://runtimes)."},
    "target_runtime_key": {"type": "string", "description": "Run on the runtime announced with this runtime_key."},
    "target_url_contains": {"type": "string", "description": "Run on the one runtime whose URL contains this text."},
    "target_title_contains": {"type": "string", "description": "Run on the one runtime whose page title contains this text."},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": f"Give up after this many milliseconds (default {DEFAULT_TIMEOUT_MS})."},
}


#: The routing fields that name a runtime (all but ``timeout_ms``).
ROUTE_SELECTORS: tuple[str, ...] = tuple(key for key, spec in ROUTING_PROPERTIES.items() if spec["type"] == "string")

#: The keys of the nested ``target`` object and the flat field each one stands for.
TARGET_KEYS: dict[str, str] = {key.removeprefix("target_"): key for key in ROUTE_SELECTORS}

#: What every tool's inputSchema shows of routing: the two names and their types, nothing more.
#: Spelling the five flat fields out, each with its description, cost ~650 bytes per tool,
#: repeated in every tool of tools/list. ROUTING_HELP, in the server's instructions, says once
#: what ``target`` and ``timeout_ms`` are; a description on each field as well ("Page to run on
#: (see instructions)", "Time limit, ms": issue 34) cost 81 more bytes a tool, 486 of the board's
#: 3,361 B (six tools), where the budget for the whole list is 3 KB (issue 42; bench/README.md,
#: "Routing fields in tools/list"). Left out, they would save 59 bytes more a tool, but every
#: listed schema is closed (``additionalProperties: false``), and a closed schema that leaves
#: them out tells a host that checks arguments, or a model held to the schema, that routing is
#: refused. Ranges are checked on the server.
ADVERTISED_ROUTING: dict[str, dict[str, Any]] = {
    "target": {"type": "object"},
    "timeout_ms": {"type": "integer"},
}

#: Routing, described once for the whole tool list (the MCP server puts it in its instructions).
ROUTING_HELP = (
    "Every tool runs on one page. By default that is the page of the tool's site, else the active tab; to choose, "
    "pass target: {url_contains, title_contains, runtime_id or runtime_key} (ids and keys are in actions://runtimes; "
    "the flat forms target_url_contains, target_title_contains, target_runtime_id and target_runtime_key work too). "
    "timeout_ms is a call's time limit in milliseconds (default 30000). In every tool's schema, target (an object, "
    "undescribed) and timeout_ms (an integer, undescribed) are these."
)


def with_routing_fields(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An input schema plus the advertised routing fields (the manifest's own properties win)."""
    merged = copy.deepcopy(dict(schema))
    merged.setdefault("type", "object")
    properties = merged.setdefault("properties", {})
    for key, value in ADVERTISED_ROUTING.items():
        properties.setdefault(key, copy.deepcopy(value))
    return merged


def is_routing_object(value: Any) -> bool:
    """Whether ``value`` is a routing ``target``: an object whose keys are all routing keys (``TARGET_KEYS``).

    A locator (``{"selector": …}``, ``{"role": …, "name": …}``), which the spec also
    calls a target, has other keys, so it is never taken for routing.
    """
    return isinstance(value, Mapping) and bool(value) and all(key in TARGET_KEYS for key in value)


def split_routing(
    arguments: Mapping[str, Any], own_properties: Collection[str] = (), *, admits_other: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate routing fields (flat, as ``target_*``) from the tool's own arguments.

    A property the tool's own schema declares (``own_properties``) belongs to the
    tool even when it shares a routing field's name. A ``target`` the schema does
    not declare belongs to the tool too when the schema admits undeclared
    properties (``admits_other``) and the value is not a routing object (see
    ``is_routing_object``): an open-schema tool whose workflow reads
    ``input.target`` as a locator gets it. Otherwise a ``target`` object is
    unfolded into the flat fields; a flat field given as well must agree with it.
    Raises ``invalid_input`` for a ``target`` that is neither.
    """
    own: dict[str, Any] = {}
    routing: dict[str, Any] = {}
    target: Any = None
    for key, value in arguments.items():
        if key in own_properties:
            own[key] = value
        elif key in ROUTING_PROPERTIES:
            routing[key] = value
        elif key == "target" and (not admits_other or is_routing_object(value)):
            target = value
        else:
            own[key] = value
    if target is not None:
        _unfold_target(target, routing)
    return own, routing


def _unfold_target(target: Any, routing: dict[str, Any]) -> None:
    """Lay a routing ``target`` object into the flat fields of ``routing``; ``invalid_input`` when it is not one."""
    # The tool takes no argument named target, so this can only be routing: say how, in case
    # the caller meant something else (the flat fields cannot be mistaken for a tool's own).
    hint = "; to choose the page, use the flat fields target_url_contains, target_title_contains, target_runtime_id or target_runtime_key"
    if not isinstance(target, Mapping):
        raise ActionError(f"invalid arguments at /target: this tool takes no target argument, and routing's target must be an object{hint}", code=ErrorCode.INVALID_INPUT, evidence={"path": "/target"})
    for key, value in target.items():
        flat = TARGET_KEYS.get(key)
        pointer = json_pointer(["target", key])
        if flat is None:
            raise ActionError(
                f"invalid arguments at {pointer}: this tool takes no target argument, and {key!r} is not a routing key ({', '.join(TARGET_KEYS)}){hint}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": pointer, "allowed": list(TARGET_KEYS)},
            )
        if not isinstance(value, str):
            raise ActionError(f"invalid arguments at {pointer}: must be a string", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})
        if flat in routing and routing[flat] != value:
            raise ActionError(f"invalid arguments at {pointer}: {flat} says otherwise", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer, "conflicts_with": f"/{flat}"})
        routing[flat] = value
