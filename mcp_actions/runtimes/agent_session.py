"""The browser host's agent session: its name, shown to the user, and releasing the tabs it opened.

``runtime.session.name`` names the session the agent is driving the browser
in, so the person watching knows what the tabs are for: the name is listed
by ``browser.claimed_tabs.list`` and on the bridge's status page.
``runtime.session.finalize_tabs`` ends the agent's hold on the browser: every
tab the host opened (itself, through ``browser.open_tab``, or as a popup of a
driven page) is closed except the active one and the caller, and tabs that
were already open when the host attached to a running browser are never
touched; the last tab is never closed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ActionError, ErrorCode

if TYPE_CHECKING:
    from .tab import TabRuntime

__all__ = ["AgentSession", "HostTabs", "MAX_SESSION_NAME"]

MAX_SESSION_NAME = 120


class HostTabs(Protocol):
    """What releasing the tabs needs of the browser host's tabs (``authority.TabDirectory`` is one)."""

    @property
    def tabs(self) -> Sequence[TabRuntime]: ...

    def active_tab(self) -> TabRuntime | None: ...


class AgentSession:
    """The name of the agent's session on one browser host, and its release."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.named_at: float | None = None
        self.finalized_at: float | None = None

    def describe(self) -> dict[str, Any] | None:
        """``{name, named_at}`` once named (None before): what the tab list and the status page show."""
        if self.name is None:
            return None
        out: dict[str, Any] = {"name": self.name, "named_at": self.named_at}
        if self.finalized_at is not None:
            out["finalized_at"] = self.finalized_at
        return out

    async def set_name(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``runtime.session.name``: ``{named: true, name}``."""
        name = arguments.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ActionError("name must be a non-empty string", code=ErrorCode.INVALID_INPUT, evidence={"path": "/name"})
        # A name is shown to a person: one line, bounded.
        self.name = " ".join(name.split())[:MAX_SESSION_NAME]
        self.named_at = time.time()
        self.finalized_at = None
        return {"named": True, "name": self.name}

    async def finalize(self, directory: HostTabs, caller: TabRuntime) -> dict[str, Any]:
        """``runtime.session.finalize_tabs``: close the host's own tabs but the active one and the caller."""
        active = directory.active_tab()
        keep = {t.runtime_id for t in (active, caller) if t is not None}
        closed: list[int] = []
        tabs = list(directory.tabs)
        remaining = len(tabs)
        for tab in tabs:
            if tab.runtime_id in keep or tab.preexisting or tab.page.is_closed():
                continue
            if remaining <= 1:
                break  # never the last tab
            await tab.page.close()
            closed.append(tab.number)
            remaining -= 1
        self.finalized_at = time.time()
        kept = [t.number for t in directory.tabs if t.number not in closed]
        out: dict[str, Any] = {"finalized": True, "closed_tab_ids": closed, "kept_tab_ids": kept}
        if active is not None:
            out["active_tab_id"] = active.number
        if self.name is not None:
            out["session"] = self.name
        return out
