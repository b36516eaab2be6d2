"""``AppOptions``: everything ``mcp-actions serve`` can be told (docs/cli.md), as the composition root takes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .bridge.registry import EVENT_LOG_SIZE
from .defaults import DEFAULT_BRIDGE_PORT, DEFAULT_TIMEOUT_MS
from .manifest.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:  # only named: without --backplane nothing of the backplane is imported
    from .backplane.connection import BackplaneConnection
    from .operators.tokens import OAuthSettings

__all__ = ["AppOptions", "parse_cdp_headers"]


def parse_cdp_headers(lines: Sequence[str]) -> dict[str, str]:
    """``--cdp-header "Name: value"`` lines as a dict; ``ValueError`` naming a line that is not ``Name: value``."""
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or any(c.isspace() for c in name.strip()):
            raise ValueError(f"--cdp-header {line!r} is not 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


@dataclass
class AppOptions:
    """Everything ``mcp-actions serve`` can be told (see docs/cli.md)."""

    manifests: Sequence[str] = ()
    bridge_host: str = "127.0.0.1"
    bridge_port: int = DEFAULT_BRIDGE_PORT
    bridge_port_fallback: bool = True  # a taken bridge_port gives way to a free one (False: --bridge-port given, taken = error)
    bridge_token: str | None = None
    allowed_origins: Sequence[str] = ()
    browser: Literal["auto", "launch", "none"] = "auto"
    browser_path: str | None = None
    cdp_endpoint: str | None = None
    cdp_headers: Sequence[str] = ()  # --cdp-header "Name: value", sent with the CDP connection
    cdp_own_context: bool = False  # with cdp_endpoint: a fresh context of our own there, not the browser's tabs (embedding, tests)
    browser_endpoint: str | None = None  # --browser-endpoint: a Playwright browser server's ws:// URL (docs/sessions.md)
    shared_browser_context: bool = False  # --shared-browser-context: every HTTP session in one context (default: one each)
    max_sessions: int | None = None  # --max-sessions: HTTP sessions served at once (None: no limit of ours)
    session_idle_timeout: float = 1800.0  # --session-idle-timeout: an idle HTTP session's context is closed after this (s)
    headless: bool | None = None
    user_data_dir: str | None = None
    allow_file_urls: bool = False  # --allow-file-urls: agents may open and read local files (file_urls.py); closed by default
    upload_roots: Sequence[str] = ()  # --upload-root: directories page_fill {files} may read (dispatch/builtins/acting/page_files.py)
    isolated: bool = False
    default_timeout_ms: int = DEFAULT_TIMEOUT_MS
    event_log_size: int = EVENT_LOG_SIZE  # accepted page events kept per runtime (--event-log-size)
    serve_bridge: bool = True  # False: no WebSocket endpoint (in-process tests of the MCP layer only)
    tool_mode: Literal["tools", "site"] = "tools"  # site: the host sees actions.site and the browser tools only
    tools: Sequence[str] = ()  # --tools: expose only tools whose dotted name matches one of these globs
    exclude_tools: Sequence[str] = ()  # --exclude-tools: never expose tools matching these
    builtin_tools: Sequence[str] = ()  # --builtin-tools: the built-in groups tools/list shows (empty: auto)
    watch: bool = True  # reload the catalogue when a manifest file changes
    watch_debounce_ms: int = 150
    limits: Limits = DEFAULT_LIMITS  # workflow and projection limits (validation and run time)
    audit_log: str | None = None  # --audit-log: the JSON-lines file every call is appended to (None: no file)
    policy: str | None = None  # --policy: the rules file deciding calls before they reach a page (None: allow all)
    backplane: BackplaneConnection | None = None  # --backplane and its credentials and secret (None: one process alone); docs/deploying.md
    http_token: str | None = None  # --http-token, which replicas share (any of them serves any MCP request)
    learned_maps: str | None = None  # --learned-maps: where actions.save_tool writes maps, always loaded (None: no folder)
    bap_port: int | None = None  # --bap-port: serve BAP (Browser Agent Protocol) here too, 0 = any free port (None: off); docs/bap.md
    bap_host: str = "127.0.0.1"  # --bap-host
    bap_token: str | None = None  # --bap-token: what a BAP client presents (None: generated per start, printed on stderr)
    metrics_port: int | None = None  # --metrics-port: /metrics without a token on a port of its own (None: only the bridge port's)
    metrics_host: str = "127.0.0.1"  # --metrics-host
    oauth: OAuthSettings | None = None  # --oauth-issuer, --oauth-audience, --oauth-scopes: MCP authorization (operators/tokens.py, server/oauth.py)
