"""What a tab or frame runtime needs from the browser host that owns it.

A ``TabRuntime`` (and a ``FrameRuntime``) runs inside a ``BrowserHost`` but
must not reach into it: this ``Protocol`` is the whole of what it may ask.
``BrowserHost`` implements it publicly; a test or another host (an extension
relay, say) can implement it too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from playwright.async_api import Page

from ..bridge.bridge import Bridge

__all__ = ["OpenedTab", "TabHost"]


class OpenedTab(Protocol):
    """What a tab says of another one its action opened (a popup): its number, runtime, URL and title."""

    @property
    def number(self) -> int:
        """The tab's number, as browser_list_tabs says it (``tab 2``)."""
        ...

    @property
    def runtime_id(self) -> str:
        """The tab's runtime id (``tab-2``)."""
        ...

    async def page_state(self) -> tuple[str, str | None]:
        """The document's url and title."""
        ...


class TabHost(Protocol):
    """The host side of a tab: its bridge, background work, activation and browser authority."""

    @property
    def bridge(self) -> Bridge:
        """The bridge every tab and frame runtime connects to."""
        ...

    @property
    def outbox_secret(self) -> str:
        """What the host's top documents' outboxes answer to before their first configure (outbox.py): never in a page's reach."""
        ...

    @property
    def frame_outbox_secret(self) -> str:
        """What the host's frames' outboxes answer to before their first configure (outbox.py): never a top document's."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run page-event work in the background; failures are logged, never lost."""
        ...

    def set_active(self, runtime_id: str) -> None:
        """Make this runtime the one implicit calls go to (a tab navigated or was opened)."""
        ...

    async def tab_of(self, page: Page) -> OpenedTab:
        """The tab runtime of ``page`` (a popup a tab opened), registered first when the host has not yet."""
        ...

    async def run_privileged(self, name: str, caller: Any, arguments: dict[str, Any]) -> Any:
        """Run a ``browser.*`` primitive asked of ``caller`` (a tab runtime): tabs, navigation, dialogs, screenshots."""
        ...
