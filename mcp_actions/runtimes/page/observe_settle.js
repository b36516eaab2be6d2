/*
 * observe_settle.js — When an acting page tool may say what changed (docs/mcp-surface.md, "What
 * acting tools answer"): once the page has done what the action started. Used by
 * refs.change_mark (arm) and refs.change_report {settle} (wait) in observe_changes.js.
 *
 * A fixed quiet period is either slow (every click pays it) or blind (a reply that comes after it
 * is lost: a to-do saved 150 ms after Enter, a search answered after its debounce). So the wait is
 * adaptive: it ends when the DOM has been quiet for a short window *and* nothing the action started
 * is still pending, or at the cap. What the action started is tracked from refs.change_mark on:
 *
 * - timers (setTimeout with a delay up to MAX_DELAY_MS) scheduled by code that runs within HOT_MS
 *   of the action's input events (its handlers, their promise continuations, a framework's render
 *   right after), by the callbacks of such timers, or right after other tracked work finished (the
 *   continuation of `await sleep(40)` or of a fetch); a timer longer than SHORT_DELAY_MS holds the
 *   answer only while the page has shown no change since the action: once it has (the to-do row
 *   added), a longer timer is the page's own follow-up, not its reply (knockoutjs's TodoMVC saves to
 *   localStorage through a 500 ms rateLimit on every change: each Enter waited for it, ~555 ms), while
 *   a search debounced 500 ms, which shows nothing before, is still waited for;
 * - requests (fetch, XMLHttpRequest) started the same way;
 * - work done while the action's input event, or an event of a request it started, is being dispatched,
 *   however long its handlers have run (dispatchedGeneration);
 * - a message the action sent on a WebSocket (a data app drawn over a socket: Streamlit sends the click, its
 *   server reruns and sends what to draw): the wait holds until a message comes back, then while more come
 *   within SOCKET_QUIET_MS of each other (a rerun's deltas, then its end), so what the reply renders is in the
 *   answer, not "no visible change" (issue 53);
 * - a document the page is leaving for (`beforeunload` since the mark: a link, a form's POST, a script's
 *   location change): the wait ends at once with `navigating: true`, since the page stays quiet until the
 *   response commits, and the tab host waits for that commit on the browser's own events
 *   (runtimes/consequences.py); the report must not read the quiet as "no visible change".
 *
 * "Within HOT_MS of an input event" (or while one is dispatched) rather than "while armed": the engine
 * itself, and a page's mutation observers reacting to a poll, schedule short timers at any time. Work the page was doing
 * anyway is left out: a timer or interval scheduled while nothing was armed runs its callback as
 * untracked, and what that callback schedules is untracked too (a poll loop never holds an
 * action's answer back). Chains are cut after MAX_GENERATIONS hops and the cap bounds everything,
 * so a page that never rests costs the cap, as before.
 *
 * The wrappers are installed on the page's window at the first refs.change_mark (no side effect
 * before an acting tool is used) and only count while armed; they call the browser's own functions
 * captured at install. A timer the page set before that install is not wrapped: should its callback
 * run within HOT_MS of the first actions' input events, what it schedules is taken for the action's
 * (bounded like any chain). Same-origin frames keep their own timers: an action inside one gets the
 * quiet window only.
 */
var fail = M.fail;

var MAX_DELAY_MS = 600; // a longer timer is a toast's hide or a poll, not the action's reply
var SHORT_DELAY_MS = 300; // a longer one holds the answer only while the page shows no change yet
var MAX_GENERATIONS = 4; // timer -> callback -> timer ... hops followed from the action
var HOT_MS = 20; // code this soon after an input event or tracked work continues it (handlers, promise chains)
var SOCKET_QUIET_MS = 150; // a socket reply's messages this close together are one reply
// The events an action delivers (trusted input or the engine's own): each starts a hot window.
var INPUT_TYPES = {}; // INPUT_EVENTS by type
var INPUT_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "keydown", "keypress", "keyup", "beforeinput", "input", "change", "submit", "focusin", "focusout", "mouseover", "pointerover", "dragstart", "drop", "dragend", "scroll", "wheel"];

