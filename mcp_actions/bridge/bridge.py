"""The bridge: runtimes connect, every call reaches exactly one, every call ends once.

A runtime connects through any transport by handing the bridge a
``RuntimeLink`` and feeding what it receives into the returned
``RuntimeSession`` (``session.py``). The bridge owns the runtimes' lifecycle:
which connection is which runtime (``runtime_ready``, reconnects that keep
their identity), what each said of itself (``runtime_status``), accepted page
events, staleness and disconnects. Calls are routed to exactly one runtime,
checked there (a dictionary primitive must be provided by the runtime and its
arguments must fit the dictionary), and handed to the ``CallTracker``
(``calls.py``), which correlates answers by ``call_id`` and guarantees one
outcome per call: the runtime's output or error, ``handler_timeout``, or
``transport_failed`` the moment the connection drops. Nothing is left pending.

While a call runs, its runtime's call messages (``call_progress``,
``input_request``) reach the caller's ``on_progress`` / ``on_input`` through
the tracker; a caller that gives up (its task cancelled) has the runtime sent
``action_cancel``.

Each runtime is told what to do on its own for the maps covering its page
(the page events to forward, the attachments to install) in a
``runtime_config``, worked out again when its page moves or the maps change
(``runtime_config.py``); a click on a launcher that opens a map tool comes
back as ``attachment_open``.

Who a connection is comes from its transport, never from its items: the
session carries the trust its handshake proved (``credentials.py``), and
``identity.py`` decides whether a ``runtime_ready`` may take back the id or
key it names (only the credential that created that runtime may) or gets a
fresh id. A page runtime is given a secret of its own in its
``runtime_config`` and must present it to take its identity back; what it
announces about its page (``url``) must lie in the origin its handshake
carried; and ``authorization_id`` is the pairing its connection proved, never
one it names.

Observers (the composition root) subscribe on the bridge's ``events`` hub to
hear about runtimes arriving, changing, becoming the active one and leaving,
about accepted page events and about launchers the user clicked
(``bridge/events.py``).

Replicas (docs/deploying.md): a runtime another replica holds is *mirrored*
here (``attach_remote``): it is listed and routed to like a local one, and
its calls go through the ``CallChannel`` the backplane gave for it, which
forwards them to the replica holding the socket (``mcp_actions/backplane/``).
A local connection always wins over a mirror of the same id.

Why one file of about 700 lines: ``Bridge`` is the facade every other part talks to,
and each concept it uses already lives in a module of its own (``calls.py``,
``registry.py``, ``identity.py``, ``credentials.py``, ``routing.py``,
``runtime_config.py``, ``session.py``, ``events.py``); what stays here is the
sequencing of a runtime's life and of a call, which is read best in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Collection, Mapping
from typing import Any

from pydantic import ValidationError

from ..defaults import DEFAULT_TIMEOUT_MS
from ..errors import ActionError, ErrorCode
from ..events import EventHub
from ..file_urls import check_call as check_file_urls
from ..page_chars import shown
from ..primitive_dictionary import PrimitiveDictionary, load_dictionary
from .calls import CallChannel, CallTracker, InputHandler, ProgressHandler
from .credentials import new_runtime_secret, secret_digest, url_within_origin
from .envelope import runtime_error, unwrap_output
from .events import AttachmentOpened, PageEvent, RuntimeActive, RuntimeArrived, RuntimeGone, RuntimeUpdated
from .identity import IdentityBook, owner_key
from .items import (
    DEFAULT_MAX_ITEM_BYTES,
    ActionCall,
    ActionCallOutput,
    ActionErrorItem,
    AttachmentOpen,
    CallProgress,
    DomEvent,
    InputRequest,
    RuntimeStatus,
)
from .items import RuntimeReady as ReadyItem
from .page_tools import parse_page_tools
from .registry import EVENT_LOG_SIZE, RuntimeInfo, RuntimeRegistry, Trust
from .routing import Route, page_origin, select_runtime
from .runtime_config import AttachmentSource, RuntimeConfigurator, attachment_states
from .session import RuntimeLink, RuntimeSession
from .signals import DEFAULT_MAX_EVENT_BYTES, SignalSource, SignalSpec, accept_event

__all__ = [
    "DEFAULT_STALE_AFTER_S",
    "Bridge",
    "InputHandler",
    "ProgressHandler",
    "RuntimeLink",
    "RuntimeSession",
    "origin_changed",
]

log = logging.getLogger(__name__)

#: A heartbeating runtime silent for this long is retired. The page runtime beats every 15 s,
#: but browsers throttle timers in hidden tabs to about once a minute, so allow two such minutes.
DEFAULT_STALE_AFTER_S = 120.0
#: Transports whose runtimes are expected to heartbeat (in-process runtimes are not).
HEARTBEAT_TRANSPORTS = frozenset({"websocket"})
#: A call forwarded to another replica waits this much longer than its own limit, so that the
#: replica running it answers ``handler_timeout`` itself (with its elapsed time) before this side gives up.
REMOTE_GRACE_MS = 1000


class Bridge:
    """Routes calls to connected runtimes and keeps track of the runtimes themselves."""

    def __init__(
        self,
        *,
        default_timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_item_bytes: int = DEFAULT_MAX_ITEM_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        stale_after_s: float = DEFAULT_STALE_AFTER_S,
        signal_source: SignalSource | None = None,
        attachment_source: AttachmentSource | None = None,
        dictionary: PrimitiveDictionary | None = None,
        event_log_size: int = EVENT_LOG_SIZE,
        events: EventHub | None = None,
        page_tool_protocols: Collection[str] | None = None,
        allow_file_urls: bool = False,
    ) -> None:
        """``page_tool_protocols``: the ``page_tools`` keys runtimes may report (the composition root passes
        the protocol registry's; None takes any well-formed name);
        ``dictionary`` (default: the bundled one) decides which call names are primitives to check;
        ``event_log_size`` is how many page events each runtime keeps (at least 1); ``events`` is the
        hub the runtime events are published on (default: one of the bridge's own);
        ``attachment_source`` gives the attachments of the maps covering a runtime (``runtime_config``);
        ``allow_file_urls`` (``serve --allow-file-urls``): local files may be opened and read (else every
        call is refused that opens one or acts on a tab showing one, ``file_urls.py``)."""
        if event_log_size < 1:
            raise ValueError("event_log_size must be at least 1")
        self.default_timeout_ms = default_timeout_ms
        #: Whether local files are open to agents (``--allow-file-urls``); the call's target reads it too (``targets.py``).
        self.allow_file_urls = allow_file_urls
        self.page_tool_protocols = tuple(page_tool_protocols) if page_tool_protocols is not None else None
        #: Accepted page events kept per runtime (``--event-log-size``); the oldest go first.
        self.event_log_size = event_log_size
        self.max_item_bytes = max_item_bytes
        self.max_event_bytes = max_event_bytes
        self.stale_after_s = stale_after_s
        self.signal_source = signal_source
        #: Each runtime's page events to forward and attachments to install (``runtime_config``).
        self.configurator = RuntimeConfigurator(self.signals_for, attachment_source)
        self.dictionary = dictionary if dictionary is not None else load_dictionary()
        #: Where runtimes arriving, changing, becoming active and leaving, and page events, are published.
        self.events = events if events is not None else EventHub()
        self.registry = RuntimeRegistry()
        self.registry.on_active = lambda info: self.events.publish(RuntimeActive(info))
        self.calls = CallTracker()
        #: Which credential owns each runtime id (and the ids page runtimes that left reserved).
        self.identities = IdentityBook()
        self._sessions: dict[str, RuntimeSession] = {}
        #: Runtimes other replicas hold, mirrored here, and the channel their calls are forwarded on.
        self._remote: dict[str, CallChannel] = {}
        #: This process's replica id when it runs with a backplane (None alone); its runtimes carry it.
        self.replica_id: str | None = None
        self._sweeper: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Start retiring stale runtimes in the background."""
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="bridge-stale-sweeper")

    async def stop(self) -> None:
        """Close every connection; their pending calls fail with ``transport_failed``."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for session in list(self._sessions.values()):
            await self._close_link(session, "bridge stopping")
            await session.close("bridge stopping")
        self.calls.stop()

    def connect(
        self,
        link: RuntimeLink,
        *,
        transport: str,
        authorization_id: str | None = None,
        trust: Trust = "operator",
        origin: str | None = None,
        agent_session: str | None = None,
    ) -> RuntimeSession:
        """Accept a new connection; it becomes a runtime once it sends ``runtime_ready``.

        ``authorization_id``: the pairing the connection authenticated with; it is the runtime's,
        whatever its ``runtime_ready`` says. ``trust``: what the transport proved of the connection
        (``host`` for this process's own runtimes; a WebSocket's comes from its handshake, see
        credentials.py). ``origin``: a page runtime's handshake ``Origin``, to which the urls it
        announces are held. ``agent_session``: the agent session that owns the runtime (its browser
        context's tab, or a connection that presented its session credential; bridge/scope.py).
        """
        return RuntimeSession(self, link, transport, authorization_id=authorization_id, trust=trust, origin=origin, agent_session=agent_session)

    def sessions_of(self, authorization_id: str) -> list[RuntimeSession]:
        """The connections that authenticated with this pairing."""
        return [s for s in self._sessions.values() if s.authorization_id == authorization_id]

    @property
    def pending_count(self) -> int:
        """Calls sent and not yet ended (for tests, benchmarks and the status page)."""
        return self.calls.pending_count

    @property
    def quiet_for(self) -> float:
        """Seconds without a call in flight (0 while one is): background work waits for a quiet spell."""
        return self.calls.quiet_for

    @property
    def session_count(self) -> int:
        """Connections that have announced a runtime."""
        return len(self._sessions)

    # -- calls -------------------------------------------------------------

    def resolve(self, route: Route) -> RuntimeInfo:
        """The one runtime ``route`` designates; raises ``runtime_not_found`` / ``ambiguous_runtime``."""
        if route.runtime_id and not (route.runtime_key or route.url_contains or route.title_contains):
            # An exact id (which beats a surface) is a dict lookup, not a scan of every runtime.
            info = self.registry.get_visible(route.runtime_id)
            if info is not None:
                return info
        # Only what the current agent session may see (bridge/scope.py): another session's tab is "not found".
        return select_runtime(self.registry.visible(), route, active_id=self.registry.active_id)

    def new_call_id(self) -> str:
        """A fresh call id, unique within this bridge's life."""
        return self.calls.new_call_id()

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        route: Route | None = None,
        runtime_id: str | None = None,
        handler: str | None = None,
        timeout_ms: int | None = None,
        call_id: str | None = None,
        on_progress: ProgressHandler | None = None,
        on_input: InputHandler | None = None,
        origin: str | None = None,
    ) -> Any:
        """Run ``name`` on exactly one runtime and return its output.

        ``origin``: the origin the policy judged the call for. A runtime whose page shows
        another is not sent it (``permission_denied``, ``evidence.reason: "origin_changed"``,
        ``evidence.origin``: where it is now); it travels on the item, so a runtime that knows
        its page better than its last report refuses it the same way.

        A call without ``handler`` whose name is a dictionary primitive is
        checked before it is sent: the runtime must provide it
        (``capability_unavailable`` naming the host (the scheme of its runtime_key, else its transport) and what is missing) and the
        arguments must fit its ``input_schema`` (``invalid_input`` with a JSON
        Pointer ``path``). Raises ``ActionError``: routing errors, those checks,
        the runtime's own error, ``handler_timeout`` (evidence: elapsed_ms) or
        ``transport_failed``. While the call runs, the runtime's
        ``call_progress`` reaches ``on_progress(progress, total, message)`` and
        its ``input_request`` is answered by ``on_input(request)`` (without one,
        with ``capability_unavailable``). Cancelling the awaiting task sends the
        runtime ``action_cancel``.
        """
        info = self.resolve(route or Route(runtime_id=runtime_id))
        session: CallChannel | None = self._sessions.get(info.runtime_id)
        remote = session is None and info.runtime_id in self._remote
        if remote:
            session = self._remote[info.runtime_id]
        if session is None or session.closed:
            raise ActionError(
                f"runtime {info.runtime_id!r} is not connected",
                code=ErrorCode.RUNTIME_NOT_READY,
                evidence={"runtime_id": info.runtime_id},
            )
        if origin is not None and page_origin(info.url) != origin:
            raise origin_changed(info.runtime_id, origin, page_origin(info.url))
        if not self.allow_file_urls:
            # The floor under every door, tool and workflow step: no local file opened, none read (file_urls.py).
            check_file_urls(name, arguments, page_url=info.url, runtime_id=info.runtime_id)
        if handler is None:
            self._check_primitive(info, name, arguments)
        timeout_ms = self.default_timeout_ms if timeout_ms is None else timeout_ms
        try:
            item = ActionCall(
                type="action_call",
                call_id=call_id or self.calls.new_call_id(),
                runtime_id=info.runtime_id,
                name=name,
                arguments=arguments,
                timeout_ms=timeout_ms,
                handler=handler or None,
                origin=origin,
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            path = "/" + "/".join(str(part) for part in first["loc"])
            raise ActionError(
                f"{name} cannot be sent as an action_call: {path} {first['msg']}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": path, "runtime_id": info.runtime_id},
            ) from exc
        waited = timeout_ms + REMOTE_GRACE_MS if remote else timeout_ms
        return await self.calls.run(session, item, timeout_ms=waited, on_progress=on_progress, on_input=on_input)

    def _check_primitive(self, info: RuntimeInfo, name: str, arguments: dict[str, Any]) -> None:
        primitive = self.dictionary.get(name)
        if primitive is None:
            return  # not a dictionary primitive: the runtime decides
        if not info.provides(name):
            raise ActionError(
                f"runtime {info.runtime_id!r} ({info.host} host) does not provide {name}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={
                    "capability": name,
                    "missing": primitive.missing(info.capabilities) or [name],
                    "host": info.host,
                    "runtime_id": info.runtime_id,
                    "runtime_key": info.runtime_key,
                    "extension_version": info.extension_version,
                },
            )
        unsupported = primitive.unsupported_arguments(arguments, info.capabilities) if info.capabilities and isinstance(arguments, dict) else {}
        if unsupported:
            argument, needed = next(iter(unsupported.items()))
            raise ActionError(
                f"runtime {info.runtime_id!r} ({info.host} host) does not announce {', '.join(needed)}, "
                f"so it cannot take {name}'s {argument!r} argument (an addition to the reference dictionary)",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={
                    "capability": needed[0],
                    "missing": needed,
                    "argument": argument,
                    "primitive": name,
                    "host": info.host,
                    "runtime_id": info.runtime_id,
                    "runtime_key": info.runtime_key,
                },
            )
        primitive.check_input(arguments)

    # -- what sessions report (SessionOwner) ------------------------------

    async def on_runtime_ready(self, session: RuntimeSession, item: ReadyItem) -> None:
        """Register the runtime a connection announces (or refresh what it said of itself).

        Raises ``ActionError`` ``permission_denied`` (evidence ``reason: origin_mismatch``) when a page
        runtime announces a url outside the origin its connection came from: the item is refused whole.
        """
        self._check_page_url(session, item.url, "/url")
        registry = self.registry
        if session.runtime_id is not None:
            # A second runtime_ready on the same connection refreshes what the runtime said of itself;
            # a runtime_key another runtime holds is not taken this way either.
            info = registry.get(session.runtime_id)
            if info is not None:
                holder = registry.find_by_key(item.runtime_key) if item.runtime_key else None
                self._apply_ready(info, item, session, item.runtime_key if holder is None or holder is info else info.runtime_key)
                self.events.publish(RuntimeUpdated(info))
                return
        presented = (item.model_extra or {}).get("runtime_secret") if session.trust == "page" else None
        digest = secret_digest(presented) if isinstance(presented, str) and presented else None
        owner = owner_key(session.trust, authorization_id=session.authorization_id, secret_digest=digest)
        if owner is not None and session.agent_session is not None:
            owner = f"{owner}@{session.agent_session}"  # one session's credential never takes another's (or the operator's) runtime
        claim = self.identities.claim(registry, trust=session.trust, owner=owner, runtime_id=item.runtime_id, runtime_key=item.runtime_key)
        for evicted in claim.evict:
            await self._evict(evicted, f"dropped: a proved runtime claimed {evicted!r}")
        runtime_id = claim.runtime_id
        if session.trust == "page":
            if owner is not None and self.identities.owner(runtime_id) == owner:
                session.runtime_secret = str(presented)  # its own secret, recognised: it stays the runtime's
            else:
                session.runtime_secret = new_runtime_secret()
                owner = owner_key("page", secret_digest=secret_digest(session.runtime_secret))
                if owner is not None and session.agent_session is not None:
                    owner = f"{owner}@{session.agent_session}"
        assert owner is not None
        if claim.renamed:
            log.warning(
                "a %s connection announced %s, which belongs to another credential; it is runtime %s instead",
                session.trust,
                ", ".join(f"{k} {v!r}" for k, v in claim.renamed.items() if k != "reason"),
                runtime_id,
            )
        # A runtime that reconnects (same runtime_key, or same runtime_id, and the same owner) replaces
        # its old connection and keeps its identity, so routing by id or key keeps working.
        previous = claim.previous
        if runtime_id in self._remote:
            # The runtime moved here from another replica (it reconnected through the balancer): the
            # mirror's calls fail now, and from here on its calls go to this connection.
            self.calls.fail_channel(self._remote.pop(runtime_id), "the runtime reconnected to another replica")
        replaced = self._sessions.get(runtime_id) if previous is not None else None
        if replaced is not None and replaced is not session:
            log.info("runtime %s reconnected; replacing its old connection", runtime_id)
            replaced.detach()
            self.calls.fail_channel(replaced, "the runtime reconnected on a new connection")
            self._sessions.pop(runtime_id, None)
            await self._close_link(replaced, "replaced by a new connection")
        info = RuntimeInfo(runtime_id=runtime_id, url=item.url, transport=session.transport, events=deque(maxlen=self.event_log_size), replica=self.replica_id, session=session.agent_session)
        if previous is not None:
            info.events = previous.events
            info.connected_at = previous.connected_at
        self._apply_ready(info, item, session, claim.runtime_key)
        session.bind(runtime_id, announced_as=item.runtime_id)
        self._sessions[runtime_id] = session
        self.identities.own(runtime_id, owner, session.trust)
        registry.add(info)
        if registry.active_id is None:
            registry.set_active(runtime_id)
        log.info("runtime %s ready at %s (%s, trust %s)", runtime_id, info.url, session.transport, session.trust)
        self.events.publish(RuntimeUpdated(info) if replaced is not None else RuntimeArrived(info))
        await self.configurator.send(session, info, force=True, renamed=claim.renamed or None)

    def _apply_ready(self, info: RuntimeInfo, item: ReadyItem, session: RuntimeSession, runtime_key: str | None) -> None:
        """What a ``runtime_ready`` says of the runtime; its trust and pairing are what its connection proved."""
        extra = item.model_extra or {}
        if "page_tools" in extra:
            info.page_tools = parse_page_tools(extra["page_tools"], self.page_tool_protocols)
        info.url = item.url
        info.runtime_key = runtime_key
        info.title = shown(item.title) if item.title is not None else None  # as a person sees it (page_chars)
        info.capabilities = tuple(item.capabilities or ())
        # Only an object with tools is a map to expose; the spec's {"protocol", "version"} only says what was loaded.
        info.manifest = item.inline_manifest
        info.manifest_summary = item.manifest_summary
        info.announced_host = item.host
        info.frame = bool(item.frame)
        # Never item.authorization_id: a runtime may name any pairing, only its connection proves one.
        info.authorization_id = session.authorization_id
        info.trust = session.trust
        info.extension_version = item.extension_version
        info.last_seen = time.monotonic()

    @staticmethod
    def _check_page_url(session: RuntimeSession, url: str, path: str) -> None:
        """Refuse a page runtime's url outside the origin its handshake carried (browsers set it; pages cannot)."""
        if session.trust != "page" or session.origin is None or url_within_origin(url, session.origin):
            return
        raise ActionError(
            f"a page runtime connected from {session.origin} cannot be at {url[:200]!r}: a page announces only pages of its own origin",
            code=ErrorCode.PERMISSION_DENIED,
            evidence={"reason": "origin_mismatch", "path": path, "origin": session.origin, "url": url[:200]},
        )

    async def _evict(self, runtime_id: str, reason: str) -> None:
        """Disconnect an unproved runtime whose id or key a proved runtime claimed (identity.py)."""
        session = self._sessions.get(runtime_id)
        info = self._retire(runtime_id, reason, reserve=False)
        if session is not None:
            session.detach()
            self.calls.fail_channel(session, reason)
            await self._close_link(session, reason)
        if info is not None:
            log.warning("runtime %s (trust %s) %s", runtime_id, info.trust, reason)

    def _retire(self, runtime_id: str, reason: str, *, reserve: bool) -> RuntimeInfo | None:
        """Forget a runtime: its connection, registration and configuration; ``RuntimeGone`` is published.

        ``reserve``: a page runtime's id stays reserved for its secret (it left on its own); an
        evicted one's does not (a proved runtime claimed it).
        """
        self._sessions.pop(runtime_id, None)
        info = self.registry.remove(runtime_id)
        self.configurator.forget(runtime_id)
        if reserve:
            self.identities.left(runtime_id)
        else:
            self.identities.forget(runtime_id)
        if info is not None:
            self.events.publish(RuntimeGone(info, reason))
        return info

    def on_runtime_seen(self, session: RuntimeSession) -> bool:
        """Note that an announced runtime is alive; False when it was retired while the item was in flight."""
        info = self.registry.get(session.runtime_id) if session.runtime_id else None
        if info is None:
            return False
        info.last_seen = time.monotonic()
        return True

    async def on_runtime_item(self, session: RuntimeSession, item: Any) -> None:
        """Handle a status, output, error or event item of an announced runtime."""
        info = self.registry.get(session.runtime_id) if session.runtime_id else None
        if info is None:
            return
        if isinstance(item, RuntimeStatus):
            if item.url is not None:
                self._check_page_url(session, item.url, "/url")
            if self._on_status(info, item):
                await self.configurator.send(session, info)  # another page: maybe other maps' signals and attachments
        elif isinstance(item, ActionCallOutput):
            try:
                output = unwrap_output(item.output)
            except ActionError as failure:  # the spec's {"ok": false, "error": …}
                self.calls.settle(session, item.call_id, error=failure)
            else:
                self.calls.settle(session, item.call_id, output=output)
        elif isinstance(item, ActionErrorItem):
            if item.call_id:
                self.calls.settle(session, item.call_id, error=runtime_error(item.error.model_dump(exclude_none=True)))
            else:
                log.warning("runtime %s reported: %s %s", session.runtime_id, item.error.code, item.error.message)
        elif isinstance(item, DomEvent):
            self._on_event(info, item)
        elif isinstance(item, AttachmentOpen):
            opened = self.configurator.opened(info, item.attachment_id)
            self.events.publish(AttachmentOpened(info, opened, item.launcher_id))

    async def on_call_progress(self, session: RuntimeSession, item: CallProgress) -> None:
        """Hand a running call's ``call_progress`` to its caller."""
        await self.calls.progress(session, item.call_id, item.progress, item.total, item.message)

    def on_input_request(self, session: RuntimeSession, item: InputRequest) -> None:
        """Have a running call's caller answer its ``input_request`` (refused when no such call runs here)."""
        self.calls.ask(session, item.call_id, item.request_id, item.request)

    def on_session_closed(self, session: RuntimeSession, reason: str) -> None:
        """A connection is gone: fail its pending calls at once and forget its runtime."""
        self.calls.fail_channel(session, reason)
        runtime_id = session.runtime_id
        if runtime_id is not None and self._sessions.get(runtime_id) is session:
            if self._retire(runtime_id, reason, reserve=True) is not None:
                log.info("runtime %s gone: %s", runtime_id, reason)

    async def end_agent_session(self, session_id: str, reason: str) -> list[str]:
        """An agent session ended (bridge/scope.py): every runtime it owns is disconnected and forgotten; their ids.

        Their pending calls fail with ``transport_failed``; its active runtime is forgotten.
        """
        ended: list[str] = []
        for runtime_id, session in list(self._sessions.items()):
            if session.agent_session != session_id:
                continue
            session.detach()
            self.calls.fail_channel(session, reason)
            self._retire(runtime_id, reason, reserve=False)
            await self._close_link(session, reason)
            ended.append(runtime_id)
        self.registry.forget_session(session_id)
        return ended

    # -- runtimes other replicas hold (backplane) ------------------------

    def holds(self, runtime_id: str) -> bool:
        """True when this process holds the runtime's connection (not a mirror of another replica's)."""
        session = self._sessions.get(runtime_id)
        return session is not None and not session.closed

    def local_runtimes(self) -> list[RuntimeInfo]:
        """The runtimes whose connections this process holds, in order of connection."""
        return [info for info in self.registry.list() if info.runtime_id in self._sessions]

    def connected_since(self, runtime_id: str) -> float | None:
        """When the connection this process holds for a runtime opened (wall clock), None when it holds none."""
        session = self._sessions.get(runtime_id)
        return session.opened_at if session is not None else None

    def owner_of(self, runtime_id: str) -> str | None:
        """The credential that owns a runtime id (``identity.owner_key``), for the replicas' shared directory."""
        return self.identities.owner(runtime_id)

    def attach_remote(self, info: RuntimeInfo, channel: CallChannel, *, owner: str | None) -> bool:
        """Mirror a runtime another replica holds: listed and routed to here, its calls sent on ``channel``.

        Called again with fresh ``info`` when that replica reports a change. A runtime this process
        holds itself is never replaced by a mirror (False). ``owner``: its credential there, so that
        the runtime reconnecting here with the same credential takes its identity back (identity.py).
        """
        runtime_id = info.runtime_id
        if runtime_id in self._sessions:
            return False
        mirrored = self.registry.get(runtime_id) if runtime_id in self._remote else None
        previous_channel = self._remote.get(runtime_id)
        if previous_channel is not None and previous_channel is not channel:
            self.calls.fail_channel(previous_channel, "the runtime moved to another replica")
        self._remote[runtime_id] = channel
        if owner is not None:
            self.identities.own(runtime_id, owner, info.trust)
        if mirrored is not None:
            if mirrored.snapshot_key() != info.snapshot_key():
                info.events = mirrored.events
                self.registry.add(info)
                self.events.publish(RuntimeUpdated(info))
            return True
        self.registry.add(info)
        if self.registry.active_id is None:
            self.registry.set_active(runtime_id)
        self.events.publish(RuntimeArrived(info))
        return True

    def detach_remote(self, runtime_id: str, reason: str) -> None:
        """Forget a mirrored runtime (its replica left, or it left there): its calls here fail with ``transport_failed``."""
        channel = self._remote.pop(runtime_id, None)
        if channel is None:
            return
        self.calls.fail_channel(channel, reason)
        info = self.registry.remove(runtime_id)
        self.configurator.forget(runtime_id)
        self.identities.forget(runtime_id)
        if info is not None:
            self.events.publish(RuntimeGone(info, reason))

    def note_remote_event(self, runtime_id: str, record: dict[str, Any]) -> None:
        """A page event another replica accepted from a runtime mirrored here: kept and published as a local one's."""
        info = self.registry.get(runtime_id) if runtime_id in self._remote else None
        if info is not None:
            info.events.append(record)
            self.events.publish(PageEvent(info, record))

    def is_mirror(self, runtime_id: str) -> bool:
        """True when the runtime is another replica's, mirrored here."""
        return runtime_id in self._remote

    def remote_ids(self) -> list[str]:
        """The ids of the runtimes mirrored from other replicas."""
        return list(self._remote)

    # -- runtime state -----------------------------------------------------

    async def refresh_config(self) -> None:
        """Send every runtime whose configuration changed its new one (after the maps changed)."""
        for runtime_id, session in list(self._sessions.items()):
            info = self.registry.get(runtime_id)
            if info is not None:
                await self.configurator.send(session, info)

    def signals_for(self, info: RuntimeInfo) -> Mapping[str, SignalSpec]:
        """The signals declared for a runtime's surface."""
        return self.signal_source(info) if self.signal_source else {}

    def _on_status(self, info: RuntimeInfo, item: RuntimeStatus) -> bool:
        """Apply a status report; True when the runtime's page moved (its url changed)."""
        extra = item.model_extra or {}
        # Checked before anything changes: a bad report is refused whole.
        page_tools = parse_page_tools(extra["page_tools"], self.page_tool_protocols) if "page_tools" in extra else None
        changed = moved = False
        if item.url is not None and item.url != info.url:
            info.url, changed, moved = item.url, True, True
        title = shown(item.title) if item.title is not None else None  # as a person sees it (page_chars)
        if title is not None and title != info.title:
            info.title, changed = title, True
        if item.states is not None and tuple(item.states) != info.states:
            info.states, changed = tuple(item.states), True
        if page_tools is not None and page_tools != info.page_tools:
            info.page_tools, changed = page_tools, True
        lifecycle: list[dict[str, Any]] = []
        if item.attachments is not None:
            states = attachment_states(item.attachments)
            if states != info.attachments:
                lifecycle = self.configurator.lifecycle(info, info.attachments, states)
                info.attachments, changed = states, True
        if changed:
            self.events.publish(RuntimeUpdated(info))
        for record in lifecycle:  # the attachments' own signals, kept as page events
            info.events.append(record)
            self.events.publish(PageEvent(info, record))
        return moved

    def note_states(self, runtime_id: str, states: tuple[str, ...]) -> None:
        """Record the states dispatch diagnosed on a runtime (as a ``runtime_status`` with states would)."""
        info = self.registry.get(runtime_id)
        if info is not None and tuple(states) != info.states:
            info.states = tuple(states)
            self.events.publish(RuntimeUpdated(info))

    def _on_event(self, info: RuntimeInfo, item: DomEvent) -> None:
        record = accept_event(item, self.signals_for(info), max_bytes=self.max_event_bytes)
        info.events.append(record)
        self.events.publish(PageEvent(info, record))

    async def _close_link(self, session: RuntimeSession, reason: str) -> None:
        try:
            await session.link.close(reason)
        except Exception as exc:
            log.warning("closing the connection of runtime %s (%s) failed: %s", session.runtime_id, reason, exc)

    # -- staleness ---------------------------------------------------------

    async def _sweep_forever(self) -> None:
        interval = max(0.05, min(5.0, self.stale_after_s / 4))
        while True:
            await asyncio.sleep(interval)
            await self.retire_stale()

    async def retire_stale(self) -> list[str]:
        """Disconnect heartbeating runtimes that have been silent too long; return their ids."""
        now = time.monotonic()
        retired = []
        for runtime_id, session in list(self._sessions.items()):
            info = self.registry.get(runtime_id)
            if info and session.transport in HEARTBEAT_TRANSPORTS and now - info.last_seen > self.stale_after_s:
                retired.append(runtime_id)
                await self._close_link(session, "stale: no heartbeat")
                await session.close("stale: no heartbeat")
        return retired


def origin_changed(runtime_id: str, judged: str, now: str | None) -> ActionError:
    """The refusal of a call judged for ``judged`` on a runtime whose page is now of origin ``now``."""
    return ActionError(
        f"runtime {runtime_id!r} shows a page of {now or 'no origin'}, not {judged} that the call was judged for",
        code=ErrorCode.PERMISSION_DENIED,
        evidence={"reason": "origin_changed", "runtime_id": runtime_id, "judged_origin": judged, "origin": now},
    )
