"""WAB (Web Agent Bridge) on the host side: the protocol's object, discovery, permissions, rate limits, error mapping.

``WAB`` (a ``PageProtocol``, see ``page_protocol.py``): a runtime's WAB
commands are those its page's own WAB bridge lists (``page_tools["wab"]``)
and those of its site's discovery document (found by ``wab_discovery.py``,
which hands both on to exposure); ``wab_manifest`` makes them one map of the
runtime (through ``convert.wab``, as ``mcp-actions convert`` does a
discovery document); ``WabRunner`` runs them through ``wab.execute``.

Discovery (WAB §4.1, §6.2): ``https://{host}/agent-bridge.json``, then
``/.well-known/wab.json``, then the document the page's
``<meta name="wab-discovery" content="…">`` names, fetched with httpx under
``MAX_DISCOVERY_BYTES`` and ``DISCOVERY_TIMEOUT_S``; a document that is not a
WAB discovery document is ignored.

The server fetches only what it can vouch for (docs/mcp-surface.md, WAB):
the two fixed paths of the page's *origin*, never the page's URL (whose path
and query a runtime announced), and no redirect. The meta tag is read in the
live page only (``read_meta``, a ``dom.extract``); a page that cannot be read
there has no meta-tag document, and its HTML is never fetched. The document
the tag names must be on the page's origin and carry no query, fragment or
credentials (``meta_target``). Which runtimes are looked at at all is the
caller's choice (``wab_discovery.py``: proved runtimes only).

Before a command reaches the page, the trigger's permission is
checked (a false permission is ``permission_denied``; the page's own
commands are exposed only once the look for the site's document has ended,
``wab_discovery.py``, so no call runs before its permissions are known) and the site's
``security.max_rate`` (commands per minute) is enforced, as is a
``retryAfter`` the site answered with; WAB error codes map onto our stable
codes with the WAB code in ``evidence.wab_code``.
"""

from __future__ import annotations

import collections
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..bridge.bridge import Bridge
from ..catalog.catalog import ToolBinding
from ..convert.wab import is_wab_discovery, wab_to_actions
from ..errors import ActionError, ErrorCode
from ..jsonutil import strict_loads
from .page_maps import marked, renamed

if TYPE_CHECKING:  # httpx is imported when a discovery runs, not when the server starts (issue 55)
    import httpx
from .page_protocol import Discovery, PageProtocol, PageToolCall, SiteDocument

__all__ = [
    "DISCOVERY_META",
    "DISCOVERY_PATHS",
    "META_EXTRACT",
    "UNREAD",
    "WAB",
    "WAB_BRIDGES",
    "RateLimiter",
    "WabRunner",
    "binding_max_rate",
    "discover",
    "discovery_client",
    "map_wab_error",
    "meta_from_records",
    "meta_target",
    "origin_of",
    "transport_arguments",
    "wab_manifest",
]

log = logging.getLogger(__name__)

DISCOVERY_PATHS = ("/agent-bridge.json", "/.well-known/wab.json")
#: ``<meta name=…>`` naming the discovery document (WAB §4.1).
DISCOVERY_META = "wab-discovery"
MAX_DISCOVERY_BYTES = 256 * 1024
DISCOVERY_TIMEOUT_S = 5.0

