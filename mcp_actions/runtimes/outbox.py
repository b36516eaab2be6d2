"""What a document tells its runtime, without a Playwright binding: the document's outbox, drained by the host.

A browser-host document has four things to say on its own: a declared DOM event fired (a signal),
its declared tools changed (WebMCP, ABP, WAB), a running call sent a message (progress, an input
request), or its attachments changed state (a launcher clicked, an overlay opened). They used to
travel through Playwright's ``expose_binding``, which costs every document of the context
Playwright's bindings controller (an init script of its own) and, at the first call of a binding in
a document, its utility script compiled in the page (~10 ms, measured on the board page), plus an
evaluation to hand back each call's result, which nothing here needs. A document that spoke while
it loaded (the page tools it declared, the listen list it asked for) paid that in its load.

Now each document has an outbox (``window.__mcpActionsOutbox``), made by the init script before any
script of the page runs (``outbox_hook``), or at the first ``configure`` in a document the init
script did not reach. The engine's callbacks ``post`` into it; the runtime keeps one evaluation
pending in its document (``OutboxPump``: ``take`` answers at once with what is queued, else when
the next message is posted, in one batch per task), handles the batch, and asks again. So a
message costs one answer of an evaluation already in flight, over the runtime's own CDP session
for a tab (``main_world.py``), and a quiet document costs nothing.

What a page can and cannot do with it:
- Read or drain the queue: no. ``take`` and ``configure`` answer only to the host's secret, which
  is in the init script's text and in the host's evaluations, never in a value a page script can
  reach (a document the engine was installed into late, an attached browser's page, may have put
  a lookalike in its place first: nothing of this holds there, as for its attachments).
- Post: yes, as it could call the bindings before. What a document says is its own (events it
  fires, tools it declares), and what would be a claim is checked by the host: a launcher "open"
  reads the attachment channel's own queue, never the message (document.py).

Messages: ``{"kind": "event" | "page_tools" | "call_message" | "attachment", "data": ...}``. A
``page_tools`` snapshot and an attachment ``status`` replace a queued one of their kind (only the
latest matters), and the queue keeps at most ``OUTBOX_LIMIT`` messages (the oldest go first), so a
document no runtime drains (a third-party frame) holds little.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError

__all__ = ["CONFIGURE", "LISTEN", "OUTBOX_LIMIT", "OutboxPump", "outbox_hook"]

log = logging.getLogger(__name__)

#: The most messages a document keeps for its runtime (a document nobody drains holds no more).
OUTBOX_LIMIT = 200

# Made once per document: before the page's scripts (outbox_hook) or at the first configure. Only
# built-ins captured here are used after, so a page that replaces Array.prototype.push or Promise
# later sees none of what is queued. Events the engine forwards (watchEvents) and the engine's
# page-tools, call-message and overlay callbacks post here.
_MAKE = (
    """function (engine, secret) {
  var own = Object.getOwnPropertyDescriptor(window, "__mcpActionsOutbox");
  if (own) return own.value || null;
  if (!engine || typeof engine.onPageTools !== "function" || typeof engine.pageTools !== "function") return null;
  var P = Promise, keys = Object.keys, freeze = Object.freeze, LIMIT = """
    + str(OUTBOX_LIMIT)
    + """;
  var later = typeof queueMicrotask === "function" ? queueMicrotask.bind(window) : function (f) { P.resolve().then(f); };
  var queue = [], waiter = null, scheduled = false, configured = false, toolsSaid = false;
  function drain() { var out = queue; queue = []; return out; }
  function flush() {
    scheduled = false;
    if (waiter && queue.length) { var w = waiter; waiter = null; w(drain()); }
  }
  function replaces(message, kind, data) {
    if (message.kind !== kind) return false;
    return kind === "page_tools" || (kind === "attachment" && data && data.type === "status" && message.data && message.data.type === "status");
  }
  function post(kind, data) {
    var kept = [];
    for (var i = 0; i < queue.length; i++) if (!replaces(queue[i], kind, data)) kept[kept.length] = queue[i];
    kept[kept.length] = { kind: kind, data: data };
    if (kept.length > LIMIT) { var last = []; for (var j = kept.length - LIMIT; j < kept.length; j++) last[last.length] = kept[j]; kept = last; }
    queue = kept;
    if (waiter && !scheduled) { scheduled = true; later(flush); }
  }
  var outbox = freeze({
    post: post,
    take: function (key) {
      if (key !== secret) return null;
      if (queue.length) return drain();
      if (waiter) { var old = waiter; waiter = null; old(null); }  // a newer take replaces it
      return new P(function (resolve) { waiter = resolve; });
    },
    // The declared events to forward from now on (replacing the ones before); -1 for another key.
    listen: function (key, list) {
      return key === secret ? engine.watchEvents(list, function (signal) { post("event", signal); }) : -1;
    },
    configure: function (key, listen) {
      if (key !== secret) return null;
      var fresh = !configured;
      configured = true;
      if (fresh && listen && listen.length) outbox.listen(key, listen);
      var kept = [];
      for (var i = 0; i < queue.length; i++) if (queue[i].kind !== "page_tools") kept[kept.length] = queue[i];
      queue = kept;  // the snapshot below is newer than any queued one
      return { fresh: fresh, title: String(document.title || ""), tools: engine.pageTools() };
    }
  });
  Object.defineProperty(window, "__mcpActionsOutbox", { value: outbox });
  // A new document with no tools says nothing: configure tells the host what it has.
  engine.onPageTools(function (snapshot) {
    if (!toolsSaid && !keys(snapshot).length) return;
    toolsSaid = true;
    post("page_tools", snapshot);
  });
  if (typeof engine.onCallMessage === "function") engine.onCallMessage(function (message) { post("call_message", message); });
  if (typeof engine.onOverlayChange === "function") engine.onOverlayChange(function (open) { post("attachment", { type: "overlay", open: open }); });
  return outbox;
}"""
)

#: ``take``: the queued messages, or a promise of the next batch; null when this document has no outbox of ours.
_TAKE = """(key) => {
  const outbox = window.__mcpActionsOutbox;
  return outbox && typeof outbox.take === "function" ? outbox.take(key) : null;
}"""


def outbox_hook(secret: str) -> str:
    """The init-script part that makes every new document's outbox before the page's scripts run."""
    return "\n;(" + _MAKE + ")(window.__mcpActions, " + json.dumps(secret) + ");\n"


#: ``({secret, listen})``: make the outbox if the document has none, forward ``listen``'s events if it is new here,
#: and answer ``{fresh, title, tools}`` (null without the engine).
CONFIGURE = "(args) => {\n  const outbox = (" + _MAKE + ")(window.__mcpActions, args.secret);\n  return outbox ? outbox.configure(args.secret, args.listen) : null;\n}"
#: ``({secret, listen})``: forward ``listen``'s events from the document from now on (-1 without an outbox of ours).
LISTEN = """(args) => {
  const outbox = window.__mcpActionsOutbox;
  return outbox && typeof outbox.listen === "function" ? outbox.listen(args.secret, args.listen) : -1;
}"""


class OutboxPump:
    """Keeps one ``take`` pending in a runtime's current document and hands each message on.

    ``restart`` after every navigation (the pending take ended with the old document; a take in the
    same document replaces the older one, which then answers null and its loop ends).
    """

    def __init__(
        self,
        name: str,
        evaluate: Callable[..., Awaitable[Any]],
        secret: str,
        handle: Callable[[str, Any], Awaitable[None]],
        spawn: Callable[..., asyncio.Task[Any]],
    ) -> None:
        self._name = name
        self._evaluate = evaluate
        self._secret = secret
        self._handle = handle
        self._spawn = spawn
        self._task: asyncio.Task[Any] | None = None

    def restart(self) -> None:
        """Drain the runtime's current document from now on."""
        self.stop()
        self._task = self._spawn(self._run(), f"{self._name}:outbox")

    def stop(self) -> None:
        """Stop draining (the runtime stopped)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    async def _run(self) -> None:
        while True:
            try:
                batch = await self._evaluate(_TAKE, self._secret)
            except PlaywrightError as exc:  # the document went away: the next navigation restarts us
                log.debug("outbox of %s closed: %s", self._name, exc)
                return
            if not isinstance(batch, list):  # no outbox there, or a newer take replaced this one
                return
            for message in batch:
                if isinstance(message, dict) and isinstance(message.get("kind"), str):
                    try:
                        await self._handle(message["kind"], message.get("data"))
                    except Exception:  # one bad message must not stop the document's others
                        log.exception("a message from %s could not be handled", self._name)
