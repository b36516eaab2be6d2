"""Dispatch against the shipped MemoryRuntime: a real Bridge, Catalog and ActionService around a SimPage."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.naming import mcp_tool_name
from mcp_actions.dispatch.builtins.registry import BUILTIN_TOOLS, builtin_bindings
from mcp_actions.dispatch.call.service import ActionService
from mcp_actions.manifest.load import LoadedManifest, load_document
from mcp_actions.runtimes.memory import MemoryRuntime

from .sim_page import SimPage


def manifest(*tools: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A v1 manifest around ``tools``."""
    return {"protocol": "actions.json", "version": 1, "surface": {"origin": "https://*.sim.test"}, "tools": list(tools), **root}


def workflow_tool(name: str, *steps: dict[str, Any], output: Any = None, properties: dict[str, Any] | None = None,
                  **extra: Any) -> dict[str, Any]:
    """A tool running a workflow of ``steps``."""
    body: dict[str, Any] = {"version": 1, "expression_language": "jsonata", "steps": list(steps)}
    if output is not None:
        body["output"] = output
    return {"name": name, "description": f"{name} (test)", "input_schema": {"type": "object", "properties": properties or {}},
            "workflow": body, **extra}


class Harness:
    """One service, one memory runtime on a simulated page."""

    def __init__(self, service: ActionService, runtime: MemoryRuntime, page: SimPage | None) -> None:
        self.service = service
        self.runtime = runtime
        self.page = page

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, **options: Any) -> Any:
        return await self.service.call(mcp_tool_name(tool), arguments or {}, **options)

    def bridge_calls(self) -> list[str]:
        """Names of every call the runtime received through the bridge, in order."""
        return [name if handler is None else f"handler:{handler}" for name, _, handler in self.runtime.calls]


@contextlib.asynccontextmanager
async def running(
    document: dict[str, Any] | LoadedManifest,
    page: SimPage | None = None,
    *,
    handlers: dict[str, Callable[[dict[str, Any]], Any]] | None = None,
    primitives: dict[str, Any] | None = None,
    capabilities: list[str] | None = None,
    **service_options: Any,
) -> AsyncIterator[Harness]:
    """A started bridge and runtime serving ``document``'s tools on ``page``."""
    loaded = document if isinstance(document, LoadedManifest) else load_document(document, source="test")
    assert isinstance(loaded, LoadedManifest), [p.to_dict() for p in loaded.errors]
    bridge = Bridge()
    await bridge.start()
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded])
    service = ActionService(bridge=bridge, catalog=catalog, browser=None, browser_mode="none",
                            builtins=BUILTIN_TOOLS, **service_options)
    runtime = MemoryRuntime(bridge, runtime_id="sim-1", url=page.url if page else "https://page.sim.test/",
                            handlers=handlers, primitives={**(page.primitives() if page else {}), **(primitives or {})},
                            capabilities=capabilities)
    await runtime.start()
    try:
        yield Harness(service, runtime, page)
    finally:
        await runtime.stop()
        await bridge.stop()
        assert bridge.pending_count == 0
