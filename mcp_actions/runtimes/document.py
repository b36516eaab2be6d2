"""One document of a Playwright page (a tab's main frame or a same-origin frame) as a bridge runtime.

``DocumentRuntime`` is what tabs and frames share: it connects to the bridge
through the host (``TabHost``), runs every call under the page's
``PageWatch`` (so dialogs and crashes end calls instead of wedging them),
re-announces url and title when its document changes, runs engine calls in
its own frame, and forwards the declared DOM events of its own document.
Subclasses implement ``perform``: ``TabRuntime`` (trusted input, browser
authority) and ``FrameRuntime`` (a same-origin frame inside a tab).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from ..errors import ActionError, ErrorCode
from ..manifest.dictionary import host_dictionary
from .call_scope import current_call
from .inprocess import InProcessRuntime
from .outbox import CONFIGURE, LISTEN, OutboxPump, document_key
from .page_watch import PageWatch
from .tab_host import TabHost

__all__ = ["ATTACHMENT_HOOK", "CALL_MESSAGES", "PREVIOUS_CALL_WINDOW_S", "DocumentRuntime", "dictionary_entry", "dictionary_names"]

log = logging.getLogger(__name__)

#: A dom_event may name the call that caused it when it follows within this window.
PREVIOUS_CALL_WINDOW_S = 5.0
#: The most outbox keys a runtime names at once (outbox.py's ``holds`` reads at most 16).
_KEYS_KEPT = 8

# ``call`` is the running bridge call ({call_id, timeout_ms}, call_scope.py): the engine ends the
# call's waits at its deadline or when its action_cancel arrives (callcontext.js).
# Indexes, not `([method, a, b, call]) =>`: destructuring runs Array.prototype[Symbol.iterator],
# which a page may have replaced to read the call's arguments (an overlay's HTML: docs/overlays.md).
_ENGINE_CALL = """async (items) => {
  "use strict";
  const engine = window.__mcpActions, method = items[0], a = items[1], b = items[2], call = items[3];
  if (!engine) return null;
  if (method === "run") return engine.run(a, b, call);
  if (method === "callHandler") return engine.callHandler(a, b, call);
  return engine.focusEditable(a, b, call);
}"""
# document.title through the getter the outbox captured before the page's scripts (outbox.py), not one a
# page put on its document.
_TITLE = """() => {
  "use strict";
  const outbox = window.__mcpActionsOutbox;
  return outbox && typeof outbox.title === "function" ? outbox.title() : document.title;
}"""
_DELIVER = """(item) => {
  "use strict";
  const engine = window.__mcpActions;
  return engine && typeof engine.deliver === "function" ? engine.deliver(item) : false;
}"""
#: Call messages a page may send for a running call (docs/bridge-protocol.md, "Call messages").
CALL_MESSAGES = frozenset({"call_progress", "input_request"})
# A document's attachments go through one channel, window.__mcpActionsLaunchers ({apply, take}),
# made before the page's scripts run (ATTACHMENT_HOOK, in the init script) and never replaceable
# after (docs/overlays.md, "What a page can reach" and "Launcher clicks"):
# - apply(text): the host hands the list over as JSON text (over CDP for a tab: main_world.py), so
#   no Playwright binding result or serializer in the page, which page scripts can patch, ever
#   holds an overlay's HTML or data; the engine parses it with its captured JSON.parse.
# - A launcher the user (or the agent) really clicked puts {attachment_id, launcher_id} into the
#   channel's own queue and only then tells the host "open", with nothing in it; the host take()s
#   the queue over CDP. A page can post to the document's outbox itself, so what it says is never
#   believed: an "open" from the page finds an empty queue.
# What the channel reports goes through the document's outbox (outbox.py) as an "attachment" message
# whose type is "status" or "open" ("overlay" is the outbox's own, from engine.onOverlayChange). In a document the
# engine was installed into late (install_engine) the channel is made at the first apply, after
# the page's scripts: nothing of this holds there (docs/overlays.md).
_CHANNEL = """function () {
  "use strict";
  var describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty, freeze = Object.freeze;
  var engine = window.__mcpActions, outbox = window.__mcpActionsOutbox;
  if (!engine || typeof engine.applyAttachments !== "function" || !outbox) return null;
  var existing = describe(window, "__mcpActionsLaunchers");
  if (existing) return existing.value || null;
  var post = outbox.post, opened = [];
  var sinks = {
    status: function (states) { post("attachment", { type: "status", attachments: states }); },
    open: function (a, l) {
      opened[opened.length] = { attachment_id: a, launcher_id: l };
      post("attachment", { type: "open" });
    }
  };
  var channel = freeze({
    apply: function (text) { return engine.applyAttachments(text, sinks).length; },
    take: function () { var out = opened; opened = []; return out; }
  });
  define(window, "__mcpActionsLaunchers", { value: channel });
  return channel;
}"""
# The channel is read as the window's own property, made by the init script and not replaceable (a page's
# getOwnPropertyDescriptor could hand out a lookalike that would receive the text); made here only in a
# document that has none.
_APPLY_ATTACHMENTS = (
    """(text) => {
  "use strict";
  let channel = window.__mcpActionsLaunchers;
  if (channel === undefined) channel = ("""
    + _CHANNEL
    + """)();
  return channel && typeof channel.apply === "function" ? channel.apply(text) : -1;
}"""
)
_TAKE_OPENS = """() => {
  "use strict";
  const channel = window.__mcpActionsLaunchers;
  return channel && typeof channel.take === "function" ? channel.take() : [];
}"""
#: Runs after the engine and the outbox (outbox.py) in every new document (browser.py's init script):
#: make the attachment channel before any page script. The runtime installs its attachments when it
#: configures the new document (DocumentRuntime.on_navigated).
ATTACHMENT_HOOK = "\n;(" + _CHANNEL + ")();\n"
_PASS_THROUGH = """(on) => {
  "use strict";
  const engine = window.__mcpActions;
  return !!engine && typeof engine.overlayPassThrough === "function" && engine.overlayPassThrough(on);
}"""


def dictionary_names() -> frozenset[str]:
    """Every primitive name of the shipped dictionary (``runtimes/dictionary.json``)."""
    return frozenset(host_dictionary())


def dictionary_entry(name: str) -> dict[str, Any]:
    """One primitive's dictionary entry (name, summary, capabilities, schemas, errors); KeyError when absent."""
    return copy.deepcopy(host_dictionary()[name])


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON list (anything else in it, or a value that is no list: nothing)."""
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class DocumentRuntime(InProcessRuntime):
    """A document in a Playwright page, connected to the bridge as one runtime."""

    transport = "playwright"
    #: Names this kind of host in ``capability_unavailable`` evidence.
    host_kind = "playwright"

    def __init__(
        self,
        host: TabHost,
        page: Page,
        frame: Frame,
        watch: PageWatch,
        *,
        runtime_id: str,
        runtime_key: str,
        capabilities: Sequence[str],
    ) -> None:
        super().__init__(host.bridge, runtime_id=runtime_id, url=frame.url or "about:blank", runtime_key=runtime_key, capabilities=capabilities)
        self.host = host
        self.page = page
        self.frame = frame
        self.watch = watch
        #: Declared DOM events to forward, as last sent by the bridge (runtime_config).
        self.listen: list[dict[str, str]] = []
        #: The maps' attachments to install, as last sent by the bridge (runtime_config).
        self.attachments: list[dict[str, Any]] = []
        #: True while the engine said an overlay is open in this document (trusted clicks pass through it).
        self.overlay_open = False
        self._last_call: tuple[str, float] | None = None
        #: When the host took this document over (``browser.claimed_tabs.list`` shows it).
        self.claimed_at = _now()
        #: The document's declared tools (WebMCP, WAB) as last reported; kept for start(), since a page
        #: may declare tools before its runtime has registered with the bridge.
        self._page_tools: dict[str, Any] | None = None
        #: What the current document says on its own (outbox.py), drained once it is configured.
        self.outbox = OutboxPump(runtime_id, self.evaluate_unwatched, self.on_outbox, host.spawn)
        #: The keys this runtime handed its document's outbox (outbox.py), newest last: from the last one it
        #: knows arrived, since a configure may be on its way or may have been cut off before it was sent.
        self._keys: list[str] = []
        #: The title read in flight since the document's last commit or load, which later askers share.
        self._title_read: asyncio.Future[str | None] | None = None

    # -- bridge side ---------------------------------------------------------

    def _deliver(self, item: dict[str, Any]) -> None:
        # Remember the latest call (events it causes name it) and apply event
        # configuration; everything else is the base class's business.
        kind = item.get("type")
        if kind == "action_call" and isinstance(item.get("call_id"), str):
            self._last_call = (item["call_id"], time.monotonic())
        elif kind == "runtime_config":
            # The bridge says both again at every navigation. Unchanged, the document has them already
            # (a new document gets them when it is configured).
            listen, attachments = _objects(item.get("listen")), _objects(item.get("attachments"))
            if listen != self.listen:
                self.listen = listen
                self.host.spawn(self.apply_listen(), f"{self.runtime_id}:listen")
            if attachments != self.attachments:
                self.attachments = attachments
                self.host.spawn(self.apply_attachments(), f"{self.runtime_id}:attachments")
        elif kind == "input_response":
            self.host.spawn(self.deliver_to_page(item), f"{self.runtime_id}:{kind}")
            return
        elif kind == "action_cancel" and not self.is_running(item.get("call_id")):
            # Nothing of the call runs here, but the page may still have work of it (or get
            # an entry of it later): it hears the cancel anyway (callcontext.js, callchannel.js).
            self.host.spawn(self.deliver_to_page(item), f"{self.runtime_id}:{kind}")
        super()._deliver(item)

    def call_aborted(self, call_id: str, reason: str) -> None:
        """The call was cancelled or timed out here: its work in the page (waits, a handler) stops too."""
        cancel = {"type": "action_cancel", "call_id": call_id, "runtime_id": self.runtime_id, "reason": reason}
        self.host.spawn(self.deliver_to_page(cancel), f"{self.runtime_id}:action_cancel")

    def live_url(self) -> str:
        """The document's URL now, as Playwright last saw it commit (ahead of this runtime's own reports)."""
        return self.frame.url

    async def deliver_to_page(self, item: dict[str, Any]) -> None:
        """Hand an answer or a cancel for a running call to the page engine (callchannel.js)."""
        try:
            delivered = await self.evaluate(_DELIVER, item)
        except PlaywrightError as exc:
            log.info("could not deliver %s for call %s to %s: %s", item.get("type"), item.get("call_id"), self.runtime_id, exc)
            return
        if not delivered:
            log.info("%s for call %s found nobody waiting in %s", item.get("type"), item.get("call_id"), self.runtime_id)

    async def forward_call_message(self, message: Any) -> None:
        """A running call's page message (progress, an input request): sent to the bridge as that item."""
        if not isinstance(message, dict) or message.get("type") not in CALL_MESSAGES:
            log.warning("ignored a call message from %s that is not one of %s", self.runtime_id, sorted(CALL_MESSAGES))
            return
        await self.emit({**message, "runtime_id": self.runtime_id})

    async def execute(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run one call under the page's guard: a dialog or a crash ends it at once."""
        return await self.watch.guard(self.perform(name, arguments, handler), handler or name)

    async def perform(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run a page handler or a primitive (subclasses say how)."""
        raise self.unavailable(name)

    def unavailable(self, name: str) -> ActionError:
        """``capability_unavailable`` naming this host and the capability, or ``unknown_action``."""
        if name in dictionary_names() or name.startswith("browser."):
            return ActionError(
                f"{name} is not available in a {self.host_kind} runtime ({self.runtime_id})",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": name, "host": self.host_kind, "runtime_id": self.runtime_id},
            )
        return ActionError(f"no primitive is named {name}", code=ErrorCode.UNKNOWN_ACTION, evidence={"name": name})

    # -- page side -----------------------------------------------------------

    async def evaluate(self, function_source: str, *argument: Any) -> Any:
        """``(function_source)(argument)`` in this document's main world (the argument is JSON data)."""
        return await self.frame.evaluate(function_source, *argument)

    async def evaluate_unwatched(self, function_source: str, argument: Any) -> Any:
        """``evaluate``, where no page script can watch the argument: what carries the outbox's keys (outbox.py).

        A tab's ``evaluate`` is already (its own CDP session, ``main_world.py``); a frame's goes through
        Playwright's utility script, whose parsing and calling a page can watch, and overrides this.
        """
        return await self.evaluate(function_source, argument)

    async def run_engine(self, method: str, a: Any, b: Any) -> Any:
        """Call the page engine in this document: ``run`` a primitive, ``callHandler``, or ``focusEditable``."""
        running = current_call()
        call = running.engine_options() if running is not None else None
        envelope = await self.evaluate(_ENGINE_CALL, [method, a, b, call])
        if envelope is None:  # a document the init script did not reach (attached pages)
            await self.install_engine()
            envelope = await self.evaluate(_ENGINE_CALL, [method, a, b, call])
        if not isinstance(envelope, dict) or "ok" not in envelope:
            raise ActionError("the page engine is not available", code=ErrorCode.RUNTIME_NOT_READY, evidence={"url": self.frame.url})
        if envelope["ok"]:
            return envelope.get("output")
        raise ActionError.from_error(envelope.get("error") or {})

    async def install_engine(self) -> None:
        """Put the engine into the current document (the init script covers later ones)."""
        raise NotImplementedError

    async def page_state(self) -> tuple[str, str | None]:
        """The document's url and title (title None while a navigation or a dialog makes it unreadable).

        The title is read in the page's own world: Playwright's ``frame.title()`` runs in
        its utility world, whose creation in each new document (its injected script) cost
        ~40 ms on every navigation, on the navigation's answer; a tab reads it through
        ``evaluate`` without Playwright's scripts at all (``main_world.py``).

        Askers at the same moment share one read: at a document's ``load`` both the load's report and
        the navigation's answer ask, and a second evaluation would queue behind the first in a renderer
        busy with its first frame. A read begun before the document's last commit or load is never
        shared (``_forget_title``): it may hold the title of before.
        """
        read = self._title_read
        if read is None or read.done():
            read = self._title_read = asyncio.ensure_future(self._read_title())
        return self.frame.url, await asyncio.shield(read)

    async def _read_title(self) -> str | None:
        try:
            # A dialog blocks every evaluate in its page until it is answered: the title waits for
            # it, the URL does not (the policy judges the next call on this tab by it).
            title = await self.watch.guard(self.evaluate(_TITLE), "page.title")
        except (PlaywrightError, ActionError):  # navigating, or a dialog open (dialog_open) or a crash
            title = None
        return title if isinstance(title, str) else None

    def _forget_title(self) -> None:
        """The document changed or loaded: the next asker reads its title anew."""
        self._title_read = None

    async def configure_document(self) -> tuple[str, str | None]:
        """Take the current document over: its outbox drained from now on, the declared events forwarded
        and the attachments installed if the document is new to us, its tools as they are now.

        One evaluation (outbox.py's configure, which also reads the title) where a new document used to
        ask for its listen list and attachments through bindings while it loaded. Answers the url and
        title (None while unreadable, as ``page_state``). A dialog open at that moment blocks the
        evaluation: the url is answered now, and the document is taken over once the dialog is answered.
        """
        try:
            state, key = await self.watch.guard(self._configure(), "page.configure")
        except ActionError as exc:  # a dialog (or a crash): the evaluation waits for it, off this path
            log.debug("configuring the document of %s waits: %s", self.runtime_id, exc)
            self.host.spawn(self._configure_when_free(), f"{self.runtime_id}:configure")
            return self.frame.url, None
        except PlaywrightError as exc:  # navigating on: the next commit configures
            log.debug("could not configure the document of %s: %s", self.runtime_id, exc)
            return self.frame.url, None
        return self.frame.url, await self._take_over(state, key)

    def _host_secret(self) -> str:
        """What this kind of document's outbox answers to before its first configure (outbox.py, ``outbox_hook``)."""
        return self.host.frame_outbox_secret if self.is_frame else self.host.outbox_secret

    async def _configure(self) -> tuple[Any, str]:
        """Configure the document, handing its outbox a new key; the answer and that key.

        The key is this runtime's from the moment it is sent: a later configure or listen, sent after this
        one, reaches the page after it too, when the outbox holds it.
        """
        handed, key = list(self._keys), document_key()
        self._keys = [*handed, key][-_KEYS_KEPT:]
        state = await self.evaluate_unwatched(CONFIGURE, {"secret": self._host_secret(), "keys": handed, "next": key, "listen": self.listen})
        if isinstance(state, dict) and key in self._keys:  # it arrived: no older key is the document's now
            self._keys = self._keys[self._keys.index(key) :]
        return state, key

    async def _configure_when_free(self) -> None:
        try:
            title = await self._take_over(*await self._configure())
        except PlaywrightError as exc:  # the document went away meanwhile: its successor is configured
            log.debug("could not configure the document of %s: %s", self.runtime_id, exc)
            return
        await self.report(url=self.frame.url, title=title)

    async def _take_over(self, state: Any, key: str) -> str | None:
        """Drain the configured document and take in what it said; its title (None without the engine)."""
        if not isinstance(state, dict):  # no engine in the document (yet), or its outbox refused us
            return None
        if self._keys and key == self._keys[-1]:  # else a newer configure is on its way, and restarts the pump itself
            self.outbox.restart(key)
        tools = state.get("tools")
        if isinstance(tools, dict) and tools != (self._page_tools or {}):
            await self.report_page_tools(tools)  # kept, and said if the runtime is connected
        if state.get("fresh") and self.attachments:
            self.host.spawn(self.apply_attachments(), f"{self.runtime_id}:attachments")
        title = state.get("title")
        return title if isinstance(title, str) else None

    async def on_navigated(self) -> None:
        """The document changed: take it over and report where it is now."""
        self._forget_title()
        url, title = await self.configure_document()
        await self.report(url=url, title=title)

    async def on_outbox(self, kind: str, data: Any) -> None:
        """One message from the document's outbox (outbox.py): a signal, its tools, a call's message, an attachment's news."""
        if kind == "event":
            await self.forward_event(data)
        elif kind == "page_tools":
            await self.report_page_tools(data)
        elif kind == "call_message":
            await self.forward_call_message(data)
        elif kind == "attachment":
            await self.on_attachment_report(data)

    async def start(self) -> None:
        """Announce the runtime, then the tools its document already declared."""
        await super().start()
        if self._page_tools:
            await self.report_page_tools(self._page_tools)

    async def stop(self, reason: str = "closed") -> None:
        """Stop draining the document, then leave the bridge."""
        self.outbox.stop()
        await super().stop(reason)

    async def on_load(self) -> None:
        """A document finished loading: its title is final now."""
        self._forget_title()
        url, title = await self.page_state()
        await self.report(url=url, title=title)

    async def apply_listen(self) -> None:
        """Make the current document forward the declared events."""
        try:
            await self.evaluate_unwatched(LISTEN, {"keys": self._keys, "listen": self.listen})
        except PlaywrightError as exc:  # navigating: the next document is configured with the list
            log.debug("could not apply event listeners to %s: %s", self.runtime_id, exc)

    async def apply_attachments(self) -> None:
        """Install the maps' attachments in the current document (replacing what it had).

        Handed over as JSON text through the document's attachment channel (_CHANNEL): the page's
        own serializers never hold an overlay's HTML or data.
        """
        try:
            await self.evaluate(_APPLY_ATTACHMENTS, json.dumps(self.attachments, ensure_ascii=False, allow_nan=False))
        except PlaywrightError as exc:  # navigating: the next document gets them when it is configured
            log.debug("could not apply attachments to %s: %s", self.runtime_id, exc)

    async def take_launcher_opens(self) -> None:
        """Send ``attachment_open`` for each launcher the engine saw really clicked (the channel's queue)."""
        try:
            opened = await self.evaluate(_TAKE_OPENS)
        except PlaywrightError as exc:
            log.debug("could not read launcher clicks of %s: %s", self.runtime_id, exc)
            return
        for entry in opened if isinstance(opened, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("attachment_id"), str) or not entry["attachment_id"]:
                continue
            item: dict[str, Any] = {"type": "attachment_open", "runtime_id": self.runtime_id, "attachment_id": entry["attachment_id"]}
            if isinstance(entry.get("launcher_id"), str):
                item["launcher_id"] = entry["launcher_id"]
            await self.emit(item)

    async def on_attachment_report(self, message: Any) -> None:
        """What the document's engine reports about attachments and the overlay (an outbox ``attachment`` message).

        ``status``: the attachments' states, sent as ``runtime_status.attachments``; ``open``:
        a launcher whose ``opens`` names a map tool was clicked: the channel's queue is read
        (take_launcher_opens), never the message, which a page script can send as well;
        ``overlay``: an overlay opened or closed.
        """
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "status" and isinstance(message.get("attachments"), list):
            await self.emit({"type": "runtime_status", "runtime_id": self.runtime_id, "url": self.frame.url, "attachments": message["attachments"], "observed_at": _now()})
        elif kind == "open":
            self.host.spawn(self.take_launcher_opens(), f"{self.runtime_id}:launcher-opens")
        elif kind == "overlay":
            self.overlay_open = message.get("open") is True

    async def pass_through_overlay(self, on: bool) -> None:
        """Let (or stop letting) the pointer through an open overlay, around a trusted click on the page below."""
        if on and not self.overlay_open:
            return
        # The answer says whether an overlay is still open (a navigation took the last one away).
        self.overlay_open = bool(await self.evaluate(_PASS_THROUGH, on))

    async def report_page_tools(self, snapshot: Any) -> None:
        """The document's declared tools changed (or it arrived): a runtime_status with ``page_tools``.

        A tab's top document and a same-origin frame's both declare tools (WebMCP in a frame).
        """
        if not isinstance(snapshot, dict):
            return
        self._page_tools = snapshot
        await self.emit({"type": "runtime_status", "runtime_id": self.runtime_id, "url": self.frame.url, "page_tools": snapshot})

    async def forward_event(self, signal: Any) -> None:
        """A declared DOM event fired in the document: send it to the bridge as a dom_event."""
        if not isinstance(signal, dict) or not isinstance(signal.get("name"), str):
            return
        item: dict[str, Any] = {
            "type": "dom_event",
            "event_id": f"evt-{uuid.uuid4().hex[:16]}",
            "runtime_id": self.runtime_id,
            "name": signal["name"],
            "event": signal.get("event"),
            "url": self.frame.url,
            "payload": signal.get("payload") if signal.get("payload") is not None else {},
            "observed_at": _now(),
        }
        if self._last_call and time.monotonic() - self._last_call[1] <= PREVIOUS_CALL_WINDOW_S:
            item["previous_call_id"] = self._last_call[0]
        await self.emit(item)
