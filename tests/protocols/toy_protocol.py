"""A page protocol written by following docs/development.md, "Adding a page protocol": the module half.

``TOY`` is what a new protocol's module in ``mcp_actions/protocols/`` holds: its
candidate maps built with ``page_maps.py`` (the page's name bound under
``name_key``, the page primitive as the handler), a runner that sends a checked
call through that primitive, no converter, and where its tools are discovered.
``test_new_protocol.py`` adds the other half, the registry's line, and nothing
else, and finds the protocol's tools listed and running through the server.
"""

from __future__ import annotations

from typing import Any

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.protocols.page_maps import marked, object_schema, surface, unique
from mcp_actions.protocols.page_protocol import Discovery, PageProtocol, PageToolCall, SiteDocument

__all__ = ["TOY"]


def toy_manifest(tools: list[dict[str, Any]], *, url: str | None) -> dict[str, Any]:
    """The actions.json map of a page's toy tools."""
    converted = [
        {
            "name": TOY.tool_name(url, tool["name"]),
            "description": tool.get("description") or f"toy tool {tool['name']}",
            "input_schema": object_schema(tool.get("inputSchema")),
            "x_actions": {"handler": TOY.primitive, "binding": {"arguments": {TOY.name_key: tool["name"]}}},
        }
        for tool in tools
    ]
    return marked({"protocol": "actions.json", "version": 1, "surface": surface(url), "tools": unique(converted)})


def _maps(page_tools: list[dict[str, Any]] | None, *, url: str | None, site_document: SiteDocument | None = None) -> list[dict[str, Any]]:
    return [toy_manifest(page_tools, url=url)] if page_tools else []


class ToyRunner:
    """Runs toy tools through ``toy.run``."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    async def run(self, call: PageToolCall) -> Any:
        return await self.bridge.call(
            TOY.primitive,
            {"tool": call.page_name, "arguments": call.own},
            runtime_id=call.runtime.runtime_id,
            timeout_ms=call.deadline.remaining_ms(),
        )


TOY = PageProtocol(
    name="toy",
    title="Toy",
    primitive="toy.run",
    name_key="tool",
    discovery=Discovery(page_tools=True),
    maps=_maps,
    make_runner=ToyRunner,
)
