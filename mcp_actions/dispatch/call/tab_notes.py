"""When a call opens or moves to another tab, one short line the model reads says so.

A map's tool runs on a tab of its site: an existing one, or one the server
opens for it (a new tab, or its own blank tab sent to the site's front page).
When that is not the tab the model was looking at (the active one), the model
must hear it, not only ``_meta.runtime_id``: otherwise it keeps working in the
tab it believes in (issue: a tab on ``http://localhost:8765/`` while the map
names ``http://127.0.0.1:8765``; the call opened a tab on 127.0.0.1 and
succeeded there, silently). docs/mcp-surface.md, "Routing".

``TabWatch`` notes the tabs before the call settles on its runtime; ``change``
compares after: ``opened`` (a tab that was not there), ``navigated`` (a blank
tab the call sent to its site) or ``switched`` (an existing tab other than
the active one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...bridge.registry import RuntimeInfo, RuntimeRegistry

__all__ = ["TabChange", "TabWatch"]


@dataclass(frozen=True)
class TabChange:
    """The tab a call ran in, when it is not the one the model was looking at."""

    kind: Literal["opened", "navigated", "switched"]
    runtime_id: str
    url: str
    #: The active tab before the call (None: there was none), for ``switched``.
    previous: str | None = None

    def line(self) -> str:
        """The one line the model reads."""
        if self.kind == "opened":
            return f"opened a new tab on {self.url} ({self.runtime_id})"
        if self.kind == "navigated":
            return f"opened {self.url} in the blank tab {self.runtime_id}"
        was = f" instead of the active tab {self.previous}" if self.previous else ""
        return f"ran in tab {self.runtime_id} on {self.url}{was}"

    def to_meta(self) -> dict[str, Any]:
        """What ``_meta["mcp-actions/tab"]`` and an error's ``evidence.tab`` carry."""
        meta: dict[str, Any] = {"change": self.kind, "runtime_id": self.runtime_id, "url": self.url}
        if self.previous is not None:
            meta["previous"] = self.previous
        return meta


class TabWatch:
    """The tabs (runtimes) a session could see, and its active one, before a call settles on its runtime."""

    def __init__(self, registry: RuntimeRegistry) -> None:
        self._urls = {runtime.runtime_id: runtime.url for runtime in registry.visible()}
        self._active = registry.active_id

    def change(self, runtime: RuntimeInfo | None) -> TabChange | None:
        """What the call did to the tabs, running on ``runtime`` (None: it ran where the model was looking)."""
        if runtime is None:
            return None
        if runtime.runtime_id not in self._urls:
            return TabChange("opened", runtime.runtime_id, runtime.url or "about:blank")
        if _blank(self._urls[runtime.runtime_id]) and not _blank(runtime.url):
            return TabChange("navigated", runtime.runtime_id, runtime.url)
        if self._active is not None and runtime.runtime_id != self._active:
            return TabChange("switched", runtime.runtime_id, runtime.url or "about:blank", previous=self._active)
        return None


def _blank(url: str | None) -> bool:
    return not url or url == "about:blank"
