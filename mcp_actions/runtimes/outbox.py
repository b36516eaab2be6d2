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
the next message is posted, in one batch per task, as ``{batch}``), handles the batch, and asks again. So a
message costs one answer of an evaluation already in flight, over the runtime's own CDP session
for a tab (``main_world.py``), and a quiet document costs nothing.

Who may read it: the host alone (docs/threat-model.md, "What a page could forge, and what holds now", rows
7 and 8).
- The host's secret opens a document's outbox once: its first ``configure`` hands the outbox a key of
  that document's own (``document_key``), and from then on ``take``, ``listen`` and the next
  ``configure`` answer only to that key (each configure hands a new one); the host's secret opens
  nothing there any more. A top document's secret differs from a frame's (``outbox_hook``).
- Neither reaches a page script. The secret is in the init script's text and in the host's configuring
  evaluations; every function the host runs in a page is strict ("use strict", so no page function it
  calls reads its arguments through ``caller`` or a stack's call sites: tests/runtimes/
  test_strict_evaluations.py), the outbox calls only built-ins it captured when it was made (before the
  page's scripts in a document the init script reached: ``Object.getOwnPropertyDescriptor``,
  ``Reflect.apply``, ``Promise``, ``queueMicrotask``, the browser's ``document.title`` getter), and the
  host reads the outbox as the window's own property, which no page built-in is asked for and which
  cannot be replaced. What carries a key travels over the tab's own CDP session (``main_world.py``): a
  tab's argument written as a literal, a frame's called in its document by the browser
  (``FrameRuntime.evaluate_unwatched``), never through Playwright's utility script, which a page can
  watch: nothing of the page's parses them.
- One reader. ``take`` answers only the document's key, and not while the host's take waits: a page's
  take, with any key, changes nothing, and only the host's next configure ends the waiting take. A
  batch is handed over in an object with no prototype, so resolving the host's promise with it reads
  no ``then`` a page put on ``Object.prototype`` or ``Array.prototype``.
- Post: yes, as it could call the bindings before. What a document says is its own (events it
  fires, tools it declares), and what would be a claim is checked by the host: a launcher "open"
  reads the attachment channel's own queue, never the message (document.py).
- What is left: a document the engine was installed into late (an attached browser's page) may have put
  a lookalike outbox on its window first: it is handed the host's secret with the configure (the host
  cannot tell it from its own), which then opens only documents not configured yet, as for its
  attachments. A document with no outbox at all is given one that never holds the secret.

Messages: ``{"kind": "event" | "page_tools" | "call_message" | "attachment", "data": ...}``. A
``page_tools`` snapshot and an attachment ``status`` replace a queued one of their kind (only the
latest matters), and the queue keeps at most ``OUTBOX_LIMIT`` messages (the oldest go first), so a
document no runtime drains (a third-party frame) holds little.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError

__all__ = ["CONFIGURE", "LISTEN", "OUTBOX_LIMIT", "OutboxPump", "document_key", "outbox_hook"]

log = logging.getLogger(__name__)

#: The most messages a document keeps for its runtime (a document nobody drains holds no more).
OUTBOX_LIMIT = 200

# Made once per document: before the page's scripts (outbox_hook) or at the first configure. Strict, like
# every function the host runs in a page: a page function it calls cannot read its arguments through
# `caller` or a stack's call sites. Every built-in it calls is captured here, before the page's scripts
# when the init script runs it, so a page that later replaces Object.getOwnPropertyDescriptor,
# Array.prototype.push, Promise, Reflect.apply or document.title sees nothing it holds.
_MAKE = (
    """function (engine, secret, claimed) {
  "use strict";
  var describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty, keys = Object.keys;
  var freeze = Object.freeze, create = Object.create, apply = Reflect.apply, P = Promise;
  var microtask = typeof queueMicrotask === "function" ? queueMicrotask : null;
  var titleOf = typeof Document === "function" ? describe(Document.prototype, "title") : null;
  titleOf = titleOf && typeof titleOf.get === "function" ? titleOf.get : null;
  var own = describe(window, "__mcpActionsOutbox");
  if (own) return own.value || null;
  if (!engine || typeof engine.onPageTools !== "function" || typeof engine.pageTools !== "function") return null;
  var LIMIT = """
    + str(OUTBOX_LIMIT)
    + """;
  var queue = [], waiter = null, scheduled = false, configured = false, toolsSaid = false;
  // The key of this document, handed over by the host's first configure (with the host's secret), changed
  // by each later one; take and listen answer only to it. null: no configure yet (or a late document's).
  var documentKey = typeof claimed === "string" ? claimed : null;
  function later(f) { if (microtask) apply(microtask, window, [f]); else P.resolve().then(f); }
  // A batch in an object with no prototype: resolving a promise with it reads no page-made `then`.
  // Whether keys (an array the host sends) holds the document's key: the host may have handed it a newer
  // one that has not arrived yet, so it names each key it handed since the one it knows arrived.
  function holds(keys) {
    if (documentKey === null || !keys) return false;
    for (var i = 0; i < keys.length && i < 16; i++) if (keys[i] === documentKey) return true;
    return false;
  }
  function batch(items) { var box = create(null); box.batch = items; return box; }
  function drain() { var out = queue; queue = []; return batch(out); }
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
  function watch(list) { return engine.watchEvents(list, function (signal) { post("event", signal); }); }
  function title() {
    var t = titleOf ? apply(titleOf, document, []) : "";
    return typeof t === "string" ? t : "";
  }
  var outbox = freeze({
    post: post,
    title: title,  // the document's title as the browser has it (no key: a title is no secret)
    // One reader: the host's. A take with another key, or while the host's take waits, gets nothing and
    // changes nothing; only the host's next configure ends the waiting take (its reader of before).
    take: function (key) {
      if (documentKey === null || key !== documentKey || waiter) return null;
      if (queue.length) return drain();
      return new P(function (resolve) { waiter = resolve; });
    },
    // The declared events to forward from now on (replacing the ones before); -1 for another key.
    listen: function (keys, list) {
      return holds(keys) ? watch(list) : -1;
    },
    // The host's secret takes over a document no configure reached yet; after that only its key does.
    configure: function (hostSecret, keys, next, listen) {
      var allowed = documentKey === null ? secret !== null && hostSecret === secret : holds(keys);
      if (!allowed || typeof next !== "string" || next.length < 16) return null;
      documentKey = next;
      if (waiter) { var old = waiter; waiter = null; old(null); }
      var fresh = !configured;
      configured = true;
      if (fresh && listen && listen.length) watch(listen);
      var kept = [];
      for (var i = 0; i < queue.length; i++) if (queue[i].kind !== "page_tools") kept[kept.length] = queue[i];
      queue = kept;  // the snapshot below is newer than any queued one
      return { fresh: fresh, title: title(), tools: engine.pageTools() };
    }
  });
  define(window, "__mcpActionsOutbox", { value: outbox });
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

#: ``take``: ``{batch}``, the queued messages, or a promise of the next batch; null for another key, while
#: another take waits, or when this document has no outbox of ours.
_TAKE = """(key) => {
  "use strict";
  const outbox = window.__mcpActionsOutbox;
  return outbox && typeof outbox.take === "function" ? outbox.take(key) : null;
}"""


def outbox_hook(secret: str, frame_secret: str) -> str:
    """The init-script part that makes every new document's outbox before the page's scripts run.

    A top document's outbox answers to ``secret``, a frame's to ``frame_secret``: a frame is reached through
    Playwright's evaluation (document.py), which its page's scripts can watch, and what they could learn
    there must not open any tab's outbox.
    """
    which = "window.top === window ? " + json.dumps(secret) + " : " + json.dumps(frame_secret)
    return "\n;(" + _MAKE + ")(window.__mcpActions, " + which + ", null);\n"


def document_key() -> str:
    """A fresh key for one document's outbox (handed over by the next configure)."""
    return secrets.token_urlsafe(24)


#: ``({secret, keys, next, listen})``: take the document over (with the host's ``secret`` the first time, else
#: with its current key, one of ``keys``) and hand it ``next``, its key from now on; forward ``listen``'s events if it is
#: new here; answer ``{fresh, title, tools}`` (null without the engine, or when the outbox refused).
#: The outbox is read as the window's own property: in a document the init script reached it is ours and
#: cannot be replaced, and no built-in of the page's is asked for it. A document with none (one the init
#: script did not reach) gets one now, already claimed by ``next``, and is never handed the host's secret
#: (what the page's built-ins hand back there may be a lookalike).
CONFIGURE = (
    "(args) => {\n  \"use strict\";\n  let outbox = window.__mcpActionsOutbox, secret = args.secret, keys = args.keys;\n"
    "  if (outbox === undefined) {\n    outbox = ("
    + _MAKE
    + ")(window.__mcpActions, null, args.next);\n    secret = null;\n    keys = [args.next];\n  }\n"
    "  return outbox && typeof outbox.configure === \"function\" ? outbox.configure(secret, keys, args.next, args.listen) : null;\n}"
)
#: ``({keys, listen})``: forward ``listen``'s events from the document from now on (-1 without an outbox of ours).
LISTEN = """(args) => {
  "use strict";
  const outbox = window.__mcpActionsOutbox;
  return outbox && typeof outbox.listen === "function" ? outbox.listen(args.keys, args.listen) : -1;
}"""


class OutboxPump:
    """Keeps one ``take`` pending in a runtime's current document and hands each message on.

    ``restart(key)`` after every configure, with the key it handed the document: the configure ended the
    take pending in the same document (it answers null and its loop ends), and a new document's ended
    with the old one. Nothing a page does ends it: its takes are refused while this one waits.
    """

    def __init__(
        self,
        name: str,
        evaluate: Callable[..., Awaitable[Any]],
        handle: Callable[[str, Any], Awaitable[None]],
        spawn: Callable[..., asyncio.Task[Any]],
    ) -> None:
        self._name = name
        self._evaluate = evaluate
        self._handle = handle
        self._spawn = spawn
        self._task: asyncio.Task[Any] | None = None

    def restart(self, key: str) -> None:
        """Drain the runtime's current document from now on, with the key its last configure handed it."""
        self.stop()
        self._task = self._spawn(self._run(key), f"{self._name}:outbox")

    def stop(self) -> None:
        """Stop draining (the runtime stopped)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    async def _run(self, key: str) -> None:
        while True:
            try:
                answer = await self._evaluate(_TAKE, key)
            except PlaywrightError as exc:  # the document went away: the next navigation restarts us
                log.debug("outbox of %s closed: %s", self._name, exc)
                return
            batch = answer.get("batch") if isinstance(answer, dict) else None
            if not isinstance(batch, list):  # no outbox there, or a newer configure ended this take
                return
            for message in batch:
                if isinstance(message, dict) and isinstance(message.get("kind"), str):
                    try:
                        await self._handle(message["kind"], message.get("data"))
                    except Exception:  # one bad message must not stop the document's others
                        log.exception("a message from %s could not be handled", self._name)
