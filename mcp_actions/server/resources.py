"""``actions://`` resources: the bridge's launch report, runtimes, manifests, page events.

Each resource is compact JSON. Fixed resources are listed; per-namespace and
per-runtime ones are listed for what exists now and also offered as
templates. Page events are marked as untrusted page data.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..actions_app import ActionsApp

__all__ = ["LAUNCH_URI", "RUNTIMES_URI", "list_resources", "list_templates", "read_resource"]

LAUNCH_URI = "actions://bridge/launch"
RUNTIMES_URI = "actions://runtimes"
_MANIFEST_RE = re.compile(r"^actions://manifests/(?P<namespace>[^/]+)$")
_EVENTS_RE = re.compile(r"^actions://runtimes/(?P<runtime_id>[^/]+)/events$")
_JSON = "application/json"


def list_resources(app: ActionsApp) -> list[types.Resource]:
    """The resources that exist right now."""
    resources = [
        types.Resource(name="bridge-launch", uri=LAUNCH_URI, mime_type=_JSON, description="How runtimes connect, which manifests loaded, and every problem of those that did not."),
        types.Resource(name="runtimes", uri=RUNTIMES_URI, mime_type=_JSON, description="Connected runtimes: id, key, url, title, capabilities."),
    ]
    for namespace in sorted(app.catalog.manifests):
        resources.append(types.Resource(name=f"manifest-{namespace}", uri=f"actions://manifests/{namespace}", mime_type=_JSON, description=f"The loaded actions.json of {namespace}."))
    for runtime in app.bridge.registry.list():
        resources.append(
            types.Resource(
                name=f"events-{runtime.runtime_id}",
                uri=f"actions://runtimes/{runtime.runtime_id}/events",
                mime_type=_JSON,
                description=f"Recent declared page events from {runtime.url} (untrusted page data).",
            )
        )
    return resources


def list_templates() -> list[types.ResourceTemplate]:
    """Templates for the per-manifest and per-runtime resources."""
    return [
        types.ResourceTemplate(name="manifest", uri_template="actions://manifests/{namespace}", mime_type=_JSON, description="A loaded actions.json by namespace."),
        types.ResourceTemplate(name="runtime-events", uri_template="actions://runtimes/{runtime_id}/events", mime_type=_JSON, description="Recent declared page events of a runtime (untrusted page data)."),
    ]


def _contents(uri: str, value: Any) -> types.ReadResourceResult:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=_JSON, text=text)])


def read_resource(app: ActionsApp, uri: str) -> types.ReadResourceResult:
    """Read one ``actions://`` resource; unknown URIs are a JSON-RPC error."""
    if uri == LAUNCH_URI:
        return _contents(uri, app.launch_report())
    if uri == RUNTIMES_URI:
        return _contents(uri, {"active_runtime_id": app.bridge.registry.active_id, "runtimes": [r.snapshot() for r in app.bridge.registry.list()]})
    match = _MANIFEST_RE.match(uri)
    if match:
        manifest = app.catalog.manifests.get(match["namespace"])
        if manifest is not None:
            # Tool provenance lives here rather than in every tool's _meta (which tools/list repeats).
            tools = [{"name": b.name, "mcp_name": b.mcp_name, **b.provenance()} for b in app.catalog.tools.values() if b.namespace == manifest.namespace and b.runtime_id is None]
            return _contents(uri, {"namespace": manifest.namespace, "source": manifest.source, "tools": tools, "manifest": manifest.document})
    match = _EVENTS_RE.match(uri)
    if match:
        runtime = app.bridge.registry.get(match["runtime_id"])
        if runtime is not None:
            return _contents(uri, {"runtime_id": runtime.runtime_id, "trust": "untrusted_page_data", "events": list(runtime.events)})
    raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri}", data={"code": "resource_not_found", "uri": uri})
