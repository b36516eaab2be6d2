/*
 * callchannel.js — Messages between a running call and its caller while the
 * call runs (docs/bridge-protocol.md: "Call messages"), shared by protocol adapters (ABP):
 *
 *   page → host:  {type: "call_progress", call_id, progress, total?, message?}
 *                 {type: "input_request", call_id, request_id, request}
 *   host → page:  {type: "input_response", call_id, request_id, response | error}
 *                 {type: "action_cancel", call_id, reason?}
 *
 * call_id is the bridge's id of the call (the host passes it in the
 * primitive's arguments). Hosts subscribe with engine.onCallMessage(fn) and
 * hand items addressed to the page to engine.deliver(item). An input request
 * nobody answers within its time ends with an error, never hangs.
 */
var isObject = M.isObject;

var senders = [];
var waiting = {}; // request_id -> {resolve, timer}
var cancelHandlers = {}; // call_id -> fn(reason)
var counter = 0;
var INPUT_WAIT_MS = 10 * 60 * 1000;

function send(message) {
  if (!senders.length) return false;
  senders.forEach(function (fn) {
    try {
      fn(JSON.parse(JSON.stringify(message)));
    } catch (_ignored) { /* a failing host callback must not break the page */ }
  });
  return true;
}

/** Hear every page → host call message (a host forwards them to its bridge). */
function onCallMessage(fn) {
  if (typeof fn === "function") senders.push(fn);
  return senders.length;
}

/** Report progress of the call `callId` (numbers as the caller's progress notification). */
function sendProgress(callId, progress, total, message) {
  var item = { type: "call_progress", call_id: callId, progress: progress };
  if (typeof total === "number" && isFinite(total)) item.total = total;
  if (typeof message === "string" && message) item.message = M.cap(message, 500);
  return send(item);
}

/**
 * Ask the caller of `callId` for input; resolves with {response} or {error}
 * (an error when no host listens, the host refused, or time ran out).
 */
function requestInput(callId, request, timeoutMs) {
  var requestId = "in-" + (++counter) + "-" + Math.random().toString(36).slice(2, 8);
  return new Promise(function (resolve) {
    var wait = typeof timeoutMs === "number" && timeoutMs > 0 ? timeoutMs : INPUT_WAIT_MS;
    var timer = setTimeout(function () {
      delete waiting[requestId];
      resolve({ error: { code: "handler_timeout", message: "no answer to the input request within " + wait + " ms" } });
    }, wait);
    waiting[requestId] = { resolve: resolve, timer: timer };
    if (!send({ type: "input_request", call_id: callId, request_id: requestId, request: request })) {
      clearTimeout(timer);
      delete waiting[requestId];
      resolve({ error: { code: "capability_unavailable", message: "no host listens for input requests" } });
    }
  });
}

/** Run fn(reason) when the caller cancels the call `callId`; returns a function that stops listening. */
function onCancel(callId, fn) {
  cancelHandlers[callId] = fn;
  return function () { if (cancelHandlers[callId] === fn) delete cancelHandlers[callId]; };
}

/** An item from the host for a running call; true when it was for someone here. */
function deliver(item) {
  if (!isObject(item)) return false;
  if (item.type === "input_response") {
    var entry = waiting[item.request_id];
    if (!entry) return false;
    delete waiting[item.request_id];
    clearTimeout(entry.timer);
    entry.resolve(isObject(item.error) ? { error: item.error } : { response: item.response });
    return true;
  }
  if (item.type === "action_cancel") {
    var handler = cancelHandlers[item.call_id];
    if (!handler) return false;
    delete cancelHandlers[item.call_id];
    try {
      handler(typeof item.reason === "string" ? item.reason : "cancelled by the caller");
    } catch (_ignored) { /* the page's cancel threw: the call still ends on its own */ }
    return true;
  }
  return false;
}

M.onCallMessage = onCallMessage;
M.sendProgress = sendProgress;
M.requestInput = requestInput;
M.onCancel = onCancel;
M.deliverToCall = deliver;