INPUT_EVENTS.forEach(function (type) { INPUT_TYPES[type] = 1; });

// Captured when the engine installed (intrinsics.js): the engine's own timers use them and are never followed.
var nativeSetTimeout = M.intrinsics.nativeSetTimeout;
var nativeClearTimeout = M.intrinsics.nativeClearTimeout;
var nativeNow = Date.now;

var installed = false;
var armed = false; // between refs.change_mark and the end of refs.change_report
var context = 0; // 0: no wrapped callback runs; -1: an untracked one; n > 0: a tracked one of generation n
var hotUntil = 0, hotGeneration = 0; // tracked work just finished: what runs now continues it
var timers = {}; // tracked timer id -> true, until it fires or is cleared
var pendingTimers = 0, pendingRequests = 0;
var requestOf = typeof WeakMap === "function" ? new WeakMap() : null; // a request the action started -> its generation
var pendingLong = 0; // of pendingTimers, those longer than SHORT_DELAY_MS
var changeSeen = null; // a MutationObserver noting that the page changed since arm()
var changed = false; // the page's DOM changed since arm()
var lastActivity = 0; // when tracked work last finished
var listener = null; // the running settle's wake-up
var leaving = false; // the page began leaving for another document since arm()
var socketsAwaited = 0, socketUntil = 0; // sockets the action sent on, no reply yet; when the last reply's messages end
var awaited = null, listened = null; // WeakSets: the sockets awaited since arm(), those we listen to (never the page's expandos)
var ownSockets = typeof WeakSet === "function" ? new WeakSet() : null; // the engine's own bridge connection (client.js): never the action's

function now() {
  return nativeNow.call(Date);
}

/** The generation work started now belongs to, or 0 when it is not the action's. */
function generationNow() {
  if (!armed || context < 0) return 0;
  var generation = 0;
  if (context > 0) generation = context + 1;
  else if (now() <= hotUntil) generation = hotGeneration + 1;
  else generation = dispatchedGeneration();
  return generation > 0 && generation <= MAX_GENERATIONS ? generation : 0;
}

/**
 * The generation of the event being dispatched now, however long its handlers have run (0: none of the action's):
 * an input event (Draftail's Link button renders its chooser in the mousedown's own dispatch, 20-180 ms after the
 * event began on a busy page), or an event of a request the action started (the chooser's XHR load handler
 * renders the modal, then starts Bootstrap's fade timer).
 */
function dispatchedGeneration() {
  var event = root.event; // the event being dispatched (undefined between them)
  if (!event) return 0;
  if (INPUT_TYPES[event.type] === 1) return hotGeneration + 1;
  return requestOf && event.target && requestOf.has(event.target) ? requestOf.get(event.target) + 1 : 0;
}

function wake() {
  if (listener) listener();
}

function finished(generation) {
  lastActivity = now();
  hotUntil = lastActivity + HOT_MS;
  hotGeneration = generation;
  wake();
}

