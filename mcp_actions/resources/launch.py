"""What ``actions://bridge/launch`` shows: how to connect, what loaded, what failed and why.

A view only: the composition root hands it the running parts (the bridge's
endpoint, the map reports, the policy and audit log's state) and serves the
result as the resource (docs/mcp-surface.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..bridge.websocket import BridgeServer
from ..extension import connect_url
from ..manifest.load import ManifestReport

__all__ = ["extension_connect_url", "launch_report"]


def extension_connect_url(endpoint: BridgeServer | None, token: str) -> str | None:
    """The browser extension's connect page for this bridge (None without a bridge port)."""
    return connect_url(endpoint.http_url, token) if endpoint else None


def launch_report(
    *,
    endpoint: BridgeServer | None,
    token: str,
    mcp_http: dict[str, Any] | None,
    browser: dict[str, Any],
    reports: Iterable[ManifestReport],
    tools: Sequence[str],
    policy: dict[str, Any] | None,
    audit_log: str | None,
    audit_health: dict[str, Any],
    runtimes: Iterable[RuntimeInfo],
    failed_maps: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The launch report (``browser``: ``{mode, started, cdp_endpoint}``; ``reports``: every map tried;
    ``failed_maps``: those that failed, ``{file, errors, last_good_served?}``, files' and runtimes')."""
    return {
        "bridge": {
            "websocket_url": endpoint.url if endpoint else None,
            # With the page credential, never the start token: this URL goes into pages (docs/bridge-protocol.md).
            "runtime_js": endpoint.script_url() if endpoint else None,
            "status_page": f"{endpoint.http_url}/" if endpoint else None,
            "token_hint": "pass ?token=… (printed on stderr at start, or set --bridge-token)",
            "bookmarklet": endpoint.bookmarklet() if endpoint else None,
            # Set when the default port was taken (another server runs) and a free one serves instead.
            "port_note": endpoint.port_note if endpoint else None,
            # The browser extension's connect page (docs/extension.md): share tabs of the user's own browser.
            "extension_connect_url": extension_connect_url(endpoint, token),
        },
        "mcp": mcp_http,
        "browser": browser,
        "manifests": [{"file": r.file, "valid": r.valid, "errors": [p.to_dict() for p in r.errors], "warnings": [p.to_dict() for p in r.warnings]} for r in reports],
        "tools": sorted(tools),
        # The maps that failed to load, and whether the last good version of each still serves (an edit broke it).
        "failed_maps": list(failed_maps),
        "policy": policy,
        "audit_log": audit_log,
        # Whether calls can run: while the log cannot be written they are refused (audit_unavailable).
        "audit_health": audit_health,
        "runtimes": [r.describe() for r in runtimes],
    }
