"""A registry of ``actions://`` resources keyed by URI template.

A ``ResourceProvider`` owns one URI template (RFC 6570 level 1: ``{name}``
stands for one path segment). It lists the resources of its template that
exist now, reads one by the template's parameters as a JSON value, and says
whether its resources change (then clients may subscribe). Another part of
the product plugs a resource in by registering a provider; registering a
template again replaces its provider, so a placeholder can give way to the
real thing.

Change travels the other way through ``updated(uri)`` and
``list_changed()``: the registry publishes ``ResourceUpdated`` and
``ResourcesListChanged`` on its event hub (``mcp_actions.events``), where the
MCP layer hears them and sends ``notifications/resources/updated`` and
``notifications/resources/list_changed`` to both protocol generations.
Nothing here knows MCP.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ..errors import ActionError, ErrorCode
from ..events import EventHub, ResourcesListChanged, ResourceUpdated

__all__ = ["JSON_MIME", "ResourceEntry", "ResourceProvider", "ResourceReader", "ResourceRegistry", "expand", "not_found"]

log = logging.getLogger(__name__)

JSON_MIME = "application/json"
_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ResourceEntry:
    """One resource that exists now."""

    uri: str
    name: str
    description: str
    mime_type: str = JSON_MIME
    #: Extra descriptive fields the MCP layer passes on as ``_meta`` (for example a documentation marker).
    meta: Mapping[str, Any] = field(default_factory=dict)


#: Reads one resource: the template's parameters -> a JSON value. Raise ``ActionError``
#: ``resource_not_found`` when the parameters name nothing.
ResourceReader = Callable[[Mapping[str, str]], Awaitable[Any]]


@dataclass(frozen=True)
class ResourceProvider:
    """The resources of one URI template: how to list them and how to read one."""

    template: str
    name: str
    description: str
    read: ResourceReader
    list: Callable[[], Iterable[ResourceEntry]] = lambda: ()
    subscribable: bool = True
    mime_type: str = JSON_MIME
    #: Told when a client subscribes to / unsubscribes from one of these resources (e.g. to start re-reading it).
    watch: Callable[[Mapping[str, str]], None] | None = None
    unwatch: Callable[[Mapping[str, str]], None] | None = None

    @property
    def is_template(self) -> bool:
        """True when the URI has parameters (it is then offered in ``resources/templates/list``)."""
        return bool(_PARAM.search(self.template))

    def match(self, uri: str) -> dict[str, str] | None:
        """The parameters when ``uri`` is one of this template's resources, else None."""
        found = _pattern(self.template).fullmatch(uri)
        return {key: unquote(value) for key, value in found.groupdict().items()} if found else None


def _pattern(template: str) -> re.Pattern[str]:
    parts = _PARAM.split(template)
    # split() alternates literal text and parameter names.
    regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts))
    return re.compile(regex)


def expand(template: str, **values: str) -> str:
    """The URI of ``template`` with its parameters filled in (a value may not contain ``/``)."""
    return _PARAM.sub(lambda m: values[m.group(1)].replace("/", "%2F"), template)


class ResourceRegistry:
    """Resource providers by URI template, with change published on an event hub."""

    def __init__(self, events: EventHub | None = None) -> None:
        """``events``: where change is published (default: a hub of the registry's own)."""
        self._providers: dict[str, ResourceProvider] = {}
        #: Where ``ResourceUpdated`` and ``ResourcesListChanged`` are published.
        self.events = events if events is not None else EventHub()

    def register(self, provider: ResourceProvider) -> None:
        """Add a provider, replacing the one of the same template."""
        self._providers[provider.template] = provider

    def providers(self) -> list[ResourceProvider]:
        """Every provider, in registration order."""
        return list(self._providers.values())

    def entries(self) -> list[ResourceEntry]:
        """Every resource that exists now, over all providers."""
        found: list[ResourceEntry] = []
        for provider in self._providers.values():
            try:
                found.extend(provider.list())
            except Exception:  # one broken provider must not hide the other resources
                log.exception("listing the resources of %s failed", provider.template)
        return found

    def resolve(self, uri: str) -> tuple[ResourceProvider, dict[str, str]]:
        """The provider of ``uri`` and its parameters; ``resource_not_found`` when none matches.

        Fixed URIs win over templates, and longer templates over shorter ones,
        so ``.../projections/{p}/diff`` is never read as a projection named ``diff``.
        """
        ordered = sorted(self._providers.values(), key=lambda p: (p.is_template, -len(p.template)))
        for provider in ordered:
            params = provider.match(uri)
            if params is not None:
                return provider, params
        raise not_found(uri)

    async def read(self, uri: str) -> Any:
        """The JSON value of the resource at ``uri``."""
        provider, params = self.resolve(uri)
        return await provider.read(params)

    def subscribable(self, uri: str) -> bool:
        """Whether the resource at ``uri`` changes (and so can be subscribed to)."""
        try:
            provider, _ = self.resolve(uri)
        except ActionError:
            return False
        return provider.subscribable

    def watch(self, uri: str) -> None:
        """A client subscribed to ``uri``: let its provider start producing updates."""
        provider, params = self.resolve(uri)
        if provider.watch is not None:
            provider.watch(params)

    def unwatch(self, uri: str) -> None:
        """A client unsubscribed from ``uri``."""
        try:
            provider, params = self.resolve(uri)
        except ActionError:
            return  # the resource is gone already; nothing is watching it
        if provider.unwatch is not None:
            provider.unwatch(params)

    # -- change --------------------------------------------------------------

    def updated(self, uri: str, *, sessions: frozenset[str] | None = None) -> None:
        """Say that the resource at ``uri`` changed (subscribers are told; with ``sessions``, only those agent sessions' subscribers)."""
        self.events.publish(ResourceUpdated(uri, sessions))

    def list_changed(self) -> None:
        """Say that the set of resources changed."""
        self.events.publish(ResourcesListChanged())


def not_found(uri: str) -> ActionError:
    """The error for a URI that names no resource."""
    return ActionError(f"no resource at {uri}", code=ErrorCode.RESOURCE_NOT_FOUND, evidence={"uri": uri})