function wrapTimers() {
  if (!nativeSetTimeout || !nativeClearTimeout) return;
  var native = nativeSetTimeout;
  root.setTimeout = function setTimeout(handler, delay) {
    var extra = Array.prototype.slice.call(arguments, 2);
    if (typeof handler !== "function") return native.apply(root, arguments); // a string handler: the page's own business
    var ms = Number(delay) || 0;
    var generation = ms <= MAX_DELAY_MS ? generationNow() : 0;
    var id = native.call(root, function () {
      if (generation && timers[id]) untrack(id);
      var saved = context;
      context = generation || -1;
      try {
        return handler.apply(this, extra);
      } finally {
        context = saved;
        if (generation) finished(generation);
      }
    }, delay);
    if (generation) {
      timers[id] = ms > SHORT_DELAY_MS ? "long" : "short";
      pendingTimers++;
      if (ms > SHORT_DELAY_MS) pendingLong++;
    }
    return id;
  };
  root.clearTimeout = function clearTimeout(id) {
    if (timers[id]) {
      untrack(id);
      wake();
    }
    return nativeClearTimeout.call(root, id);
  };
  if (typeof root.setInterval === "function") {
    // An interval is never the action's reply (a clock, a poll), and neither is what its callback schedules.
    var nativeInterval = root.setInterval;
    root.setInterval = function setInterval(handler, delay) {
      if (typeof handler !== "function") return nativeInterval.apply(root, arguments);
      var extra = Array.prototype.slice.call(arguments, 2);
      return nativeInterval.call(root, function () {
        var saved = context;
        context = -1;
        try {
          return handler.apply(this, extra);
        } finally {
          context = saved;
        }
      }, delay);
    };
  }
}

function untrack(id) {
  if (timers[id] === "long") pendingLong--;
  delete timers[id];
  pendingTimers--;
}

function wrapRequests() {
  if (typeof root.fetch === "function") {
    var nativeFetch = root.fetch;
    root.fetch = function fetch() {
      var generation = generationNow();
      var promise = nativeFetch.apply(root, arguments);
      if (generation && promise && typeof promise.then === "function") {
        pendingRequests++;
        var done = function () {
          pendingRequests--;
          finished(generation);
        };
        promise.then(done, done);
      }
      return promise;
    };
  }
  var XHR = root.XMLHttpRequest;
  if (typeof XHR === "function" && XHR.prototype && typeof XHR.prototype.send === "function") {
    var nativeSend = XHR.prototype.send;
    XHR.prototype.send = function send() {
      var generation = generationNow();
      if (generation) {
        var open = true, request = this;
        var end = function () {
          if (!open) return;
          open = false;
          pendingRequests--;
          finished(generation);
        };
        pendingRequests++;
        if (requestOf) requestOf.set(request, generation);
        // readyState 4 comes before load: what the page's load handler schedules continues the action.
        this.addEventListener("readystatechange", function () {
          if (request.readyState === 4) end();
        });
        this.addEventListener("loadend", end);
      }
      return nativeSend.apply(this, arguments);
    };
  }
}

function wrapSockets() {
  var Socket = root.WebSocket;
  if (typeof Socket !== "function" || !Socket.prototype || typeof Socket.prototype.send !== "function" || typeof WeakSet !== "function") return;
  listened = new WeakSet();
  var nativeSend = Socket.prototype.send;
  Socket.prototype.send = function send() {
    var generation = generationNow(), socket = this;
    if (generation && awaited && !awaited.has(socket) && !(ownSockets && ownSockets.has(socket))) {
      awaited.add(socket);
      socketsAwaited++;
      if (!listened.has(socket)) {
        listened.add(socket);
        var replied = function () {
          if (!armed) return;
          if (awaited.has(socket)) {
            awaited.delete(socket);
            socketsAwaited--;
          }
          socketUntil = now() + SOCKET_QUIET_MS;
          finished(1);
        };
        socket.addEventListener("message", replied);
        socket.addEventListener("close", replied);
      }
    }
    return nativeSend.apply(this, arguments);
  };
}

function onInput() {
  if (!armed) return;
  hotUntil = now() + HOT_MS;
  hotGeneration = 0;
}

function onLeaving() {
  if (!armed) return;
  leaving = true;
  wake();
}

function listenToInput() {
  if (typeof root.addEventListener !== "function") return;
  // Capturing on the window: it hears every event of the document first, whatever the page stops later.
  INPUT_EVENTS.forEach(function (type) { root.addEventListener(type, onInput, { capture: true, passive: true }); });
  // The browser asks the page before it leaves: a navigation has begun (it may still be cancelled).
  root.addEventListener("beforeunload", onLeaving, { capture: true });
}

