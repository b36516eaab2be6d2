"""What ``actions://bridge/launch`` shows: how to connect, what loaded, what failed and why; and the same on stderr.

A view only: the composition root hands it the running parts (the bridge's
endpoint, the map reports, the policy and audit log's state) and serves the
result as the resource (docs/mcp-surface.md). A request of an agent session
(docs/sessions.md) sees its own part too (``session_report``): a session
isolated from the others is shown its own bridge credential instead of the
operator's start token. ``tell_how_to_connect`` says the bridge's part once
on stderr when ``serve`` starts, for the person who started it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..bridge.scope import current_session, session_credential
from ..bridge.websocket import BridgeServer
from ..catalog.maps import USER_LOG
from ..extension import connect_url
from ..manifest.load import ManifestReport

__all__ = ["extension_connect_url", "launch_report", "session_report", "tell_how_to_connect"]


def extension_connect_url(endpoint: BridgeServer | None, token: str) -> str | None:
    """The browser extension's connect page for this bridge (None without a bridge port)."""
    return connect_url(endpoint.http_url, token) if endpoint else None


def tell_how_to_connect(endpoint: BridgeServer, token: str, *, token_given: bool) -> None:
    """Say on stderr, once, what the person who started ``serve`` needs: where runtimes connect, the status page, the extension's link.

    A replaced port is said first, then where runtimes connect with the status page, and the
    extension's connect link. The generated token on a line of its own (never a given one; it is in
    the status page's URL anyway) is for those who look for it (``--verbose``, or a log level of INFO
    or lower).
    """
    verbose = logging.getLogger().isEnabledFor(logging.INFO)
    if endpoint.port_note:  # said before the lines that show the new port, not after them
        USER_LOG.info("%s; choose the port with --bridge-port", endpoint.port_note)
    if verbose and not token_given:
        USER_LOG.info("bridge token for this run: %s", token)
    USER_LOG.info("runtimes connect at %s; status page %s", endpoint.url, endpoint.status_url())
    # Always said: the public contract (docs/extension.md) has serve show the extension's connect page on stderr.
    USER_LOG.info("to share tabs of your own browser (mcp-actions extension), open %s", extension_connect_url(endpoint, token))


def session_report(endpoint: BridgeServer | None, token: str) -> dict[str, Any] | None:
    """The current agent session's part: its id and the bridge credential its own runtimes connect with (None outside one)."""
    key = current_session()
    if key is None:
        return None
    report: dict[str, Any] = key.describe()
    if key.isolated and not key.anonymous:  # requests that name no session share that scope: it has no credential
        credential = session_credential(token, key.id)
        report["bridge_credential"] = credential
        # A program (or the spec runtime) connecting here with it is this session's runtime, seen by no other session.
        report["websocket_url"] = f"{endpoint.url}?token={credential}" if endpoint is not None else None
    return report


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
    backplane: dict[str, Any] | None = None,
    bap: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The launch report (``browser``: ``{mode, started, cdp_endpoint}``; ``reports``: every map tried;
    ``failed_maps``: those that failed, ``{file, errors, last_good_served?}``, files' and runtimes';
    ``backplane``: which replica this is, and whether it serves every replica's runtimes), with the
    current agent session's part (``session_report``) when a session asks."""
    report: dict[str, Any] = {
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
        # Where BAP clients connect (--bap-port; docs/bap.md): ``{url}``, the token never shown; None when off.
        "bap": bap,
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
    session = session_report(endpoint, token)
    if session is not None:
        report["session"] = session
        if session.get("isolated"):
            # The start token is the operator's: a session is shown its own credential instead (above).
            report["bridge"]["extension_connect_url"] = None
    if backplane is not None:
        report["backplane"] = backplane
    return report
