/*
 * callcontext.js — The deadline and cancellation of each running call, inside the page
 * (docs/bridge-protocol.md, "Deadlines and cancellation").
 *
 * A host that runs a bridge call through the engine passes {call_id, timeout_ms} with it.
 * The engine keeps one context per call id: its deadline, and whether it was aborted (by an
 * action_cancel the host delivers, or by the deadline passing). Every wait (locator.wait_for,
 * dom.settle, a page handler) ends at once when its call is aborted, and every step that
 * acts checks the context first, so no click, keystroke or submit lands after the call ended.
 *
 * One call may enter the engine several times (a trusted click resolves its target first,
 * text.insert focuses the field twice): the entries share one context. An aborted call id is
 * remembered for a while, so an entry that arrives after its cancel is refused at once.
 */
var EngineError = M.EngineError,
  isObject = M.isObject;

// How many aborted call ids are remembered (entries arriving after their cancel are refused).
var ABORTED_MEMORY = 256;

var running = {}; // call_id -> {context, entries}
var abortedIds = {}; // call_id -> {code, message}
var abortedOrder = [];

function CallContext(callId) {
  this.call_id = callId;
  this.deadline = null; // Date.now() value, or null without one
  this.aborted = null; // {code, message} once aborted
  this.listeners = [];
  this.timer = null;
  this.controller = typeof AbortController === "function" ? new AbortController() : null;
  // Page handlers may take it (their second argument) to stop their own work.
  this.signal = this.controller ? this.controller.signal : null;
}

/** Narrow the deadline to timeoutMs from now (an entry never widens what an earlier one set). */
CallContext.prototype.limit = function (timeoutMs) {
  if (typeof timeoutMs !== "number" || !isFinite(timeoutMs) || timeoutMs < 0) return;
  var at = Date.now() + timeoutMs;
  if (this.deadline !== null && this.deadline <= at) return;
  this.deadline = at;
  var self = this;
  if (this.timer) clearTimeout(this.timer);
  this.timer = setTimeout(function () { self.abort("handler_timeout", "timed out"); }, timeoutMs);
};

/** End the call's work: waits stop, later steps refuse to act. The first abort wins. */
CallContext.prototype.abort = function (code, reason) {
  if (this.aborted) return;
  var message = code === "handler_timeout" ? "the call ran out of time" : "the call was cancelled";
  this.aborted = { code: code, message: message + (reason && code !== "handler_timeout" ? " (" + reason + ")" : "") };
  if (this.timer) clearTimeout(this.timer);
  this.timer = null;
  if (this.controller) {
    try {
      this.controller.abort(this.aborted.message);
    } catch (_ignored) { /* an old AbortController without a reason */ }
  }
  var listeners = this.listeners;
  this.listeners = [];
  listeners.forEach(function (fn) {
    try {
      fn();
    } catch (_ignored) { /* one failing listener must not keep the others running */ }
  });
};

/** The error an aborted call's work ends with. */
CallContext.prototype.error = function () {
  var aborted = this.aborted || { code: "cancelled", message: "the call was cancelled" };
  return new EngineError(aborted.code, aborted.message, { call_id: this.call_id });
};

/** Throw the call's error when it was aborted or its deadline passed: call this before acting. */
CallContext.prototype.check = function () {
  if (!this.aborted && this.deadline !== null && Date.now() >= this.deadline) this.abort("handler_timeout", "timed out");
  if (this.aborted) throw this.error();
};

/** fn() once the call is aborted (at once, asynchronously, when it already is); returns a function that stops listening. */
CallContext.prototype.onAbort = function (fn) {
  if (this.aborted) {
    setTimeout(fn, 0);
    return function () {};
  }
  var listeners = this.listeners;
  listeners.push(fn);
  return function () {
    var i = listeners.indexOf(fn);
    if (i >= 0) listeners.splice(i, 1);
  };
};

/**
 * Race a primitive's promise with the call's abort: the call's answer comes at once when it is
 * aborted (the work itself must check the context before it acts).
 */
CallContext.prototype.race = function (value) {
  var self = this;
  if (!value || typeof value.then !== "function") return value;
  return new Promise(function (resolve, reject) {
    var stop = self.onAbort(function () { reject(self.error()); });
    value.then(
      function (v) { stop(); resolve(v); },
      function (e) { stop(); reject(e); }
    );
  });
};

function remember(callId, aborted) {
  if (abortedIds[callId]) return;
  abortedIds[callId] = aborted;
  abortedOrder.push(callId);
  while (abortedOrder.length > ABORTED_MEMORY) delete abortedIds[abortedOrder.shift()];
}

/**
 * Enter a call: options = {call_id?, timeout_ms?} as the host passed them (anything else: a
 * context of its own that nobody can cancel). Leave it with leaveCall(context) when done.
 */
function enterCall(options) {
  var callId = isObject(options) && typeof options.call_id === "string" && options.call_id ? options.call_id : null;
  var timeoutMs = isObject(options) ? options.timeout_ms : undefined;
  if (callId === null) {
    var own = new CallContext(null);
    own.limit(timeoutMs);
    return own;
  }
  var slot = running[callId];
  if (!slot) {
    slot = running[callId] = { context: new CallContext(callId), entries: 0 };
    if (abortedIds[callId]) slot.context.abort(abortedIds[callId].code, "before it reached the page");
  }
  slot.entries += 1;
  slot.context.limit(timeoutMs);
  return slot.context;
}

/** Leave a call entered with enterCall; its context goes when its last entry leaves. */
function leaveCall(context) {
  var callId = context.call_id;
  var slot = callId === null ? null : running[callId];
  if (!slot || slot.context !== context) {
    if (context.timer) clearTimeout(context.timer);
    return;
  }
  slot.entries -= 1;
  if (slot.entries > 0) return;
  delete running[callId];
  if (context.timer) clearTimeout(context.timer);
  context.timer = null;
}

/**
 * Abort the call `callId` (an action_cancel, or the host's own deadline): code is
 * "handler_timeout" or "cancelled". True when the call was running here.
 */
function abortCall(callId, code, reason) {
  if (typeof callId !== "string" || !callId) return false;
  var kind = code === "handler_timeout" ? "handler_timeout" : "cancelled";
  var slot = running[callId];
  if (slot) slot.context.abort(kind, reason);
  remember(callId, slot ? slot.context.aborted : { code: kind, message: "the call was cancelled" });
  return !!slot;
}

/** How many calls have work running in this document (tests and status() read it). */
function runningCalls() {
  return Object.keys(running).length;
}

/** Run fn(context) inside the call described by options; the context is left when fn's promise settles. */
function withCall(options, fn) {
  var context = enterCall(options);
  var result;
  try {
    context.check();
    result = context.race(fn(context));
  } catch (err) {
    leaveCall(context);
    throw err;
  }
  if (!result || typeof result.then !== "function") {
    leaveCall(context);
    return result;
  }
  return result.then(
    function (v) { leaveCall(context); return v; },
    function (e) { leaveCall(context); throw e; }
  );
}

M.enterCall = enterCall;
M.leaveCall = leaveCall;
M.abortCall = abortCall;
M.runningCalls = runningCalls;
M.withCall = withCall;