/** Start tracking what an action starts (refs.change_mark); wraps the page's timers and requests once. */
function arm() {
  if (!installed) {
    installed = true;
    wrapTimers();
    wrapRequests();
    wrapSockets();
    listenToInput();
    if (typeof MutationObserver === "function") {
      changeSeen = new MutationObserver(function () { changed = true; });
      changeSeen.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
  }
  // What changed before this action (the engine marking its target) is not the action's.
  if (changeSeen) changeSeen.takeRecords();
  changed = false;
  timers = {};
  pendingTimers = 0;
  pendingLong = 0;
  pendingRequests = 0;
  socketsAwaited = 0;
  socketUntil = 0;
  awaited = typeof WeakSet === "function" ? new WeakSet() : null;
  hotUntil = 0;
  lastActivity = 0;
  leaving = false;
  armed = true;
}

function disarm() {
  armed = false;
  listener = null;
}

/**
 * Wait until the DOM was quiet for quiet_ms and nothing the action started is pending, or timeout_ms:
 * {settled, waited_ms}. Never fails but on bad input; a cancelled call stops at once.
 */
function settle(options, call) {
  var quiet = options.quiet_ms === undefined ? 40 : options.quiet_ms;
  var timeout = options.timeout_ms === undefined ? 1500 : options.timeout_ms;
  if (typeof quiet !== "number" || !(quiet >= 0) || quiet > 10000) fail("invalid_input", "settle.quiet_ms must be a number from 0 to 10000", { field: "settle.quiet_ms" });
  if (typeof timeout !== "number" || !(timeout >= 0) || timeout > 60000) fail("invalid_input", "settle.timeout_ms must be a number from 0 to 60000", { field: "settle.timeout_ms" });
  var started = now();
  var lastMutation = started;
  if (!nativeSetTimeout) return Promise.resolve({ settled: true, waited_ms: 0 });
  return new Promise(function (resolve) {
    var timer = null, observer = null, stopListening = null, done = false;
    function finish(settled) {
      if (done) return;
      done = true;
      if (stopListening) stopListening();
      if (observer) observer.disconnect();
      nativeClearTimeout.call(root, timer);
      listener = null;
      var out = { settled: settled, waited_ms: now() - started };
      if (leaving) out.navigating = true;
      resolve(out);
    }
    function check() {
      if (done) return;
      nativeClearTimeout.call(root, timer);
      var t = now();
      if (t - started >= timeout) return finish(false);
      if (armed && leaving) return finish(true); // quiet until the next document commits: the host waits for it
      // A long timer once the page has changed is its own follow-up (a rate-limited save), not the reply.
      if (changeSeen) changed = changed || changeSeen.takeRecords().length > 0;
      var pending = armed && (pendingTimers - (changed ? pendingLong : 0) > 0 || pendingRequests > 0 || socketsAwaited > 0);
      var socketQuiet = armed ? socketUntil - t : 0; // a socket's reply still coming in
      var quietSince = Math.max(lastMutation, armed ? lastActivity : 0, started);
      if (!pending && socketQuiet <= 0 && t - quietSince >= quiet) return finish(true);
      // Pending work wakes check() when it ends (listener); the timer covers the quiet window and the cap.
      var next = pending ? timeout - (t - started) : Math.min(Math.max(quiet - (t - quietSince), socketQuiet), timeout - (t - started));
      timer = nativeSetTimeout.call(root, check, Math.max(0, next));
    }
    if (typeof MutationObserver === "function") {
      observer = new MutationObserver(function () {
        lastMutation = now();
        check();
      });
      observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
    listener = check;
    if (call) stopListening = call.onAbort(function () { finish(false); });
    check();
  });
}

M.actionSettle = { arm: arm, disarm: disarm, settle: settle };
// client.js: the engine's answers on its own socket, sent right after an action's events, are not the page's messages.
M.ownSocket = function (socket) {
  if (ownSockets) ownSockets.add(socket);
};