#: WAB error codes (Appendix B) and the stable code each becomes.
WAB_CODES: dict[str, ErrorCode] = {
    "INVALID_COMMAND": ErrorCode.INVALID_INPUT,
    "INVALID_PARAMS": ErrorCode.INVALID_INPUT,
    "INVALID_METHOD": ErrorCode.UNKNOWN_ACTION,
    "ACTION_NOT_FOUND": ErrorCode.UNKNOWN_ACTION,
    "AUTHENTICATION_REQUIRED": ErrorCode.PERMISSION_DENIED,
    "INVALID_TOKEN": ErrorCode.PERMISSION_DENIED,
    "SESSION_EXPIRED": ErrorCode.PERMISSION_DENIED,
    "PERMISSION_DENIED": ErrorCode.PERMISSION_DENIED,
    "ORIGIN_MISMATCH": ErrorCode.PERMISSION_DENIED,
    "SELECTOR_BLOCKED": ErrorCode.PERMISSION_DENIED,
    "SANDBOX_VIOLATION": ErrorCode.PERMISSION_DENIED,
    "SIGNATURE_INVALID": ErrorCode.PERMISSION_DENIED,
    "SELECTOR_NOT_FOUND": ErrorCode.TARGET_NOT_FOUND,
    "RATE_LIMITED": ErrorCode.RATE_LIMITED,
    "DUPLICATE_COMMAND_ID": ErrorCode.HANDLER_FAILED,
    "EXECUTION_FAILED": ErrorCode.HANDLER_FAILED,
    "BRIDGE_ERROR": ErrorCode.HANDLER_FAILED,
    "TRANSPORT_ERROR": ErrorCode.TRANSPORT_FAILED,
    "TIMEOUT": ErrorCode.HANDLER_TIMEOUT,
    "UNSUPPORTED_VERSION": ErrorCode.CAPABILITY_UNAVAILABLE,
}


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL (credentials dropped), else None (also for a malformed one)."""
    try:
        parts = urlsplit(url or "")
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        return None
    host = parts.netloc.rpartition("@")[2]  # user:password@ never travels with a discovery request
    return f"{parts.scheme}://{host}" if parts.scheme in ("http", "https") and parts.hostname else None


async def _fetch_json(client: httpx.AsyncClient, url: str) -> Any:
    """The JSON document at ``url`` (status 200, at most ``MAX_DISCOVERY_BYTES``), or None."""
    async with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
        if response.status_code != 200:
            return None  # a redirect too: the client follows none (``discovery_client``)
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_DISCOVERY_BYTES:
                log.warning("WAB discovery document at %s exceeds %d bytes; ignored", url, MAX_DISCOVERY_BYTES)
                return None
    try:
        return strict_loads(bytes(body))  # a document becomes a map: strict as a map file (no repeated key, no NaN)
    except (ValueError, RecursionError):
        return None


def meta_target(content: str | None, page_url: str) -> str | None:
    """A ``wab-discovery`` meta tag's ``content`` resolved against the page, or None.

    None when the tag is absent, names another origin (a page cannot hand its tools'
    description to another site), or carries a query, a fragment or credentials:
    the server GETs this URL itself, so nothing a page wrote may turn the GET into a
    request with parameters (``/admin/reset?confirm=yes``).
    """
    if content is None or not content.strip():
        return None
    url = urljoin(page_url, content.strip())
    if origin_of(url) != origin_of(page_url):
        log.info("ignoring a wab-discovery meta tag that names another origin")
        return None
    parts = urlsplit(url)
    if parts.query or parts.fragment or "@" in parts.netloc or "?" in content or "#" in content:
        log.info("ignoring a wab-discovery meta tag that names a URL with a query, a fragment or credentials")
        return None
    return url


#: What ``discover``'s ``read_meta`` answers when it could not read the live page: no meta-tag document then.
UNREAD = object()
#: The ``dom.extract`` arguments that read the meta tag from a live page (``meta_from_records`` reads the answer).
META_EXTRACT = {
    "extract": [{"id": "wab", "selector": f'meta[name="{DISCOVERY_META}" i]', "many": False, "fields": {"content": {"attribute": "content"}}}]
}


def meta_from_records(output: Any) -> str | None:
    """The meta tag's ``content`` from the answer to a ``META_EXTRACT`` call (None when the page has none)."""
    records = output.get("records") if isinstance(output, dict) else None
    record = records.get("wab") if isinstance(records, dict) else None
    content = record.get("content") if isinstance(record, dict) else None
    return content if isinstance(content, str) else None


def discovery_client() -> httpx.AsyncClient:
    """The HTTP client discovery uses: short timeout, no redirects (a document must be where it is looked for).

    A redirect is never followed, to another origin or within one: the server GETs only
    the URLs ``discover`` chose. Building one costs ~40 ms of CPU (its TLS context): a
    server keeps one for every discovery rather than paying that beside each navigation.
    """
    import httpx

    return httpx.AsyncClient(timeout=DISCOVERY_TIMEOUT_S, follow_redirects=False)


