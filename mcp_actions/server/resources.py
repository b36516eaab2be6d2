"""The resource registry as MCP: ``resources/list``, ``resources/templates/list``, ``resources/read``.

Every resource is compact JSON text. Unknown URIs are the JSON-RPC error
``-32002`` (the MCP spec's "resource not found") with the structured error as
``data``; other failures (a runtime gone mid-read, a capability missing)
are ``INVALID_PARAMS`` with the structured error. Page events are marked as
untrusted page data by their provider; context blocks carry
``_meta["mcp-actions/kind"] = "documentation"``.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..errors import ActionError, ErrorCode
from ..resources import ResourceRegistry

__all__ = ["RESOURCE_NOT_FOUND", "list_resources", "list_templates", "read_resource"]

#: JSON-RPC error code the MCP spec gives a resource that does not exist.
RESOURCE_NOT_FOUND = -32002


def list_resources(registry: ResourceRegistry) -> list[types.Resource]:
    """The resources that exist right now."""
    return [
        types.Resource(name=e.name, uri=e.uri, mime_type=e.mime_type, description=e.description, _meta=dict(e.meta) or None)
        for e in registry.entries()
    ]


def list_templates(registry: ResourceRegistry) -> list[types.ResourceTemplate]:
    """A template for every parameterised provider."""
    return [
        types.ResourceTemplate(name=p.name, uri_template=p.template, mime_type=p.mime_type, description=p.description)
        for p in registry.providers()
        if p.is_template
    ]


async def read_resource(registry: ResourceRegistry, uri: str) -> types.ReadResourceResult:
    """Read one ``actions://`` resource as JSON text."""
    try:
        value: Any = await registry.read(uri)
    except ActionError as exc:
        code = RESOURCE_NOT_FOUND if exc.code == ErrorCode.RESOURCE_NOT_FOUND else types.INVALID_PARAMS
        raise MCPError(code, f"{exc.code}: {exc.message}", data={**exc.to_error(), "uri": uri}) from exc
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)])
