/*
 * handlers.js — Page handlers (dotted property paths on window, never source text) and
 * forwarding of declared DOM events.
 */
var fail = M.fail,
  guard = M.guard,
  isObject = M.isObject,
  jsonClone = M.jsonClone;

var SAFE_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// An array, not an object literal: {__proto__: true} would not create a key.
var FORBIDDEN_SEGMENTS = ["__proto__", "prototype", "constructor"];

// -- handlers -------------------------------------------------------------

function resolveHandler(path) {
  if (typeof path !== "string" || !path || path.length > 256) fail("invalid_input", "a handler is a dotted property path", { handler: path === undefined ? null : path });
  var segments = path.split(".");
  for (var i = 0; i < segments.length; i++) {
    if (!SAFE_SEGMENT.test(segments[i])) fail("invalid_input", "handler segment " + JSON.stringify(segments[i]) + " is not an identifier; handlers are property paths, never source", { handler: path, segment: segments[i] });
    if (FORBIDDEN_SEGMENTS.indexOf(segments[i]) >= 0) fail("invalid_input", "handler segment " + segments[i] + " is not allowed", { handler: path, segment: segments[i] });
  }
  var parent = null;
  var current = root;
  for (var j = 0; j < segments.length; j++) {
    var seg = segments[j];
    if (current === null || current === undefined || (typeof current !== "object" && typeof current !== "function") || !(seg in current)) {
      fail("missing_handler", "the page has no handler " + path + " (" + segments.slice(0, j + 1).join(".") + " is missing)", { handler: path, missing: segments.slice(0, j + 1).join(".") });
    }
    parent = current;
    try {
      current = current[seg];
    } catch (err) {
      fail("missing_handler", "reading " + segments.slice(0, j + 1).join(".") + " failed: " + String((err && err.message) || err), { handler: path });
    }
  }
  if (typeof current !== "function") fail("missing_handler", path + " is not a function", { handler: path, type: current === null ? "null" : typeof current });
  // Evaluation sinks reached through a property path would run strings as code.
  if (current === root.eval || current === root.Function || current === root.setTimeout || current === root.setInterval) {
    fail("permission_denied", path + " would evaluate source text and is refused", { handler: path });
  }
  return { fn: current, self: parent };
}

/**
 * Call the page handler at `path` with args. `call` is the host's {call_id, timeout_ms}
 * (callcontext.js): the handler gets {call_id, signal, deadline} as its second argument, and
 * when the call is cancelled or its deadline passes its signal aborts and the call answers at
 * once (a handler that acts after a wait should check signal.aborted first).
 */
function callHandler(path, args, call) {
  return guard(function () {
    var target = resolveHandler(path);
    return M.withCall(call, function (context) { return invoke(target, path, args, context); });
  });
}

function invoke(target, path, args, context) {
  var value;
  var info = { call_id: context.call_id, signal: context.signal, deadline: context.deadline };
  try {
    value = target.fn.call(target.self, args === undefined ? {} : args, info);
  } catch (err) {
    fail("handler_failed", String((err && err.message) || err), { handler: path, name: err && err.name ? String(err.name) : "Error" });
  }
  return Promise.resolve(value).then(
    function (result) {
      if (result === undefined) return null;
      var text;
      try {
        text = JSON.stringify(result);
      } catch (err) {
        fail("invalid_result", "the handler result is not JSON-serialisable: " + String((err && err.message) || err), { handler: path });
      }
      if (text === undefined) fail("invalid_result", "the handler returned a " + typeof result + ", which is not JSON", { handler: path, type: typeof result });
      return JSON.parse(text);
    },
    function (err) {
      fail("handler_failed", String((err && err.message) || err), { handler: path, name: err && err.name ? String(err.name) : "Error" });
    }
  );
}

/**
 * Forward DOM events: listen = [{name, event}]. For each declared event
 * (caught on document and window, once per event object) sink({name,
 * event, payload}) is called, payload being event.detail as JSON (or {}).
 * Replaces the previous listening set. Returns the number of events watched.
 */
var watched = [];
function watchEvents(listen, sink) {
  watched.forEach(function (w) {
    document.removeEventListener(w.type, w.fn, true);
    root.removeEventListener(w.type, w.fn, true);
  });
  watched = [];
  if (!Array.isArray(listen) || typeof sink !== "function") return 0;
  var byType = {};
  listen.forEach(function (entry) {
    if (!isObject(entry) || typeof entry.name !== "string" || !entry.name || typeof entry.event !== "string" || !entry.event || entry.event.length > 200) return;
    (byType[entry.event] = byType[entry.event] || []).push(entry.name);
  });
  var seen = typeof WeakSet === "function" ? new WeakSet() : null;
  Object.keys(byType).forEach(function (type) {
    var names = byType[type];
    var fn = function (ev) {
      // Capture listeners on both document and window see one event twice.
      if (seen) {
        if (seen.has(ev)) return;
        seen.add(ev);
      }
      var payload = {};
      if (ev && ev.detail !== undefined && ev.detail !== null) {
        try {
          payload = jsonClone(ev.detail);
        } catch (_ignored) {
          payload = {};
        }
        if (payload === undefined) payload = {};
      }
      names.forEach(function (name) {
        try {
          sink({ name: name, event: type, payload: payload });
        } catch (_ignored) { /* a failing sink must not break the page */ }
      });
    };
    document.addEventListener(type, fn, true);
    root.addEventListener(type, fn, true);
    watched.push({ type: type, fn: fn });
  });
  return watched.length;
}

M.callHandler = callHandler;
M.watchEvents = watchEvents;
