"""What the bridge tells observers about runtimes, as events on an ``EventHub`` (``mcp_actions.events``).

Each carries the runtime concerned (its ``RuntimeInfo``, live: the registry's
own entry), so these live with the bridge rather than below it:

- ``RuntimeArrived``: a new runtime announced itself;
- ``RuntimeUpdated``: a known runtime changed what it said of itself (url,
  title, states, page tools, a second ``runtime_ready``, a reconnect that kept
  its identity);
- ``RuntimeActive``: the active runtime moved to this one;
- ``RuntimeGone``: a runtime left (``reason``);
- ``PageEvent``: a page event of the runtime was accepted (``record``, untrusted page data);
- ``AttachmentOpened``: the user clicked a launcher whose attachment opens a map tool
  (``opens``: the tool and arguments configured for it, never what the page said).

Subscribe to ``RuntimeEvent`` to hear all six.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..events import Event
from .registry import RuntimeInfo
from .runtime_config import ConfiguredOpen

__all__ = ["AttachmentOpened", "PageEvent", "RuntimeActive", "RuntimeEvent", "RuntimeGone", "RuntimeArrived", "RuntimeUpdated"]


@dataclass(frozen=True)
class RuntimeEvent(Event):
    """Something happened to one runtime."""

    runtime: RuntimeInfo


@dataclass(frozen=True)
class RuntimeArrived(RuntimeEvent):
    """A runtime connected and announced itself."""


@dataclass(frozen=True)
class RuntimeUpdated(RuntimeEvent):
    """A known runtime changed (what it says of itself, or its connection)."""


@dataclass(frozen=True)
class RuntimeActive(RuntimeEvent):
    """The active runtime moved to this one (the first runtime becoming active is its ``RuntimeArrived``)."""


@dataclass(frozen=True)
class RuntimeGone(RuntimeEvent):
    """A runtime left: its connection closed, was retired as stale, or the bridge stopped."""

    reason: str


@dataclass(frozen=True)
class PageEvent(RuntimeEvent):
    """A declared page event the bridge accepted, as kept in the runtime's event log."""

    record: Mapping[str, Any]


@dataclass(frozen=True)
class AttachmentOpened(RuntimeEvent):
    """The user clicked one of the runtime's attachment launchers, which opens a map tool."""

    opens: ConfiguredOpen
    launcher_id: str | None = None
