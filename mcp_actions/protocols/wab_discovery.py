"""WAB discovery for connected runtimes: once per origin a runtime reaches, in the agent's first pause.

``WabDiscovery`` is fed the runtimes the bridge announces: ``seen`` when one
arrives or changes, ``forget`` when it leaves. Each time a runtime reaches a
new origin, the site's WAB discovery document is looked for in the
background (``wab.discover``: the two well-known paths of the origin, then
the page's ``wab-discovery`` meta tag, read in the live page through
``dom.extract``; the page's own URL is never fetched), once a spell without
calls in flight allows (``quiet_spell``).

The server fetches only what it can vouch for: it looks only at runtimes
whose identity is proved (``RuntimeInfo.proved``: the server's own browser
tabs, a paired extension tab, an operator's program), never at a page
runtime, whose announced URL is its own word (docs/threat-model.md). A page
runtime's WAB commands are still those its page's own bridge lists. What is found is kept per runtime in ``documents``
(served as ``actions://runtimes/{runtime_id}/wab``, announced as an update
and a list change); a page that has moved on, or a runtime that has gone,
meanwhile keeps nothing.

The runtime's WAB commands are those of its document and those its page's
own WAB bridge lists (``page_tools["wab"]``, reported by the page engine).
While the site's document is being looked for, the page's own commands wait
(``pending``): a command whose trigger needs a permission the document
denies must be refused before the page (``wab.py``), and until the document
is in, nothing says which permissions the site grants. Once the look ends,
found or not, and whenever either changes, ``expose(runtime, found, page_actions)`` is called
(``PageToolExposure.site_found`` makes the runtime's WAB map of them); every
``runtime_status`` passes through ``seen``, so an unchanged pair is not
handed on again.

One HTTP client serves every discovery (``client``; building one costs ~40 ms
of CPU, so the idle check preparation, ``catalog/prepare.py``, makes it);
``aclose`` closes it and stops discoveries still under way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..bridge.registry import RuntimeInfo
from ..errors import ActionError
from ..resources.registry import expand
from ..resources.wab import WAB
from .wab import META_EXTRACT, UNREAD, discover, discovery_client, meta_from_records, origin_of

if TYPE_CHECKING:  # httpx: imported by wab.discovery_client when a discovery first runs (issue 55)
    import httpx

__all__ = ["WAB_META_TIMEOUT_MS", "WAB_QUIET_S", "WAB_QUIET_WAIT_S", "Expose", "Extract", "ResourceChanges", "WabDiscovery"]

log = logging.getLogger(__name__)

#: WAB discovery waits for this long a spell without calls in flight, but no longer than WAB_QUIET_WAIT_S.
WAB_QUIET_S = 0.3
WAB_QUIET_WAIT_S = 5.0
#: How long reading a page's wab-discovery meta tag in the live page may take (past it: no meta-tag document).
WAB_META_TIMEOUT_MS = 2000

#: One ``dom.extract`` on a runtime: ``(runtime_id, arguments, timeout_ms)`` -> its output (raises ``ActionError``).
Extract = Callable[[str, dict[str, Any], int | None], Awaitable[Any]]
#: Makes a runtime's WAB commands available: ``(runtime, found, page_actions)``, where ``found`` is
#: ``{"url", "document"}`` (None: no document) and ``page_actions`` the page's own WAB actions (None: none).
Expose = Callable[[RuntimeInfo, Mapping[str, Any] | None, list[dict[str, Any]] | None], None]


class ResourceChanges(Protocol):
    """Where a found document is announced (``mcp_actions.resources.ResourceRegistry``)."""

    def updated(self, uri: str) -> None: ...

    def list_changed(self) -> None: ...


class WabDiscovery:
    """The WAB discovery documents of connected runtimes' sites, found in the background."""

    def __init__(
        self,
        *,
        quiet_for: Callable[[], float],
        current: Callable[[str], RuntimeInfo | None],
        extract: Extract,
        expose: Expose,
        resources: ResourceChanges,
    ) -> None:
        """``quiet_for()``: seconds without a call in flight (the bridge's); ``current(runtime_id)``: the
        connected runtime of that id now, if any; ``extract``: a ``dom.extract`` on a runtime."""
        self._quiet_for = quiet_for
        self._current = current
        self._extract = extract
        self._expose = expose
        self._resources = resources
        #: Per runtime: the origin last looked at, and the document found there (``{"url", "document"}``).
        self.origins: dict[str, str | None] = {}
        self.documents: dict[str, dict[str, Any]] = {}
        self._applied: dict[str, tuple[Any, ...]] = {}  # what each runtime's WAB commands were last made from
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Runtimes whose site's document is being looked for, with the origin looked at: their commands wait.
        self.pending: dict[str, str] = {}

    @property
    def pending_count(self) -> int:
        """Discoveries under way (for tests and the curious)."""
        return len(self._tasks)

    def client(self) -> httpx.AsyncClient:
        """The one HTTP client of every discovery (made at first need)."""
        if self._client is None:
            self._client = discovery_client()
        return self._client

    async def aclose(self) -> None:
        """Stop the discoveries under way and close the client."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- runtimes ----------------------------------------------------------

    def seen(self, runtime: RuntimeInfo) -> None:
        """A runtime arrived or changed: look at its origin if it is new to it, and expose what changed."""
        runtime_id = runtime.runtime_id
        origin = origin_of(runtime.url)
        if self.origins.get(runtime_id) != origin or runtime_id not in self.origins:
            self.origins[runtime_id] = origin
            self.documents.pop(runtime_id, None)
            self._applied.pop(runtime_id, None)
            for gone in [rid for rid in self._applied if rid not in self.origins]:
                del self._applied[gone]  # runtimes that went away
            if origin is not None and not runtime.proved:
                # A page runtime's URL is what it says: the server sends no request on its word.
                log.info("no WAB discovery for runtime %s: its identity is not proved (trust %s)", runtime_id, runtime.trust)
            elif origin is not None:
                self.pending[runtime_id] = origin
                task = asyncio.get_running_loop().create_task(self._discover(runtime, origin))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                self.pending.pop(runtime_id, None)
        self._apply(runtime)

    def forget(self, runtime_id: str) -> None:
        """A runtime left: its origin, document and what its commands were last made from are forgotten."""
        self.origins.pop(runtime_id, None)
        self.documents.pop(runtime_id, None)
        self.pending.pop(runtime_id, None)
        # Else kept until another runtime arrives: in a server whose agent sessions all ended, for ever.
        self._applied.pop(runtime_id, None)

    def _apply(self, runtime: RuntimeInfo) -> None:
        """Hand on the runtime's WAB commands as they are now, unless they are what was last handed on."""
        found = self.documents.get(runtime.runtime_id)
        # While the site's document is looked for, the page's commands wait (they are exposed when the
        # look ends, with the site's permissions); a previous page's are withdrawn at once all the same.
        page = None if runtime.runtime_id in self.pending else runtime.page_tools.get("wab") or None
        key = (found["url"] if found is not None else None, id(found), json.dumps(page, sort_keys=True, default=str), origin_of(runtime.url))
        if self._applied.get(runtime.runtime_id) == key:
            return  # nothing new since the last time (every runtime_status passes here)
        self._applied[runtime.runtime_id] = key
        self._expose(runtime, found, page)

    # -- discovery ---------------------------------------------------------

    async def quiet_spell(self) -> None:
        """Wait until no call has been in flight for WAB_QUIET_S (at most WAB_QUIET_WAIT_S).

        Discovery is background work: two or three HTTP requests that, started at the
        navigation's commit, shared two cores with the page load and the agent's next
        call (~50 ms of a board navigation, measured). Agents think between calls, so
        it runs in their first pause; its tools arrive with a list_changed.
        """
        give_up = time.monotonic() + WAB_QUIET_WAIT_S
        while (quiet := self._quiet_for()) < WAB_QUIET_S and time.monotonic() < give_up:
            await asyncio.sleep(max(0.02, WAB_QUIET_S - quiet))

    async def _read_meta(self, runtime: RuntimeInfo) -> Any:
        """The page's ``wab-discovery`` meta content, read from the live document (None: it has none).

        The live page is the only place it is read: fetching the page's URL would be a
        request whose path and query the runtime announced. A runtime without
        ``dom.extract`` (refused as ``capability_unavailable`` before the call leaves), or a
        read that fails, leaves it ``UNREAD``: the site then has no meta-tag document.
        """
        try:
            output = await self._extract(runtime.runtime_id, META_EXTRACT, WAB_META_TIMEOUT_MS)
        except ActionError as exc:
            log.info("could not read the wab-discovery meta tag of runtime %s in the page: %s", runtime.runtime_id, exc.code)
            return UNREAD
        return meta_from_records(output)

    def _still(self, runtime: RuntimeInfo, origin: str) -> bool:
        """Whether the runtime is still connected and still at ``origin`` (the page may have moved on)."""
        return self.origins.get(runtime.runtime_id) == origin and self._current(runtime.runtime_id) is runtime

    async def _discover(self, runtime: RuntimeInfo, origin: str) -> None:
        found: tuple[str, dict[str, Any]] | None = None
        try:
            await self.quiet_spell()
            if not self._still(runtime, origin) or not runtime.proved:
                return  # the page moved on (or went away) meanwhile
            found = await discover(runtime.url, self.client(), read_meta=lambda: self._read_meta(runtime))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("WAB discovery for runtime %s failed; its page's own commands serve alone", runtime.runtime_id)
        finally:
            # The look ended (found, not found or failed): the commands waiting for it are exposed now.
            if self.pending.get(runtime.runtime_id) == origin:
                del self.pending[runtime.runtime_id]
        if not self._still(runtime, origin):
            return
        if found is not None:
            url, document = found
            self.documents[runtime.runtime_id] = {"url": url, "document": document}
            self._resources.updated(expand(WAB, runtime_id=runtime.runtime_id))
            self._resources.list_changed()
        self._apply(runtime)
