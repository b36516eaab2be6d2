/*
 * engine.js — The engine's dispatch: run(name, args) over the registered primitives,
 * capability_unavailable for dictionary names a page cannot serve, and the
 * frozen engine object (createEngine).
 */
var VERSION = M.VERSION,
  PRIMITIVES = M.PRIMITIVES,
  // Set by the script's header from Python (page_script.injected): every primitive name of the
  // dictionary, and the additions to the reference dictionary this engine implements.
  DICTIONARY_NAMES = M.DICTIONARY_NAMES,
  EXTENSION_CAPABILITIES = M.EXTENSION_CAPABILITIES,
  fail = M.fail,
  guard = M.guard,
  hasOwn = M.intrinsics.hasOwn,
  own = M.intrinsics.own,
  isObject = M.isObject,
  focusEditable = M.focusEditable,
  callHandler = M.callHandler,
  watchEvents = M.watchEvents,
  withCall = M.withCall,
  abortCall = M.abortCall;


// Dictionary names this engine does not implement need a host a page cannot be
// (tabs, screenshots, storage, clipboard reads…): they fail with
// capability_unavailable, not unknown_action; so do names of these families.
var PRIVILEGED_PREFIXES = ["browser.", "tabs.", "screenshot", "clipboard.", "storage.", "transfer.", "runtime.session."];

// The additions (EXTENSION_CAPABILITIES) are announced beside the primitive names: the bridge
// sends an argument that needs one (the dictionary's argument_capabilities) only to a runtime
// announcing it.
function capabilities() {
  return Object.keys(PRIMITIVES).concat(EXTENSION_CAPABILITIES);
}

function isPrivileged(name) {
  if (DICTIONARY_NAMES.indexOf(name) >= 0) return true;
  return PRIVILEGED_PREFIXES.some(function (p) { return name.indexOf(p) === 0; });
}

/**
 * Run the primitive `name`. `call` is the host's {call_id, timeout_ms} of the bridge call
 * (callcontext.js): the primitive's waits end and its acting steps refuse once the call is
 * cancelled or its deadline passes. Without it the primitive runs as before.
 */
function run(name, args, call) {
  return guard(function () {
    if (typeof name !== "string" || !name) fail("unknown_action", "a primitive name is required", { name: name === undefined ? null : name });
    // Captured helpers (intrinsics.js): a page that replaced Function.prototype.call or
    // Array.prototype.forEach must be handed neither the registry nor the arguments.
    var entry = hasOwn(PRIMITIVES, name) ? PRIMITIVES[name] : null;
    if (!entry) {
      if (isPrivileged(name)) fail("capability_unavailable", name + " needs browser-level authority that a page runtime does not have", { capability: name, host: "page" });
      fail("unknown_action", "no primitive is named " + name, { name: name });
    }
    if (args === undefined || args === null) args = {};
    if (!isObject(args)) fail("invalid_input", "arguments must be an object", { name: name });
    for (var i = 0; i < entry.required.length; i++) {
      if (own(args, entry.required[i]) === undefined) fail("invalid_input", name + " needs a " + entry.required[i], { field: entry.required[i] });
    }
    return withCall(call, function (context) { return entry.fn(args, context); });
  });
}

/** An item from the host for a running call: an action_cancel ends the call's work here too. */
function deliver(item) {
  var taken = false;
  if (isObject(item) && item.type === "action_cancel") {
    var reason = typeof item.reason === "string" ? item.reason : "";
    // The bridge says "timed out" when the call's deadline ended it (bridge/calls.py).
    taken = abortCall(item.call_id, reason === "timed out" ? "handler_timeout" : "cancelled", reason);
  }
  // A protocol adapter's own cancel handler (ABP) hears it as well.
  return M.deliverToCall(item) || taken;
}

/**
 * The engine object installed as window.__mcpActions. Every entry point
 * answers with an envelope and never rejects:
 *   {ok: true, output} | {ok: false, error: {code, message, evidence?}}
 */
function createEngine() {
  var clientState = { client: null };
  // Protocol adapters (WebMCP's polyfill, form watching...) start once per window, here.
  (M.installers || []).forEach(function (install) {
    try {
      install();
    } catch (_ignored) { /* an adapter that cannot start leaves the others working */ }
  });

  function status() {
    var c = clientState.client;
    return { version: VERSION, client: c ? c() : null, running_calls: M.runningCalls() };
  }

  return Object.freeze({
    version: VERSION,
    run: run,
    callHandler: callHandler,
    capabilities: capabilities,
    focusEditable: focusEditable,
    watchEvents: watchEvents,
    status: status,
    // Tools the page declares through WebMCP, ABP or WAB: fn(snapshot) now and on every change.
    onPageTools: M.onPageTools,
    pageTools: M.pageToolsSnapshot,
    // Messages of running calls (progress, input requests) and the host's answers (callchannel.js).
    onCallMessage: M.onCallMessage,
    deliver: deliver,
    // The host's own deadline ended call_id (code "handler_timeout") or it was cancelled ("cancelled").
    abortCall: abortCall,
    // A map's attachments (attachments.js): applyAttachments(list, {status, open}) replaces the set.
    applyAttachments: M.applyAttachments,
    // The overlay (overlay.js): fn(open) on every change, and letting a trusted click through it.
    onOverlayChange: M.onOverlayChange,
    overlayPassThrough: M.overlayPassThrough,
    // Internal: lets the client module publish its state to status().
    _attachClient: function (reporter) {
      if (!clientState.client && typeof reporter === "function") clientState.client = reporter;
    },
  });
}

M.createEngine = createEngine;
