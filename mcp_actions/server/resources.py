"""``actions://`` resources: the bridge's launch report, runtimes, manifests, page events, state projections.

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
from ..errors import ActionError

__all__ = ["LAUNCH_URI", "RUNTIMES_URI", "list_resources", "list_templates", "parse_projection_uri", "projection_uris", "read_resource"]

LAUNCH_URI = "actions://bridge/launch"
RUNTIMES_URI = "actions://runtimes"
_MANIFEST_RE = re.compile(r"^actions://manifests/(?P<namespace>[^/]+)$")
_EVENTS_RE = re.compile(r"^actions://runtimes/(?P<runtime_id>[^/]+)/events$")
_PROJECTION_RE = re.compile(
    r"^actions://runtimes/(?P<runtime_id>[^/]+)/projections/(?P<projection>[^/]+)(?:/(?P<diff>diff)|/summaries/(?P<summary>[^/]+))?$"
)
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
        for name, projection in app.projections.projections(runtime.runtime_id).items():
            for uri in projection_uris(runtime.runtime_id, name, projection.summaries):
                what = "diff" if uri.endswith("/diff") else "summary" if "/summaries/" in uri else "state"
                resources.append(
                    types.Resource(name=f"projection-{runtime.runtime_id}-{name}-{uri.rsplit('/', 1)[-1] if what != 'state' else 'state'}", uri=uri, mime_type=_JSON, description=f"State projection {name} of {runtime.url} ({what}).")
                )
    return resources


def projection_uris(runtime_id: str, projection: str, summaries: Any = ()) -> list[str]:
    """The state, diff and summary URIs of one projection on one runtime."""
    base = f"actions://runtimes/{runtime_id}/projections/{projection}"
    return [base, f"{base}/diff", *(f"{base}/summaries/{name}" for name in summaries)]


def parse_projection_uri(uri: str) -> tuple[str, str, str, str | None] | None:
    """``(runtime_id, projection, kind, summary)`` of a projection URI (kind: state, diff or summary), else None."""
    match = _PROJECTION_RE.match(uri)
    if not match:
        return None
    kind = "diff" if match["diff"] else "summary" if match["summary"] else "state"
    return match["runtime_id"], match["projection"], kind, match["summary"]


def list_templates() -> list[types.ResourceTemplate]:
    """Templates for the per-manifest and per-runtime resources."""
    return [
        types.ResourceTemplate(name="manifest", uri_template="actions://manifests/{namespace}", mime_type=_JSON, description="A loaded actions.json by namespace."),
        types.ResourceTemplate(name="runtime-events", uri_template="actions://runtimes/{runtime_id}/events", mime_type=_JSON, description="Recent declared page events of a runtime (untrusted page data)."),
        types.ResourceTemplate(name="projection-state", uri_template="actions://runtimes/{runtime_id}/projections/{projection}", mime_type=_JSON, description="A state projection of a runtime's page: state, diagnostics.selector_counts, observed_at."),
        types.ResourceTemplate(name="projection-summary", uri_template="actions://runtimes/{runtime_id}/projections/{projection}/summaries/{summary}", mime_type=_JSON, description="A declared summary of a state projection, within its max_bytes."),
        types.ResourceTemplate(name="projection-diff", uri_template="actions://runtimes/{runtime_id}/projections/{projection}/diff", mime_type=_JSON, description="JSON Patch and record deltas of a state projection since it was last read."),
    ]


def _contents(uri: str, value: Any) -> types.ReadResourceResult:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=_JSON, text=text)])


async def _read_projection(app: ActionsApp, uri: str, parsed: tuple[str, str, str, str | None]) -> types.ReadResourceResult:
    runtime_id, projection, kind, summary = parsed
    if app.bridge.registry.get(runtime_id) is None or projection not in app.projections.projections(runtime_id):
        raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri}", data={"code": "resource_not_found", "uri": uri})
    try:
        if kind == "state":
            value = await app.projections.read(runtime_id, projection)
        elif kind == "diff":
            value = await app.projections.diff(runtime_id, projection)
        else:
            value = await app.projections.summary(runtime_id, projection, summary)
    except ActionError as exc:
        # A read that ran and failed (oversized, schema, page) is reported with its stable code.
        raise MCPError(types.INTERNAL_ERROR, exc.message, data={**exc.to_error(), "uri": uri}) from exc
    return _contents(uri, value)


async def read_resource(app: ActionsApp, uri: str) -> types.ReadResourceResult:
    """Read one ``actions://`` resource; unknown URIs are a JSON-RPC error."""
    parsed = parse_projection_uri(uri)
    if parsed is not None:
        return await _read_projection(app, uri, parsed)
    if uri == LAUNCH_URI:
        return _contents(uri, app.launch_report())
    if uri == RUNTIMES_URI:
        return _contents(uri, {"active_runtime_id": app.bridge.registry.active_id, "runtimes": [r.snapshot() for r in app.bridge.registry.list()]})
    match = _MANIFEST_RE.match(uri)
    if match:
        manifest = app.catalog.manifests.get(match["namespace"])
        if manifest is not None:
            return _contents(uri, {"namespace": manifest.namespace, "source": manifest.source, "manifest": manifest.document})
    match = _EVENTS_RE.match(uri)
    if match:
        runtime = app.bridge.registry.get(match["runtime_id"])
        if runtime is not None:
            return _contents(uri, {"runtime_id": runtime.runtime_id, "trust": "untrusted_page_data", "events": list(runtime.events)})
    raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri}", data={"code": "resource_not_found", "uri": uri})
