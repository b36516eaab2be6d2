"""Routing: choose exactly one runtime for a call, or say precisely why not.

Selectors narrow the connected runtimes in this order: ``runtime_id``,
``runtime_key``, ``url_contains``, ``title_contains`` (all explicit), then
the manifest's ``surface_origin`` (implicit). One candidate left: that one.
Several left after explicit selectors only: ``ambiguous_runtime`` (the caller
asked for something that names several). Several left otherwise: top-level
documents are preferred over frames (a page embedding a same-origin iframe is
one page to a map's surface, not two), then the active runtime if it is one of
them, else ``ambiguous_runtime``. In implicit (surface) routing, a runtime whose
identity is unproved (``RuntimeInfo.proved`` false: a page runtime) is dropped
whenever a proved one (the server's own tab, a paired extension tab, an
operator's runtime) shows the site too: what a page says of itself never
decides where a map's call, and the password in it, goes. None left: ``runtime_not_found`` saying what
was asked. Explicit fields still reach a frame: its ``runtime_id`` or
``runtime_key``, or a predicate only it matches.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from ..errors import ActionError, ErrorCode
from ..file_urls import local_file
from .registry import RuntimeInfo

__all__ = ["WEB_SCHEMES", "Route", "front_page", "opens_itself", "page_origin", "select_runtime", "surface_matches"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


@dataclass(frozen=True)
class Route:
    """What a call asks of the runtime that should run it."""

    runtime_id: str | None = None
    runtime_key: str | None = None
    url_contains: str | None = None
    title_contains: str | None = None
    surface_origin: str | None = None

    @property
    def explicit(self) -> bool:
        """True when the caller named a runtime or predicate itself."""
        return any((self.runtime_id, self.runtime_key, self.url_contains, self.title_contains))

    def asked(self) -> dict[str, Any]:
        """The selectors that were set, for error evidence."""
        return {key: value for key, value in asdict(self).items() if value}

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any], *, surface_origin: str | None = None) -> Route:
        """Build a route from the MCP routing fields (``target_runtime_id`` and friends)."""
        return cls(
            runtime_id=arguments.get("target_runtime_id"),
            runtime_key=arguments.get("target_runtime_key"),
            url_contains=arguments.get("target_url_contains"),
            title_contains=arguments.get("target_title_contains"),
            surface_origin=surface_origin,
        )


def _port(parts: Any) -> int | None:
    try:
        return parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None


#: Schemes whose ``surface.origin`` is a web origin: scheme, host and port, never a path.
WEB_SCHEMES = ("http", "https", "ws", "wss")


def surface_matches(origin: str, url: str) -> bool:
    """Does a runtime at ``url`` belong to a manifest surface with this ``origin``?

    Scheme, host (``*`` wildcards allowed, as in ``https://*.example.com``) and
    port must agree. A web origin is only that (the spec's ``surface.origin``
    is the site's origin): a path, query or fragment written there is not
    relied on, and ``validate`` warns about it. Other schemes (``file:``, a
    test's ``memory:``) compare their path as a prefix.
    """
    if not origin or not url:
        return False
    want, have = urlsplit(origin), urlsplit(url)
    if want.scheme != have.scheme:
        return False
    if want.scheme == "file":
        return (have.netloc + have.path).startswith(want.netloc + want.path)
    host_ok = fnmatch.fnmatchcase((have.hostname or "").lower(), (want.hostname or "").lower())
    if not host_ok or _port(want) != _port(have):
        return False
    if want.scheme in WEB_SCHEMES or want.path in ("", "/"):
        return True
    return have.path.startswith(want.path.rstrip("/"))


def opens_itself(origin: str | None) -> TypeGuard[str]:
    """Whether a map's ``surface.origin`` is a site the server can open for it: concrete http(s), no wildcard."""
    return origin is not None and origin.startswith(("http://", "https://")) and "*" not in origin


def page_origin(url: str | None) -> str | None:
    """``scheme://host[:port]`` of a page's URL, or None for a blank tab or a URL without a host.

    A local file has no origin: its own URL stands for one (``file:///path``, ``file_urls.local_file``),
    so the policy's ``origins`` globs can name files and the audit line says which file a call read.
    """
    if not url:
        return None
    local = local_file(url)
    if local is not None:
        return local
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def front_page(origin: str) -> str:
    """The page the server opens for a map whose site has no tab: the origin's root (``scheme://host[:port]/``).

    Only the origin counts; a path written in ``surface.origin`` is not relied on.
    """
    parts = urlsplit(origin)
    return f"{parts.scheme}://{parts.netloc}/"


def select_runtime(runtimes: Sequence[RuntimeInfo], route: Route, *, active_id: str | None = None) -> RuntimeInfo:
    """Pick the single runtime ``route`` designates; raise ``ActionError`` otherwise."""
    candidates = list(runtimes)
    if route.runtime_id:
        candidates = [r for r in candidates if r.runtime_id == route.runtime_id]
    if route.runtime_key:
        candidates = [r for r in candidates if r.runtime_key == route.runtime_key]
    if route.url_contains:
        candidates = [r for r in candidates if route.url_contains in (r.url or "")]
    if route.title_contains:
        candidates = [r for r in candidates if route.title_contains in (r.title or "")]
    if route.surface_origin and not (route.runtime_id or route.runtime_key):
        # An explicit id or key wins over the surface; predicates are narrowed further by it.
        candidates = [r for r in candidates if surface_matches(route.surface_origin, r.url)]
        if not route.explicit:
            proved = [r for r in candidates if r.proved]
            candidates = proved or candidates
    if not candidates:
        raise _not_found(route, len(runtimes))
    if len(candidates) == 1:
        return candidates[0]
    if not route.explicit:
        # Implicit (surface) routing: a frame only takes the call when no top-level document could.
        top_level = [r for r in candidates if not r.frame]
        if len(top_level) == 1:
            return top_level[0]
        candidates = top_level or candidates
    if not route.explicit and active_id is not None:
        for candidate in candidates:
            if candidate.runtime_id == active_id:
                return candidate
    raise ActionError(
        f"{len(candidates)} runtimes match; name one with target_runtime_id or target_runtime_key",
        code=ErrorCode.AMBIGUOUS_RUNTIME,
        evidence={"asked": route.asked(), "candidates": [c.describe() for c in candidates]},
    )


def _not_found(route: Route, connected: int) -> ActionError:
    asked = route.asked()
    evidence: dict[str, Any] = {"asked": asked, "connected": connected}
    if not connected:
        message = "no runtime is connected"
    elif asked:
        message = "no connected runtime matches " + ", ".join(f"{k}={v!r}" for k, v in asked.items())
    else:
        message = "no runtime matches"
    if route.surface_origin and not route.explicit:
        # Only the map's site was asked for: what helps is opening a page of it, not retrying.
        message += f"; no page of {route.surface_origin} is open: open the tool's page with browser_navigate first"
        evidence["next"] = "browser_navigate"
    return ActionError(message, code=ErrorCode.RUNTIME_NOT_FOUND, evidence=evidence)