async def discover(
    page_url: str, client: httpx.AsyncClient | None = None, *, read_meta: Callable[[], Awaitable[Any]] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """``(url, document)`` of the site's WAB discovery document, or None when it has none.

    Only the fixed paths of ``page_url``'s origin are fetched (``DISCOVERY_PATHS``), never
    ``page_url`` itself. ``client`` (from ``discovery_client``) is used and left open;
    without one, a client is made for this call. ``read_meta``, asked only when neither
    well-known path has a document, reads the page's ``wab-discovery`` meta content from
    the live page (None: the page has none; ``UNREAD``: it could not tell); the document
    it names is fetched when ``meta_target`` allows it. Without ``read_meta``, or when it
    cannot tell, there is no meta-tag document: the page's HTML is never fetched.
    """
    import httpx

    origin = origin_of(page_url)
    if origin is None:
        return None
    if client is None:
        async with discovery_client() as own:
            return await discover(page_url, own, read_meta=read_meta)
    for path in DISCOVERY_PATHS:
        url = origin + path
        try:
            document = await _fetch_json(client, url)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            log.info("no WAB discovery at %s: %s", url, exc)
            continue
        if is_wab_discovery(document):
            return url, document
    meta = await read_meta() if read_meta is not None else UNREAD
    target = meta_target(meta, page_url) if isinstance(meta, str) else None  # None or UNREAD: no tag to follow
    if target is None:
        return None
    try:
        document = await _fetch_json(client, target)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        log.info("no WAB discovery through the meta tag of %s: %s", origin, exc)
        return None
    return (target, document) if is_wab_discovery(document) else None


def transport_arguments(bound: Any) -> dict[str, Any]:
    """The ``wab.execute`` arguments that say where a command goes, from a tool's bound arguments.

    ``http`` (``{url, body}``: the site's execute endpoint, POSTed from the page) or
    ``bridge`` (``AICommands`` or ``__wab_protocol``: the page's own JS bridge); neither
    means the JS bridge the page has.
    """
    out: dict[str, Any] = {}
    if not isinstance(bound, dict):
        return out
    http = bound.get("http")
    if isinstance(http, dict) and isinstance(http.get("url"), str) and http["url"]:
        out["http"] = {"url": http["url"], "body": "name" if http.get("body") == "name" else "action"}
    elif bound.get("bridge") in ("AICommands", "__wab_protocol"):
        out["bridge"] = bound["bridge"]
    return out


def map_wab_error(exc: ActionError, command: str) -> ActionError:
    """A page-side WAB failure under our stable code, the WAB code kept in the evidence."""
    wab_code = exc.evidence.get("wab_code") if isinstance(exc.evidence, dict) else None
    if not isinstance(wab_code, str):
        return exc
    code = WAB_CODES.get(wab_code, ErrorCode.HANDLER_FAILED)
    evidence = {**exc.evidence, "command": command, "protocol": "wab"}
    return ActionError(exc.message, code=code, evidence=evidence)


class RateLimiter:
    """Per-site command budget: ``max_rate`` per 60 s, and any ``retryAfter`` the site asked for."""

    WINDOW_S = 60.0

    def __init__(self) -> None:
        self._calls: dict[str, collections.deque[float]] = {}
        self._blocked_until: dict[str, float] = {}

    def check(self, site: str, max_rate: int) -> None:
        """Count one command for ``site``; ``rate_limited`` (with ``retry_after_s``) when over budget."""
        now = time.monotonic()
        until = self._blocked_until.get(site, 0.0)
        if now < until:
            raise ActionError(
                f"{site} asked to wait before the next command",
                code=ErrorCode.RATE_LIMITED,
                evidence={"site": site, "retry_after_s": round(until - now, 1), "source": "site"},
            )
        calls = self._calls.setdefault(site, collections.deque())
        while calls and now - calls[0] >= self.WINDOW_S:
            calls.popleft()
        if len(calls) >= max_rate:
            raise ActionError(
                f"{site} allows {max_rate} commands per minute",
                code=ErrorCode.RATE_LIMITED,
                evidence={"site": site, "max_rate": max_rate, "retry_after_s": round(self.WINDOW_S - (now - calls[0]), 1), "source": "max_rate"},
            )
        calls.append(now)

    def retry_after(self, site: str, seconds: float) -> None:
        """The site answered RATE_LIMITED: refuse its commands here until ``seconds`` have passed."""
        self._blocked_until[site] = time.monotonic() + max(0.0, seconds)


#: Where a page's own WAB bridge lives (``bridge`` of ``wab.execute``), by the name the page reports.
WAB_BRIDGES = ("__wab_protocol", "AICommands")


def _wab_page_actions(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The actions a page's WAB bridge lists (``page_tools["wab"]``: ``{name, description, params, trigger?, bridge}``)."""
    actions: list[dict[str, Any]] = []
    for tool in tools:
        action: dict[str, Any] = {k: tool[k] for k in ("name", "description", "params", "trigger", "category") if k in tool}
        actions.append(action)
    return actions


def wab_manifest(
    document: dict[str, Any] | None,
    *,
    url: str | None,
    document_url: str | None = None,
    page_tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The actions.json map of a site's WAB commands (through ``convert.wab``).

    ``document`` is the site's discovery document (read at ``document_url``; its HTTP
    execute endpoint is resolved against it), ``page_tools`` the actions the page's own
    bridge lists (``window.__wab_protocol.actions`` of the WAB browser client, or
    ``AICommands.getActions()``), run through that bridge. A name both declare is the
    document's. Permissions and the rate limit are the document's (default 60 a minute).
    """
    base = document_url or url
    manifest = wab_to_actions(document, base=base) if document is not None else None
    permissions = manifest["x_wab"]["permissions"] if manifest is not None else {}
    if page_tools:
        own = wab_to_actions(
            {"wab_version": "page", "actions": _wab_page_actions(page_tools), "capabilities": {"permissions": permissions}},
            base=base,
        )
        bridges = {str(t.get("name")): t.get("bridge") for t in page_tools}
        for tool in own["tools"]:
            command = tool["x_wab"]["command"]
            bridge = bridges.get(command)
            if bridge in WAB_BRIDGES:
                tool["x_actions"]["binding"]["arguments"]["bridge"] = bridge
                tool["x_wab"]["interface"] = f"window.{bridge}"
        if manifest is None:
            manifest = own
            manifest["x_wab"]["wab_version"] = "page"
        else:
            manifest["tools"] += own["tools"]  # after the document's: a name both declare stays the document's
    if manifest is None:
        raise ValueError("a WAB map needs a discovery document or page tools")
    manifest = renamed(manifest, url, "command", "wab")
    # Commands whose trigger needs a permission the site denies stay listed: calling one
    # answers permission_denied (the runner checks before anything reaches the page).
    max_rate = manifest["x_wab"].get("max_rate")
    for tool in manifest["tools"]:
        tool["x_wab"]["max_rate"] = max_rate if isinstance(max_rate, int) and not isinstance(max_rate, bool) and max_rate >= 1 else 60
    return marked(manifest)


def _maps(page_tools: list[dict[str, Any]] | None, *, url: str | None, site_document: SiteDocument | None = None) -> list[dict[str, Any]]:
    """The site's document with the page's own actions; failing that, the page's own actions still serve."""
    if site_document is None and not page_tools:
        return []
    candidates = [
        wab_manifest(
            site_document["document"] if site_document is not None else None,
            url=url,
            document_url=site_document["url"] if site_document is not None else None,
            page_tools=page_tools,
        )
    ]
    if site_document is not None and page_tools:
        candidates.append(wab_manifest(None, url=url, page_tools=page_tools))
    return candidates


def _x_wab(binding: ToolBinding) -> dict[str, Any]:
    tool = binding.tool
    x_wab = (tool.model_extra or {}).get("x_wab", {}) if tool is not None else {}
    return x_wab if isinstance(x_wab, dict) else {}


def binding_max_rate(binding: ToolBinding) -> int:
    """The site's ``security.max_rate`` (commands per minute) kept on the tool, default 60."""
    rate = _x_wab(binding).get("max_rate")
    return rate if isinstance(rate, int) and not isinstance(rate, bool) and rate >= 1 else 60


class WabRunner:
    """Runs WAB commands through ``wab.execute``, within the site's permissions and rate budget (one per application)."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.rates = RateLimiter()

    async def run(self, call: PageToolCall) -> Any:
        """The command's result, or ``ActionError`` (refused before the page, or the site's WAB code mapped)."""
        command, binding, runtime = call.page_name, call.binding, call.runtime
        x_wab = _x_wab(binding)
        if x_wab.get("permitted") is False:
            # WAB §4.5: refused here, before anything reaches the page.
            raise ActionError(
                f"the site does not permit {x_wab.get('permission')}, which command {command} ({x_wab.get('trigger')}) needs",
                code=ErrorCode.PERMISSION_DENIED,
                evidence={"command": command, "trigger": x_wab.get("trigger"), "permission": x_wab.get("permission"), "protocol": "wab", "wab_code": "PERMISSION_DENIED"},
            )
        site = origin_of(runtime.url) or runtime.runtime_id
        self.rates.check(site, binding_max_rate(binding))
        # Where the command goes (the site's HTTP endpoint, POSTed from the page, or a named page bridge), from the plan.
        where = transport_arguments(dict(binding.execution.bound_arguments))
        try:
            return await self.bridge.call(
                "wab.execute",
                {"command": command, "params": call.own, **where},
                runtime_id=runtime.runtime_id,
                timeout_ms=call.deadline.remaining_ms(),
                origin=call.origin,
            )
        except ActionError as exc:
            mapped = map_wab_error(exc, command)
            retry = mapped.evidence.get("retry_after_s") if isinstance(mapped.evidence, dict) else None
            if mapped.code == ErrorCode.RATE_LIMITED and isinstance(retry, (int, float)):
                self.rates.retry_after(site, float(retry))
            raise mapped from exc


#: WAB: a site's commands, from its discovery document and its page's own bridge.
WAB = PageProtocol(
    name="wab",
    title="WAB",
    primitive="wab.execute",
    name_key="command",
    discovery=Discovery(page_tools=True, site_document=True),
    maps=_maps,
    make_runner=WabRunner,
    convert=wab_to_actions,
)
