/*
 * mcp-actions page runtime (assembled from mcp_actions/runtimes/page/: intrinsics.js, core.js, callcontext.js, dom.js, names.js, locator_filters.js, locators.js, editing.js, keyboard.js, pointer.js, drag.js, observe.js, sections.js, extract.js, states.js, handlers.js, pagetools.js, callchannel.js, webmcp_forms.js, webmcp_foreign.js, webmcp.js, webmcp_call.js, wab.js, abp.js, observe_candidates.js, observe_refs.js, observe_values.js, observe_scroll.js, observe_frames.js, observe_files.js, observe_drag.js, describe.js, select.js, read_structure.js, read_cursor.js, read_tokens.js, read.js, find.js, observe_settle.js, observe_changes.js, launcher_targets.js, launchers.js, overlay_render.js, overlay.js, attachments.js, engine.js, boot.js).
 *
 * No build step, no dependencies. Loading it twice does nothing the second
 * time. window.__mcpActions (non-enumerable, frozen) is the engine: the
 * portable primitives of the mcp-actions dictionary, locator resolution and
 * handler calls.
 */
(function (root) {
  "use strict";
  if (!root || !root.document) return;
  var M = {};
  M.DICTIONARY_NAMES = ["browser.screenshot", "browser.claimed_tabs.list", "browser.claimed_tabs.activate", "browser.navigate", "browser.open_tab", "browser.close_tab", "browser.dismiss_dialog", "pointer.move", "pointer.click", "pointer.double_click", "pointer.drag", "viewport.scroll", "storage.read_file", "text.insert", "keyboard.press", "transfer.insert", "transfer.clear", "transfer.read", "transfer.write", "clipboard.write", "clipboard.read", "runtime.session.name", "runtime.session.finalize_tabs", "page.info", "dom.observe.visible", "dom.snapshot_text", "dom.list_sections", "locator.element_info", "locator.text_content", "locator.wait_for", "overlay.open", "overlay.register_launcher", "overlay.close", "dom.extract", "dom.settle", "locator.probe", "webmcp.list_tools", "webmcp.call", "webmcp.page_result", "wab.execute", "abp.list", "abp.call", "abp.shutdown", "refs.observe", "refs.resolve", "refs.select", "refs.set_value", "refs.scroll", "refs.frame_act", "refs.set_files", "refs.drag_resolve", "refs.describe", "locator.select", "locator.set_value", "refs.read", "refs.find", "refs.change_mark", "refs.change_report"];
  M.EXTENSION_CAPABILITIES = ["pointer.click.target"];

  // ---- intrinsics.js ----
  (function (M, root) {
/*
 * intrinsics.js — Built-ins captured when the engine installs, and a way to call them that no
 * page script can intercept afterwards (docs/overlays.md, "What a page can reach").
 *
 * A closed shadow root stays closed only while nothing we call hands its nodes to page code.
 * Keeping a captured method and calling it as `captured.call(node, ...)` is not enough: `.call`
 * is looked up on Function.prototype at every call, so a page that replaced
 * Function.prototype.call receives the method, the node and the arguments. Here a method is
 * *uncurried* once, at install: uncurry(f) is the original Function.prototype.call bound to f,
 * so uncurry(f)(node, a) runs f on node and nothing on the way is looked up on an object the
 * page can change (not call, apply, bind, nor Reflect.apply).
 *
 * Install time is what makes these the browser's own: the browser host's init script and the
 * extension's document_start script run before any script of the page. The page runtime
 * (bookmarklet, <script>), the extension's first injection into a tab already open and the
 * browser host adopting a tab of an attached browser install after the page's scripts, which
 * may have replaced them already. patchedBuiltins() names the captured built-ins that do not
 * print as native code: it catches a plain replacement, and proves nothing against a careful
 * one (a Proxy of a native function prints as native, and toString itself can be replaced).
 */
var FunctionProto = Function.prototype;
var nativeCall = FunctionProto.call;
var nativeBind = FunctionProto.bind;
var nativeApply = FunctionProto.apply;
var nativeToString = FunctionProto.toString;
var reflectApply = typeof Reflect === "object" && Reflect ? Reflect.apply : null;
var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
var objectCreate = Object.create;
var objectFreeze = Object.freeze;
var objectKeys = Object.keys;
var defineProperty = Object.defineProperty;
var getPrototypeOf = Object.getPrototypeOf;
var isArray = Array.isArray;
var parseJSON = JSON.parse;
// The window's own timer functions: observe_settle.js wraps the page's to follow what an action starts,
// and the engine's own timers (a rescan after DOM changes) must not count as the action's.
var nativeSetTimeout = typeof root.setTimeout === "function" ? root.setTimeout : null;
var nativeClearTimeout = typeof root.clearTimeout === "function" ? root.clearTimeout : null;
var ITERATOR = typeof Symbol === "function" ? Symbol.iterator : null;

/** uncurry(f)(self, a, b) === f.call(self, a, b), with the call captured at install. */
var uncurry = nativeBind.bind(nativeCall);

var hasOwnProperty = uncurry(Object.prototype.hasOwnProperty);
var stringIndexOf = uncurry(String.prototype.indexOf);
var stringSlice = uncurry(String.prototype.slice);
var charCodeAt = uncurry(String.prototype.charCodeAt);
var functionSource = uncurry(nativeToString);

// name -> the raw function captured under it, for patchedBuiltins().
var WATCHED = objectCreate(null);
WATCHED["Function.prototype.call"] = nativeCall;
WATCHED["Function.prototype.apply"] = nativeApply;
WATCHED["Function.prototype.bind"] = nativeBind;
WATCHED["Function.prototype.toString"] = nativeToString;
if (reflectApply) WATCHED["Reflect.apply"] = reflectApply;

/** Whether obj has key as its own property (never runs a getter the page put on a prototype). */
function hasOwn(obj, key) {
  return obj !== null && obj !== undefined && hasOwnProperty(obj, key);
}

/** obj[key] when it is obj's own property, else undefined: a missing key never reaches Object.prototype. */
function own(obj, key) {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

function descriptorOf(obj, name) {
  // Accessors of the DOM live on prototypes, a few (window.innerWidth) on the object itself.
  for (var o = obj; o; o = getPrototypeOf(o)) {
    var d = getOwnPropertyDescriptor(o, name);
    if (d) return d;
  }
  return null;
}

function watch(label, fn) {
  if (typeof fn === "function") WATCHED[label] = fn;
  return fn;
}

/** proto[name] (a method), uncurried: method(self, ...args); null when the browser has none. */
function nativeMethod(proto, name, label) {
  var d = proto ? descriptorOf(proto, name) : null;
  var fn = d && typeof d.value === "function" ? d.value : null;
  return fn ? uncurry(watch(label || name, fn)) : null;
}

/** The getter of proto's accessor `name`, uncurried: get(self); null when there is none. */
function nativeGetter(proto, name, label) {
  var d = proto ? descriptorOf(proto, name) : null;
  return d && typeof d.get === "function" ? uncurry(watch(label || "get " + name, d.get)) : null;
}

/** The setter of proto's accessor `name`, uncurried: set(self, value); null when there is none. */
function nativeSetter(proto, name, label) {
  var d = proto ? descriptorOf(proto, name) : null;
  return d && typeof d.set === "function" ? uncurry(watch(label || "set " + name, d.set)) : null;
}

var NATIVE_TAIL = "{ [native code] }";

/** Whether fn prints as a browser built-in ("function name() { [native code] }"). */
function looksNative(fn) {
  if (typeof fn !== "function") return false;
  var src;
  try {
    src = functionSource(fn);
  } catch (_err) {
    return false;
  }
  if (typeof src !== "string" || src.length <= NATIVE_TAIL.length) return false;
  return stringIndexOf(src, "function ") === 0 && stringSlice(src, src.length - NATIVE_TAIL.length) === NATIVE_TAIL;
}

/** The captured built-ins (of `names`, or all) that did not print as native code when captured. */
function patchedBuiltins(names) {
  var list = names || objectKeys(WATCHED);
  var out = [];
  for (var i = 0; i < list.length; i++) {
    var fn = WATCHED[list[i]];
    if (fn !== undefined && !looksNative(fn)) out[out.length] = list[i];
  }
  return out;
}

/** An object with no prototype: a DOM dictionary made from it reads only the members we set. */
function bare(members) {
  var o = objectCreate(null);
  if (members) {
    var keys = objectKeys(members);
    for (var i = 0; i < keys.length; i++) o[keys[i]] = members[keys[i]];
  }
  return o;
}

/**
 * An array that iterates without Array.prototype[Symbol.iterator] or %ArrayIteratorPrototype%.next,
 * for a DOM sequence argument (adoptedStyleSheets): a page that replaced those sees no item of it.
 */
function iterable(items) {
  var list = [];
  for (var i = 0; i < items.length; i++) list[i] = items[i];
  if (!ITERATOR) return list;
  // A bare descriptor: defineProperty reads writable, get, set... and none may come from Object.prototype.
  defineProperty(list, ITERATOR, bare({
    value: function () {
      var at = 0;
      return {
        next: function () {
          if (at < list.length) return { value: list[at++], done: false };
          return { value: undefined, done: true };
        },
      };
    },
  }));
  return list;
}

// -- JSON text without the page's JSON ------------------------------------------------------
// JSON.stringify looks up toJSON on every object it writes (a getter a page put on
// Object.prototype is handed each one); JSON.parse, captured, builds its objects with own data
// properties and calls nothing of the page's. jsonText writes plain JSON data by own properties.

var stringFromCharCode = String.fromCharCode;
var HEX = "0123456789abcdef";

function quote(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var c = charCodeAt(text, i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    // Controls, "<" (the text may end up inside a <script>) and lone surrogates as escapes.
    else if (c < 32 || c === 60 || (c >= 0xd800 && c <= 0xdfff)) out += "\\u" + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
    else out += stringFromCharCode(c);
  }
  return out + '"';
}

/** value (JSON data: objects, arrays, strings, finite numbers, booleans, null) as JSON text, read by own property. */
function jsonText(value, depth) {
  var d = depth || 0;
  if (d > 200) throw new TypeError("nested too deeply");
  if (value === null || value === undefined) return "null";
  var t = typeof value;
  if (t === "string") return quote(value);
  if (t === "number") return value - value === 0 ? "" + value : "null"; // NaN and the infinities are not JSON
  if (t === "boolean") return value ? "true" : "false";
  if (t !== "object") return "null";
  var out, i;
  if (isArray(value)) {
    out = "[";
    for (i = 0; i < value.length; i++) out += (i ? "," : "") + jsonText(hasOwn(value, i) ? value[i] : null, d + 1);
    return out + "]";
  }
  var keys = objectKeys(value);
  out = "{";
  var first = true;
  for (i = 0; i < keys.length; i++) {
    var v = value[keys[i]];
    if (v === undefined || typeof v === "function") continue;
    out += (first ? "" : ",") + quote(keys[i]) + ":" + jsonText(v, d + 1);
    first = false;
  }
  return out + "}";
}

/** A deep copy of JSON data that no page patch sees (jsonText, then the captured JSON.parse). */
function jsonCopy(value) {
  return value === undefined ? undefined : parseJSON(jsonText(value));
}

// -- clicks the page did not forge --------------------------------------------------------
// A launcher opens a map's tool or overlay: a page script must not open it by calling click()
// or dispatching a MouseEvent (docs/overlays.md, "Launcher clicks"). A click counts when the
// browser made it (isTrusted: real input, CDP input included) or when the engine itself is
// dispatching it for the agent right now (the page runtime's pointer.click is synthetic): the
// engine marks that event here, in a closure the page cannot reach.

// isTrusted is an own, non-configurable accessor of every event ([LegacyUnforgeable]); its
// getter, taken from one event at install, reads any event and throws on anything else.
var trustedDescriptor = typeof Event === "function" ? getOwnPropertyDescriptor(new Event("mcp-actions"), "isTrusted") : null;
var trustedGetter = trustedDescriptor && typeof trustedDescriptor.get === "function" ? uncurry(trustedDescriptor.get) : null;
var nativeDispatch = typeof EventTarget === "function" ? nativeMethod(EventTarget.prototype, "dispatchEvent", "EventTarget.prototype.dispatchEvent") : null;
var nativeClick = typeof HTMLElement === "function" ? nativeMethod(HTMLElement.prototype, "click", "HTMLElement.prototype.click") : null;
var agentEvent = null; // the event the engine dispatches for the agent right now
var agentClickTarget = null; // the element whose click() the engine runs for the agent right now

/** Whether the browser made ev (real or CDP input), read through the captured getter: false for anything else. */
function isTrusted(ev) {
  if (!trustedGetter) return false;
  try {
    return trustedGetter(ev) === true;
  } catch (_notAnEvent) {
    return false;
  }
}

/** target.dispatchEvent(ev) for the agent: while it runs, ev is the engine's own (agentInput). */
function dispatchForAgent(target, ev) {
  var previous = agentEvent;
  agentEvent = ev;
  try {
    return nativeDispatch ? nativeDispatch(target, ev) : target.dispatchEvent(ev);
  } finally {
    agentEvent = previous;
  }
}

/** el.click() for the agent (keyboard activation): the one click it dispatches on el is the engine's. */
function clickForAgent(el) {
  var previous = agentClickTarget;
  agentClickTarget = el;
  try {
    if (nativeClick) nativeClick(el);
    else el.click();
  } finally {
    agentClickTarget = previous;
  }
}

/**
 * Whether ev, arriving at el, is a click the engine is making for the agent now. A click() the
 * engine runs counts once: a page listener that dispatches its own click on el meanwhile uses it
 * up, and then opens only what the agent was opening anyway.
 */
function agentInput(ev, el) {
  if (agentEvent !== null && ev === agentEvent) return true;
  if (agentClickTarget !== null && agentClickTarget === el) {
    agentClickTarget = null;
    return true;
  }
  return false;
}

/** A click a launcher may act on: trusted input, or the engine's own click for the agent. */
function unforged(ev, el) {
  return isTrusted(ev) || agentInput(ev, el);
}

/** setTimeout as the engine's own: never taken for a page's work (observe_settle.js). */
function engineTimeout(fn, ms) {
  return nativeSetTimeout ? nativeSetTimeout.call(root, fn, ms) : 0;
}

M.intrinsics = objectFreeze({
  setTimeout: engineTimeout,
  nativeSetTimeout: nativeSetTimeout,
  nativeClearTimeout: nativeClearTimeout,
  uncurry: uncurry,
  apply: reflectApply,
  hasOwn: hasOwn,
  own: own,
  isArray: isArray,
  keys: objectKeys,
  freeze: objectFreeze,
  defineProperty: defineProperty,
  create: objectCreate,
  charCodeAt: charCodeAt,
  nativeMethod: nativeMethod,
  nativeGetter: nativeGetter,
  nativeSetter: nativeSetter,
  looksNative: looksNative,
  patchedBuiltins: patchedBuiltins,
  bare: bare,
  iterable: iterable,
  parseJSON: parseJSON,
  jsonText: jsonText,
  jsonCopy: jsonCopy,
  isTrusted: isTrusted,
  dispatchForAgent: dispatchForAgent,
  clickForAgent: clickForAgent,
  unforged: unforged,
});
  })(M, root);

  // ---- core.js ----
  (function (M, root) {
/*
 * core.js — Engine basics: the error type and envelopes, small helpers, geometry and
 * visibility, and the primitive registry every other module registers into.
 */
var VERSION = "0.1.0";
var TEXT_CAP = 500;
var DESCRIBE_TEXT_CAP = 80;
var CANDIDATE_CAP = 5;

// -- errors ---------------------------------------------------------------

function EngineError(code, message, evidence) {
  this.code = code;
  this.message = message;
  this.evidence = evidence;
}

function fail(code, message, evidence) {
  throw new EngineError(code, message, evidence);
}

function toEnvelopeError(err) {
  if (err instanceof EngineError) {
    var error = { code: err.code, message: err.message };
    if (err.evidence !== undefined) error.evidence = err.evidence;
    return error;
  }
  return {
    code: "handler_failed",
    message: String((err && err.message) || err || "unexpected failure"),
    evidence: { name: err && err.name ? String(err.name) : "Error" },
  };
}

function guard(fn) {
  return Promise.resolve()
    .then(fn)
    .then(
      function (output) { return { ok: true, output: output }; },
      function (err) { return { ok: false, error: toEnvelopeError(err) }; }
    );
}

// -- small helpers --------------------------------------------------------

// Captured at install (intrinsics.js): every call's arguments pass through isObject, and a
// page that replaced Array.isArray afterwards would be handed them (the overlay's HTML too).
var isArray = M.intrinsics.isArray;

function isObject(value) {
  return value !== null && typeof value === "object" && !isArray(value);
}

function normalize(text) {
  return String(text == null ? "" : text).replace(/\s+/g, " ").trim();
}

/**
 * Page text as the page tools hand it to the model: it never reads as the product's own words
 * (docs/mcp-surface.md, "Page text"; docs/threat-model.md). The product's refs are "@e12" and its
 * tokens open with "[" and a lowercase word of two letters or more, or "/" ([button "Save" @e2],
 * [dialog "…"], [/dialog]; a checkbox drawn in text, "[x] Done", is none),
 * so in page text an "@" that would begin a ref is the full-width "＠" (U+FF20) and a "[" that would
 * begin a token the full-width "［" (U+FF3B); also at the text's end, where the next text node may
 * complete one ("@" then <b>e2</b>). A copied "＠e2" is refused as a ref. The line breaks JSON
 * leaves as they are (NEL, U+2028, U+2029) become spaces, so no page text starts a line of its own;
 * newlines and quotes are the caller's (quote, or read.js joining text nodes with spaces). The
 * server renders some answers itself with the same rule (dispatch/page_answers.py page_text).
 */
function pageText(text) {
  return String(text == null ? "" : text)
    .replace(/@(?=e[0-9]|e?$)/g, "\uFF20")
    .replace(/\[(?=[a-z][a-z]|\/|[a-z]?$)/g, "\uFF3B")
    .replace(/[\u0085\u2028\u2029]/g, " ");
}

/** A page string as a JSON string, "…" (quotes and newlines escaped), as pageText shows it. */
function quote(text) {
  return JSON.stringify(pageText(text));
}

function cap(text, limit) {
  return text.length > limit ? text.slice(0, limit) : text;
}

function round(n) {
  return Math.round(n * 100) / 100;
}

function jsonClone(value) {
  return JSON.parse(JSON.stringify(value));
}

function tagOf(el) {
  return String(el.tagName || "").toLowerCase();
}

function viewport() {
  var de = document.documentElement;
  return {
    width: root.innerWidth || (de && de.clientWidth) || 0,
    height: root.innerHeight || (de && de.clientHeight) || 0,
  };
}

function requireString(args, key, optional) {
  var value = args[key];
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string") fail("invalid_input", key + " must be a string", { field: key });
  return value;
}

function requireNumber(args, key) {
  var value = args[key];
  if (typeof value !== "number" || !isFinite(value)) fail("invalid_input", key + " must be a finite number", { field: key });
  return value;
}

// -- geometry ---------------------------------------------

function box(el) {
  var r = el.getBoundingClientRect();
  return { x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) };
}

function clickableCenter(el) {
  // The centre of the part of the element inside the viewport, so a
  // partially scrolled element is still clicked where a user would.
  var r = el.getBoundingClientRect();
  var vp = viewport();
  var left = Math.max(r.left, 0), right = Math.min(r.right, vp.width);
  var top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vp.height);
  if (right > left && bottom > top) return { x: round((left + right) / 2), y: round((top + bottom) / 2) };
  return { x: round(r.left + r.width / 2), y: round(r.top + r.height / 2) };
}

function inViewport(point) {
  var vp = viewport();
  return point.x >= 0 && point.y >= 0 && point.x < vp.width && point.y < vp.height;
}

function isEnabled(el) {
  try {
    if (el.matches(":disabled")) return false;
  } catch (_ignored) { /* not a form element */ }
  return el.getAttribute("aria-disabled") !== "true";
}

// -- the primitive registry ------------------------------------------------

// name -> {fn, required}; insertion order is the order capabilities() reports.
var PRIMITIVES = {};

/**
 * Register a primitive under its dictionary name. `required` lists argument
 * names the dispatcher checks before calling fn(args).
 */
function definePrimitive(name, fn, required) {
  if (Object.prototype.hasOwnProperty.call(PRIMITIVES, name)) throw new Error("primitive defined twice: " + name);
  PRIMITIVES[name] = { fn: fn, required: required || [] };
}

M.VERSION = VERSION;
M.PRIMITIVES = PRIMITIVES;
M.definePrimitive = definePrimitive;
M.CANDIDATE_CAP = CANDIDATE_CAP;
M.DESCRIBE_TEXT_CAP = DESCRIBE_TEXT_CAP;
M.EngineError = EngineError;
M.TEXT_CAP = TEXT_CAP;
M.box = box;
M.cap = cap;
M.clickableCenter = clickableCenter;
M.fail = fail;
M.guard = guard;
M.inViewport = inViewport;
M.isEnabled = isEnabled;
M.isObject = isObject;
M.jsonClone = jsonClone;
M.normalize = normalize;
M.pageText = pageText;
M.quote = quote;
M.round = round;
M.requireNumber = requireNumber;
M.requireString = requireString;
M.tagOf = tagOf;
M.viewport = viewport;
  })(M, root);

  // ---- callcontext.js ----
  (function (M, root) {
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
  })(M, root);

  // ---- dom.js ----
  (function (M, root) {
/*
 * dom.js — Querying through open shadow roots, and why an element is not
 * visible. Locators, observation and extraction all search the composed tree
 * a user sees: the document plus every open shadow root inside it.
 */
var fail = M.fail,
  round = M.round;

// Elements the engine itself put on the page as its own UI (the overlay's host):
// not part of the page our primitives act on, so searches and hit tests skip them.
var OWN_HOSTS = typeof WeakSet === "function" ? new WeakSet() : null;

/** Mark el as engine UI that locators, observation and hit tests must not see. */
function hideFromEngine(el) {
  if (OWN_HOSTS) OWN_HOSTS.add(el);
}

// The tag of the launcher buttons' hosts (launchers.js), which observation lists (observe.js).
var LAUNCHER_HOST_TAG = "actions-json-launcher";

function isHiddenFromEngine(el) {
  return !!(OWN_HOSTS && el && OWN_HOSTS.has(el));
}

/** The document (or a scope) and every open shadow root below it, outermost first. */
function searchRoots(scope) {
  var roots = [scope || document];
  if (scope && scope.shadowRoot && scope.shadowRoot.mode === "open") roots.push(scope.shadowRoot);
  for (var i = 0; i < roots.length; i++) {
    var walker = document.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.shadowRoot && n.shadowRoot.mode === "open") roots.push(n.shadowRoot);
    }
  }
  return roots;
}

/**
 * querySelectorAll over the scope and its open shadow roots, in document
 * order per root. A malformed selector throws a SyntaxError (callers turn it
 * into their own error code).
 */
function queryAllDeep(selector, scope) {
  var roots = searchRoots(scope);
  var out = [];
  for (var i = 0; i < roots.length; i++) {
    var found = roots[i].querySelectorAll(selector);
    for (var j = 0; j < found.length; j++) if (!isHiddenFromEngine(found[j])) out.push(found[j]);
  }
  return out;
}

/** Every element of the composed tree (used by role and text searches). */
function allElementsDeep(scope) {
  return queryAllDeep("*", scope);
}

/** Element.closest that continues from a shadow root to its host. */
function closestDeep(el, selector) {
  var node = el;
  while (node) {
    var hit = node.closest(selector);
    if (hit) return hit;
    var rootNode = node.getRootNode ? node.getRootNode() : null;
    node = rootNode && rootNode.host ? rootNode.host : null;
  }
  return null;
}

/** The parent in the composed tree (a shadow root's host for its top children). */
function composedParent(el) {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  var rootNode = el.getRootNode ? el.getRootNode() : null;
  return rootNode && rootNode.host ? rootNode.host : null;
}

function shortTag(el) {
  return String(el.tagName || "").toLowerCase() + (el.id ? "#" + el.id : "");
}

/**
 * Why el is not visible, or null when it is: {reason, element?, ...}.
 * Reasons: detached, display_none, visibility_hidden, zero_size, inert,
 * off_screen (entirely at negative document coordinates, where no scroll
 * reaches), clipped (outside an overflow-clipping ancestor). aria-hidden is
 * not a reason: such an element is still on screen for a sighted user.
 */
function hiddenReason(el) {
  if (!el || !el.isConnected) return { reason: "detached" };
  for (var node = el; node; node = composedParent(node)) {
    var style = root.getComputedStyle(node);
    if (style && style.display === "none") return { reason: "display_none", element: shortTag(node) };
    if (node.hasAttribute && node.hasAttribute("inert")) return { reason: "inert", element: shortTag(node) };
  }
  var own = root.getComputedStyle(el);
  if (own && (own.visibility === "hidden" || own.visibility === "collapse")) return { reason: "visibility_hidden" };
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) {
    return { reason: "content_hidden" }; // content-visibility or another CSS rule the checks above missed
  }
  if (own && (own.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(own.clipPath || ""))) return { reason: "clipped", element: shortTag(el) };
  var r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return { reason: "zero_size", width: round(r.width), height: round(r.height) };
  if (r.right + root.scrollX <= 0 || r.bottom + root.scrollY <= 0) {
    return { reason: "off_screen", x: round(r.left + root.scrollX), y: round(r.top + root.scrollY) };
  }
  for (var anc = composedParent(el); anc && anc !== document.body && anc !== document.documentElement; anc = composedParent(anc)) {
    var s = root.getComputedStyle(anc);
    // Only clipping overflow hides; auto/scroll containers are reached by scrolling.
    if (!s || !/^(hidden|clip)$/.test(s.overflowX + "") && !/^(hidden|clip)$/.test(s.overflowY + "")) continue;
    var a = anc.getBoundingClientRect();
    if (r.right <= a.left || r.left >= a.right || r.bottom <= a.top || r.top >= a.bottom) {
      return { reason: "clipped", element: shortTag(anc) };
    }
  }
  return null;
}

function isVisible(el) {
  return hiddenReason(el) === null;
}

// -- text drawn where no one sees it (issue 41; docs/threat-model.md, "Hidden text") -------------
//
// A page can lay text out and still keep it from a person: see-through, flattened or blanked by a
// filter (the box and all it holds: drawnInvisible), or its glyphs too small, in the background's
// colour or pushed away by text-indent (an element's own text; its children may set their own:
// inkHidden). The page tools leave such text out of what they read (read_structure.js). Each test
// reads only the computed style in hand, cheapest first; the background an element's text sits on is
// found once per element for one read (inkCache, set by read_structure.js withStructure).

var FILTER_STEP = /(opacity|brightness|contrast)\(\s*([0-9.]+)(%?)\s*\)/g;
var RGB = /^rgba?\(\s*([0-9.]+)[ ,]+([0-9.]+)[ ,]+([0-9.]+)(?:\s*[,/]\s*([0-9.]+)(%?))?\s*\)$/;
var inkCache = null; // element -> the colour its text sits on, for one read (null: not known)

function withInkCache(fn) {
  var saved = inkCache;
  inkCache = typeof WeakMap === "function" ? new WeakMap() : null;
  try {
    return fn();
  } finally {
    inkCache = saved;
  }
}

/** [r, g, b, a] of a computed colour, or null for one this cannot read (color(), a keyword). */
function rgba(value) {
  var m = RGB.exec(String(value || ""));
  if (!m) return null;
  var a = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
  return [Number(m[1]), Number(m[2]), Number(m[3]), a];
}

/** Whether the transform (or scale) flattens el to no area: scale(0), scaleX(0), a degenerate matrix. */
function flattened(style) {
  if (style.scale && style.scale !== "none" && /(^|\s)0(\s|$)/.test(style.scale)) return true;
  var t = style.transform;
  if (!t || t === "none") return false;
  var nums = (t.match(/-?[0-9.e-]+/g) || []).map(Number);
  // The area the x and y axes span on screen: a, b, c, d of matrix(); m11, m12, m21, m22 of matrix3d().
  var m = /^matrix3d/.test(t) ? [nums[1], nums[2], nums[5], nums[6]] : nums.slice(0, 4); // matrix3d: its "3" first
  return m.length === 4 && Math.abs(m[0] * m[3] - m[1] * m[2]) < 1e-3;
}

/** Whether a filter blanks el: opacity(0); brightness(0) or contrast(0) over its own opaque background. */
function blanked(style) {
  var f = style.filter;
  if (!f || f === "none") return false;
  var ownBackground = rgba(style.backgroundColor);
  FILTER_STEP.lastIndex = 0;
  for (var m = FILTER_STEP.exec(f); m; m = FILTER_STEP.exec(f)) {
    var amount = Number(m[2]) / (m[3] ? 100 : 1);
    if (amount > 0.05) continue;
    if (m[1] === "opacity") return true;
    if (ownBackground && ownBackground[3] >= 0.9) return true; // text and box become one colour
  }
  return false;
}

// A native field a page draws itself: its own opacity is 0 and its label shows it (custom checkboxes,
// radios, file pickers). Not hidden by that opacity: its name is its label's, read on its own.
function drawnByItsLabel(el) {
  var tag = tagName(el);
  return (tag === "input" && /^(checkbox|radio|file)$/.test(String(el.type))) || tag === "select";
}

function tagName(el) {
  return String(el.localName || el.tagName || "").toLowerCase();
}

/** Why el and everything in it are drawn invisible though laid out, or "" (see the section comment). */
function drawnInvisible(el, style) {
  if (!style) return "";
  if (Number(style.opacity) <= 0.05 && !drawnByItsLabel(el)) return "transparent";
  if (flattened(style)) return "flattened";
  if (blanked(style)) return "filtered";
  // Clipped to nothing (an sr-only clip): its box is there, nothing of it is drawn.
  if (style.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(style.clipPath || "")) return "clipped";
  return "";
}

/** The colour el's text sits on: the first ancestor background colour, white at the root; null behind an image. */
function groundOf(el) {
  var known = inkCache ? inkCache.get(el) : undefined;
  if (known !== undefined) return known;
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  var ground;
  if (style.backgroundImage && style.backgroundImage !== "none") ground = null;
  else {
    var own = rgba(style.backgroundColor);
    if (own && own[3] >= 0.9) ground = own;
    else {
      var parent = composedParent(el);
      ground = parent && parent.nodeType === 1 ? groundOf(parent) : [255, 255, 255, 1];
      if (ground && own && own[3] > 0.05) ground = null; // a see-through tint: mixed, not judged
    }
  }
  if (inkCache) inkCache.set(el, ground);
  return ground;
}

/** Whether el has an accessible name of its own (aria-label, aria-labelledby): an icon button whose glyph text is hidden. */
function namedApart(el) {
  return !!(el.getAttribute && (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")));
}

/**
 * Why el's own text (its text nodes; its children may set their own) is drawn where no one sees it,
 * or "": glyphs of 1px or less, no ink (transparent, or the colour of what it sits on), or pushed
 * off by a negative text-indent. Text drawn by a background (background-clip: text) or a shadow is seen.
 */
function inkHidden(el, style) {
  if (!style || namedApart(el)) return "";
  if (parseFloat(style.fontSize) <= 1) return "tiny_text";
  var ink = rgba(style.webkitTextFillColor && style.webkitTextFillColor !== style.color ? style.webkitTextFillColor : style.color);
  if (ink && style.textShadow === "none" && style.backgroundClip !== "text" && style.webkitBackgroundClip !== "text") {
    if (ink[3] <= 0.05) return "no_ink";
    var ground = groundOf(el);
    if (ground && Math.abs(ink[0] - ground[0]) <= 8 && Math.abs(ink[1] - ground[1]) <= 8 && Math.abs(ink[2] - ground[2]) <= 8) return "no_ink";
  }
  var indent = parseFloat(style.textIndent);
  if (indent < 0) {
    var r = el.getBoundingClientRect();
    var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
    if (r.left + view.scrollX + indent + r.width <= 0) return "indented_away";
  }
  return "";
}

/** A CSS selector argument of a primitive, checked: the elements it matches (deep). */
function selectAll(selector, code, scope) {
  if (typeof selector !== "string" || !selector.trim()) fail(code, "selector must be a non-empty CSS selector string", { selector: selector === undefined ? null : selector });
  try {
    return queryAllDeep(selector, scope);
  } catch (_err) {
    fail(code, "not a valid CSS selector: " + selector, { selector: selector });
  }
}

/**
 * elementFromPoint that descends into open shadow roots (the innermost element).
 * The engine's own overlay is looked through: it floats above the page, and our
 * primitives act on the page below it (a trusted click passes it the same way:
 * overlay.js, passThrough).
 */
function elementFromPointDeep(x, y) {
  var el = document.elementFromPoint(x, y);
  if (isHiddenFromEngine(el) && typeof document.elementsFromPoint === "function") {
    var stack = document.elementsFromPoint(x, y);
    el = null;
    for (var i = 0; i < stack.length; i++) {
      if (!isHiddenFromEngine(stack[i])) {
        el = stack[i];
        break;
      }
    }
  }
  while (el && el.shadowRoot && el.shadowRoot.mode === "open") {
    var inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/** Whether node is el or inside it in the composed tree. */
function isWithin(node, el) {
  for (var n = node; n; n = composedParent(n)) if (n === el) return true;
  return false;
}

M.elementFromPointDeep = elementFromPointDeep;
M.drawnInvisible = drawnInvisible;
M.inkHidden = inkHidden;
M.withInkCache = withInkCache;
M.opaqueAt = function (el) {
  // Whether el paints over what is under it (the covered-text test, read_structure.js).
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  var bg = rgba(style.backgroundColor);
  return Number(style.opacity) >= 0.9 && (!!(bg && bg[3] >= 0.9) || (!!style.backgroundImage && style.backgroundImage !== "none"));
};
M.hideFromEngine = hideFromEngine;
M.LAUNCHER_HOST_TAG = LAUNCHER_HOST_TAG;
M.isHiddenFromEngine = isHiddenFromEngine;
M.isWithin = isWithin;
M.composedParent = composedParent;
M.searchRoots = searchRoots;
M.queryAllDeep = queryAllDeep;
M.allElementsDeep = allElementsDeep;
M.closestDeep = closestDeep;
M.hiddenReason = hiddenReason;
M.isVisible = isVisible;
M.selectAll = selectAll;
  })(M, root);

  // ---- names.js ----
  (function (M, root) {
/*
 * names.js — Text, ARIA roles and accessible names of elements, and short element
 * descriptions for evidence.
 */
var DESCRIBE_TEXT_CAP = M.DESCRIBE_TEXT_CAP,
  normalize = M.normalize,
  cap = M.cap,
  tagOf = M.tagOf,
  box = M.box;

// -- text, roles and accessible names ------------------------------------

function elementText(el) {
  if (el instanceof HTMLInputElement) {
    var type = (el.type || "").toLowerCase();
    if (type === "submit" || type === "reset" || type === "button") return normalize(el.value || (type === "reset" ? "Reset" : type === "submit" ? "Submit" : ""));
    if (type === "image") return normalize(el.alt);
    return "";
  }
  var text = typeof el.innerText === "string" ? el.innerText : el.textContent;
  return normalize(text);
}

var INPUT_ROLES = {
  button: "button", submit: "button", reset: "button", image: "button",
  checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
  search: "searchbox", email: "textbox", tel: "textbox", text: "textbox",
  url: "textbox", password: "textbox", "": "textbox",
};
var TAG_ROLES = {
  button: "button", textarea: "textbox", nav: "navigation", main: "main",
  aside: "complementary", ul: "list", ol: "list", li: "listitem", table: "table",
  tr: "row", td: "cell", th: "columnheader", dialog: "dialog", option: "option",
  progress: "progressbar", article: "article", hr: "separator", output: "status",
  h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
  fieldset: "group", details: "group", summary: "button", menu: "list", meter: "meter",
};
// Roles whose accessible name comes from their content.
var NAME_FROM_CONTENT = {
  button: true, link: true, heading: true, cell: true, columnheader: true, rowheader: true,
  option: true, tab: true, menuitem: true, menuitemcheckbox: true, menuitemradio: true,
  checkbox: true, radio: true, switch: true, treeitem: true, listitem: true, tooltip: true,
  row: true, status: true,
};

// What a role (or a tag said as one) may look like: the page tools write it unquoted ([button "Save" @e2]),
// so a role attribute such as 'x"@e2]' is no role at all (ARIA's roles are words; the first one that is counts).
var ROLE_WORD = /^[a-z][a-z0-9-]*$/;

function roleOf(el) {
  var explicit = normalize(el.getAttribute && el.getAttribute("role")).toLowerCase().split(" ").filter(function (w) { return ROLE_WORD.test(w); })[0];
  if (explicit) return explicit;
  var tag = tagOf(el);
  if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : null;
  if (tag === "input") {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (type === "hidden") return null;
    if (el.hasAttribute("list") && (type === "" || type === "text" || type === "search" || type === "email" || type === "tel" || type === "url")) return "combobox";
    return Object.prototype.hasOwnProperty.call(INPUT_ROLES, type) ? INPUT_ROLES[type] : "textbox";
  }
  if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
  if (tag === "img") return el.getAttribute("alt") === "" ? "presentation" : "img";
  if (tag === "form") return accessibleName(el, "form") ? "form" : null;
  if (tag === "section") return accessibleName(el, "region") ? "region" : null;
  if (tag === "header" || tag === "footer") {
    if (el.closest("article, aside, main, nav, section")) return null;
    return tag === "header" ? "banner" : "contentinfo";
  }
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
  return Object.prototype.hasOwnProperty.call(TAG_ROLES, tag) ? TAG_ROLES[tag] : null;
}

function textWithoutControls(node) {
  // The text of a <label>, without the value/options of the control it wraps.
  var parts = [];
  (function walk(n) {
    for (var child = n.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue);
      else if (child.nodeType === 1) {
        var t = tagOf(child);
        if (t === "input" || t === "select" || t === "textarea" || t === "script" || t === "style") continue;
        walk(child);
      }
    }
  })(node);
  return normalize(parts.join(" "));
}

function accessibleName(el, knownRole) {
  var ids = normalize(el.getAttribute("aria-labelledby"));
  if (ids) {
    var byIds = ids.split(" ").map(function (id) {
      var ref = document.getElementById(id);
      return ref ? normalize(ref.textContent) : "";
    }).filter(Boolean).join(" ");
    if (byIds) return byIds;
  }
  var aria = normalize(el.getAttribute("aria-label"));
  if (aria) return aria;
  var tag = tagOf(el);
  if (tag === "input" || tag === "select" || tag === "textarea" || tag === "meter" || tag === "progress" || tag === "output") {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "input" && (type === "submit" || type === "reset" || type === "button" || type === "image")) {
      var own = elementText(el);
      if (own) return own;
    }
    var labels = el.labels ? Array.prototype.slice.call(el.labels) : [];
    var fromLabels = labels.map(textWithoutControls).filter(Boolean).join(" ");
    if (fromLabels) return fromLabels;
  }
  if (tag === "img" || tag === "area") {
    var alt = normalize(el.getAttribute("alt"));
    if (alt) return alt;
  }
  if (tag === "fieldset") {
    var legend = el.querySelector(":scope > legend");
    if (legend && normalize(legend.textContent)) return normalize(legend.textContent);
  }
  if (tag === "table") {
    var caption = el.querySelector(":scope > caption");
    if (caption && normalize(caption.textContent)) return normalize(caption.textContent);
  }
  var role = knownRole === undefined ? roleOf(el) : knownRole;
  if (role && NAME_FROM_CONTENT[role]) {
    var text = elementText(el);
    if (text) return text;
  }
  var title = normalize(el.getAttribute("title"));
  if (title) return title;
  var placeholder = normalize(el.getAttribute("placeholder"));
  if (placeholder) return placeholder;
  if (tag === "input" || tag === "select" || tag === "textarea") return textBeside(el);
  return "";
}

var BESIDE_CAP = 60; // longer text before a field is prose, not its label
var BESIDE_LEVELS = 3; // how far up a field's wrappers the text before it is looked for

/**
 * The text a person reads as a field's label when no <label>, aria or placeholder names it: the
 * text just before it ("Username" then the input; <td>Username</td><td><input></td>), from the
 * field or up to BESIDE_LEVELS of the wrappers it starts. Never text holding another control, and
 * never more than BESIDE_CAP characters. Used last (accessibleName): a real name always wins.
 * A checkbox or radio is named by the text right after it ("[x] Remember me"), when there is some.
 */
function textBeside(el) {
  var type = (el.getAttribute("type") || "").toLowerCase();
  if (type === "checkbox" || type === "radio") {
    for (var next = el.nextSibling; next; next = next.nextSibling) {
      if (next.nodeType === 1 && (next.matches("input, select, textarea, button") || next.querySelector("input, select, textarea, button"))) break;
      var after = next.nodeType === 3 ? normalize(next.nodeValue) : next.nodeType === 1 && next.getClientRects().length ? normalize(next.textContent) : "";
      if (after) return after.length <= BESIDE_CAP ? after : "";
    }
  }
  return textBefore(el);
}

function textBefore(el) {
  var node = el;
  for (var level = 0; level <= BESIDE_LEVELS && node && node.parentNode; level++) {
    for (var prev = node.previousSibling; prev; prev = prev.previousSibling) {
      if (prev.nodeType === 3) {
        var t = normalize(prev.nodeValue);
        if (!t) continue;
        return t.length <= BESIDE_CAP ? t.replace(/[:*]\s*$/, "").trim() : "";
      }
      if (prev.nodeType !== 1) continue;
      var tag = tagOf(prev);
      if (tag === "br" || tag === "script" || tag === "style" || !prev.getClientRects().length) continue; // hidden text labels nothing
      if (prev.matches("input, select, textarea, button") || prev.querySelector("input, select, textarea, button")) return "";
      var text = normalize(prev.textContent);
      if (!text) continue;
      return text.length <= BESIDE_CAP ? text.replace(/[:*]\s*$/, "").trim() : "";
    }
    node = node.parentNode;
    if (!node || node.nodeType !== 1 || /^(form|body|fieldset|table|tbody)$/.test(tagOf(node))) return "";
  }
  return "";
}

function describe(el) {
  var out = { tag: tagOf(el), text: cap(elementText(el), DESCRIBE_TEXT_CAP), bounding_box: box(el) };
  if (el.id) out.id = el.id;
  return out;
}

M.accessibleName = accessibleName;
M.textBeside = textBeside;
M.describe = describe;
M.elementText = elementText;
M.roleOf = roleOf;
M.ROLE_WORD = ROLE_WORD;
  })(M, root);

  // ---- locator_filters.js ----
  (function (M, root) {
/*
 * locator_filters.js — The locator extension filters (docs/manifest-language.md,
 * "Extensions"): `within` (a nested descriptor: keep elements inside one of its
 * matches), `has` (a nested descriptor: keep elements that contain one of its
 * matches) and `has_text` (keep elements whose visible text contains the
 * string, whitespace-normalised, case-sensitive). Values are compared, never
 * spliced into a selector or an XPath, so any text works. When a filter empties
 * the matches it says why: "no li with the text 'nope'; there are: 'Buy milk',
 * ..." with those elements as candidates, in a small budget.
 */
var CANDIDATE_CAP = M.CANDIDATE_CAP,
  fail = M.fail,
  isObject = M.isObject,
  normalize = M.normalize,
  isVisible = M.isVisible,
  elementText = M.elementText,
  describe = M.describe,
  isWithin = M.isWithin;

//: Nested within/has descriptors deeper than this are refused (the validator's MAX_FILTER_DEPTH).
var MAX_FILTER_DEPTH = 8;
//: What target_not_found lists of "what is there": a few short texts.
var THERE_TEXT_CAP = 40;

function hasName(locator) {
  return locator.name !== undefined && locator.name !== null && locator.name !== "";
}

function nestedDescriptor(locator, field, depth) {
  var value = locator[field];
  if (value === undefined || value === null) return null;
  if (!isObject(value)) fail("invalid_locator", field + " must be a target descriptor object", { field: field });
  if (depth >= MAX_FILTER_DEPTH) fail("invalid_locator", field + " nests more than " + MAX_FILTER_DEPTH + " descriptors", { field: field });
  return value;
}

function hasTextOf(locator) {
  var value = locator.has_text;
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !normalize(value)) fail("invalid_locator", "has_text must be a non-empty string", { field: "has_text" });
  return normalize(value);
}

/** A short name of what a descriptor looks for, for messages: "li", "checkbox 'Done'", "element". */
function subjectOf(locator) {
  if (typeof locator.selector === "string" && locator.selector) return locator.selector;
  if (typeof locator.role === "string" && locator.role) return locator.role + (hasName(locator) ? " '" + locator.name + "'" : "");
  if (Array.isArray(locator.selectors) && typeof locator.selectors[0] === "string") return locator.selectors[0];
  if (typeof locator.xpath === "string") return "element";
  if (typeof locator.text_equals === "string") return "element with the text '" + normalize(locator.text_equals) + "'";
  if (typeof locator.text_contains === "string") return "element containing '" + normalize(locator.text_contains) + "'";
  return "element";
}

function quoted(text) {
  return "'" + (text.length > THERE_TEXT_CAP ? text.slice(0, THERE_TEXT_CAP - 1) + "\u2026" : text) + "'";
}

/**
 * Why a filter left nothing: {message, candidates} naming what was there
 * before it (visible elements first), in a small byte budget.
 */
function emptied(message, before) {
  var shown = before.filter(isVisible);
  if (!shown.length) shown = before;
  var texts = [];
  for (var i = 0; i < shown.length && texts.length < CANDIDATE_CAP; i++) {
    var text = elementText(shown[i]);
    if (text && texts.indexOf(text) < 0) texts.push(text);
  }
  var there = texts.length ? "; there are: " + texts.map(quoted).join(", ") + (shown.length > texts.length ? ", \u2026" : "") : "";
  return { message: message + there, candidates: shown.slice(0, CANDIDATE_CAP).map(describe) };
}

/** The elements a nested descriptor designates (its winning candidate's), and why none when none. */
function nestedMatches(nested, ctx, search) {
  var inner = { depth: ctx.depth + 1, reason: null };
  var res = search(nested, inner);
  if (res) return { matches: res.matches, reason: null };
  return { matches: [], reason: inner.reason || { message: "no " + subjectOf(nested) + " matches", candidates: [] } };
}

/**
 * The elements of `elements` that pass the locator's within, has and has_text
 * (in that order). ctx: {depth, reason, ...}; the nested descriptors are
 * searched once per resolution with `search(locator, ctx)` (locators.js), and
 * the first filter that empties a non-empty set records ctx.reason.
 */
function extensionFilters(locator, elements, ctx, search) {
  var out = elements;
  var within = nestedDescriptor(locator, "within", ctx.depth);
  var has = nestedDescriptor(locator, "has", ctx.depth);
  var text = hasTextOf(locator);
  if (within) {
    if (!ctx.scopes) ctx.scopes = nestedMatches(within, ctx, search);
    var scopes = ctx.scopes;
    if (!scopes.matches.length) {
      if (out.length && !ctx.reason) ctx.reason = scopes.reason;
      return [];
    }
    var inside = out.filter(function (el) {
      for (var i = 0; i < scopes.matches.length; i++) if (el !== scopes.matches[i] && isWithin(el, scopes.matches[i])) return true;
      return false;
    });
    if (out.length && !inside.length && !ctx.reason) ctx.reason = emptied("no " + subjectOf(locator) + " inside any " + subjectOf(within) + " that matches", scopes.matches);
    out = inside;
  }
  if (has) {
    if (!ctx.contained) ctx.contained = nestedMatches(has, ctx, search);
    var inner = ctx.contained.matches;
    var holding = out.filter(function (el) {
      for (var i = 0; i < inner.length; i++) if (inner[i] !== el && isWithin(inner[i], el)) return true;
      return false;
    });
    if (out.length && !holding.length && !ctx.reason) {
      ctx.reason = inner.length ? emptied("no " + subjectOf(locator) + " contains a " + subjectOf(has), out) : ctx.contained.reason;
    }
    out = holding;
  }
  if (text !== null) {
    var kept = out.filter(function (el) { return elementText(el).indexOf(text) >= 0; });
    if (out.length && !kept.length && !ctx.reason) ctx.reason = emptied("no " + subjectOf(locator) + " with the text " + quoted(text), out);
    out = kept;
  }
  return out;
}

M.filterLocatorMatches = extensionFilters;
M.locatorSubject = subjectOf;
M.quoteLocatorText = quoted;
M.matchesEmptied = emptied;
  })(M, root);

  // ---- locators.js ----
  (function (M, root) {
/*
 * locators.js — Locator resolution: a target descriptor of the manifest spec
 * to elements, never an arbitrary pick among several visible matches.
 *
 * Candidates, in order of preference: selector, selectors[i], xpath,
 * fallback_selectors[i], role (+name), then text_equals and text_contains
 * searched alone. text_equals/text_contains also filter every earlier
 * candidate's matches, and closest retargets each match to an ancestor. All
 * searches run through open shadow roots. The first candidate with a visible
 * match wins and names itself in `matched_by`, so a map that only works
 * through its fallbacks shows its drift.
 *
 * The extension filters within/has/has_text (locator_filters.js) apply last,
 * after closest. When a filter or a text predicate empties the matches,
 * target_not_found says which and lists what is there.
 */
var CANDIDATE_CAP = M.CANDIDATE_CAP,
  fail = M.fail,
  isObject = M.isObject,
  normalize = M.normalize,
  jsonClone = M.jsonClone,
  queryAllDeep = M.queryAllDeep,
  allElementsDeep = M.allElementsDeep,
  closestDeep = M.closestDeep,
  hiddenReason = M.hiddenReason,
  isVisible = M.isVisible,
  elementText = M.elementText,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  describe = M.describe,
  filterLocatorMatches = M.filterLocatorMatches,
  locatorSubject = M.locatorSubject,
  quoteLocatorText = M.quoteLocatorText,
  matchesEmptied = M.matchesEmptied;

function asLocator(locator) {
  if (typeof locator === "string") return { selector: locator };
  if (!isObject(locator)) fail("invalid_locator", "a locator must be an object (or a CSS selector string)", { locator: locator === undefined ? null : locator });
  return locator;
}

function locatorEvidence(locator) {
  try {
    return jsonClone(locator);
  } catch (_ignored) {
    return String(locator);
  }
}

function querySelectorAllChecked(selector, label) {
  if (typeof selector !== "string" || !selector.trim()) fail("invalid_locator", label + " must be a non-empty CSS selector", { matched_by: label });
  try {
    return queryAllDeep(selector);
  } catch (err) {
    fail("invalid_locator", label + " is not a valid CSS selector: " + selector, { matched_by: label, selector: selector });
  }
}

function xpathAll(expression) {
  if (typeof expression !== "string" || !expression.trim()) fail("invalid_locator", "xpath must be a non-empty string", { matched_by: "xpath" });
  var result;
  try {
    result = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  } catch (err) {
    fail("invalid_locator", "xpath is not a valid expression: " + expression, { matched_by: "xpath", xpath: expression });
  }
  var out = [];
  for (var i = 0; i < result.snapshotLength; i++) {
    var node = result.snapshotItem(i);
    if (node && node.nodeType === 1) out.push(node);
  }
  return out;
}

function nameMatches(elements, wanted) {
  // An exact (case- and space-insensitive) name wins over a partial one, so
  // "Submit" does not become ambiguous with "Submit later".
  var target = normalize(wanted).toLowerCase();
  var names = elements.map(function (el) { return accessibleName(el).toLowerCase(); });
  var exact = elements.filter(function (_el, i) { return names[i] === target; });
  if (exact.length) return exact;
  return elements.filter(function (_el, i) { return names[i].indexOf(target) >= 0; });
}

function hasName(locator) {
  return locator.name !== undefined && locator.name !== null && locator.name !== "";
}

function byRole(locator) {
  var wanted = String(locator.role).toLowerCase();
  var matches = allElementsDeep().filter(function (el) { return roleOf(el) === wanted; });
  if (hasName(locator)) matches = nameMatches(matches, String(locator.name));
  return matches;
}

var SKIP_TEXT_TAGS = { script: true, style: true, noscript: true, template: true, head: true, title: true, html: true, body: true };

/**
 * Elements whose own text satisfies the predicate, innermost only: a row
 * whose text is "Row 2" is found, not also its list, section and body.
 */
function byText(test) {
  var all = allElementsDeep().filter(function (el) {
    return !SKIP_TEXT_TAGS[String(el.tagName || "").toLowerCase()] && test(elementText(el));
  });
  return all.filter(function (el) {
    for (var i = 0; i < all.length; i++) if (all[i] !== el && el.contains(all[i])) return false;
    return true;
  });
}

function textPredicate(locator, field) {
  var value = locator[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !normalize(value)) fail("invalid_locator", field + " must be a non-empty string", { field: field });
  var wanted = normalize(value);
  return field === "text_equals"
    ? function (text) { return text === wanted; }
    : function (text) { return text.indexOf(wanted) >= 0; };
}

function candidatesOf(locator) {
  var out = [];
  if (locator.selector !== undefined && locator.selector !== null) out.push({ label: "selector", css: locator.selector });
  if (locator.selectors !== undefined) {
    if (!Array.isArray(locator.selectors)) fail("invalid_locator", "selectors must be an array of CSS selectors", { field: "selectors" });
    locator.selectors.forEach(function (s, i) { out.push({ label: "selectors[" + i + "]", css: s }); });
  }
  if (locator.xpath !== undefined && locator.xpath !== null) out.push({ label: "xpath", xpath: locator.xpath });
  if (locator.fallback_selectors !== undefined) {
    if (!Array.isArray(locator.fallback_selectors)) fail("invalid_locator", "fallback_selectors must be an array of CSS selectors", { field: "fallback_selectors" });
    locator.fallback_selectors.forEach(function (s, i) { out.push({ label: "fallback_selectors[" + i + "]", css: s }); });
  }
  if (typeof locator.role === "string" && locator.role) out.push({ label: hasName(locator) ? "role+name" : "role", role: true });
  // Text predicates alone (no role): a search of the whole page.
  if (!(typeof locator.role === "string" && locator.role)) {
    if (textPredicate(locator, "text_equals")) out.push({ label: "text_equals", text: "text_equals" });
    if (textPredicate(locator, "text_contains")) out.push({ label: "text_contains", text: "text_contains" });
  }
  return out;
}

function applyFilters(locator, elements, skipText, ctx) {
  var out = elements;
  if (!skipText) {
    ["text_equals", "text_contains"].forEach(function (field) {
      var test = textPredicate(locator, field);
      if (!test) return;
      var kept = out.filter(function (el) { return test(elementText(el)); });
      if (out.length && !kept.length && !ctx.reason) {
        var verb = field === "text_equals" ? " with the text " : " containing ";
        ctx.reason = matchesEmptied("no " + locatorSubject(locator) + verb + quoteLocatorText(normalize(locator[field])), out);
      }
      out = kept;
    });
  }
  if (locator.closest !== undefined && locator.closest !== null) {
    if (typeof locator.closest !== "string" || !locator.closest.trim()) fail("invalid_locator", "closest must be a CSS selector", { field: "closest" });
    var retargeted = [];
    for (var i = 0; i < out.length; i++) {
      var ancestor;
      try {
        ancestor = closestDeep(out[i], locator.closest);
      } catch (err) {
        fail("invalid_locator", "closest is not a valid CSS selector: " + locator.closest, { field: "closest", selector: locator.closest });
      }
      if (ancestor && retargeted.indexOf(ancestor) < 0) retargeted.push(ancestor);
    }
    out = retargeted;
  }
  return filterLocatorMatches(locator, out, ctx, search);
}

function checkUrl(locator) {
  // url_contains/url_matches of a target descriptor: the page itself must match.
  var url = String(root.location.href);
  if (typeof locator.url_contains === "string" && url.indexOf(locator.url_contains) < 0) {
    fail("target_not_found", "the page URL does not contain " + locator.url_contains, { url: url, url_contains: locator.url_contains });
  }
  if (typeof locator.url_matches === "string") {
    var re;
    try {
      re = new RegExp(locator.url_matches);
    } catch (_err) {
      fail("invalid_locator", "url_matches is not a valid regular expression", { field: "url_matches" });
    }
    if (!re.test(url)) fail("target_not_found", "the page URL does not match " + locator.url_matches, { url: url, url_matches: locator.url_matches });
  }
}

/**
 * The winning candidate of a locator ({locator, matches, visible, matched_by,
 * tried}), or null when nothing matches (ctx.reason then says why when a
 * within/has/has_text filter emptied the matches). ctx: {depth, reason}.
 */
function search(locator, ctx) {
  var candidates = candidatesOf(locator);
  if (!candidates.length) {
    fail("invalid_locator", "the locator names no selector, selectors, xpath, fallback_selectors, role, text_equals or text_contains", { locator: locatorEvidence(locator) });
  }
  checkUrl(locator);
  var tried = [];
  var firstHidden = null;
  for (var i = 0; i < candidates.length; i++) {
    var c = candidates[i];
    var found;
    if (c.role) found = byRole(locator);
    else if (c.text) found = byText(textPredicate(locator, c.text));
    else if (c.xpath !== undefined) found = xpathAll(c.xpath);
    else found = querySelectorAllChecked(c.css, c.label);
    var matches = applyFilters(locator, found, !!c.text, ctx);
    var visible = matches.filter(isVisible);
    var entry = { matched_by: c.label, count: matches.length, visible: visible.length };
    if (c.css !== undefined) entry.selector = c.css;
    if (c.xpath !== undefined) entry.xpath = c.xpath;
    if (c.role) { entry.role = locator.role; if (hasName(locator)) entry.name = locator.name; }
    tried.push(entry);
    var res = { locator: locator, matches: matches, visible: visible, matched_by: c.label, tried: tried };
    if (visible.length) return res;
    if (matches.length && !firstHidden) firstHidden = res;
  }
  ctx.tried = tried;
  return firstHidden;
}

/**
 * All elements the locator designates: {locator, matches, visible,
 * matched_by, tried}. The first candidate with a visible match wins; when no
 * candidate has one, the first with any (hidden) match. Fails
 * target_not_found when nothing matches at all; when a within/has/has_text
 * filter left nothing, the message says which and lists what is there
 * (evidence.candidates).
 */
function resolveAll(rawLocator) {
  var locator = asLocator(rawLocator);
  var ctx = { depth: 0, reason: null };
  var res = search(locator, ctx);
  if (res) return res;
  var evidence = { locator: locatorEvidence(locator), tried: ctx.tried || [] };
  if (ctx.reason) {
    evidence.candidates = ctx.reason.candidates;
    fail("target_not_found", ctx.reason.message, evidence);
  }
  fail("target_not_found", "no element matches the locator", evidence);
}

function hiddenCandidates(elements) {
  return elements.slice(0, CANDIDATE_CAP).map(function (el) {
    var d = describe(el);
    d.hidden = hiddenReason(el);
    return d;
  });
}

/**
 * Exactly one element, never an arbitrary pick: one visible match wins;
 * several visible ones are narrowed by the locator's role+name when given,
 * else multiple_targets. Hidden-only matches fail target_not_visible (with
 * why each is hidden) when requireVisible, else a single hidden match is
 * returned. Output: {element, matched_by, match_count, tried}.
 */
function resolveOne(rawLocator, requireVisible) {
  var res = resolveAll(rawLocator);
  var visible = res.visible;
  var element = null;
  if (visible.length > 1 && res.matched_by.indexOf("role") !== 0 && typeof res.locator.role === "string" && res.locator.role) {
    var wanted = res.locator.role.toLowerCase();
    var narrowed = visible.filter(function (el) { return roleOf(el) === wanted; });
    if (hasName(res.locator)) narrowed = nameMatches(narrowed, String(res.locator.name));
    if (narrowed.length === 1) element = narrowed[0];
  }
  if (!element && visible.length > 1) {
    fail("multiple_targets", visible.length + " visible elements match the locator; make it more specific", {
      count: visible.length,
      matched_by: res.matched_by,
      locator: locatorEvidence(res.locator),
      candidates: visible.slice(0, CANDIDATE_CAP).map(describe),
    });
  }
  if (!element && visible.length === 1) element = visible[0];
  if (!element) {
    if (requireVisible) {
      fail("target_not_visible", "the locator matches " + res.matches.length + " element(s) but none is visible", {
        count: res.matches.length,
        matched_by: res.matched_by,
        locator: locatorEvidence(res.locator),
        candidates: hiddenCandidates(res.matches),
      });
    }
    if (res.matches.length > 1) {
      fail("multiple_targets", res.matches.length + " hidden elements match the locator and none is visible", {
        count: res.matches.length,
        matched_by: res.matched_by,
        locator: locatorEvidence(res.locator),
        candidates: hiddenCandidates(res.matches),
      });
    }
    element = res.matches[0];
  }
  return { element: element, matched_by: res.matched_by, match_count: res.matches.length, tried: res.tried };
}

/**
 * The one visible element a locator resolves to, scrolled into view when its
 * clickable centre is off-screen (as a user scrolls to it first), and that
 * centre: what locator.element_info reports and pointer.click's target clicks.
 */
function resolveClickable(locator) {
  var resolved = resolveOne(locator, true);
  var el = resolved.element;
  if (!M.inViewport(M.clickableCenter(el)) && typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  resolved.center = M.clickableCenter(el);
  return resolved;
}

M.asLocator = asLocator;
M.locatorEvidence = locatorEvidence;
M.resolveAll = resolveAll;
M.resolveOne = resolveOne;
M.resolveClickable = resolveClickable;
  })(M, root);

  // ---- editing.js ----
  (function (M, root) {
/*
 * editing.js — Editable targets and text insertion (text.insert), and focusEditable for
 * hosts that type trusted text themselves.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  guard = M.guard,
  tagOf = M.tagOf,
  requireString = M.requireString,
  describe = M.describe,
  resolveOne = M.resolveOne;

// -- editing helpers ------------------------------------------------------

var TEXT_INPUT_TYPES = { "": true, text: true, search: true, email: true, tel: true, url: true, password: true, number: true };

function editableOf(el) {
  if (!el) return null;
  if (el instanceof HTMLLabelElement && el.control) el = el.control;
  if (el instanceof HTMLTextAreaElement) return el.disabled || el.readOnly ? null : el;
  if (el instanceof HTMLInputElement) {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (!TEXT_INPUT_TYPES[type] || el.disabled || el.readOnly) return null;
    return el;
  }
  if (el.isContentEditable) return el;
  return null;
}

function supportsSelection(el) {
  try {
    return typeof el.selectionStart === "number";
  } catch (_ignored) {
    return false;
  }
}

function focusedElement() {
  var el = document.activeElement;
  // Descend into open shadow roots, where custom editors keep their focus, and into a focused
  // same-origin iframe's document (a key pressed on a frame's field goes there, observe_frames.js).
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    else if (el && (el.localName === "iframe" || el.localName === "frame") && M.frameDocument && M.frameDocument(el) && M.frameDocument(el).activeElement) el = M.frameDocument(el).activeElement;
    else return el;
  }
}

function editableTarget(target) {
  var el;
  if (target !== undefined && target !== null) {
    var resolved = resolveOne(target, true);
    el = editableOf(resolved.element);
    if (!el) fail("target_not_editable", "the target is not an editable text field", { target: describe(resolved.element), matched_by: resolved.matched_by });
    return { element: el, matched_by: resolved.matched_by };
  }
  var focused = focusedElement();
  el = editableOf(focused);
  if (!el) fail("target_not_editable", "no target given and the focused element is not editable", { focused: focused && focused !== document.body ? describe(focused) : null });
  return { element: el, matched_by: "focused" };
}

function placeCaret(el, mode) {
  // Prepare the selection so that typed/inserted text replaces everything
  // (mode replace) or lands at the end (mode append).
  if (el.isContentEditable && !(el instanceof HTMLInputElement) && !(el instanceof HTMLTextAreaElement)) {
    var range = document.createRange();
    range.selectNodeContents(el);
    if (mode !== "replace") range.collapse(false);
    var sel = root.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return true;
  }
  if (mode === "replace") {
    el.select();
    return true;
  }
  if (supportsSelection(el)) {
    var end = el.value.length;
    el.setSelectionRange(end, end);
    return true;
  }
  return false;
}

function nativeValueSetter(el) {
  var proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
  return descriptor && descriptor.set;
}

function setFieldValue(el, value, insertedText) {
  // The prototype's setter bypasses frameworks' instance-level value
  // trackers (React), so their onChange sees the input event.
  var setter = nativeValueSetter(el);
  if (setter) setter.call(el, value);
  else el.value = value;
  var inputEvent;
  try {
    inputEvent = new InputEvent("input", { bubbles: true, cancelable: false, composed: true, inputType: "insertText", data: insertedText });
  } catch (_ignored) {
    inputEvent = new Event("input", { bubbles: true });
  }
  el.dispatchEvent(inputEvent);
  el.dispatchEvent(new Event("change", { bubbles: true }));
}


function textInsert(args) {
  var text = requireString(args, "text");
  var mode = args.mode === undefined ? "append" : args.mode;
  if (mode !== "append" && mode !== "replace") fail("invalid_input", "mode must be append or replace", { field: "mode" });
  var target = editableTarget(args.target);
  var el = target.element;
  if (document.activeElement !== el && typeof el.focus === "function") el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    var before = el.value;
    var expected = mode === "replace" ? text : before + text;
    setFieldValue(el, expected, text);
    // Input masks may reformat the value, so only "nothing went in" fails
    // (a number field refusing letters, a script resetting the field).
    if (text !== "" && (mode === "append" ? el.value === before : el.value === "")) {
      fail("insert_failed", "the field did not accept the text (its type or a page script refused it)", {
        target: describe(el), expected_length: expected.length, actual_length: el.value.length,
      });
    }
    if (supportsSelection(el)) el.setSelectionRange(el.value.length, el.value.length);
  } else {
    placeCaret(el, mode);
    var done = false;
    try {
      done = document.execCommand("insertText", false, text);
    } catch (_ignored) {
      done = false;
    }
    if (!done) {
      // execCommand is unavailable in some editors: edit the range directly.
      var sel = root.getSelection();
      var range = sel.rangeCount ? sel.getRangeAt(0) : document.createRange();
      range.deleteContents();
      var node = document.createTextNode(text);
      range.insertNode(node);
      range.setStartAfter(node);
      range.collapse(true);
      sel.removeAllRanges();
      sel.addRange(range);
      el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
    }
  }
  return { inserted: true, inserted_length: text.length, matched_by: target.matched_by };
}

// -- helpers for hosts (the Playwright browser host, the client) ---------

/**
 * Resolve and focus an editable target (or the focused editable element)
 * and place the caret for mode "append" or "replace", so a host can type
 * trusted text next. Output: {tag, matched_by, caret_placed, value_length}.
 */
function focusEditable(target, mode, call) {
  // `call`: the host's {call_id, timeout_ms}; a cancelled call focuses nothing (callcontext.js).
  return guard(function () { return M.withCall(call, function () { return focusNow(target, mode); }); });
}

function focusNow(target, mode) {
  var m = mode === undefined ? "append" : mode;
  if (m !== "append" && m !== "replace") fail("invalid_input", "mode must be append or replace", { field: "mode" });
  var t = editableTarget(target);
  var el = t.element;
  if (document.activeElement !== el && typeof el.focus === "function") el.focus();
  var placed = placeCaret(el, m);
  var out = { tag: tagOf(el), matched_by: t.matched_by, caret_placed: placed };
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) out.value = String(el.value);
  return out;
}

M.TEXT_INPUT_TYPES = TEXT_INPUT_TYPES;
M.editableOf = editableOf;
M.focusEditable = focusEditable;
M.focusedElement = focusedElement;

definePrimitive("text.insert", textInsert);
  })(M, root);

  // ---- keyboard.js ----
  (function (M, root) {
/*
 * keyboard.js — Keyboard emulation (keyboard.press): chord parsing, synthetic key events
 * and the few default actions flows rely on.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf,
  TEXT_INPUT_TYPES = M.TEXT_INPUT_TYPES,
  focusedElement = M.focusedElement;

// -- keyboard -------------------------------------------------------------

var NAMED_KEYS = {
  enter: ["Enter", "Enter", 13], tab: ["Tab", "Tab", 9], escape: ["Escape", "Escape", 27],
  backspace: ["Backspace", "Backspace", 8], delete: ["Delete", "Delete", 46], space: [" ", "Space", 32],
  arrowup: ["ArrowUp", "ArrowUp", 38], arrowdown: ["ArrowDown", "ArrowDown", 40],
  arrowleft: ["ArrowLeft", "ArrowLeft", 37], arrowright: ["ArrowRight", "ArrowRight", 39],
  home: ["Home", "Home", 36], end: ["End", "End", 35], pageup: ["PageUp", "PageUp", 33],
  pagedown: ["PageDown", "PageDown", 34], insert: ["Insert", "Insert", 45],
  capslock: ["CapsLock", "CapsLock", 20], contextmenu: ["ContextMenu", "ContextMenu", 93],
  shift: ["Shift", "ShiftLeft", 16], control: ["Control", "ControlLeft", 17],
  alt: ["Alt", "AltLeft", 18], meta: ["Meta", "MetaLeft", 91],
};
var KEY_ALIASES = {
  esc: "escape", return: "enter", up: "arrowup", down: "arrowdown", left: "arrowleft",
  right: "arrowright", del: "delete", spacebar: "space", ctrl: "control", cmd: "meta",
  command: "meta", option: "alt",
};
var MODIFIER_ALIASES = { alt: "Alt", option: "Alt", control: "Control", ctrl: "Control", meta: "Meta", cmd: "Meta", command: "Meta", shift: "Shift" };
for (var f = 1; f <= 12; f++) NAMED_KEYS["f" + f] = ["F" + f, "F" + f, 111 + f];

function parseChord(keyArg, extraModifiers) {
  if (typeof keyArg !== "string" || !keyArg) fail("invalid_key", "key must be a non-empty string", { key: keyArg === undefined ? null : keyArg });
  var parts;
  if (keyArg === "+") parts = ["+"];
  else if (/\+\+$/.test(keyArg)) parts = keyArg.slice(0, -2).split("+").concat(["+"]);
  else parts = keyArg.split("+");
  var keyName = parts.pop();
  var modifiers = [];
  function addModifier(m) {
    var canonical = MODIFIER_ALIASES[String(m).toLowerCase()];
    if (!canonical) fail("invalid_key", "unknown modifier: " + m, { key: keyArg, modifier: m });
    if (modifiers.indexOf(canonical) < 0) modifiers.push(canonical);
  }
  parts.forEach(addModifier);
  if (extraModifiers !== undefined) {
    if (!Array.isArray(extraModifiers)) fail("invalid_input", "modifiers must be an array", { field: "modifiers" });
    extraModifiers.forEach(addModifier);
  }
  var lower = keyName.toLowerCase();
  lower = KEY_ALIASES[lower] || lower;
  var spec;
  if (keyName === " ") spec = NAMED_KEYS.space;
  else if (NAMED_KEYS[lower]) spec = NAMED_KEYS[lower];
  else if (Array.from(keyName).length === 1) {
    var ch = keyName;
    var upper = ch.toUpperCase();
    var code = /^[a-z]$/i.test(ch) ? "Key" + upper : /^[0-9]$/.test(ch) ? "Digit" + ch : "";
    var keyCode = /^[a-z0-9]$/i.test(ch) ? upper.charCodeAt(0) : 0;
    if (modifiers.indexOf("Shift") >= 0 && /^[a-z]$/.test(ch)) ch = upper;
    spec = [ch, code, keyCode];
  } else {
    fail("invalid_key", "unknown key: " + keyName, { key: keyArg });
  }
  return { key: spec[0], code: spec[1], keyCode: spec[2], modifiers: modifiers };
}

function keyEvent(type, chord) {
  var mods = chord.modifiers;
  var init = {
    key: chord.key, code: chord.code, bubbles: true, cancelable: true, composed: true,
    ctrlKey: mods.indexOf("Control") >= 0, shiftKey: mods.indexOf("Shift") >= 0,
    altKey: mods.indexOf("Alt") >= 0, metaKey: mods.indexOf("Meta") >= 0,
  };
  var ev = new KeyboardEvent(type, init);
  // keyCode/which are read-only on KeyboardEvent yet still read by older code.
  var code = type === "keypress" ? (chord.key.length === 1 ? chord.key.charCodeAt(0) : chord.keyCode) : chord.keyCode;
  try {
    Object.defineProperty(ev, "keyCode", { get: function () { return code; } });
    Object.defineProperty(ev, "which", { get: function () { return code; } });
  } catch (_ignored) { /* keep the defaults */ }
  return ev;
}

function defaultButtonOf(form) {
  var elements = form.elements;
  for (var i = 0; i < elements.length; i++) {
    var el = elements[i];
    var type = (el.getAttribute("type") || (tagOf(el) === "button" ? "submit" : "")).toLowerCase();
    if ((tagOf(el) === "button" || tagOf(el) === "input") && (type === "submit" || type === "image")) return el;
  }
  return null;
}

function emulateKeyDefault(target, chord) {
  // Synthetic key events have no default action; emulate the few that
  // flows rely on, only when no listener cancelled the keydown.
  var plain = chord.modifiers.every(function (m) { return m === "Shift"; });
  if (!plain || !target) return null;
  var tag = tagOf(target); // by tag, not instanceof: a same-origin frame's input belongs to its own realm
  if (chord.key === "Enter") {
    if (tag === "input" && target.form && TEXT_INPUT_TYPES[(target.getAttribute("type") || "").toLowerCase()]) {
      // HTML implicit submission: click the default button, else submit.
      var button = defaultButtonOf(target.form);
      if (button) {
        if (!button.disabled) button.click();
        return "implicit_submission";
      }
      if (typeof target.form.requestSubmit === "function") target.form.requestSubmit();
      else target.form.submit();
      return "implicit_submission";
    }
    if (tag === "button" || (tag === "a" && target.hasAttribute("href")) || (tag === "input" && /^(submit|button|reset|image)$/.test(target.type))) {
      M.intrinsics.clickForAgent(target); // the engine's own click: a launcher takes it (docs/overlays.md)
      return "click";
    }
  }
  if (chord.key === " " && (tag === "button" || (tag === "input" && /^(checkbox|radio|submit|button|reset)$/.test(target.type)))) {
    M.intrinsics.clickForAgent(target);
    return "click";
  }
  return null;
}


function keyboardPress(args) {
  var chord = parseChord(args.key, args.modifiers);
  var target = focusedElement() || document.body || document.documentElement;
  var allowed = target.dispatchEvent(keyEvent("keydown", chord));
  var printable = chord.key.length === 1 || chord.key === "Enter";
  var noCommand = chord.modifiers.indexOf("Control") < 0 && chord.modifiers.indexOf("Meta") < 0 && chord.modifiers.indexOf("Alt") < 0;
  if (allowed && printable && noCommand) target.dispatchEvent(keyEvent("keypress", chord));
  var defaultAction = allowed ? emulateKeyDefault(target, chord) : null;
  var keyupTarget = target.isConnected ? target : document.body || document.documentElement;
  keyupTarget.dispatchEvent(keyEvent("keyup", chord));
  var out = { pressed: true, key: chord.key, modifiers: chord.modifiers, fidelity: "synthetic" };
  if (defaultAction) out.default_action = defaultAction;
  if (!allowed) out.default_prevented = true;
  return out;
}

definePrimitive("keyboard.press", keyboardPress);
  })(M, root);

  // ---- pointer.js ----
  (function (M, root) {
/*
 * pointer.js — Pointer emulation (pointer.move, pointer.click, pointer.double_click) and
 * viewport.scroll, with synthetic pointer and mouse events.
 */
var definePrimitive = M.definePrimitive,
  elementFromPointDeep = M.elementFromPointDeep,
  fail = M.fail,
  viewport = M.viewport,
  requireNumber = M.requireNumber,
  inViewport = M.inViewport,
  describe = M.describe,
  resolveClickable = M.resolveClickable;

// -- pointer --------------------------------------------------------------

var BUTTONS = { left: [0, 1], middle: [1, 4], right: [2, 2] };

/**
 * The point of a click given as a locator (``target``) instead of x and y: the
 * clickable centre of the one visible element it resolves to, scrolled into view
 * first as locator.element_info does. Saves a map the element_info step.
 */
function targetPoint(args) {
  if (args.x !== undefined || args.y !== undefined) fail("invalid_input", "give x and y, or target, not both", { field: "target" });
  var resolved = resolveClickable(args.target);
  return { x: resolved.center.x, y: resolved.center.y, matched_by: resolved.matched_by };
}

function pointTarget(args) {
  if (args.target !== undefined) {
    var at = targetPoint(args);
    var point = pointTarget({ x: at.x, y: at.y });
    point.matched_by = at.matched_by;
    return point;
  }
  var x = requireNumber(args, "x");
  var y = requireNumber(args, "y");
  var vp = viewport();
  if (!inViewport({ x: x, y: y })) fail("point_out_of_viewport", "(" + x + ", " + y + ") is outside the " + vp.width + "x" + vp.height + " viewport", { x: x, y: y, viewport: vp });
  var el = elementFromPointDeep(x, y);
  if (!el) fail("target_not_found", "no element at (" + x + ", " + y + ")", { x: x, y: y });
  return { x: x, y: y, el: el };
}

function mouseInit(x, y, button, buttons, detail) {
  return {
    bubbles: true, cancelable: true, composed: true, view: root, clientX: x, clientY: y,
    screenX: x + (root.screenX || 0), screenY: y + (root.screenY || 0),
    button: button, buttons: buttons, detail: detail, pointerId: 1, pointerType: "mouse", isPrimary: true,
  };
}

// Dispatched as the engine's own (intrinsics.js dispatchForAgent): a launcher takes the agent's
// synthetic click, never a page script's (docs/overlays.md, "Launcher clicks").
function firePointer(el, type, init) {
  var Ctor = typeof PointerEvent === "function" ? PointerEvent : MouseEvent;
  return M.intrinsics.dispatchForAgent(el, new Ctor(type, init));
}

function fireMouse(el, type, init) {
  return M.intrinsics.dispatchForAgent(el, new MouseEvent(type, init));
}

function focusFromPointer(el) {
  var focusable = el.closest("input, select, textarea, button, a[href], area[href], iframe, [tabindex], [contenteditable]:not([contenteditable='false'])");
  if (focusable && typeof focusable.focus === "function") focusable.focus();
  else if (document.activeElement && document.activeElement !== document.body && typeof document.activeElement.blur === "function") document.activeElement.blur();
}

function syntheticClick(point, buttonName, clickCount) {
  var b = BUTTONS[buttonName];
  var el = point.el;
  var down = mouseInit(point.x, point.y, b[0], b[1], clickCount);
  var up = mouseInit(point.x, point.y, b[0], 0, clickCount);
  // A cancelled pointerdown suppresses the compatibility mouse events (not click).
  var pointerAllowed = firePointer(el, "pointerdown", down);
  if (pointerAllowed && fireMouse(el, "mousedown", down)) focusFromPointer(el);
  firePointer(el, "pointerup", up);
  if (pointerAllowed) fireMouse(el, "mouseup", up);
  if (buttonName === "left") fireMouse(el, "click", up);
  else if (buttonName === "middle") fireMouse(el, "auxclick", up);
  else {
    fireMouse(el, "auxclick", up);
    fireMouse(el, "contextmenu", up);
  }
}


function pointerClick(args) {
  var button = args.button === undefined ? "left" : args.button;
  if (!BUTTONS[button]) fail("invalid_input", "button must be left, middle or right", { field: "button" });
  var point = pointTarget(args);
  syntheticClick(point, button, 1);
  var out = { clicked: true, button: button, target: describe(point.el) };
  if (point.matched_by) out.matched_by = point.matched_by;
  return out;
}

function pointerDoubleClick(args) {
  var point = pointTarget(args);
  syntheticClick(point, "left", 1);
  syntheticClick(point, "left", 2);
  fireMouse(point.el, "dblclick", mouseInit(point.x, point.y, 0, 0, 2));
  return { double_clicked: true, target: describe(point.el) };
}

var lastHover = null;
function pointerMove(args) {
  var point = pointTarget(args);
  var init = mouseInit(point.x, point.y, 0, 0, 0);
  if (lastHover !== point.el) {
    if (lastHover && lastHover.isConnected) {
      firePointer(lastHover, "pointerout", init);
      fireMouse(lastHover, "mouseout", init);
    }
    firePointer(point.el, "pointerover", init);
    fireMouse(point.el, "mouseover", init);
    lastHover = point.el;
  }
  firePointer(point.el, "pointermove", init);
  fireMouse(point.el, "mousemove", init);
  return { x: point.x, y: point.y };
}

function viewportScroll(args) {
  var dx = args.delta_x === undefined ? 0 : requireNumber(args, "delta_x");
  var dy = args.delta_y === undefined ? 0 : requireNumber(args, "delta_y");
  root.scrollBy({ left: dx, top: dy, behavior: "instant" });
  return { scroll_x: root.scrollX, scroll_y: root.scrollY };
}

definePrimitive("pointer.move", pointerMove);
definePrimitive("pointer.click", pointerClick);
definePrimitive("pointer.double_click", pointerDoubleClick);
definePrimitive("viewport.scroll", viewportScroll);

M.pointTarget = pointTarget;
M.mouseInit = mouseInit;
M.firePointer = firePointer;
M.fireMouse = fireMouse;
  })(M, root);

  // ---- drag.js ----
  (function (M, root) {
/*
 * drag.js — pointer.drag with synthetic events: press at `from`, move in
 * steps, release at `to`. Endpoints are viewport points {x, y} or locators
 * ({locator: {...}}, or locator fields such as selector / text_equals /
 * text_contains / text given inline). When the pressed element is HTML5
 * draggable, the drag-and-drop events (dragstart … drop, dragend) follow too.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  round = M.round,
  inViewport = M.inViewport,
  viewport = M.viewport,
  clickableCenter = M.clickableCenter,
  resolveOne = M.resolveOne,
  closestDeep = M.closestDeep,
  elementFromPointDeep = M.elementFromPointDeep,
  describe = M.describe,
  mouseInit = M.mouseInit,
  firePointer = M.firePointer,
  fireMouse = M.fireMouse;

/** The locator an endpoint names, or null when it is a bare point. */
function endpointLocator(spec) {
  if (isObject(spec.locator)) return spec.locator;
  var locator = {};
  Object.keys(spec).forEach(function (k) {
    if (k !== "x" && k !== "y" && k !== "text" && k !== "locator") locator[k] = spec[k];
  });
  if (typeof spec.text === "string") locator.text_contains = spec.text;
  return Object.keys(locator).length ? locator : null;
}

/**
 * A viewport point for an endpoint: {x, y, matched_by?}. A located element is
 * scrolled into view first; a hidden one fails target_not_visible.
 */
function endpointPoint(spec, label) {
  if (!isObject(spec)) fail("invalid_input", label + " must be an object", { field: label });
  var locator = endpointLocator(spec);
  if (!locator) {
    if (typeof spec.x !== "number" || typeof spec.y !== "number") fail("invalid_input", label + " needs x and y, or a locator", { field: label });
    return { x: spec.x, y: spec.y };
  }
  var resolved = resolveOne(locator, true);
  var el = resolved.element;
  if (!inViewport(clickableCenter(el))) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  var c = clickableCenter(el);
  return { x: c.x, y: c.y, matched_by: resolved.matched_by };
}

function dragEvent(type, x, y, data) {
  try {
    return new DragEvent(type, { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: data });
  } catch (_ignored) {
    return new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y });
  }
}

function pointerDrag(args) {
  var steps = args.steps === undefined ? 10 : args.steps;
  if (typeof steps !== "number" || steps % 1 !== 0 || steps < 1 || steps > 40) fail("invalid_input", "steps must be an integer from 1 to 40", { field: "steps" });
  // Resolve the target first, then the source: the press must happen where the source is now.
  var to = endpointPoint(args.to, "to");
  var from = endpointPoint(args.from, "from");
  var vp = viewport();
  [["from", from], ["to", to]].forEach(function (pair) {
    if (!inViewport(pair[1])) fail("point_out_of_viewport", pair[0] + " (" + pair[1].x + ", " + pair[1].y + ") is outside the " + vp.width + "x" + vp.height + " viewport", { endpoint: pair[0], x: pair[1].x, y: pair[1].y, viewport: vp });
  });
  var source = elementFromPointDeep(from.x, from.y);
  if (!source) fail("drag_failed", "no element at the drag's start point", { from: from });
  var draggable = closestDeep(source, "[draggable=true]");
  var data = draggable && typeof DataTransfer === "function" ? new DataTransfer() : null;
  firePointer(source, "pointerdown", mouseInit(from.x, from.y, 0, 1, 1));
  fireMouse(source, "mousedown", mouseInit(from.x, from.y, 0, 1, 1));
  var html5 = false;
  if (draggable) {
    html5 = draggable.dispatchEvent(dragEvent("dragstart", from.x, from.y, data));
    if (!html5) fail("drag_failed", "the page cancelled dragstart", { source: describe(draggable) });
  }
  var over = null;
  for (var i = 1; i <= steps; i++) {
    var x = round(from.x + ((to.x - from.x) * i) / steps);
    var y = round(from.y + ((to.y - from.y) * i) / steps);
    var hit = elementFromPointDeep(x, y) || document.body;
    firePointer(hit, "pointermove", mouseInit(x, y, 0, 1, 0));
    fireMouse(hit, "mousemove", mouseInit(x, y, 0, 1, 0));
    if (html5) {
      if (hit !== over) hit.dispatchEvent(dragEvent("dragenter", x, y, data));
      over = hit;
      hit.dispatchEvent(dragEvent("dragover", x, y, data));
    }
  }
  var target = elementFromPointDeep(to.x, to.y) || document.body;
  var dropped = null;
  if (html5) {
    dropped = !target.dispatchEvent(dragEvent("drop", to.x, to.y, data)); // a handled drop is cancelled
    draggable.dispatchEvent(dragEvent("dragend", to.x, to.y, data));
  }
  firePointer(target, "pointerup", mouseInit(to.x, to.y, 0, 0, 1));
  fireMouse(target, "mouseup", mouseInit(to.x, to.y, 0, 0, 1));
  var diagnostics = { from: from, to: to, source: describe(source), target: describe(target), html5: !!draggable, fidelity: "synthetic" };
  if (dropped !== null) diagnostics.drop_handled = dropped;
  return { dragged: true, steps: steps, diagnostics: diagnostics };
}

definePrimitive("pointer.drag", pointerDrag, ["from", "to"]);
  })(M, root);

  // ---- observe.js ----
  (function (M, root) {
/*
 * observe.js — Reading the page: page.info, dom.snapshot_text, dom.observe.visible and
 * the locator primitives (element_info, text_content, wait_for).
 */
var definePrimitive = M.definePrimitive,
  TEXT_CAP = M.TEXT_CAP,
  DESCRIBE_TEXT_CAP = M.DESCRIBE_TEXT_CAP,
  EngineError = M.EngineError,
  fail = M.fail,
  normalize = M.normalize,
  cap = M.cap,
  tagOf = M.tagOf,
  box = M.box,
  isVisible = M.isVisible,
  selectAll = M.selectAll,
  elementFromPointDeep = M.elementFromPointDeep,
  isWithin = M.isWithin,
  inViewport = M.inViewport,
  isEnabled = M.isEnabled,
  elementText = M.elementText,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  describe = M.describe,
  asLocator = M.asLocator,
  locatorEvidence = M.locatorEvidence,
  resolveAll = M.resolveAll,
  resolveOne = M.resolveOne,
  resolveClickable = M.resolveClickable,
  editableOf = M.editableOf,
  queryAllDeep = M.queryAllDeep,
  LAUNCHER_HOST_TAG = M.LAUNCHER_HOST_TAG;

// -- primitives -----------------------------------------------------------

function elementInfo(args) {
  // Visible only: a hidden element has no point a click could use (its
  // centre would be (0, 0), the page's corner), so it fails target_not_visible.
  // Brought into view when off-screen, so clickable_center is a point pointer.click can use.
  var resolved = resolveClickable(args.locator);
  var el = resolved.element;
  var visible = true;
  var center = resolved.center;
  var info = {
    bounding_box: box(el),
    clickable_center: center,
    visible: visible,
    in_viewport: visible && inViewport(center),
    enabled: isEnabled(el),
    editable: editableOf(el) !== null,
    tag: tagOf(el),
    text: cap(elementText(el), TEXT_CAP),
    matched_by: resolved.matched_by,
    match_count: resolved.match_count,
  };
  var role = roleOf(el);
  if (role) info.role = role;
  var name = accessibleName(el, role);
  if (name) info.name = cap(name, TEXT_CAP);
  if (visible && info.in_viewport) {
    info.occluded = !isWithin(elementFromPointDeep(center.x, center.y), el);
  }
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
    info.value = cap(String(el.value), TEXT_CAP);
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) info.checked = el.checked;
  }
  return info;
}

function textContent(args) {
  var resolved = resolveOne(args.locator, false);
  var el = resolved.element;
  var raw = isVisible(el) && typeof el.innerText === "string" ? el.innerText : el.textContent;
  var out = { text: String(raw || "").trim(), matched_by: resolved.matched_by };
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) out.value = String(el.value);
  return out;
}

function waitFor(args, call) {
  var state = args.state === undefined ? "visible" : args.state;
  if (state !== "attached" && state !== "visible") fail("invalid_input", "state must be attached or visible", { field: "state" });
  var timeout = args.timeout_ms === undefined ? 5000 : args.timeout_ms;
  if (typeof timeout !== "number" || !(timeout >= 0)) fail("invalid_input", "timeout_ms must be a non-negative number", { field: "timeout_ms" });
  var locator = asLocator(args.locator);
  var started = Date.now();

  function check() {
    var res;
    try {
      res = resolveAll(locator);
    } catch (err) {
      if (err instanceof EngineError && err.code === "target_not_found") return { done: false, tried: err.evidence.tried };
      throw err; // invalid locators fail at once: waiting cannot fix them
    }
    var count = state === "visible" ? res.visible.length : res.matches.length;
    if (count > 0) return { done: true, output: { matched: true, state: state, matched_by: res.matched_by, match_count: count } };
    return { done: false, tried: res.tried };
  }

  var first = check();
  if (first.done) return first.output;
  return new Promise(function (resolve, reject) {
    var last = first;
    var finished = false;
    var observer = null, interval = null, timer = null, frame = null, stopListening = null;
    function finish(fn, value) {
      if (finished) return;
      finished = true;
      if (stopListening) stopListening();
      if (observer) observer.disconnect();
      if (interval) clearInterval(interval);
      if (timer) clearTimeout(timer);
      if (frame && root.cancelAnimationFrame) root.cancelAnimationFrame(frame);
      fn(value);
    }
    function poll() {
      frame = null;
      if (finished) return;
      try {
        var r = check();
        if (r.done) finish(resolve, r.output);
        else last = r;
      } catch (err) {
        finish(reject, err);
      }
    }
    var lastCheck = 0;
    function schedule() {
      if (frame || finished) return;
      // The first change after a quiet spell is checked at once: an answer that lands
      // as one DOM change (a saved card appended) is seen in the same task, not up to a
      // frame (16 ms) later. Bursts after it are coalesced into one check per frame.
      var now = Date.now();
      if (now - lastCheck >= 16) {
        lastCheck = now;
        poll();
        return;
      }
      frame = root.requestAnimationFrame ? root.requestAnimationFrame(poll) : setTimeout(poll, 16);
    }
    if (typeof MutationObserver === "function") {
      observer = new MutationObserver(schedule);
      observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
    // Style/layout changes (CSS classes elsewhere, animations) and hidden
    // tabs without animation frames are caught by a plain interval.
    interval = setInterval(poll, 100);
    // The call was cancelled or ran out of its deadline: stop watching now (callcontext.js).
    if (call) stopListening = call.onAbort(function () { finish(reject, call.error()); });
    timer = setTimeout(function () {
      finish(reject, new EngineError("timeout", "the locator did not become " + state + " within " + timeout + " ms", {
        locator: locatorEvidence(locator), state: state, timeout_ms: timeout, elapsed_ms: Date.now() - started, tried: last.tried,
      }));
    }, timeout);
  });
}


function pageInfo() {
  return { url: String(root.location.href), title: String(document.title || "") };
}

/**
 * Our launcher buttons (launchers.js) inside the snapshot's elements, one line
 * each: innerText never includes shadow-root content, and a launcher's label
 * stays out of the page's own text on purpose (a target's text predicates must
 * not change when a launcher is placed inside it).
 */
function launcherLines(elements) {
  var labels = [];
  elements.forEach(function (el) {
    queryAllDeep(LAUNCHER_HOST_TAG, el).forEach(function (host) {
      var button = host.shadowRoot && host.shadowRoot.querySelector("button");
      if (button && isVisible(button) && labels.indexOf(button) < 0) labels.push(button);
    });
  });
  if (!labels.length) return [];
  return [labels.map(function (b) { return "[launcher button] " + normalize(b.textContent); }).join("\n")];
}

function snapshotText(args) {
  var maxChars = args.max_chars === undefined ? 20000 : args.max_chars;
  if (typeof maxChars !== "number" || maxChars < 1) fail("invalid_input", "max_chars must be a positive integer", { field: "max_chars" });
  var elements = args.selector === undefined ? [document.body || document.documentElement] : selectAll(args.selector, "invalid_selector");
  var text = elements.map(function (el) {
    return String((typeof el.innerText === "string" ? el.innerText : el.textContent) || "").trim();
  }).filter(Boolean).concat(launcherLines(elements)).join("\n\n");
  var truncated = text.length > maxChars;
  return { text: truncated ? text.slice(0, maxChars) : text, truncated: truncated, match_count: elements.length };
}

var OBSERVE_DEFAULT = "a[href], button, input:not([type=hidden]), select, textarea, [role], h1, h2, h3, h4, h5, h6, [contenteditable]";
var OBSERVE_CAP = 50;

function observeVisible(args) {
  var selector = args.selector === undefined ? OBSERVE_DEFAULT : args.selector;
  var elements = selectAll(selector, "invalid_selector");
  var visible = elements.filter(isVisible);
  if (typeof args.text_contains === "string") {
    var sub = normalize(args.text_contains);
    visible = visible.filter(function (el) { return elementText(el).indexOf(sub) >= 0; });
  }
  var matches = visible.slice(0, OBSERVE_CAP).map(function (el) {
    var item = describe(el);
    var role = roleOf(el);
    if (role) item.role = role;
    var name = accessibleName(el, role);
    if (name) item.name = cap(name, DESCRIBE_TEXT_CAP);
    return item;
  });
  return { matches: matches, match_count: visible.length, truncated: visible.length > OBSERVE_CAP };
}

definePrimitive("page.info", pageInfo);
definePrimitive("dom.snapshot_text", snapshotText);
definePrimitive("dom.observe.visible", observeVisible);
M.elementInfo = elementInfo; // refs.resolve {point}: the clickable centre in the resolving round trip (observe_refs.js)
definePrimitive("locator.element_info", elementInfo, ["locator"]);
definePrimitive("locator.text_content", textContent, ["locator"]);
definePrimitive("locator.wait_for", waitFor, ["locator"]);
  })(M, root);

  // ---- sections.js ----
  (function (M, root) {
/*
 * sections.js — Page structure and quiet: dom.list_sections (the page's
 * sections by heading, with document geometry, so a workflow can scroll to
 * one) and dom.settle (wait until the DOM stops changing).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  normalize = M.normalize,
  cap = M.cap,
  round = M.round,
  viewport = M.viewport,
  isVisible = M.isVisible,
  selectAll = M.selectAll,
  elementText = M.elementText;

var HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]";

function positiveInt(args, key, fallback, minimum) {
  var value = args[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || value % 1 !== 0 || value < minimum) fail("invalid_input", key + " must be an integer of at least " + minimum, { field: key });
  return value;
}

function headingLevel(el) {
  var m = /^h([1-6])$/.exec(String(el.tagName || "").toLowerCase());
  if (m) return Number(m[1]);
  var aria = Number(el.getAttribute("aria-level"));
  return aria >= 1 ? aria : 2;
}

function docTop(el) {
  return el.getBoundingClientRect().top + root.scrollY;
}

/**
 * Sections: with `selector`, each visible matching element is a section
 * (its heading: the first heading_selector match inside); without, each
 * visible heading starts a section that runs to the next heading.
 * item_count counts item_selector matches in the section.
 */
function listSections(args) {
  var headingSelector = args.heading_selector === undefined ? HEADINGS : args.heading_selector;
  var maxSections = positiveInt(args, "max_sections", 50, 1);
  var maxHeading = positiveInt(args, "max_heading_length", 120, 12);
  var docHeight = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  var sections = [];
  if (args.selector !== undefined) {
    selectAll(args.selector, "invalid_selector").filter(isVisible).forEach(function (el) {
      var heading = selectAll(headingSelector, "invalid_selector", el).filter(isVisible)[0] || null;
      var r = el.getBoundingClientRect();
      sections.push({ el: el, heading: heading, top: r.top + root.scrollY, bottom: r.bottom + root.scrollY });
    });
  } else {
    var headings = selectAll(headingSelector, "invalid_selector").filter(isVisible);
    headings.sort(function (a, b) { return docTop(a) - docTop(b); });
    headings.forEach(function (h, i) {
      sections.push({ el: null, heading: h, top: docTop(h), bottom: i + 1 < headings.length ? docTop(headings[i + 1]) : docHeight });
    });
  }
  var items = args.item_selector === undefined ? null : selectAll(args.item_selector, "invalid_selector").filter(isVisible);
  var vp = viewport();
  var out = [];
  sections.forEach(function (s, index) {
    var headingText = s.heading ? elementText(s.heading) : "";
    if (typeof args.text_contains === "string") {
      var wanted = normalize(args.text_contains).toLowerCase();
      var haystack = (s.el ? elementText(s.el) : headingText).toLowerCase();
      if (haystack.indexOf(wanted) < 0) return;
    }
    var section = {
      index: index,
      heading: cap(headingText, maxHeading),
      level: s.heading ? headingLevel(s.heading) : null,
      top: round(s.top),
      height: round(Math.max(0, s.bottom - s.top)),
      in_viewport: s.top < root.scrollY + vp.height && s.bottom > root.scrollY,
    };
    var anchor = s.el || s.heading;
    if (anchor && anchor.id) section.id = anchor.id;
    if (items) {
      section.item_count = items.filter(function (it) {
        if (s.el) return s.el.contains(it);
        var y = docTop(it);
        return y >= s.top && y < s.bottom;
      }).length;
    }
    out.push(section);
  });
  var total = out.length;
  return { sections: out.slice(0, maxSections), section_count: total, truncated: total > maxSections, scroll_y: round(root.scrollY), viewport_height: vp.height };
}

/**
 * Resolve once no DOM mutation happened for quiet_ms, or at timeout_ms with
 * settled=false (never an error): {settled, waited_ms}.
 */
function settle(args, call) {
  var quiet = args.quiet_ms === undefined ? 100 : args.quiet_ms;
  var timeout = args.timeout_ms === undefined ? 2000 : args.timeout_ms;
  if (typeof quiet !== "number" || !(quiet >= 0)) fail("invalid_input", "quiet_ms must be a non-negative number", { field: "quiet_ms" });
  if (typeof timeout !== "number" || !(timeout >= 0)) fail("invalid_input", "timeout_ms must be a non-negative number", { field: "timeout_ms" });
  var started = Date.now();
  return new Promise(function (resolve) {
    var quietTimer = null, limitTimer = null, observer = null, stopListening = null;
    function finish(settled) {
      if (stopListening) stopListening();
      if (observer) observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(limitTimer);
      observer = null;
      resolve({ settled: settled, waited_ms: Date.now() - started });
    }
    function restart() {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(function () { finish(true); }, quiet);
    }
    if (typeof MutationObserver === "function") {
      observer = new MutationObserver(function () { if (observer) restart(); });
      observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
    limitTimer = setTimeout(function () { finish(false); }, timeout);
    // A cancelled call (or one past its deadline) stops watching at once (callcontext.js).
    if (call) stopListening = call.onAbort(function () { finish(false); });
    restart();
  });
}

definePrimitive("dom.list_sections", listSections);
definePrimitive("dom.settle", settle);
  })(M, root);

  // ---- extract.js ----
  (function (M, root) {
/*
 * extract.js — dom.extract: many records in one round trip, for state
 * projections (docs/manifest-language.md, State projections). Each extract entry of a manifest's
 * snapshot.extract is applied verbatim:
 *   {id, selector | xpath, many (default true at the top), fields}
 * and each field: selector/xpath relative to its record (absent = the record
 * itself), many + nested fields (sub-records), closest, then the value from
 * attribute, property or the text; trim, required, default.
 * Output: {records: {id: [...] | record | null},
 *          diagnostics: {selector_counts, missing_required_fields}}.
 * Selectors search through open shadow roots.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  round = M.round,
  queryAllDeep = M.queryAllDeep,
  closestDeep = M.closestDeep;

var PROPERTIES = {
  innerText: function (el) { return typeof el.innerText === "string" ? el.innerText : el.textContent; },
  textContent: function (el) { return el.textContent; },
  value: function (el) { return el.value === undefined ? null : el.value; },
  checked: function (el) { return el.checked === undefined ? null : !!el.checked; },
  ariaLabel: function (el) { return el.getAttribute("aria-label"); },
  boundingClientRect: function (el) {
    var r = el.getBoundingClientRect();
    return { x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) };
  },
};

function matchesOf(spec, scope, path) {
  if (spec.xpath !== undefined) {
    if (typeof spec.xpath !== "string" || !spec.xpath) fail("invalid_selector", path + ".xpath must be a non-empty string", { path: path });
    var result;
    try {
      result = document.evaluate(spec.xpath, scope || document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    } catch (_err) {
      fail("invalid_selector", path + ".xpath is not a valid expression: " + spec.xpath, { path: path, xpath: spec.xpath });
    }
    var out = [];
    for (var i = 0; i < result.snapshotLength; i++) if (result.snapshotItem(i).nodeType === 1) out.push(result.snapshotItem(i));
    return out;
  }
  if (spec.selector === undefined) return scope ? [scope] : [];
  if (typeof spec.selector !== "string" || !spec.selector.trim()) fail("invalid_selector", path + ".selector must be a non-empty CSS selector", { path: path });
  try {
    // Relative selectors look inside the record only (not the record itself).
    return scope ? queryAllDeep(spec.selector, scope).filter(function (el) { return el !== scope; }) : queryAllDeep(spec.selector);
  } catch (_err) {
    fail("invalid_selector", path + ".selector is not a valid CSS selector: " + spec.selector, { path: path, selector: spec.selector });
  }
}

function valueOf(field, el, path) {
  var value;
  if (field.attribute !== undefined) value = el.getAttribute(String(field.attribute));
  else if (field.property !== undefined) {
    var getter = Object.prototype.hasOwnProperty.call(PROPERTIES, field.property) ? PROPERTIES[field.property] : null;
    if (!getter) fail("invalid_input", path + ".property must be one of " + Object.keys(PROPERTIES).join(", "), { path: path, property: field.property });
    value = getter(el);
  } else value = PROPERTIES.innerText(el);
  if (typeof value === "string" && field.trim !== false) value = value.replace(/\s+/g, " ").trim();
  return value === undefined ? null : value;
}

function retarget(field, el, path) {
  if (field.closest === undefined) return el;
  if (typeof field.closest !== "string" || !field.closest.trim()) fail("invalid_selector", path + ".closest must be a CSS selector", { path: path });
  try {
    return closestDeep(el, field.closest);
  } catch (_err) {
    fail("invalid_selector", path + ".closest is not a valid CSS selector: " + field.closest, { path: path });
  }
}

/** The fields of one record (element el), filling counts and missing lists. */
function extractRecord(fields, el, ctx, countKey, fieldPath) {
  var record = {};
  if (!isObject(fields)) return record;
  Object.keys(fields).forEach(function (name) {
    var field = fields[name];
    var path = fieldPath ? fieldPath + "." + name : name;
    var key = countKey + "." + name;
    if (!isObject(field)) fail("invalid_input", "field " + path + " of entry " + ctx.entry + " must be an object", { entry: ctx.entry, field: path });
    var found = matchesOf(field, el, ctx.entry + "." + path);
    ctx.counts[key] = (ctx.counts[key] || 0) + (field.selector === undefined && field.xpath === undefined ? 0 : found.length);
    var targets = found.map(function (m) { return retarget(field, m, path); }).filter(Boolean);
    if (field.many === true) {
      record[name] = targets.map(function (t, i) {
        return isObject(field.fields) ? extractRecord(field.fields, t, ctx, key, path + "." + i) : valueOf(field, t, path);
      });
      return;
    }
    var value = null;
    if (targets.length) value = isObject(field.fields) ? extractRecord(field.fields, targets[0], ctx, key, path) : valueOf(field, targets[0], path);
    if ((value === null || value === "") && field["default"] !== undefined) value = field["default"];
    if ((value === null || value === "") && field.required === true) {
      ctx.missing.push({ entry: ctx.entry, record: ctx.record, field: path });
    }
    record[name] = value;
  });
  return record;
}

function domExtract(args) {
  var entries = args.extract;
  if (!Array.isArray(entries)) fail("invalid_input", "extract must be an array of extract entries", { field: "extract" });
  var records = {};
  var counts = {};
  var missing = [];
  entries.forEach(function (entry, i) {
    if (!isObject(entry) || typeof entry.id !== "string" || !entry.id) fail("invalid_input", "extract[" + i + "] needs a string id", { field: "extract/" + i });
    if (entry.selector === undefined && entry.xpath === undefined) fail("invalid_selector", "extract entry " + entry.id + " needs a selector or xpath", { entry: entry.id });
    var found = matchesOf(entry, null, entry.id);
    counts[entry.id] = found.length;
    var many = entry.many !== false;
    var list = (many ? found : found.slice(0, 1)).map(function (el, index) {
      return extractRecord(entry.fields, el, { entry: entry.id, record: index, counts: counts, missing: missing }, entry.id, "");
    });
    records[entry.id] = many ? list : list.length ? list[0] : null;
  });
  return { records: records, diagnostics: { selector_counts: counts, missing_required_fields: missing } };
}

definePrimitive("dom.extract", domExtract, ["extract"]);
  })(M, root);

  // ---- states.js ----
  (function (M, root) {
/*
 * states.js — locator.probe: many locator presence checks in one call, so
 * dispatch diagnoses every declared state of a map in one round trip
 * (mcp_actions/dispatch/states.py owns the contract).
 *
 *   {probes: [{id, locator, state?: "visible" | "attached"}]}
 *   -> {results: [{id, matched, match_count, matched_by}], url}
 *
 * A probe that matches nothing is matched: false, never an error; an
 * invalid locator fails the whole call (a map bug that waiting cannot fix).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  isVisible = M.isVisible,
  resolveAll = M.resolveAll,
  EngineError = M.EngineError;

var PROBE_CAP = 200;
// A probe that cannot match here (no such element, or the locator's URL predicate
// does not hold on this page) is simply not matched.
var NOT_MATCHED = { target_not_found: true, target_not_visible: true, state_mismatch: true };

function probeLocators(args) {
  var probes = args.probes;
  if (!Array.isArray(probes)) fail("invalid_input", "probes must be an array", { field: "probes" });
  if (probes.length > PROBE_CAP) fail("invalid_input", "at most " + PROBE_CAP + " probes per call", { count: probes.length });
  var results = probes.map(function (probe, index) {
    if (!isObject(probe) || !isObject(probe.locator)) fail("invalid_input", "probe " + index + " needs a locator object", { index: index });
    var state = probe.state === undefined ? "visible" : probe.state;
    if (state !== "visible" && state !== "attached") fail("invalid_input", "state must be attached or visible", { index: index, field: "state" });
    var id = probe.id === undefined ? index : probe.id;
    var res;
    try {
      res = resolveAll(probe.locator);
    } catch (err) {
      if (err instanceof EngineError && NOT_MATCHED[err.code]) return { id: id, matched: false, match_count: 0, matched_by: null };
      throw err;
    }
    var count = state === "visible" ? res.matches.filter(isVisible).length : res.matches.length;
    return { id: id, matched: count > 0, match_count: count, matched_by: count > 0 ? res.matched_by : null };
  });
  return { results: results, url: String(root.location.href) };
}

definePrimitive("locator.probe", probeLocators);
M.probeLocators = probeLocators;
  })(M, root);

  // ---- handlers.js ----
  (function (M, root) {
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
  })(M, root);

  // ---- pagetools.js ----
  (function (M, root) {
/*
 * pagetools.js — The registry of tools a page declares through a neighbouring
 * protocol (WebMCP, ABP, WAB), shared by those adapters: each adapter
 * publishes its current list with M.setPageTools(protocol, tools); hosts
 * subscribe with engine.onPageTools(fn) and receive the whole snapshot
 * {protocol: [tool, ...]} (coalesced to one report per task) whenever a
 * list changes, and once after the document has loaded.
 */
var isObject = M.isObject;

var pageTools = {}; // protocol -> [tool descriptors] (JSON-ready)
var listeners = [];
var scheduled = false;
var lastSent = null;

function snapshot() {
  var out = {};
  Object.keys(pageTools).forEach(function (protocol) {
    out[protocol] = pageTools[protocol].slice();
  });
  return out;
}

function flush() {
  scheduled = false;
  var snap = snapshot();
  var text = JSON.stringify(snap);
  if (text === lastSent) return; // nothing new since the last report
  lastSent = text;
  listeners.forEach(function (fn) {
    try {
      fn(JSON.parse(text));
    } catch (_ignored) { /* a failing host callback must not break the page */ }
  });
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  // One report per burst of registrations (a page registering ten tools in a loop).
  setTimeout(flush, 0);
}

/** Replace one protocol's tools (descriptors are plain JSON: name, description, inputSchema, ...). */
function setPageTools(protocol, tools) {
  var list = Array.isArray(tools) ? tools.filter(isObject) : [];
  if (list.length) pageTools[protocol] = list;
  else delete pageTools[protocol];
  schedule();
}

/**
 * Hear every change of the page's tools. The callback gets the full
 * snapshot; it is called at once with the current one (even when empty, so
 * a host learns that a new document has none).
 */
function onPageTools(fn) {
  if (typeof fn !== "function") return 0;
  listeners.push(fn);
  try {
    fn(snapshot());
  } catch (_ignored) { /* see flush */ }
  return listeners.length;
}

M.setPageTools = setPageTools;
M.onPageTools = onPageTools;
M.pageToolsSnapshot = snapshot;
  })(M, root);

  // ---- callchannel.js ----
  (function (M, root) {
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
  if (typeof message === "string" && message) item.message = message.slice(0, 500);
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
  })(M, root);

  // ---- webmcp_forms.js ----
  (function (M, root) {
/*
 * webmcp_forms.js — Declarative WebMCP: <form toolname tooldescription
 * [toolautosubmit]> as tools (the WebMCP declarative explainer).
 *
 * A form's named controls compile to a JSON Schema (number/range → number
 * with min/max, select → each option as anyOf {const, title} beside the
 * enum of their values, as Chromium's own getTools() gives it, radio →
 * enum, one checkbox → boolean, several → array, required, pattern,
 * minlength/maxlength; descriptions from
 * toolparamdescription, else the label, legend, aria-label, placeholder or
 * title). Running one fills the controls and submits the form as an
 * agent-invoked submit (SubmitEvent.agentInvoked, respondWith, polyfilled
 * when the browser has neither): the output is what the respondWith promise
 * resolves to; when the submission loads a page, {navigating: true,
 * document} at once, and the host reads the next document with pageResult
 * (its JSON-LD, or a heading and a summary). A form without toolautosubmit
 * is filled and waits for the user's submit.
 */
var fail = M.fail,
  jsonClone = M.jsonClone,
  normalize = M.normalize,
  cap = M.cap;

var DOC_ID = Math.random().toString(36).slice(2) + Date.now().toString(36);
var SKIPPED_TYPES = ["hidden", "submit", "button", "reset", "image", "file"];
var SUMMARY_CHARS = 1500;
var forms = []; // [{name, form, descriptor}]
var listeners = [];
var pendingSubmit = null; // {form, response, deferred}

function toJson(value, tool) {
  if (value === undefined) return null;
  try {
    return jsonClone(value);
  } catch (err) {
    fail("invalid_result", "the result of " + tool + " is not JSON: " + String((err && err.message) || err), { tool: tool });
  }
}

// -- schema ------------------------------------------------------------------------

function labelOf(el) {
  var own = el.getAttribute("toolparamdescription");
  if (own) return normalize(own);
  if (el.labels && el.labels.length) return normalize(el.labels[0].textContent);
  return normalize(el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("title") || "");
}

function controlsOf(form) {
  var groups = {};
  var order = [];
  Array.prototype.forEach.call(form.elements, function (el) {
    var name = el.name;
    var type = String(el.type || "").toLowerCase();
    if (!name || el.disabled || SKIPPED_TYPES.indexOf(type) >= 0 || el.tagName === "FIELDSET" || el.tagName === "BUTTON" || el.tagName === "OUTPUT") return;
    if (!groups[name]) { groups[name] = []; order.push(name); }
    groups[name].push(el);
  });
  return order.map(function (name) { return { name: name, els: groups[name] }; });
}

/*
 * A <select> as Chromium's own WebMCP (getTools(), --enable-features=WebMCP)
 * describes it: every option, the empty placeholder and disabled ones included,
 * as {type, const: value, title: label} in anyOf, then the enum of the values.
 * The title is what the user reads ("Last 30 Days" for value "30d"): without it
 * a model guesses from codes. One difference: the title is the option's text
 * with its whitespace collapsed (option.text), where Chromium keeps the raw
 * textContent.
 */
function selectSchema(select) {
  var options = Array.prototype.slice.call(select.options);
  return {
    type: "string",
    anyOf: options.map(function (o) { return { type: "string", const: o.value, title: o.text }; }),
    enum: options.map(function (o) { return o.value; }),
  };
}

function controlSchema(els) {
  var el = els[0];
  var type = String(el.type || "").toLowerCase();
  var s = {};
  if (type === "radio") {
    s = { type: "string", enum: els.map(function (r) { return r.value; }) };
  } else if (type === "checkbox") {
    s = els.length > 1 ? { type: "array", items: { type: "string", enum: els.map(function (c) { return c.value; }) } } : { type: "boolean" };
  } else if (el.tagName === "SELECT") {
    s = selectSchema(el);
    if (el.multiple) s = { type: "array", items: s, uniqueItems: true };
  } else if (type === "number" || type === "range") {
    s = { type: "number" };
    if (el.min !== "" && isFinite(+el.min)) s.minimum = +el.min;
    if (el.max !== "" && isFinite(+el.max)) s.maximum = +el.max;
  } else {
    s = { type: "string" };
    if (type === "email") s.format = "email";
    if (type === "url") s.format = "uri";
    if (type === "date") s.format = "date";
    if (el.maxLength > 0) s.maxLength = el.maxLength;
    if (el.minLength > 0) s.minLength = el.minLength;
    if (el.pattern) s.pattern = "^(?:" + el.pattern + ")$";
  }
  // A group (radios, several checkboxes) is described by its own attribute or its
  // fieldset's legend; each option's label names the option, not the group.
  var group = type === "radio" || (type === "checkbox" && els.length > 1);
  var description = "";
  for (var i = 0; i < els.length && !description; i++) description = normalize(els[i].getAttribute("toolparamdescription") || "");
  var fieldset = el.closest ? el.closest("fieldset") : null;
  var legend = fieldset ? fieldset.querySelector("legend") : null;
  if (!description && group && legend) description = normalize(legend.textContent);
  for (var j = 0; j < els.length && !description && !group; j++) description = labelOf(els[j]);
  if (!description && legend) description = normalize(legend.textContent);
  if (description) s.description = cap(description, 300);
  return s;
}

function formDescriptor(form) {
  var properties = {};
  var required = [];
  controlsOf(form).forEach(function (c) {
    properties[c.name] = controlSchema(c.els);
    if (c.els.some(function (e) { return e.required; }) && c.els[0].type !== "checkbox") required.push(c.name);
  });
  var schema = { type: "object", properties: properties };
  if (required.length) schema.required = required;
  var d = { name: form.getAttribute("toolname"), description: normalize(form.getAttribute("tooldescription") || ""), inputSchema: schema, kind: "declarative" };
  if (form.hasAttribute("toolautosubmit")) d.autosubmit = true;
  return d;
}

function scan() {
  if (!document.querySelectorAll) return forms;
  var found = [];
  Array.prototype.forEach.call(document.querySelectorAll("form[toolname]"), function (form) {
    var name = form.getAttribute("toolname");
    if (name) found.push({ name: name, form: form, descriptor: formDescriptor(form) });
  });
  var before = JSON.stringify(forms.map(function (f) { return f.descriptor; }));
  forms = found;
  if (JSON.stringify(found.map(function (f) { return f.descriptor; })) !== before) {
    listeners.forEach(function (fn) { try { fn(); } catch (_ignored) { /* one listener must not stop the others */ } });
  }
  return forms;
}

/** Scan now and again whenever the document's forms may have changed; fn() hears every change. */
function watch(fn) {
  listeners.push(fn);
  if (typeof MutationObserver !== "function") return;
  var timer = null;
  var observer = new MutationObserver(function () {
    if (timer) return;
    // The engine's own timer: a rescan is never the reply of an action (observe_settle.js).
    timer = M.intrinsics.setTimeout(function () { timer = null; scan(); }, 50);
  });
  var start = function () {
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["toolname", "tooldescription", "toolparamdescription", "name", "disabled", "required", "toolautosubmit"] });
    scan();
  };
  if (document.documentElement) start();
  else document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("DOMContentLoaded", scan);
}

function find(name) {
  scan();
  for (var i = 0; i < forms.length; i++) if (forms[i].name === name) return forms[i];
  return null;
}

// -- SubmitEvent.agentInvoked / respondWith ------------------------------------------

function installSubmitEvent() {
  var SE = root.SubmitEvent;
  if (!SE || "agentInvoked" in SE.prototype) return false;
  Object.defineProperty(SE.prototype, "agentInvoked", { configurable: true, get: function () { return this.__mcpAgent === true; } });
  Object.defineProperty(SE.prototype, "respondWith", {
    configurable: true,
    writable: true,
    value: function (promise) {
      if (this.__mcpAgent !== true || !this.__mcpRespond) {
        var Err = root.DOMException || Error;
        throw new Err("respondWith is only available on an agent-invoked submit", "InvalidStateError");
      }
      this.__mcpRespond(promise);
    },
  });
  return true;
}

// The first listener of every submit (window, capture): mark the agent's own.
function markAgentSubmit(ev) {
  if (!pendingSubmit || ev.target !== pendingSubmit.form) return;
  var pending = pendingSubmit;
  try {
    Object.defineProperty(ev, "__mcpAgent", { value: true });
    Object.defineProperty(ev, "__mcpRespond", { value: function (p) { pending.response = Promise.resolve(p); } });
  } catch (_ignored) { /* already marked */ }
}

// The last listener (window, bubble): a submission nobody took over is
// deferred a moment, so the call can answer before the document goes away.
function deferNavigation(ev) {
  if (!pendingSubmit || ev.target !== pendingSubmit.form || ev.defaultPrevented) return;
  ev.preventDefault();
  var form = pendingSubmit.form, submitter = ev.submitter;
  pendingSubmit.deferred = true;
  setTimeout(function () {
    if (submitter && submitter.name) {
      var carry = document.createElement("input");
      carry.type = "hidden";
      carry.name = submitter.name;
      carry.value = submitter.value;
      form.appendChild(carry);
    }
    HTMLFormElement.prototype.submit.call(form);
  }, 30);
}

function listenToSubmits() {
  root.addEventListener("submit", markAgentSubmit, true);
  root.addEventListener("submit", deferNavigation, false);
}

// -- running a form ----------------------------------------------------------------------

function setValue(el, value) {
  // The prototype's setter, so pages that track values (frameworks) see the change.
  var proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : el.tagName === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
}

function fire(el) {
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function fill(form, args) {
  controlsOf(form).forEach(function (c) {
    if (!Object.prototype.hasOwnProperty.call(args, c.name)) return;
    var value = args[c.name];
    var first = c.els[0];
    var type = String(first.type || "").toLowerCase();
    if (type === "radio") {
      c.els.forEach(function (r) { r.checked = r.value === String(value); fire(r); });
    } else if (type === "checkbox") {
      var wanted = Array.isArray(value) ? value.map(String) : null;
      c.els.forEach(function (box) { box.checked = wanted ? wanted.indexOf(box.value) >= 0 : value === true; fire(box); });
    } else if (first.tagName === "SELECT" && first.multiple) {
      var chosen = Array.isArray(value) ? value.map(String) : [String(value)];
      Array.prototype.forEach.call(first.options, function (o) { o.selected = chosen.indexOf(o.value) >= 0; });
      fire(first);
    } else {
      setValue(first, value === null ? "" : String(value));
      fire(first);
    }
  });
}

function submit(entry) {
  var form = entry.form;
  var pending = { form: form, response: null, deferred: false };
  pendingSubmit = pending;
  try {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.dispatchEvent(new SubmitEvent("submit", { bubbles: true, cancelable: true }));
  } finally {
    pendingSubmit = null;
  }
  if (pending.response) {
    return pending.response.then(function (value) { return { submitted: true, result: toJson(value, entry.name) }; }, function (err) {
      fail("handler_failed", "the page's response to " + entry.name + " failed: " + String((err && err.message) || err), { tool: entry.name });
    });
  }
  if (pending.deferred) return { submitted: true, navigating: true, document: DOC_ID };
  // The page handled the submit itself and gave no response: what it shows now.
  return new Promise(function (resolve) { setTimeout(resolve, 50); }).then(function () {
    return { submitted: true, result: pageResult({}) };
  });
}

function waitForUserSubmit(entry) {
  return new Promise(function (resolve) {
    var submitter = entry.form.querySelector("[type=submit], button:not([type])");
    if (submitter && submitter.focus) submitter.focus();
    var done = function () { entry.form.removeEventListener("submit", done, true); resolve({ submitted: true, by: "user" }); };
    entry.form.addEventListener("submit", done, true);
  });
}

/** Fill the form of `entry` with `input` and submit it (or wait for the user): the call's output. */
function run(entry, input) {
  fill(entry.form, input);
  if (!entry.form.hasAttribute("toolautosubmit")) return waitForUserSubmit(entry);
  return submit(entry);
}

// -- the document after a submission -------------------------------------------------------

function jsonLd() {
  var out = [];
  Array.prototype.forEach.call(document.querySelectorAll('script[type="application/ld+json"]'), function (s) {
    try { out.push(JSON.parse(s.textContent)); } catch (_ignored) { /* not JSON: skipped */ }
  });
  return out;
}

function pageResult(args) {
  if (args.after_document && args.after_document === DOC_ID) fail("state_mismatch", "the submission has not produced a new document yet", { document: DOC_ID });
  if (document.readyState === "loading") fail("state_mismatch", "the next document is still loading", { document: DOC_ID });
  var out = { url: String(root.location.href), title: String(document.title || ""), document: DOC_ID };
  var ld = jsonLd();
  if (ld.length) {
    out.json_ld = ld;
    return out;
  }
  var main = document.querySelector("main, [role=main]") || document.body;
  var heading = document.querySelector("h1");
  if (heading) out.heading = normalize(heading.textContent);
  out.summary = cap(normalize(main ? main.innerText || main.textContent : ""), SUMMARY_CHARS);
  return out;
}

M.webmcpForms = {
  docId: DOC_ID,
  toJson: toJson,
  scan: scan,
  list: function () { return forms.slice(); },
  find: find,
  watch: watch,
  run: run,
  pageResult: pageResult,
  installSubmitEvent: installSubmitEvent,
  listenToSubmits: listenToSubmits,
};
  })(M, root);

  // ---- webmcp_foreign.js ----
  (function (M, root) {
/*
 * webmcp_foreign.js — Tools held by a WebMCP implementation that is not ours:
 * the browser's own (document.modelContext natively, or Chrome's testing API
 * navigator.modelContextTesting), a page polyfill that ran before the engine
 * (a /runtime.js embedded after it, a bookmarklet), or one that replaced
 * document.modelContext after ours without passing its registrations on.
 *
 * Such a context is read through its consumer side, never patched:
 *   - getTools() → [{name, title?, description, inputSchema (an object, as
 *     Chromium 156 answers, or a JSON string, as earlier builds and the MCP-B
 *     polyfills do), annotations?, window, origin}] and executeTool(tool,
 *     input, {signal}) → a JSON string, null, or a value (Chromium's
 *     extension, the MCP-B runtimes, Chrome Labs' demo polyfill). Chromium
 *     takes the input as an object and MCP-B as a JSON string: it is given an
 *     object whose toString() is its JSON text, which both read;
 *   - older MCP-B runtimes: listTools() and executeTool(name, args);
 *   - navigator.modelContextTesting (Chrome's earlier testing API, or MCP-B's
 *     shim of it): listTools() and executeTool(name, inputJson, {signal}).
 * Its toolchange events (or registerToolsChangedCallback) list it again. A
 * malformed input schema leaves that tool out.
 */
var isObject = M.isObject,
  jsonClone = M.jsonClone;

var LIST_WAIT_MS = 1500;
var RECHECK_MS = [500, 2000, 5000];
var ours = null; // our ModelContext: never read as foreign
var changed = function () {};
var sources = []; // [{api, label, kind, list(), call(item, input, signal)}]
var owners = {}; // tool name -> {source, item}: who answers a call, from the last listing
var subscribed = [];

function read(getter) {
  try {
    return getter();
  } catch (_ignored) {
    return null;
  }
}

function isNative(fn) {
  try {
    return typeof fn === "function" && /\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));
  } catch (_ignored) {
    return false;
  }
}

function parseSchema(schema) {
  if (schema === undefined || schema === null || schema === "") return { type: "object", properties: {} };
  if (typeof schema === "string") {
    try {
      schema = JSON.parse(schema);
    } catch (_ignored) {
      return null;
    }
  }
  return isObject(schema) ? jsonClone(schema) : null;
}

function descriptorOf(item, kind) {
  if (!item || typeof item.name !== "string" || !item.name) return null;
  var schema = parseSchema(item.inputSchema);
  if (!schema) return null;
  var d = { name: item.name, description: typeof item.description === "string" ? item.description : "", inputSchema: schema, kind: kind };
  if (typeof item.title === "string" && item.title) d.title = item.title;
  if (isObject(item.annotations) && typeof item.annotations.readOnlyHint === "boolean") d.annotations = { readOnlyHint: item.annotations.readOnlyHint };
  return d;
}

/** `input` as an object whose string form is its JSON text (see the header). */
function dual(input) {
  var copy = jsonClone(input);
  var text = JSON.stringify(copy);
  Object.defineProperty(copy, "toString", { value: function () { return text; }, enumerable: false });
  return copy;
}

function options(signal) {
  return signal ? { signal: signal } : undefined;
}

function contextSource(api, label) {
  var kind = isNative(api.registerTool) || isNative(api.getTools) ? "native" : "page";
  if (typeof api.getTools === "function") {
    return {
      api: api, label: label, kind: kind,
      list: function () { return api.getTools(); },
      call: function (item, input, signal) {
        if (typeof api.executeTool !== "function") throw new Error(label + " has no executeTool");
        return api.executeTool(item, dual(input), options(signal));
      },
    };
  }
  if (typeof api.listTools === "function" && typeof api.executeTool === "function") {
    return {
      api: api, label: label, kind: kind,
      list: function () { return api.listTools(); },
      call: function (item, input) { return api.executeTool(item.name, jsonClone(input)); },
    };
  }
  return null;
}

function testingSource(api) {
  if (typeof api.listTools !== "function" || typeof api.executeTool !== "function") return null;
  return {
    api: api, label: "navigator.modelContextTesting", kind: isNative(api.listTools) ? "native" : "page",
    list: function () { return api.listTools(); },
    call: function (item, input, signal) { return api.executeTool(item.name, JSON.stringify(input), options(signal)); },
  };
}

function subscribe(api) {
  if (subscribed.indexOf(api) >= 0) return;
  subscribed.push(api);
  var hear = function () { changed(); };
  try {
    if (typeof api.addEventListener === "function") api.addEventListener("toolchange", hear);
    else if (typeof api.registerToolsChangedCallback === "function") api.registerToolsChangedCallback(hear);
  } catch (_ignored) { /* a context that cannot be listened to is still listed on every change of ours */ }
}

/** Find the contexts that are not ours; true when they differ from the last look. */
function detect() {
  var found = [];
  var doc = read(function () { return document.modelContext; });
  if (doc && typeof doc === "object" && doc !== ours) {
    found.push(contextSource(doc, "document.modelContext"));
  } else {
    // Only a page that kept our document slot may hold an older registry on navigator
    // (reading navigator.modelContext where it is an alias makes some polyfills warn).
    var nav = read(function () { return root.navigator.modelContext; });
    if (nav && typeof nav === "object" && nav !== ours) found.push(contextSource(nav, "navigator.modelContext"));
  }
  var testing = read(function () { return root.navigator.modelContextTesting; });
  if (testing && typeof testing === "object") found.push(testingSource(testing));
  found = found.filter(Boolean);
  var before = sources.map(function (s) { return s.api; });
  var differs = found.length !== before.length || found.some(function (s, i) { return s.api !== before[i]; });
  sources = found;
  sources.forEach(function (s) { subscribe(s.api); });
  return differs;
}

function settle(promise) {
  return new Promise(function (resolve) {
    var timer = setTimeout(function () { resolve([]); }, LIST_WAIT_MS);
    Promise.resolve(promise).then(function (items) {
      clearTimeout(timer);
      resolve(items && typeof items.length === "number" ? Array.prototype.slice.call(items) : []);
    }, function (err) {
      clearTimeout(timer);
      console.warn("[mcp-actions] reading WebMCP tools failed:", String((err && err.message) || err));
      resolve([]);
    });
  });
}

/** The foreign contexts' tools as descriptors (the first context naming a tool keeps it). */
function list() {
  detect();
  var current = sources.slice();
  return Promise.all(current.map(function (s) { return settle(read(function () { return s.list(); })); })).then(function (lists) {
    var next = {};
    var out = [];
    lists.forEach(function (items, i) {
      items.forEach(function (item) {
        var d = descriptorOf(item, current[i].kind);
        if (!d || next[d.name]) return;
        next[d.name] = { source: current[i], item: item };
        out.push(d);
      });
    });
    owners = next;
    return out;
  });
}

function parseResult(out) {
  if (out === undefined) return null;
  if (typeof out !== "string") return out;
  try {
    return JSON.parse(out);
  } catch (_ignored) {
    return out;
  }
}

/** Run the foreign tool `name` (a promise of its result), or null when no foreign context lists it. */
function call(name, input, signal) {
  var owner = owners[name];
  if (!owner) return null;
  return Promise.resolve()
    .then(function () { return owner.source.call(owner.item, input, signal); })
    .then(parseResult);
}

/** Start watching for foreign contexts; onChange() is called when they or their tools change. */
function start(ourContext, onChange) {
  ours = ourContext;
  changed = onChange;
  var recheck = function () { if (detect()) changed(); };
  detect();
  document.addEventListener("DOMContentLoaded", recheck);
  root.addEventListener("load", function () {
    recheck();
    RECHECK_MS.forEach(function (ms) { setTimeout(recheck, ms); });
  });
}

M.webmcpForeign = {
  start: start,
  present: function () { return sources.length > 0; },
  labels: function () { return sources.map(function (s) { return s.label + " (" + s.kind + ")"; }); },
  list: list,
  call: call,
};
  })(M, root);

  // ---- webmcp.js ----
  (function (M, root) {
/*
 * webmcp.js — WebMCP (the W3C Web Machine Learning community group's draft)
 * for pages written to it: a ModelContext installed as document.modelContext
 * before any page script when the browser has none, so pages that
 * feature-detect it (`if (document.modelContext)`) register their tools, and
 * page polyfills that fill the slot only when it is empty (Chrome Labs' demo
 * polyfill, @mcp-b/webmcp-polyfill, @mcp-b/global's) defer to it.
 *
 * Today's API: registerTool(tool, {signal, exposedTo}) → Promise<undefined>
 * (aborting the signal withdraws the tool; exposedTo origins are checked as
 * the draft says and only widen who may see a tool: the document's own
 * agent, which we are, always does), toolchange events and ontoolchange, a
 * tool's title and readOnlyHint, and the consumer side in-page agents and
 * page runtimes use: getTools() (this document's tools, shaped as Chromium
 * answers) and executeTool(tool | name, input | inputJson, {signal}) → the
 * result as a JSON string (null when a form's submission leaves the page).
 *
 * The same object is navigator.modelContext for pages written to the first
 * drafts, with their provideContext / clearContext / unregisterTool, and
 * registerTool's promise carries the old handle's unregister(). Where the
 * slot was already taken (a native implementation, a polyfill that ran
 * earlier) ours is not installed, and the tools are read through what is
 * there (webmcp_foreign.js). Every change is published through
 * M.setPageTools("webmcp", ...): this document's registrations, its toolname
 * forms (webmcp_forms.js, unless the browser or an earlier polyfill runs
 * declarative forms), then a foreign context's tools of other names.
 */
var isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools,
  forms = M.webmcpForms,
  foreign = M.webmcpForeign;

var NAME = /^[A-Za-z0-9_.-]{1,128}$/;
var tools = {}; // name -> {tool, descriptor, from: "register" | "provide", signal?, abort?}
var installed = { document: false, navigator: false, forms: false };
var refreshing = 0;

function domError(message, name) {
  var Err = root.DOMException;
  return Err ? new Err(message, name) : new Error(message);
}

// -- tools -------------------------------------------------------------------------

function trustworthy(text) {
  var url;
  try {
    url = new URL(String(text));
  } catch (_ignored) {
    return false;
  }
  var host = url.hostname.replace(/^\[|\]$/g, "");
  return url.protocol === "https:" || url.protocol === "wss:" || url.protocol === "file:" || host === "localhost" || /\.localhost$/.test(host) || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1";
}

function checkOrigins(list, what) {
  if (list === undefined || list === null) return [];
  if (typeof list !== "object" || typeof list.length !== "number") throw new TypeError(what + " must be a list of origins");
  return Array.prototype.map.call(list, function (origin) {
    if (!trustworthy(origin)) throw domError(what + " names " + String(origin) + ", which is not a potentially trustworthy origin", "SecurityError");
    return new URL(String(origin)).origin;
  });
}

/** The checked descriptor of a page's tool; throws as the draft's registerTool rejects. */
function describe(tool) {
  if (!isObject(tool) && typeof tool !== "function") throw new TypeError("registerTool expects a tool object");
  var name = tool.name, description = tool.description;
  // As Chromium answers: a missing member is a TypeError, an empty or malformed one InvalidStateError.
  if (name === undefined || description === undefined) throw new TypeError("a tool needs a name and a description");
  if (!NAME.test(String(name))) throw domError("a tool's name must be 1 to 128 characters of A-Z, a-z, 0-9, _, - and .", "InvalidStateError");
  name = String(name);
  description = String(description);
  if (!description) throw domError("tool " + name + " needs a description", "InvalidStateError");
  if (typeof tool.execute !== "function") throw new TypeError("tool " + name + " needs an execute function");
  var schema = { type: "object", properties: {} };
  if (tool.inputSchema !== undefined) {
    var text = JSON.stringify(tool.inputSchema); // throws as the draft's serialization does
    if (text === undefined) throw new TypeError("tool " + name + ": inputSchema is not JSON");
    schema = JSON.parse(text);
    if (!isObject(schema)) throw new TypeError("tool " + name + ": inputSchema must be a JSON Schema object");
  }
  var d = { name: name, description: description, inputSchema: schema, kind: "imperative" };
  if (typeof tool.title === "string" && tool.title) d.title = tool.title;
  var ann = isObject(tool.annotations) ? tool.annotations : {};
  if (typeof ann.readOnlyHint === "boolean") d.annotations = { readOnlyHint: ann.readOnlyHint };
  return d;
}

function remove(name, entry) {
  var current = tools[name];
  if (!current || (entry && current !== entry)) return false;
  if (current.signal && current.abort) current.signal.removeEventListener("abort", current.abort);
  delete tools[name];
  return true;
}

function toolchange() {
  setTimeout(function () {
    try { context.dispatchEvent(new Event("toolchange")); } catch (_ignored) { /* a page handler threw */ }
  }, 0);
}

function changed() {
  refresh();
  toolchange();
}

function registerTool(tool, options) {
  var entry;
  var promise = new Promise(function (resolve, reject) {
    options = options === undefined || options === null ? {} : options;
    var d = describe(tool);
    var signal = options.signal;
    var exposedTo = checkOrigins(options.exposedTo, "exposedTo");
    if (signal && signal.aborted) throw signal.reason;
    if (tools[d.name]) throw domError("a tool named " + d.name + " is already registered", "InvalidStateError");
    entry = { tool: tool, descriptor: d, from: "register", exposedTo: exposedTo };
    if (signal && typeof signal.addEventListener === "function") {
      entry.signal = signal;
      entry.abort = function () {
        if (remove(d.name, entry)) changed();
        reject(signal.reason);
      };
      signal.addEventListener("abort", entry.abort);
    }
    tools[d.name] = entry;
    changed();
    setTimeout(resolve, 0); // after the toolchange event, as the draft orders them
  });
  // Pages written to the first drafts kept registerTool's {unregister()} handle.
  promise.unregister = function () {
    if (entry && remove(entry.descriptor.name, entry)) changed();
  };
  return promise;
}

function provideContext(context_) {
  var list = context_ && Array.isArray(context_.tools) ? context_.tools : [];
  var described = list.map(describe);
  var seen = {};
  described.forEach(function (d) {
    if (seen[d.name] || (tools[d.name] && tools[d.name].from === "register")) throw domError("a tool named " + d.name + " is already registered", "InvalidStateError");
    seen[d.name] = true;
  });
  Object.keys(tools).forEach(function (n) { if (tools[n].from === "provide") remove(n); });
  described.forEach(function (d, i) { tools[d.name] = { tool: list[i], descriptor: d, from: "provide", exposedTo: [] }; });
  changed();
}

// -- the consumer side: getTools and executeTool --------------------------------------------

function ownForms() {
  return installed.forms ? forms.scan() : [];
}

// A tool as getTools answers it. inputSchema is an object, as Chromium 156 answers; its
// toString() is its JSON text, so consumers written to the earlier string form
// (JSON.parse(tool.inputSchema): Chrome Labs' bistro demo, MCP-B's runtime) read it too.
function registered(d, tool) {
  var schema = jsonClone(d.inputSchema);
  var text = JSON.stringify(schema);
  Object.defineProperty(schema, "toString", { value: function () { return text; }, enumerable: false });
  var out = { name: d.name, title: d.title || "", description: d.description, inputSchema: schema, window: root, origin: String(root.location.origin) };
  var ann = tool && isObject(tool.annotations) ? tool.annotations : {};
  out.annotations = { readOnlyHint: ann.readOnlyHint === true, untrustedContentHint: ann.untrustedContentHint === true };
  return out;
}

function getTools(options) {
  return new Promise(function (resolve) {
    // Other origins' tools (fromOrigins) would live in other documents: this registry holds only this one's.
    checkOrigins(options && options.fromOrigins, "fromOrigins");
    var out = Object.keys(tools).map(function (n) { return registered(tools[n].descriptor, tools[n].tool); });
    ownForms().forEach(function (f) { if (!tools[f.name]) out.push(registered(f.descriptor)); });
    out.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
    setTimeout(function () { resolve(out); }, 0);
  });
}

/**
 * Run one of this document's tools: {kind: "imperative", value} with what its
 * execute answered, or {kind: "declarative", output} from its form; null when
 * this document has no tool of that name.
 */
function runOwn(name, input, client) {
  var entry = tools[name];
  if (entry) return Promise.resolve().then(function () { return entry.tool.execute(input, client); }).then(function (value) { return { kind: "imperative", value: value }; });
  var form = installed.forms ? forms.find(name) : null;
  if (form) return Promise.resolve().then(function () { return forms.run(form, input); }).then(function (output) { return { kind: "declarative", output: output }; });
  return null;
}

var localClient = {
  // An in-page agent's user is the one at this page: the page asks them itself.
  requestUserInteraction: function (callback) {
    if (typeof callback !== "function") return Promise.reject(new TypeError("requestUserInteraction expects a function"));
    return Promise.resolve().then(function () { return callback(); });
  },
};

function executeTool(tool, input, options) {
  return Promise.resolve().then(function () {
    var name = typeof tool === "string" ? tool : tool && tool.name;
    var signal = options && options.signal;
    if (signal && signal.aborted) throw signal.reason;
    var args = input === undefined || input === null || input === "" ? {} : typeof input === "string" ? JSON.parse(input) : input;
    if (!isObject(args)) throw new TypeError("a tool's input must be a JSON object");
    var running = runOwn(String(name), jsonClone(args), localClient);
    if (!running) throw domError("this document has no tool named " + name, "UnknownError");
    return running.then(function (done) {
      if (done.kind === "imperative") return done.value === undefined ? "null" : JSON.stringify(done.value);
      if (done.output.navigating) return null; // the answer is the next document's, as in Chromium
      return JSON.stringify(done.output.result === undefined ? done.output : done.output.result);
    });
  });
}

// -- the object pages see ------------------------------------------------------------------

var context = new EventTarget();
var proto = Object.create(EventTarget.prototype);
var ontoolchange = null;
Object.defineProperties(proto, {
  registerTool: { value: registerTool, writable: true, configurable: true },
  getTools: { value: getTools, writable: true, configurable: true },
  executeTool: { value: executeTool, writable: true, configurable: true },
  // The first drafts' calls, for pages written to them.
  unregisterTool: { value: function (name) { if (remove(String(name))) changed(); }, writable: true, configurable: true },
  provideContext: { value: provideContext, writable: true, configurable: true },
  clearContext: { value: function () { Object.keys(tools).forEach(function (n) { remove(n); }); changed(); }, writable: true, configurable: true },
  ontoolchange: {
    configurable: true,
    get: function () { return ontoolchange; },
    set: function (fn) {
      if (ontoolchange) context.removeEventListener("toolchange", ontoolchange);
      ontoolchange = typeof fn === "function" ? fn : null;
      if (ontoolchange) context.addEventListener("toolchange", ontoolchange);
    },
  },
});
if (typeof Symbol === "function" && Symbol.toStringTag) Object.defineProperty(proto, Symbol.toStringTag, { value: "ModelContext", configurable: true });
Object.setPrototypeOf(context, proto);

function present(getter) {
  try {
    return !!getter();
  } catch (_ignored) {
    return true; // a getter that throws belongs to someone: leave it alone
  }
}

function define(target, key, getter) {
  try {
    Object.defineProperty(target, key, { configurable: true, enumerable: true, get: getter });
    return true;
  } catch (_ignored) {
    return false;
  }
}

function install() {
  var doc = root.document, nav = root.navigator;
  if (root.Document && !present(function () { return doc.modelContext; })) {
    installed.document = define(root.Document.prototype, "modelContext", function () { return this === doc ? context : undefined; });
  }
  if (nav && !present(function () { return nav.modelContext; })) {
    installed.navigator = define(Object.getPrototypeOf(nav), "modelContext", function () { return context; });
  }
  // Declarative forms are ours unless the browser (or a polyfill before us) already runs them.
  installed.forms = forms.installSubmitEvent();
  if (installed.forms) {
    forms.listenToSubmits();
    forms.watch(refresh);
  }
  foreign.start(context, refresh);
  refresh();
}

// -- publishing ----------------------------------------------------------------------------

function ownList() {
  var list = Object.keys(tools).map(function (n) { return tools[n].descriptor; });
  ownForms().forEach(function (f) { if (!tools[f.name]) list.push(f.descriptor); });
  return list;
}

/** Publish the current list (ours, then foreign tools of other names); resolves with it. */
function refresh() {
  var mine = ++refreshing;
  if (!foreign.present()) {
    var list = ownList();
    setPageTools("webmcp", list);
    return Promise.resolve(list);
  }
  return foreign.list().then(function (theirs) {
    var list = ownList();
    var names = {};
    list.forEach(function (d) { names[d.name] = true; });
    theirs.forEach(function (d) { if (!names[d.name]) { names[d.name] = true; list.push(d); } });
    if (mine === refreshing) setPageTools("webmcp", list); // a slower earlier listing never overwrites a newer one
    return list;
  });
}

M.webmcp = {
  docId: forms.docId,
  context: context,
  installed: installed,
  runOwn: runOwn,
  has: function (name) { return !!tools[name] || !!(installed.forms && forms.find(name)); },
  refresh: refresh,
};

// Installed once per window by createEngine (engine.js), before page scripts
// when the host injects the engine early: a second copy of this script only
// finds the first one's context.
(M.installers = M.installers || []).push(install);
  })(M, root);

  // ---- webmcp_call.js ----
  (function (M, root) {
/*
 * webmcp_call.js — Calling WebMCP tools for the host: webmcp.list_tools,
 * webmcp.call {tool, arguments, call_id?} and webmcp.page_result.
 *
 * A tool of this document runs its execute(input, client) (imperative) or
 * its form (declarative, webmcp_forms.js); a tool only a foreign context
 * lists runs through that context's executeTool (webmcp_foreign.js), with a
 * signal the caller's cancel aborts.
 *
 * client.requestUserInteraction(callback): when the host passed the call's
 * bridge id (call_id), the page's wish to ask the user travels as an
 * input_request {protocol: "webmcp", method: "requestUserInteraction",
 * tool} (callchannel.js); the host answers {granted: true} once the user
 * agreed (MCP elicitation), and only then the callback runs and its result
 * is the promise's. Otherwise the promise rejects with a NotAllowedError
 * DOMException (the user declined or cancelled, or the client cannot ask),
 * and a tool that lets that refusal end its execute fails the call with
 * permission_denied (evidence.reason). After the call ended it rejects with
 * InvalidStateError. Cancelling the call fires "toolcancel" (toolName) at
 * document.modelContext.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  requestInput = M.requestInput,
  onCancel = M.onCancel,
  webmcp = M.webmcp,
  forms = M.webmcpForms,
  foreign = M.webmcpForeign;

function domError(message, name) {
  var Err = root.DOMException;
  return Err ? new Err(message, name) : new Error(message);
}

function errorText(err) {
  return String((err && err.message) || err || "failed");
}

function agentClient(callId, tool, refusals) {
  var state = { running: true };
  var client = {
    requestUserInteraction: function (callback) {
      if (typeof callback !== "function") return Promise.reject(new TypeError("requestUserInteraction expects a function"));
      if (!state.running) return Promise.reject(domError("the call of " + tool + " has ended", "InvalidStateError"));
      if (!callId) return Promise.resolve().then(function () { return callback(); });
      var request = { protocol: "webmcp", method: "requestUserInteraction", tool: tool };
      return requestInput(callId, request).then(function (answer) {
        var response = isObject(answer.response) ? answer.response : {};
        if (answer.error || response.granted !== true) {
          var reason = answer.error ? "no_elicitation" : String(response.reason || "declined");
          var message = answer.error ? "the agent cannot ask the user: " + String(answer.error.message || answer.error.code) : String(response.message || "the user did not allow it (" + reason + ")");
          var refusal = domError(message, "NotAllowedError");
          refusals.push({ error: refusal, reason: reason });
          throw refusal;
        }
        return callback();
      });
    },
  };
  return { client: client, end: function () { state.running = false; } };
}

function refusalOf(err, refusals) {
  for (var i = 0; i < refusals.length; i++) if (refusals[i].error === err) return refusals[i];
  return null;
}

function failed(err, name, refusals) {
  var refusal = refusalOf(err, refusals);
  if (refusal) fail("permission_denied", name + ": " + errorText(err), { tool: name, reason: refusal.reason, protocol: "webmcp" });
  if (err instanceof M.EngineError) throw err;
  fail("handler_failed", errorText(err), { tool: name, name: err && err.name ? String(err.name) : "Error" });
}

function cancelled(name) {
  try {
    var ev = new Event("toolcancel");
    ev.toolName = name;
    webmcp.context.dispatchEvent(ev);
  } catch (_ignored) { /* a page handler threw */ }
}

function callTool(args) {
  var name = args.tool;
  if (typeof name !== "string" || !name) fail("invalid_input", "webmcp.call needs the tool's name", { field: "tool" });
  var input = args.arguments === undefined ? {} : args.arguments;
  if (!isObject(input)) fail("invalid_input", "arguments must be an object", { field: "arguments" });
  var callId = typeof args.call_id === "string" && args.call_id ? args.call_id : null;
  var refusals = [];
  var agent = agentClient(callId, name, refusals);
  var controller = typeof AbortController === "function" ? new AbortController() : null;
  var stop = callId ? onCancel(callId, function (reason) { cancelled(name); if (controller) controller.abort(reason); }) : function () {};
  var end = function () { agent.end(); stop(); };
  var running = webmcp.runOwn(name, jsonClone(input), agent.client);
  if (running) {
    return running.then(function (done) {
      end();
      if (done.kind === "declarative") return done.output;
      return { result: forms.toJson(done.value, name) };
    }, function (err) {
      end();
      failed(err, name, refusals);
    });
  }
  var theirs = foreign.call(name, jsonClone(input), controller ? controller.signal : undefined);
  if (!theirs) {
    end();
    fail("missing_handler", "the page has no WebMCP tool named " + name, { tool: name });
  }
  return theirs.then(function (value) {
    end();
    return { result: forms.toJson(value, name) };
  }, function (err) {
    end();
    failed(err, name, refusals);
  });
}

function listTools() {
  return webmcp.refresh().then(function (list) {
    return { tools: list, native: foreign.labels().some(function (l) { return / \(native\)$/.test(l); }), document: webmcp.docId, sources: foreign.labels() };
  });
}

definePrimitive("webmcp.list_tools", listTools);
definePrimitive("webmcp.call", callTool, ["tool"]);
definePrimitive("webmcp.page_result", forms.pageResult);
  })(M, root);

  // ---- wab.js ----
  (function (M, root) {
/*
 * wab.js — Web Agent Bridge commands, run from inside the page.
 *
 * wab.execute {command, params, http?, bridge?} (or {command, ...params} as a
 * converted map binds it) runs one command one of two ways:
 * - http {url, body}: the site's HTTP execute endpoint (a discovery
 *   document's endpoints.execute, or the 1.0 text's {base_url}/execute),
 *   POSTed with the page's own fetch: same origin only, with the user's
 *   cookies and session. body "action" sends {action, params} (WAB 1.2+),
 *   "name" sends {name, data} (WAB 1.0). The answer {success, result, error}
 *   gives result, or fails;
 * - otherwise the page's JS bridge: window.AICommands.execute (WAB 1.0 and
 *   the ai-agent-bridge script) or window.__wab_protocol.execute (the WAB
 *   browser client 2.x), waiting up to 5 s for it (wab:ready on window or
 *   document, or polling); bridge names which one.
 * A failure (a thrown error with a code, an answer with success: false or
 * type: "error", an error-only answer, an HTTP error status) fails with
 * handler_failed and the WAB code in evidence.wab_code (the site's own, else
 * one read from the HTTP status or the answer's shape: 401
 * AUTHENTICATION_REQUIRED, 403 PERMISSION_DENIED, 404 or an "available" list
 * without the command ACTION_NOT_FOUND, 429 or a retryAfter RATE_LIMITED,
 * other 4xx INVALID_PARAMS, 408/504 TIMEOUT, 5xx BRIDGE_ERROR, otherwise
 * EXECUTION_FAILED; a request that never got an answer TRANSPORT_ERROR), plus
 * retry_after_s and http_status where known; the host maps it onto its stable
 * codes. Permissions and the rate limit are enforced by the host before a
 * command reaches this primitive.
 *
 * The actions a page's own bridge lists (window.__wab_protocol.actions, or
 * AICommands.getActions()) are published as page tools ("wab": {name,
 * description, params, trigger?, bridge}); the host turns their params into
 * input schemas.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools;

var READY_WAIT_MS = 5000;
var WATCH_MS = 5000; // how long after install the page is watched for a bridge that lists actions
var MAX_ACTIONS = 200;
var BRIDGES = ["AICommands", "__wab_protocol"]; // the order tried when a command names none
var OWN_ARGS = ["command", "params", "http", "bridge"];
var ENVELOPE = ["success", "type", "action", "wab_version", "duration_ms", "id"];

function bridgeObject(which) {
  var names = which ? [which] : BRIDGES;
  for (var i = 0; i < names.length; i++) {
    var candidate = root[names[i]];
    if (candidate && (typeof candidate === "object" || typeof candidate === "function") && typeof candidate.execute === "function") {
      return { name: names[i], object: candidate };
    }
  }
  return null;
}

function whenReady(which, timeoutMs) {
  var ready = bridgeObject(which);
  if (ready) return Promise.resolve(ready);
  return new Promise(function (resolve) {
    var done = false;
    function finish() {
      if (done) return;
      done = true;
      root.removeEventListener("wab:ready", check);
      document.removeEventListener("wab:ready", check);
      clearInterval(timer);
      clearTimeout(limit);
      resolve(bridgeObject(which));
    }
    function check() { if (bridgeObject(which)) finish(); }
    // The 1.0 text fires wab:ready on window, the ai-agent-bridge script on document.
    root.addEventListener("wab:ready", check);
    document.addEventListener("wab:ready", check);
    var timer = setInterval(check, 100);
    var limit = setTimeout(finish, timeoutMs);
  });
}

// -- answers -----------------------------------------------------------------------

function text(value) {
  if (typeof value === "string") return value;
  if (isObject(value) && typeof value.message === "string") return value.message;
  return "";
}

function retryAfterOf(body, header) {
  var candidates = [body && body.retryAfter, body && isObject(body.error) && body.error.retryAfter, body && isObject(body.error) && isObject(body.error.details) && body.error.details.retryAfter];
  for (var i = 0; i < candidates.length; i++) if (typeof candidates[i] === "number" && isFinite(candidates[i])) return candidates[i];
  var seconds = header ? Number(header) : NaN;
  return isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** The failure an answer reports, or null when it is a success. */
function failureOf(body) {
  if (!isObject(body)) return null;
  if (body.success === false || body.type === "error") return body;
  // An answer that is only an error (the WAB server's rule: a result with error is a failure).
  if (body.success !== true && body.type !== "success" && (text(body.error) || (isObject(body.error) && typeof body.error.code === "string"))) return body;
  return null;
}

function wabCode(body, status, command, retryAfter) {
  var err = body && body.error;
  if (isObject(err) && typeof err.code === "string" && err.code) return err.code;
  if (body && typeof body.code === "string" && body.code) return body.code;
  if (body && isObject(body.result) && typeof body.result.code === "string" && body.result.code) return body.result.code;
  if (status === 401) return "AUTHENTICATION_REQUIRED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "ACTION_NOT_FOUND";
  if (status === 429 || retryAfter !== null) return "RATE_LIMITED";
  if (body && Array.isArray(body.available) && body.available.indexOf(command) < 0) return "ACTION_NOT_FOUND";
  if (status === 408 || status === 504) return "TIMEOUT";
  if (status >= 500) return "BRIDGE_ERROR";
  if (status >= 400) return "INVALID_PARAMS";
  return "EXECUTION_FAILED";
}

function failWith(command, body, status, transport, retryHeader) {
  var retry = retryAfterOf(body, retryHeader);
  var evidence = { command: command, transport: transport, wab_code: wabCode(body, status, command, retry) };
  if (status) evidence.http_status = status;
  if (retry !== null) evidence.retry_after_s = retry;
  if (body && Array.isArray(body.available)) evidence.available = body.available.slice(0, 50).map(String);
  if (body && isObject(body.error) && body.error.details !== undefined) {
    try { evidence.details = jsonClone(body.error.details); } catch (_ignored) { /* not JSON: left out */ }
  }
  var message = text(body && body.error) || text(body && body.result && body.result.error) || text(body && body.message);
  if (!message) message = "WAB command " + command + " failed" + (status ? " (HTTP " + status + ")" : "");
  fail("handler_failed", message, evidence);
}

function valueOf(result) {
  return result === undefined ? null : jsonClone(result);
}

// -- the JS bridge ---------------------------------------------------------------------

function viaBridge(command, params, which, call) {
  return whenReady(which, READY_WAIT_MS).then(function (bridge) {
    // The wait for the page's bridge may outlast the call: a cancelled call runs no command (callcontext.js).
    if (call) call.check();
    if (!bridge) {
      var where = which ? "window." + which : "window.AICommands or window.__wab_protocol";
      fail("missing_handler", "the page has no WAB bridge (" + where + ") after " + READY_WAIT_MS + " ms", { handler: where, command: command });
    }
    var value;
    try {
      value = bridge.object.execute(command, jsonClone(params));
    } catch (err) {
      value = Promise.reject(err);
    }
    return Promise.resolve(value).then(
      function (result) {
        var failed = failureOf(result);
        if (failed) failWith(command, failed, 0, "js_global");
        // The 1.0 text's response envelope {type: "success", result} gives its result.
        if (isObject(result) && result.type === "success" && "result" in result) return valueOf(result.result);
        return valueOf(result);
      },
      function (err) {
        var evidence = { command: command, transport: "js_global" };
        if (err && typeof err.code === "string") evidence.wab_code = err.code;
        var retry = err && (err.retryAfter !== undefined ? err.retryAfter : err.details && err.details.retryAfter);
        if (typeof retry === "number") evidence.retry_after_s = retry;
        fail("handler_failed", String((err && err.message) || err), evidence);
      }
    );
  });
}

// -- the HTTP endpoint -------------------------------------------------------------------

function viaHttp(command, params, http) {
  var target;
  try {
    target = new URL(String(http.url), root.location.href);
  } catch (_bad) {
    fail("invalid_input", "the WAB execute endpoint is not a URL: " + String(http.url), { command: command, field: "http.url" });
  }
  if (target.origin !== root.location.origin) {
    // Only the page's own site gets the user's session: never another origin.
    fail("permission_denied", "the WAB execute endpoint " + target.href + " is not on this page's origin " + root.location.origin,
      { command: command, transport: "http", url: target.href, wab_code: "ORIGIN_MISMATCH" });
  }
  if (typeof root.fetch !== "function") fail("capability_unavailable", "this page has no fetch", { command: command, capability: "fetch" });
  var payload = http.body === "name" ? { name: command, data: params } : { action: command, params: params };
  return root.fetch(target.href, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-WAB-Version": "1.0" },
    body: JSON.stringify(payload),
  }).then(
    function (response) {
      return response.text().then(function (raw) {
        var body = null;
        try { body = raw ? JSON.parse(raw) : null; } catch (_notJson) { body = null; }
        var status = response.status;
        var retryHeader = response.headers.get("Retry-After");
        if (!isObject(body)) {
          if (response.ok) failWith(command, { error: "the site's WAB endpoint answered something other than a JSON object", code: "BRIDGE_ERROR" }, status, "http", retryHeader);
          failWith(command, null, status, "http", retryHeader);
        }
        if (!response.ok || failureOf(body)) failWith(command, body, status, "http", retryHeader);
        if ("result" in body) return valueOf(body.result);
        var rest = {};
        Object.keys(body).forEach(function (k) { if (ENVELOPE.indexOf(k) < 0) rest[k] = body[k]; });
        return valueOf(rest);
      });
    },
    function (err) {
      fail("handler_failed", "the WAB execute endpoint could not be reached: " + String((err && err.message) || err),
        { command: command, transport: "http", url: target.href, wab_code: "TRANSPORT_ERROR" });
    }
  );
}

function execute(args, call) {
  var command = args.command;
  if (typeof command !== "string" || !command) fail("invalid_input", "wab.execute needs the command's name", { field: "command" });
  // {command, params} from the host; {command, ...params} from a converted map's binding.
  var params = {};
  if (isObject(args.params)) params = args.params;
  else Object.keys(args).forEach(function (k) { if (OWN_ARGS.indexOf(k) < 0) params[k] = args[k]; });
  params = jsonClone(params);
  if (isObject(args.http) && typeof args.http.url === "string" && args.http.url) return viaHttp(command, params, args.http);
  var which = BRIDGES.indexOf(args.bridge) >= 0 ? args.bridge : null;
  return viaBridge(command, params, which, call);
}

// -- the actions a page's bridge lists ------------------------------------------------------

function describe(action, bridge) {
  if (!isObject(action) || typeof action.name !== "string" || !action.name) return null;
  var d = { name: action.name, description: typeof action.description === "string" ? action.description : "", bridge: bridge };
  ["params", "trigger", "category"].forEach(function (key) {
    if (action[key] === undefined || typeof action[key] === "function") return;
    try { d[key] = jsonClone(action[key]); } catch (_ignored) { /* not JSON: left out */ }
  });
  return d;
}

function listed() {
  var lists = [];
  var proto = root.__wab_protocol;
  if (proto && typeof proto.execute === "function" && Array.isArray(proto.actions)) {
    lists.push(Promise.resolve({ bridge: "__wab_protocol", actions: proto.actions }));
  }
  var commands = root.AICommands;
  if (commands && typeof commands.execute === "function" && typeof commands.getActions === "function") {
    var got;
    try { got = commands.getActions(); } catch (_ignored) { got = []; }
    lists.push(Promise.resolve(got).then(function (actions) { return { bridge: "AICommands", actions: actions }; }, function () { return { bridge: "AICommands", actions: [] }; }));
  }
  return Promise.all(lists).then(function (found) {
    var seen = {};
    var out = [];
    found.forEach(function (entry) {
      (Array.isArray(entry.actions) ? entry.actions : []).forEach(function (action) {
        var d = describe(action, entry.bridge);
        if (d && !seen[d.name] && out.length < MAX_ACTIONS) {
          seen[d.name] = true;
          out.push(d);
        }
      });
    });
    return out;
  });
}

var publishing = 0;
var published = "[]"; // what was last handed to setPageTools (a page without a bridge never reports)
function publish() {
  var mine = ++publishing; // a slower earlier listing must not overwrite a newer one
  return listed().then(function (tools) {
    var text = JSON.stringify(tools);
    if (mine !== publishing || text === published) return;
    published = text;
    setPageTools("wab", tools);
  }, function (err) {
    console.warn("[mcp-actions] listing the page's WAB actions failed:", String((err && err.message) || err));
  });
}

function watchForBridge() {
  var started = Date.now();
  var timer = setInterval(function () {
    publish();
    if (Date.now() - started > WATCH_MS) clearInterval(timer);
  }, 250);
  var again = function () { publish(); };
  root.addEventListener("wab:ready", again);
  document.addEventListener("wab:ready", again);
  document.addEventListener("DOMContentLoaded", again);
  root.addEventListener("load", again);
}

definePrimitive("wab.execute", execute, ["command"]);

(M.installers = M.installers || []).push(function () {
  watchForBridge();
});
  })(M, root);

  // ---- abp.js ----
  (function (M, root) {
/*
 * abp.js — Agentic Browser Protocol apps (window.abp, announced or not by
 * <link rel="abp-manifest">) as page tools.
 *
 * When window.abp appears, a session is initialised with our agent info and
 * the features we support (notifications, progress, elicitation); the app's
 * available capabilities are published through M.setPageTools("abp", ...)
 * and listed again whenever the app says they changed (onCapabilitiesChanged,
 * window.__abp_capabilities_changed, or a notification of that name).
 * The agent callbacks of the spec are installed as window.__abp_notification,
 * __abp_progress, __abp_elicitation and __abp_capabilities_changed (and as
 * the abp.on* handlers: assigned where the app leaves them empty, handed to
 * the app's own onNotification(fn)-style registration methods where it has
 * them): progress of a call becomes a call_progress message, an elicitation
 * an input_request whose answer goes back to the app as an
 * ElicitationResponse (callchannel.js). abp.call {capability, params,
 * call_id, abp_call_id} runs abp.call(capability, params, {callId,
 * progressToken, signal}); a failed ABPResponse fails with handler_failed and
 * the ABP code in evidence.abp_code. A call the app refuses because the
 * session is gone (NOT_INITIALIZED, SESSION_EXPIRED, SESSION_INVALID) is run
 * once more on a new session. The caller's cancel aborts the call's
 * AbortSignal and reaches abp.cancel(callId, reason); leaving the page ends
 * the session with abp.shutdown.
 *
 * Only an object with initialize() and call() functions is an ABP app: a
 * window.abp of another framework (ASP.NET Boilerplate's abp.js defines one)
 * is left untouched.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools,
  sendProgress = M.sendProgress,
  requestInput = M.requestInput,
  onCancel = M.onCancel;

var AGENT = { name: "mcp-actions", version: M.VERSION };
var PROTOCOL_VERSION = "0.1";
var FEATURES = { notifications: true, progress: true, elicitation: true };
var ALLOWED_REQUESTS = ["elicitation/input", "elicitation/preference", "elicitation/confirm", "elicitation/select"];
var WAIT_MS = 10000; // how long a page with an abp-manifest link is watched for window.abp

var state = { abp: null, session: null, starting: null, listing: 0, ended: false, wired: null };
// Codes under which the app has no session for the call: initialise again and call once more.
var SESSION_GONE = ["NOT_INITIALIZED", "SESSION_EXPIRED", "SESSION_INVALID"];
var running = []; // calls in flight, oldest first: {bridgeId, callId}

function appObject() {
  var abp = root.abp;
  return abp && typeof abp === "object" && typeof abp.initialize === "function" && typeof abp.call === "function" ? abp : null;
}

function errorText(err) {
  return String((err && err.message) || err || "failed");
}

// -- capabilities ---------------------------------------------------------------

function descriptor(cap) {
  var d = { name: String(cap.name), description: typeof cap.description === "string" ? cap.description : "" };
  d.inputSchema = isObject(cap.inputSchema) ? jsonClone(cap.inputSchema) : { type: "object", properties: {} };
  if (isObject(cap.outputSchema)) d.outputSchema = jsonClone(cap.outputSchema);
  if (cap.experimental === true) d.experimental = true;
  return d;
}

function usable(cap) {
  return isObject(cap) && typeof cap.name === "string" && cap.name && cap.available !== false && cap.deprecated !== true;
}

function listCapabilities(abp) {
  if (typeof abp.listCapabilities === "function") return Promise.resolve(abp.listCapabilities());
  // No listing: describe what initialize summarised.
  var summary = state.session && Array.isArray(state.session.capabilities) ? state.session.capabilities : [];
  if (typeof abp.describeCapability !== "function") return Promise.resolve(summary);
  return Promise.all(summary.map(function (s) {
    return Promise.resolve(abp.describeCapability(s.name)).then(function (full) { return full ? Object.assign({}, full, { available: s.available }) : s; });
  }));
}

function relist() {
  var abp = state.abp;
  if (!abp || state.ended) return Promise.resolve();
  var mine = ++state.listing; // a slower earlier listing must not overwrite a newer one
  return listCapabilities(abp).then(function (caps) {
    if (mine !== state.listing || state.abp !== abp) return;
    setPageTools("abp", (Array.isArray(caps) ? caps : []).filter(usable).map(descriptor));
  }, function (err) {
    console.warn("[mcp-actions] ABP listCapabilities failed:", errorText(err));
  });
}

// -- agent callbacks (app → agent) --------------------------------------------------

function callFor(operationId) {
  for (var i = running.length - 1; i >= 0; i--) if (running[i].callId === operationId) return running[i];
  // An app that names its operation otherwise: the only call in flight is the one.
  return running.length === 1 ? running[0] : null;
}

function onProgress(info) {
  if (!isObject(info)) return;
  var call = callFor(info.operationId);
  if (!call) return;
  var progress = typeof info.progress === "number" ? info.progress : info.percentage;
  var total = info.total;
  if (typeof total !== "number" && typeof info.percentage === "number" && typeof info.progress !== "number") total = 100;
  if (typeof progress !== "number" || !isFinite(progress)) return;
  sendProgress(call.bridgeId, progress, total, info.status || info.stage || "");
}

function refusal(code, message) {
  return { success: false, error: { code: code, message: message, retryable: false } };
}

function onElicitation(request) {
  if (!isObject(request) || typeof request.method !== "string") return Promise.resolve(refusal("INVALID_PARAMS", "an elicitation request needs a method"));
  var params = isObject(request.params) ? request.params : {};
  var call = (typeof params.callId === "string" && callFor(params.callId)) || running[running.length - 1];
  if (!call) return Promise.resolve(refusal("NOT_SUPPORTED", "elicitation is only possible while the agent's call is running"));
  var asked = { protocol: "abp", method: request.method, params: jsonClone(params), capability: call.capability };
  return requestInput(call.bridgeId, asked, typeof request.timeout === "number" ? request.timeout : 0).then(function (answer) {
    if (answer.error) return refusal(answer.error.code === "handler_timeout" ? "TIMEOUT" : "NOT_SUPPORTED", String(answer.error.message || "the agent cannot ask"));
    return isObject(answer.response) ? answer.response : refusal("OPERATION_FAILED", "the agent's answer is not an ElicitationResponse");
  });
}

function onNotification(event, data) {
  var name = isObject(event) ? event.event || event.type || event.method : event;
  if (name === "__abp_capabilities_changed" || name === "notifications/capabilities/changed" || name === "capabilities/changed") relist();
  else if (isObject(event) && event.type === "progress") onProgress(event.payload || data);
}

function onCapabilitiesChanged() {
  relist();
}

function installCallbacks() {
  var callbacks = {
    __abp_notification: onNotification,
    __abp_progress: onProgress,
    __abp_elicitation: onElicitation,
    __abp_capabilities_changed: onCapabilitiesChanged,
  };
  Object.keys(callbacks).forEach(function (name) {
    if (root[name] !== undefined) return;
    try {
      Object.defineProperty(root, name, { value: callbacks[name], enumerable: false, configurable: true, writable: true });
    } catch (_ignored) { /* a frozen window: the on* handlers still work */ }
  });
}

function setHandlers(abp) {
  if (state.wired === abp) return; // once per app object: a registration method must not hear us twice
  state.wired = abp;
  var handlers = { onNotification: onNotification, onProgress: onProgress, onElicitation: onElicitation, onCapabilitiesChanged: onCapabilitiesChanged };
  Object.keys(handlers).forEach(function (key) {
    try {
      // The API reference has the agent set these handlers; apps following the MCP bridge's
      // wiring offer them as methods that take the agent's callback.
      if (typeof abp[key] === "function") abp[key](handlers[key]);
      else abp[key] = handlers[key];
    } catch (_ignored) { /* read-only or refused: the window callbacks remain */ }
  });
}

// -- the session -------------------------------------------------------------------

function start() {
  var abp = appObject();
  if (!abp) return Promise.resolve(null);
  if (state.abp === abp && state.starting) return state.starting;
  state.abp = abp;
  state.session = null;
  state.ended = false;
  setHandlers(abp);
  state.starting = Promise.resolve()
    .then(function () {
      return abp.initialize({
        agent: jsonClone(AGENT),
        protocolVersion: typeof abp.protocolVersion === "string" ? abp.protocolVersion : PROTOCOL_VERSION,
        features: jsonClone(FEATURES),
        agentCapabilities: { allowedRequests: ALLOWED_REQUESTS.slice() },
      });
    })
    .then(function (result) {
      state.session = isObject(result) ? result : {};
      return relist();
    })
    .then(function () { return abp; }, function (err) {
      console.warn("[mcp-actions] ABP initialize failed:", errorText(err));
      state.starting = null;
      return null;
    });
  return state.starting;
}

function shutdown(reason) {
  var abp = state.abp;
  if (!abp || state.ended || !state.session) return Promise.resolve(false);
  state.ended = true;
  running.slice().forEach(function (call) { cancelCall(call, reason); });
  return Promise.resolve()
    .then(function () { return typeof abp.shutdown === "function" ? abp.shutdown({ reason: reason }) : null; })
    .then(function () { return true; }, function () { return false; });
}

function watchForApp() {
  var started = Date.now();
  var timer = setInterval(function () {
    var link = document.querySelector && document.querySelector('link[rel~="abp-manifest"]');
    if (appObject()) {
      if (state.abp !== appObject()) start();
      clearInterval(timer);
    } else if (Date.now() - started > (link ? WAIT_MS : WAIT_MS / 4)) {
      clearInterval(timer);
    }
  }, 100);
  var check = function () { if (appObject() && state.abp !== appObject()) start(); };
  document.addEventListener("DOMContentLoaded", check);
  root.addEventListener("load", check);
  root.addEventListener("pagehide", function () { shutdown("page unloading"); });
}

// -- calls -------------------------------------------------------------------------

function cancelCall(call, reason) {
  if (call.controller && !call.controller.signal.aborted) {
    try {
      call.controller.abort(reason);
    } catch (_ignored) { /* an app's abort listener threw: cancel() below still runs */ }
  }
  var abp = state.abp;
  if (!abp || typeof abp.cancel !== "function") return;
  try {
    Promise.resolve(abp.cancel(call.callId, reason)).catch(function (err) {
      console.warn("[mcp-actions] ABP cancel failed:", errorText(err));
    });
  } catch (err) {
    console.warn("[mcp-actions] ABP cancel failed:", errorText(err));
  }
}

function abpFailure(response, capability) {
  var err = isObject(response.error) ? response.error : {};
  var evidence = { capability: capability, abp_code: typeof err.code === "string" ? err.code : response.cancelled ? "CANCELLED" : "OPERATION_FAILED" };
  if (typeof err.retryable === "boolean") evidence.retryable = err.retryable;
  if (typeof err.retryAfter === "number") evidence.retry_after_s = err.retryAfter;
  if (Array.isArray(err.alternatives)) evidence.alternatives = err.alternatives.slice(0, 10).map(String);
  if (err.details !== undefined) evidence.details = jsonClone(err.details);
  if (response.cancelled === true) evidence.cancelled = true;
  fail("handler_failed", String(err.message || (response.cancelled ? capability + " was cancelled" : capability + " failed")), evidence);
}

function callCapability(args) {
  var capability = args.capability;
  if (typeof capability !== "string" || !capability) fail("invalid_input", "abp.call needs the capability's name", { field: "capability" });
  // {capability, params} from the host; {capability, ...params} from a converted map's binding.
  var params = {};
  var own = ["capability", "call_id", "abp_call_id", "timeout_ms"];
  if (isObject(args.params)) params = args.params;
  else Object.keys(args).forEach(function (k) { if (own.indexOf(k) < 0) params[k] = args[k]; });
  var bridgeId = typeof args.call_id === "string" ? args.call_id : "local-" + Date.now().toString(36);
  var callId = typeof args.abp_call_id === "string" && args.abp_call_id ? args.abp_call_id : bridgeId;
  return (appObject() && state.abp === appObject() && state.starting ? state.starting : start()).then(function (abp) {
    if (!abp) fail("runtime_not_ready", "the page has no initialised ABP session (window.abp)", { capability: capability, abp_code: "NOT_INITIALIZED" });
    var call = { bridgeId: bridgeId, callId: callId, capability: capability, controller: typeof AbortController === "function" ? new AbortController() : null };
    running.push(call);
    var stop = onCancel(bridgeId, function (reason) { cancelCall(call, reason); });
    var done = function () {
      stop();
      var at = running.indexOf(call);
      if (at >= 0) running.splice(at, 1);
    };
    var options = { callId: callId, progressToken: callId };
    if (typeof args.timeout_ms === "number") options.timeout = args.timeout_ms;
    if (call.controller) options.signal = call.controller.signal;
    function attempt(app) {
      var pending;
      try {
        pending = app.call(capability, jsonClone(params), options);
      } catch (err) {
        pending = Promise.reject(err);
      }
      return Promise.resolve(pending);
    }
    function sessionGone(response) {
      return isObject(response) && response.success === false && isObject(response.error) && SESSION_GONE.indexOf(response.error.code) >= 0;
    }
    return attempt(abp).then(function (response) {
      if (!sessionGone(response) || (call.controller && call.controller.signal.aborted)) return response;
      // The app lost our session (expired, or it restarted): a new one, and the call once more.
      state.starting = null;
      return start().then(function (again) { return again ? attempt(again) : response; });
    }).then(function (response) {
      done();
      if (!isObject(response) || typeof response.success !== "boolean") fail("invalid_result", "abp.call answered something other than an ABPResponse", { capability: capability });
      if (!response.success) abpFailure(response, capability);
      return response.data === undefined ? null : jsonClone(response.data);
    }, function (err) {
      done();
      var evidence = { capability: capability, abp_code: err && typeof err.code === "string" ? err.code : "OPERATION_FAILED" };
      fail("handler_failed", errorText(err), evidence);
    });
  });
}

function listPrimitive() {
  return start().then(function () {
    var s = state.session;
    return {
      initialized: !!s,
      session_id: s && s.sessionId ? String(s.sessionId) : null,
      app: s && isObject(s.app) ? jsonClone(s.app) : null,
      features: s && isObject(s.features) ? jsonClone(s.features) : null,
      capabilities: (M.pageToolsSnapshot().abp || []),
    };
  });
}

definePrimitive("abp.list", listPrimitive);
definePrimitive("abp.call", callCapability, ["capability"]);
definePrimitive("abp.shutdown", function (args) {
  return shutdown(typeof args.reason === "string" ? args.reason : "agent disconnect").then(function (ended) { return { shutdown: ended }; });
});

(M.installers = M.installers || []).push(function () {
  installCallbacks();
  watchForApp();
});
  })(M, root);

  // ---- observe_candidates.js ----
  (function (M, root) {
/*
 * observe_candidates.js — What a person can act on, so the model can find it
 * (docs/mcp-surface.md, "What page_observe lists"):
 *
 * - the interactive elements by tag and role (links, buttons, fields,
 *   [role=button]..., [tabindex] other than -1);
 * - elements clickable by a handler or by their cursor: an onclick attribute or
 *   property, or cursor:pointer that is not inherited from the parent (a
 *   span inside a pointer card is the card's), outside any interactive
 *   element. The page runtime cannot see listeners added with
 *   addEventListener, so a role-less div with only such a listener and no
 *   pointer cursor stays unseen: that is the documented limit;
 * - the items of an open popup list that has no roles (a jQuery UI
 *   autocomplete's `ul.ui-autocomplete li`, a suggestion dropdown): a visible
 *   ul/ol that floats (position absolute or fixed) or whose class says it is
 *   a menu, autocomplete, suggestion, dropdown or typeahead list; its li are
 *   listed as options.
 *
 * Inert elements are never listed: under [inert], or outside an open modal <dialog>.
 * Elements inside a same-origin iframe are listed where the iframe is.
 *
 * candidateRole/candidateName give such an element a role ("clickable",
 * "option") and a name (its text) where ARIA gives none.
 */
var tagOf = M.tagOf,
  normalize = M.normalize,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  elementText = M.elementText;

var INTERACTIVE = [
  "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary", "[contenteditable=''], [contenteditable=true]",
  "[role=button]", "[role=link]", "[role=checkbox]", "[role=radio]", "[role=switch]", "[role=tab]", "[role=menuitem]",
  "[role=menuitemcheckbox]", "[role=menuitemradio]", "[role=treeitem]",
  "[role=option]", "[role=combobox]", "[role=textbox]", "[role=searchbox]", "[role=slider]", "[role=spinbutton]",
  "[tabindex]:not([tabindex='-1'])",
].join(", ");
// A popup list's class names (jQuery UI, Bootstrap, typeahead.js, awesomplete and most hand-made ones).
var POPUP_CLASS = /(^|[\s_-])(ui-autocomplete|ui-menu|autocomplete|autocomplete-items|suggestions?|dropdown-menu|dropdown|typeahead|tt-menu|awesomplete|menu|listbox|popup|popover)([\s_-]|$)/i;
// Never a click target of their own: the document, and what carries no content.
var NEVER = { html: 1, body: 1, head: 1, script: 1, style: 1, br: 1, hr: 1, option: 1, optgroup: 1, label: 1 };
var TEXT_CAP = 200; // a clickable with more text than this is a region, named by its start

function cursorOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  return style ? style.cursor : "";
}

/** Whether el is interactive by its tag or role (the cheap test). */
function isTagInteractive(el) {
  return el.matches(INTERACTIVE);
}

/** Whether el is clickable by an onclick handler or its own pointer cursor (see the module comment). */
function isClickable(el) {
  if (NEVER[tagOf(el)] || isTagInteractive(el)) return false;
  var handler = el.hasAttribute("onclick") || typeof el.onclick === "function";
  if (!handler) {
    if (cursorOf(el) !== "pointer") return false;
    var parent = el.parentElement;
    if (parent && cursorOf(parent) === "pointer") return false; // inherited, or part of a pointer container
  }
  // Inside a link or button, or around one (a card around its title link): that element is what a person clicks.
  var up = el.parentElement;
  if ((up && up.closest(INTERACTIVE)) || el.querySelector(INTERACTIVE)) return false;
  // Inside an open popup list's item (a pointer wrapper in a jQuery UI menu item): the item is listed.
  var item = up && up.closest("li");
  if (item && popupListOf(item)) return false;
  // Something to tell the model: a name or some text.
  return !!(accessibleName(el, roleOf(el)) || normalize(el.textContent) || el.querySelector("img[alt], svg title"));
}

/** The popup list el belongs to when it is an item of an open role-less popup list, else null. */
function popupListOf(el) {
  if (tagOf(el) !== "li" || roleOf(el) !== "listitem") return null;
  var list = el.parentElement;
  if (!list || (tagOf(list) !== "ul" && tagOf(list) !== "ol")) return null;
  var listRole = list.getAttribute("role");
  if (listRole === "listbox" || listRole === "menu") return list; // its items lack role=option/menuitem
  if (POPUP_CLASS.test(String(list.getAttribute("class") || ""))) return list;
  var view = (list.ownerDocument && list.ownerDocument.defaultView) || root;
  var position = view.getComputedStyle(list).position;
  return position === "absolute" || position === "fixed" ? list : null;
}

/** Whether a person can act on el: interactive by tag or role, clickable, or an item of an open popup list. */
function isActionable(el) {
  if (isTagInteractive(el)) return true;
  if (popupListOf(el)) return !el.querySelector(INTERACTIVE); // its own controls are listed instead
  return isClickable(el);
}

/** el's role for a model: ARIA's, else "option" for a popup list's item, "clickable" for a clickable, else its tag. */
function candidateRole(el) {
  if (!isTagInteractive(el)) {
    if (popupListOf(el)) return "option";
    var aria = el.getAttribute("role");
    if (!aria && isClickable(el)) return "clickable";
  }
  // A tag said as a role is a word too (a custom element's name may hold quotes or "@" in Chromium now).
  var tag = tagOf(el);
  return roleOf(el) || (M.ROLE_WORD.test(tag) ? tag : "element");
}

/** el's name for a model: its accessible name, else (for a clickable or a popup item) its text, capped. */
function candidateName(el, role) {
  var name = accessibleName(el, role);
  if (name || role === "textbox" || tagOf(el) === "input") return name;
  var text = elementText(el);
  return text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) : text;
}

/** The open modal <dialog> (showModal), or null: while one is open, the rest of the page is inert. */
function openModal() {
  try {
    return document.querySelector("dialog:modal");
  } catch (_noModalPseudoClass) {
    return null;
  }
}

/**
 * The elements a person can act on under scope (the document by default), in composed-tree order.
 * Inert ones are left out ([inert], and everything outside an open modal dialog): no click reaches them.
 */
function actionableInTree(scope) {
  var out = [];
  var modal = openModal();
  (function walk(s) {
    var walker = document.createTreeWalker(s, NodeFilter.SHOW_ELEMENT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.hasAttribute("inert")) {
        // Nothing under an inert element takes input: go on after its subtree (from its last descendant).
        var last = n;
        while (last.lastElementChild) last = last.lastElementChild;
        walker.currentNode = last;
        continue;
      }
      if (isActionable(n) && (!modal || modal.contains(n))) out.push(n);
      if (n.shadowRoot && n.shadowRoot.mode === "open") walk(n.shadowRoot);
      // A same-origin iframe's document is part of what a person sees and acts on (an embedded form);
      // its elements are acted on through observe_frames.js. Cross-origin frames stay closed.
      var inner = (n.localName === "iframe" || n.localName === "frame") && M.frameDocument ? M.frameDocument(n) : null;
      if (inner) walk(inner);
    }
  })(scope || document);
  return out;
}

M.OBSERVE_INTERACTIVE = INTERACTIVE;
M.isActionable = isActionable;
M.candidateRole = candidateRole;
M.candidateName = candidateName;
M.actionableInTree = actionableInTree;
M.openModal = openModal;
  })(M, root);

  // ---- observe_refs.js ----
  (function (M, root) {
/*
 * observe_refs.js — Observation with stable element refs, for pages without a
 * map (the idea of BAP's observe): refs.observe lists the visible elements a
 * person can act on (observe_candidates.js) as {ref: "@e1", role, name,
 * value?, actions, bounds?, change, context?}, or with as_text one compact
 * line each (what page_observe sends), under a byte budget, with the total
 * count when it truncates. context (the section and item an element sits
 * in) is given where another listed element has the same role and name. A
 * ref names the same element across observations for as long as the element
 * lives (change: "new" the first time, then "stable", or "moved" when its box
 * moved). resolveRefOrText turns {ref} or {text} into the one element an
 * acting tool means; refs.resolve marks it with data-mcp-actions-ref so every
 * locator-based primitive can act on it; refs.select chooses options.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  box = M.box,
  tagOf = M.tagOf,
  isEnabled = M.isEnabled,
  queryAllDeep = M.queryAllDeep,
  isVisible = M.isVisible,
  roleOf = M.roleOf,
  viewport = M.viewport,
  isActionable = M.isActionable,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  actionableInTree = M.actionableInTree,
  quote = M.quote, // page strings as the model reads them (core.js pageText): never one of our refs or tokens
  pageText = M.pageText;

var NAME_CAP = 80;
var VALUE_CAP = 120;
var REF_ATTR = "data-mcp-actions-ref";

var refOf = typeof WeakMap === "function" ? new WeakMap() : null;
var byRef = {}; // "e12" -> element (pruned when the element leaves the document)
var lastBox = {}; // "e12" -> "x,y,w,h" at the previous observation
var counter = 0;

function refFor(el) {
  var ref = refOf.get(el);
  if (!ref) {
    counter += 1;
    ref = "e" + counter;
    refOf.set(el, ref);
    byRef[ref] = el;
  }
  return ref;
}

function actionsOf(el, role) {
  var tag = tagOf(el);
  var type = String(el.type || "").toLowerCase();
  if (!isEnabled(el)) return [];
  if (tag === "select") return ["select"];
  if (role === "clickable" || role === "option") return ["click"];
  if (tag === "textarea" || el.isContentEditable || role === "textbox" || role === "searchbox" || role === "combobox" || (tag === "input" && ["checkbox", "radio", "button", "submit", "reset", "image", "file"].indexOf(type) < 0)) {
    return ["fill", "press", "click"];
  }
  return ["click", "press"];
}

function valueOf(el) {
  var tag = tagOf(el);
  if (tag === "select") {
    var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.label || o.value; });
    return chosen.join(", ");
  }
  if (tag === "input" || tag === "textarea") {
    // A checkbox's or a button's value is not what a person sees ("on"): their state or name says it.
    if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].indexOf(String(el.type)) >= 0) return null;
    if (el.type === "password") return el.value ? "••••" : "";
    return String(el.value == null ? "" : el.value);
  }
  // A rich-text editor's value is its text (a comment box being written).
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return M.normalize(el.innerText);
  return null;
}

var SUGGESTIONS = 5; // a <datalist>'s options said beside its field

/** The first options of the <datalist> an input suggests from (its popup is the browser's, not the page's), or null. */
function suggestionsOf(el) {
  var list = tagOf(el) === "input" ? el.list : null;
  if (!list || !list.options || !list.options.length) return null;
  var values = Array.prototype.slice.call(list.options, 0, SUGGESTIONS).map(function (o) { return cap(o.value || o.label, 40); });
  return { values: values, total: list.options.length };
}

var CHECKABLE = { checkbox: 1, radio: 1, switch: 1, menuitemcheckbox: 1, menuitemradio: 1 };

/** ARIA states a person sees: checked (native or aria-checked), expanded/collapsed, selected, pressed. */
function statesOf(el, role, entry) {
  if (el.type === "checkbox" || el.type === "radio") entry.checked = !!el.checked;
  else if (CHECKABLE[role] && el.hasAttribute("aria-checked")) entry.checked = el.getAttribute("aria-checked") === "true";
  var expanded = el.getAttribute("aria-expanded");
  if (expanded === "true" || expanded === "false") entry.expanded = expanded === "true";
  if (el.getAttribute("aria-selected") === "true") entry.selected = true;
  if (el.getAttribute("aria-pressed") === "true") entry.pressed = true;
}

function entryFor(el, withBounds, role, name) {
  var entry = { ref: "@" + refFor(el), role: role };
  if (name) entry.name = cap(name, NAME_CAP);
  var value = valueOf(el);
  if (value !== null && value !== "") entry.value = cap(value, VALUE_CAP);
  statesOf(el, role, entry);
  var suggested = suggestionsOf(el);
  if (suggested) entry.suggestions = suggested;
  entry.actions = actionsOf(el, role);
  var b = box(el);
  var key = [b.x, b.y, b.width, b.height].join(",");
  var ref = entry.ref.slice(1);
  entry.change = lastBox[ref] === undefined ? "new" : lastBox[ref] === key ? "stable" : "moved";
  lastBox[ref] = key;
  if (withBounds) entry.bounds = b;
  return entry;
}

function prune() {
  Object.keys(byRef).forEach(function (ref) {
    if (!byRef[ref].isConnected) {
      delete byRef[ref];
      delete lastBox[ref];
    }
  });
}

function inViewport(el) {
  var r = el.getBoundingClientRect();
  var vp = viewport();
  return r.bottom > 0 && r.right > 0 && r.top < vp.height && r.left < vp.width;
}

var encoder = typeof TextEncoder === "function" ? new TextEncoder() : null;
function utf8Length(text) {
  return encoder ? encoder.encode(text).length : unescape(encodeURIComponent(text)).length;
}

/** Whether a listing has seen this document before (then a first-seen element is news: " new"). */
var observedBefore = false;

/**
 * One element as a line of page_observe's text: ref, role, "name", value, state, and the context
 * (in: section › item) when another listed element has the same role and name. What the role
 * implies is left out (its actions, "stable").
 */
function lineOf(entry, el, duplicated, cache) {
  var parts = [entry.ref, entry.role];
  if (entry.name) parts.push(quote(entry.name));
  if (entry.value !== undefined) parts.push("= " + quote(entry.value));
  if (entry.checked !== undefined) parts.push(entry.checked ? "checked" : "unchecked");
  if (entry.expanded !== undefined) parts.push(entry.expanded ? "expanded" : "collapsed");
  if (entry.selected) parts.push("selected");
  if (entry.pressed) parts.push("pressed");
  if (entry.suggestions) {
    var more = entry.suggestions.total - entry.suggestions.values.length;
    parts.push("suggests " + entry.suggestions.values.map(quote).join(", ") + (more > 0 ? " (+" + more + ")" : ""));
  }
  if (!entry.actions.length) parts.push("disabled");
  if (entry.change === "new" && observedBefore) parts.push("new");
  if (entry.bounds) parts.push("[" + [entry.bounds.x, entry.bounds.y, entry.bounds.width, entry.bounds.height].join(",") + "]");
  var line = parts.join(" ");
  if (duplicated) {
    var context = contextOf(el, entry.name || "", cache);
    if (context) line += " in: " + pageText(context);
  }
  return line;
}

function observe(args) {
  var maxBytes = args.max_bytes === undefined ? 16000 : args.max_bytes;
  if (typeof maxBytes !== "number" || !(maxBytes >= 256) || maxBytes > 1000000) fail("invalid_input", "max_bytes must be a number from 256 to 1000000", { field: "max_bytes" });
  if (!refOf) fail("capability_unavailable", "this browser has no WeakMap", { capability: "refs.observe" });
  prune();
  return M.withStructure(function () {
    return listed(args, maxBytes);
  });
}

function listed(args, maxBytes) {
  // What a person can see: a click reaches it, and it is not drawn where no one sees it (read_structure.js unseen).
  var all = actionableInTree().filter(function (el) {
    return isVisible(el) && (!args.viewport_only || inViewport(el)) && !M.unseen(el);
  });
  // Role and name of every listed element, so look-alikes (same role and name) get their context.
  var seen = {};
  var described = all.map(function (el) {
    var role = candidateRole(el);
    var name = candidateName(el, role);
    var key = role + "\u0000" + name;
    seen[key] = (seen[key] || 0) + 1;
    return { el: el, role: role, name: name, key: key };
  });
  var asText = args.as_text === true;
  if (asText && M.freshStructure) M.freshStructure();
  var cache = typeof Map === "function" ? new Map() : null;
  var elements = [];
  var lines = [];
  var used = 2; // the brackets of the list (or the header line's share)
  var truncated = false;
  for (var i = 0; i < described.length; i++) {
    var d = described[i];
    var entry = entryFor(d.el, args.bounds === true, d.role, d.name);
    var duplicated = seen[d.key] > 1;
    var line = asText ? lineOf(entry, d.el, duplicated, cache) : null;
    if (!asText && duplicated) {
      var context = contextOf(d.el, entry.name || "", cache);
      if (context) entry.context = context;
    }
    // The budget counts UTF-8 bytes of what is sent: the lines, or compact JSON.
    var size = utf8Length(asText ? line : JSON.stringify(entry)) + 1;
    if (used + size > maxBytes) {
      truncated = true;
      break;
    }
    used += size;
    if (asText) lines.push(line);
    else elements.push(entry);
  }
  observedBefore = true;
  var returned = asText ? lines.length : elements.length;
  var out = { total: all.length, returned: returned, truncated: truncated, url: String(root.location.href), title: String(document.title || "") };
  if (asText) out.text = lines.join("\n");
  else out.elements = elements;
  if (truncated) out.hint = "more elements than max_bytes allows: raise max_bytes or pass viewport_only";
  return out;
}

function elementOf(ref) {
  if (typeof ref !== "string" || !/^@?e[0-9]+$/.test(ref)) fail("invalid_input", "ref must look like @e12", { field: "ref" });
  var key = ref.charAt(0) === "@" ? ref.slice(1) : ref;
  var el = byRef[key];
  if (!el || !el.isConnected) {
    // A ref this page handed out whose element left the document, or one it never handed out.
    var issued = Number(key.slice(1)) <= counter;
    var why = issued ? "the element of @" + key + " is gone from the page (removed or re-rendered)" : "this page never gave out the ref @" + key + " (the page reloaded, or the ref is from another tab)";
    fail("target_not_found", why + ": call page_observe or page_read again for fresh refs", { ref: "@" + key, stale: issued });
  }
  if (!isVisible(el)) fail("target_not_visible", "the element @" + key + " is not visible now", { ref: "@" + key });
  return { key: key, el: el };
}

var TEXT_CANDIDATES = 10; // refs listed when a text matches several elements
var CONTEXT_CAP = 60;

/** What tells el from a look-alike: the section it sits under and its item's text (read_structure.js), short. */
function contextOf(el, name, cache) {
  var parts = [];
  var section = M.sectionName ? M.sectionName(el, cache) : "";
  if (section && section !== name) parts.push(section);
  var item = M.itemOf ? M.itemOf(el) : null;
  // The item's words a person reads (read_structure.js visibleText), not text hidden in it.
  var itemText = item && item !== el ? M.visibleText(item) : "";
  if (itemText && itemText !== name && itemText !== section) parts.push(itemText);
  return cap(parts.join(" › "), CONTEXT_CAP);
}

/** The texts a person may use for el, best first: its accessible name, label, placeholder, value, own text. */
function textsOf(el, role) {
  var texts = [candidateName(el, role)];
  if (el.labels) Array.prototype.forEach.call(el.labels, function (l) { texts.push(M.normalize(l.textContent)); });
  texts.push(M.normalize(el.getAttribute("placeholder")), M.normalize(el.getAttribute("aria-placeholder")));
  if (tagOf(el) !== "input" || ["button", "submit", "reset"].indexOf(String(el.type)) >= 0) texts.push(M.elementText(el));
  return texts.filter(Boolean).map(function (t) { return t.toLowerCase(); });
}

/** The elements whose text matches wanted, from the best tier that has any (exact, then starts-with, then contains). */
function matchText(wanted, candidates) {
  var tiers = [[], [], []];
  candidates.forEach(function (el) {
    var texts = textsOf(el, candidateRole(el));
    if (texts.some(function (t) { return t === wanted; })) tiers[0].push(el);
    else if (texts.some(function (t) { return t.indexOf(wanted) === 0; })) tiers[1].push(el);
    else if (texts.some(function (t) { return t.indexOf(wanted) > 0; })) tiers[2].push(el);
  });
  return tiers[0].length ? tiers[0] : tiers[1].length ? tiers[1] : tiers[2];
}

/**
 * The one element a page tool acts on, from args.ref (@e12) or args.text (exactly one of them):
 * {key, el, ref}. A text matches a visible element's accessible name, label, placeholder or own
 * text (case-insensitive; exact matches win over prefixes, prefixes over substrings). Several
 * matches fail multiple_targets with their refs and contexts (never an arbitrary one); none fails
 * target_not_found. opts.accept(el) narrows the candidates (page_fill: fields only); opts.candidates()
 * replaces them (page_fill {files}: a hidden file input's label too).
 * Shared with describe.js and the acting tools (docs/mcp-surface.md, "Acting by text").
 */
function resolveRefOrText(args, opts) {
  var hasRef = args.ref !== undefined, hasText = args.text !== undefined;
  if (hasRef === hasText) fail("invalid_input", "give exactly one of ref or text", { field: hasRef ? "text" : "ref" });
  if (hasRef) {
    var byRefFound = elementOf(args.ref);
    return { key: byRefFound.key, el: byRefFound.el, ref: "@" + byRefFound.key };
  }
  if (typeof args.text !== "string" || !M.normalize(args.text)) fail("invalid_input", "text must be a non-empty string", { field: "text" });
  var wanted = M.normalize(args.text).toLowerCase();
  var accept = opts && opts.accept;
  var candidates = (opts && opts.candidates ? opts.candidates() : actionableInOrder()).filter(function (el) { return !accept || accept(el); });
  var hits = matchText(wanted, candidates);
  if (!hits.length) {
    fail("target_not_found", "no visible element to act on has the text " + JSON.stringify(cap(args.text, NAME_CAP)) + " (page_find or page_observe lists what there is)", { text: args.text });
  }
  if (hits.length > 1) {
    var cache = typeof Map === "function" ? new Map() : null;
    var listed = hits.slice(0, TEXT_CANDIDATES).map(function (el) {
      var role = candidateRole(el);
      var name = cap(candidateName(el, role), NAME_CAP);
      var c = { ref: "@" + refFor(el), role: role };
      if (name) c.name = name;
      var context = contextOf(el, name, cache);
      if (context) c.context = context;
      return c;
    });
    // The model reads the message (the MCP error text), so the candidates are in it, one per line.
    var lines = listed.map(function (c) { return c.ref + " " + c.role + (c.name ? " " + quote(c.name) : "") + (c.context ? " in: " + pageText(c.context) : ""); });
    if (hits.length > listed.length) lines.push("(" + listed.length + " of " + hits.length + ")");
    fail("multiple_targets", hits.length + " elements match the text " + JSON.stringify(cap(args.text, NAME_CAP)) + "; act on one by its ref:\n" + lines.join("\n"), { text: args.text, match_count: hits.length, candidates: listed });
  }
  var key = refFor(hits[0]);
  return { key: key, el: hits[0], ref: "@" + key };
}

/** The visible elements a person can act on, in composed-tree order (what refs.observe lists). */
function actionableInOrder() {
  return actionableInTree().filter(isVisible);
}

/** Whether el takes a value from page_fill: a text-like input, a textarea, a rich-text editor or a textbox role. */
function isField(el) {
  var tag = tagOf(el), role = roleOf(el);
  if (tag === "textarea" || el.isContentEditable || role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton" || role === "slider") return true;
  return tag === "input" && ["checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden"].indexOf(String(el.type)) < 0;
}

/**
 * Mark the found elements ({key, el} each) so locator primitives target them: {selector} each. Only the
 * acted-on elements carry the mark (one, or a drag's two), so every other mark is removed.
 */
function markOnly(found) {
  var els = found.map(function (f) { return f.el; });
  queryAllDeep("[" + REF_ATTR + "]").forEach(function (other) { if (els.indexOf(other) < 0) other.removeAttribute(REF_ATTR); });
  return found.map(function (f) {
    f.el.setAttribute(REF_ATTR, f.key);
    return "[" + REF_ATTR + '="' + f.key + '"]';
  });
}

function resolve(args) {
  var found = resolveRefOrText({ ref: args.ref, text: args.text }, args.field === true ? { accept: isField } : null);
  markOnly([found]);
  if (args.focus === true && typeof found.el.focus === "function") found.el.focus();
  var role = candidateRole(found.el);
  var out = { ref: "@" + found.key, selector: "[" + REF_ATTR + '="' + found.key + '"]', role: role, actions: actionsOf(found.el, role) };
  // page_fill: a <select> chooses the option (refs.select), a date, time, range or color input takes its
  // value set (refs.set_value), others take typed text.
  if (args.field === true) out.fill = tagOf(found.el) === "select" ? "select" : M.isValueInput && M.isValueInput(found.el) ? "value" : "text";
  var name = candidateName(found.el, role);
  if (name) out.name = cap(name, NAME_CAP);
  // An element of a same-origin frame: the locator primitives do not reach it, refs.frame_act does (observe_frames.js).
  if (M.inFrame && M.inFrame(found.el)) out.frame = true;
  // One round trip for what an acting tool needs before its action: the point to click (brought into
  // view, and whether something covers it, as locator.element_info says) and the change mark.
  if (args.point === true && !out.frame) {
    var info = M.elementInfo({ locator: { selector: out.selector } });
    out.point = info.clickable_center;
    if (info.occluded) out.occluded = true;
  }
  if (args.mark !== undefined) out.marked = M.changeMarkOf(found.ref, args.mark);
  return out;
}

function selectOptions(args) {
  var found = resolveRefOrText({ ref: args.ref, text: args.text }, { accept: function (el) { return tagOf(el) === "select"; } });
  var el = found.el;
  if (tagOf(el) !== "select") fail("target_not_editable", "@" + found.key + " is not a <select>", { ref: "@" + found.key, tag: tagOf(el) });
  var wanted = Array.isArray(args.values) ? args.values.map(String) : [String(args.value)];
  var matched = [];
  Array.prototype.forEach.call(el.options, function (o) {
    var hit = !o.disabled && (wanted.indexOf(o.value) >= 0 || wanted.indexOf(o.label) >= 0 || wanted.indexOf(M.normalize(o.textContent)) >= 0);
    if (hit && (el.multiple || matched.length === 0)) matched.push(o);
  });
  if (!matched.length) fail("target_not_found", "no enabled option of @" + found.key + " matches", { ref: "@" + found.key, values: wanted });
  Array.prototype.forEach.call(el.options, function (o) { o.selected = matched.indexOf(o) >= 0; });
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { ref: "@" + found.key, selected: matched.map(function (o) { return o.value; }) };
}

// Shared with read.js and find.js (page_read, page_find): the same refs, the same elements, the same stale-ref error.
M.refFor = function (el) { return "@" + refFor(el); };
// What a person can act on (observe_candidates.js): by tag or role, a handler or pointer cursor, or an open popup list's item.
M.isInteractiveElement = isActionable;
M.elementOfRef = elementOf;
// Shared with describe.js and the acting tools: {ref} or {text} to the one element (see resolveRefOrText).
M.resolveRefOrText = resolveRefOrText;
M.actionableInOrder = actionableInOrder;
M.markOnly = markOnly;
M.isField = isField;
M.contextOf = contextOf;

definePrimitive("refs.observe", observe);
definePrimitive("refs.resolve", resolve);
definePrimitive("refs.select", selectOptions);
  })(M, root);

  // ---- observe_values.js ----
  (function (M, root) {
/*
 * observe_values.js — refs.set_value (page_fill on inputs that take no typed text) and
 * locator.set_value (the same by locator, for learned tools): date, time,
 * datetime-local, month, week, range and color inputs get their value through the prototype's
 * setter, then input and change events, as a person's pick in the browser's own picker would
 * fire them (docs/mcp-surface.md, "Every kind of control"). The element is named by ref or text
 * (observe_refs.js resolveRefOrText). A value the input refuses (a date not in YYYY-MM-DD, a
 * range value outside min..max is clamped by the browser) is reported, never silently changed.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf;

// The format each type takes, said when a value is refused.
var VALUE_TYPES = { date: "YYYY-MM-DD", time: "HH:MM or HH:MM:SS", "datetime-local": "YYYY-MM-DDTHH:MM", month: "YYYY-MM", week: "YYYY-Www", range: "a number", color: "#rrggbb" };

/** Whether el is an input whose value is set, not typed (see the module comment). */
function isValueInput(el) {
  return tagOf(el) === "input" && Object.prototype.hasOwnProperty.call(VALUE_TYPES, String(el.type));
}

/** Give el (a value input, named `what` in errors) the value, as a pick in the browser's picker would; its output. */
function applyValue(el, value, what, evidence) {
  if (!isValueInput(el)) fail("target_not_editable", what + " is not a date, time, range or color input", Object.assign({ tag: tagOf(el), type: String(el.type || "") }, evidence));
  var type = String(el.type);
  var descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
  if (typeof el.focus === "function") el.focus();
  var before = el.value;
  // The prototype's setter: a framework's instance-level value tracker (React) still sees the events.
  var set = function (v) {
    if (descriptor && descriptor.set) descriptor.set.call(el, v);
    else el.value = v;
  };
  set(value);
  if (el.value === "" && value !== "") {
    set(before); // a refused value empties the input: put back what it held
    fail("invalid_input", "the " + type + " input refused " + JSON.stringify(value) + ": it takes " + VALUE_TYPES[type], Object.assign({ field: "value", type: type }, evidence));
  }
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  var out = { value: String(el.value) };
  if (out.value !== value) out.adjusted = true; // a range clamped to min..max or rounded to its step
  return out;
}

function setValue(args) {
  if (typeof args.value !== "string") fail("invalid_input", "value must be a string", { field: "value" });
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text }, { accept: isValueInput });
  return Object.assign({ ref: found.ref }, applyValue(found.el, args.value, found.ref, { ref: found.ref }));
}

/** locator.set_value: the same on the one element a locator resolves to (a learned tool's step; no ref). */
function setValueByLocator(args) {
  if (typeof args.value !== "string") fail("invalid_input", "value must be a string", { field: "value" });
  var resolved = M.resolveOne(args.locator, true);
  return Object.assign({ matched_by: resolved.matched_by }, applyValue(resolved.element, args.value, "the locator's <" + tagOf(resolved.element) + ">", { matched_by: resolved.matched_by }));
}

M.isValueInput = isValueInput;

definePrimitive("refs.set_value", setValue);
definePrimitive("locator.set_value", setValueByLocator, ["locator", "value"]);
  })(M, root);

  // ---- observe_scroll.js ----
  (function (M, root) {
/*
 * observe_scroll.js — refs.scroll (page_scroll): scroll the page, or the scrolling box an element
 * sits in, by a screenful or to its end, so lists that load more when scrolled (infinite feeds,
 * virtualised lists) load it. Instant scrolling: scroll listeners and IntersectionObservers see it
 * as they would a person's. The element is named by ref or text (observe_refs.js
 * resolveRefOrText); without either, the document scrolls. docs/mcp-surface.md, "Every kind of control".
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  round = M.round;

var DIRECTIONS = { down: 1, up: 1, bottom: 1, top: 1 };

/** The box that scrolls el: el itself or its nearest ancestor with overflow that scrolls; null: the document. */
function scrollerOf(el) {
  for (var node = el; node && node.nodeType === 1 && node !== document.body && node !== document.documentElement; node = node.parentElement) {
    var style = getComputedStyle(node);
    if (/(auto|scroll|overlay)/.test(style.overflowY + " " + style.overflowX) && node.scrollHeight > node.clientHeight + 1) return node;
  }
  return null;
}

function scroll(args) {
  var to = args.to === undefined ? "down" : args.to;
  if (!DIRECTIONS[to]) fail("invalid_input", "to must be down, up, bottom or top", { field: "to" });
  var box = null, ref = null;
  if (args.ref !== undefined || args.text !== undefined) {
    var found = M.resolveRefOrText({ ref: args.ref, text: args.text });
    ref = found.ref;
    box = scrollerOf(found.el);
  }
  var el = box || document.scrollingElement || document.documentElement;
  var page = box ? box.clientHeight : root.innerHeight;
  var before = el.scrollTop;
  var top = to === "top" ? 0 : to === "bottom" ? el.scrollHeight : to === "down" ? before + page * 0.9 : before - page * 0.9;
  el.scrollTo({ top: top, behavior: "instant" });
  var out = { scrolled: box ? "element" : "page", scroll_y: round(el.scrollTop), scroll_height: round(el.scrollHeight), moved: round(el.scrollTop - before) };
  if (ref) out.ref = ref;
  out.at_end = el.scrollTop + (box ? box.clientHeight : root.innerHeight) >= el.scrollHeight - 1;
  return out;
}

definePrimitive("refs.scroll", scroll);
  })(M, root);

  // ---- observe_frames.js ----
  (function (M, root) {
/*
 * observe_frames.js — Acting on an element inside a same-origin iframe, by its ref (refs.frame_act;
 * docs/mcp-surface.md, "Every kind of control").
 *
 * page_read, page_find and page_observe hand out refs for the elements of same-origin frames, but
 * the locator primitives search the top document only. So for such an element the acting tools
 * (dispatch/observe_tools.py) use this primitive instead:
 *
 * - action "point": the element scrolled into view in its frame, and its frame in the top page,
 *   and its clickable centre in the TOP viewport's coordinates (each iframe's box and border added),
 *   for a host with trusted input to click or hover there (the browser routes real input into the
 *   frame);
 * - action "click" / "hover": the engine's synthetic pointer and mouse events, dispatched on the
 *   element in the frame's own document with frame-local coordinates (the page runtime, which has
 *   no trusted input);
 * - action "fill": the field's value set with the frame realm's native setter (frameworks' value
 *   trackers see it) and input + change fired; a rich-text editor takes the text through the
 *   frame document's insertText.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  round = Math.round;

/** The iframes from the top document down to el's document (outermost first); [] for a top-document element. */
function frameChain(el) {
  var chain = [];
  var doc = el.ownerDocument;
  while (doc && doc !== document) {
    var frame = null;
    try {
      frame = doc.defaultView && doc.defaultView.frameElement;
    } catch (_crossOrigin) {
      frame = null;
    }
    if (!frame) break;
    chain.unshift(frame);
    doc = frame.ownerDocument;
  }
  return chain;
}

/** Whether el lives in a same-origin frame's document (not the top document). */
function inFrame(el) {
  return !!el && el.ownerDocument !== document && frameChain(el).length > 0;
}

/** Where a frame's content starts inside its iframe element's box: border + padding. */
function contentOffset(frame) {
  var style = frame.ownerDocument.defaultView.getComputedStyle(frame);
  return { x: frame.clientLeft + (parseFloat(style.paddingLeft) || 0), y: frame.clientTop + (parseFloat(style.paddingTop) || 0) };
}

/** el's clickable centre in its own frame's viewport, and in the top viewport. */
function points(el) {
  // Scroll the element into view inside its frame, then each frame into view in its parent (innermost out).
  if (typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  var chain = frameChain(el);
  for (var i = chain.length - 1; i >= 0; i--) chain[i].scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
  var r = el.getBoundingClientRect();
  var local = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  var x = local.x, y = local.y;
  for (var j = chain.length - 1; j >= 0; j--) {
    var fr = chain[j].getBoundingClientRect();
    var offset = contentOffset(chain[j]);
    x += fr.left + offset.x;
    y += fr.top + offset.y;
  }
  return { local: { x: round(local.x), y: round(local.y) }, top: { x: round(x), y: round(y) } };
}

function mouseInit(win, p, button, buttons) {
  return { bubbles: true, cancelable: true, composed: true, view: win, clientX: p.x, clientY: p.y, button: button, buttons: buttons, detail: 1, pointerId: 1, pointerType: "mouse", isPrimary: true };
}

/** Synthetic events of the frame's realm on el (a page script there checks instanceof against its own classes). */
function fire(el, type, init) {
  var win = el.ownerDocument.defaultView;
  var Ctor = type.indexOf("pointer") === 0 && typeof win.PointerEvent === "function" ? win.PointerEvent : win.MouseEvent;
  return el.dispatchEvent(new Ctor(type, init));
}

function click(el, p) {
  var win = el.ownerDocument.defaultView;
  var down = mouseInit(win, p, 0, 1), up = mouseInit(win, p, 0, 0);
  var allowed = fire(el, "pointerdown", down);
  if (allowed && fire(el, "mousedown", down)) {
    var focusable = el.closest("input, select, textarea, button, a[href], [tabindex], [contenteditable]:not([contenteditable='false'])");
    if (focusable && typeof focusable.focus === "function") focusable.focus();
  }
  fire(el, "pointerup", up);
  if (allowed) fire(el, "mouseup", up);
  // A synthetic click event runs the element's activation (a submit button submits its form, a checkbox toggles).
  fire(el, "click", up);
}

function hover(el, p) {
  var init = mouseInit(el.ownerDocument.defaultView, p, 0, 0);
  ["pointerover", "mouseover", "pointermove", "mousemove"].forEach(function (type) { fire(el, type, init); });
}

function fill(el, value, ref) {
  var win = el.ownerDocument.defaultView;
  if (typeof el.focus === "function") el.focus();
  var tag = M.tagOf(el);
  if (tag === "input" || tag === "textarea") {
    if (el.disabled || el.readOnly) fail("target_not_editable", ref + " is disabled or read-only", { ref: ref });
    // The frame realm's prototype setter: a framework in the frame tracks values on its own prototypes.
    var proto = tag === "textarea" ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
    var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
    if (descriptor && descriptor.set) descriptor.set.call(el, value);
    else el.value = value;
    el.dispatchEvent(new win.InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: value }));
    el.dispatchEvent(new win.Event("change", { bubbles: true }));
    return String(el.value);
  }
  if (el.isContentEditable) {
    var range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    var sel = win.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    if (!el.ownerDocument.execCommand("insertText", false, value)) {
      el.textContent = value;
      el.dispatchEvent(new win.InputEvent("input", { bubbles: true, inputType: "insertText", data: value }));
    }
    return M.normalize(el.innerText);
  }
  fail("target_not_editable", ref + " does not take text", { ref: ref, tag: tag });
}

var ACTIONS = { point: 1, click: 1, hover: 1, fill: 1 };

function frameAct(args) {
  if (!ACTIONS[args.action]) fail("invalid_input", "action must be point, click, hover or fill", { field: "action" });
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text });
  var el = found.el;
  if (!inFrame(el)) fail("invalid_input", found.ref + " is not inside a frame: act on it with the ordinary primitives", { field: "ref", ref: found.ref });
  var at = points(el);
  var out = { ref: found.ref, action: args.action, x: at.top.x, y: at.top.y };
  if (args.action === "click") click(el, at.local);
  else if (args.action === "hover") hover(el, at.local);
  else if (args.action === "fill") {
    if (typeof args.value !== "string") fail("invalid_input", "fill needs a string value", { field: "value" });
    out.value = fill(el, args.value, found.ref);
  }
  return out;
}

M.inFrame = inFrame;

definePrimitive("refs.frame_act", frameAct);
  })(M, root);

  // ---- observe_files.js ----
  (function (M, root) {
/*
 * observe_files.js — A file input takes files (refs.set_files; page_fill {files}, docs/mcp-surface.md,
 * "Every kind of control").
 *
 * The server reads the files (only from the user's upload roots, dispatch/page_files.py) and sends
 * their bytes base64-encoded; here they become File objects in a DataTransfer of the input's own
 * realm (a same-origin frame's input too), which is assigned to input.files, and input + change
 * fire as when a person picks files in the browser's dialog. The dialog itself never opens.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail;

function isFileInput(el) {
  return M.tagOf(el) === "input" && String(el.type).toLowerCase() === "file";
}

/** What a text may name for an upload: what a person can act on, and the visible labels of file inputs (often hidden themselves). */
function candidates() {
  var labels = M.queryAllDeep("label").filter(function (label) { return isFileInput(label.control || {}) && M.isVisible(label); });
  var listed = M.actionableInOrder();
  // A label whose input is listed itself would be a second match for the same input.
  return listed.concat(labels.filter(function (label) { return listed.indexOf(label) < 0 && listed.indexOf(label.control) < 0; }));
}

function fileOf(win, spec, index) {
  if (!spec || typeof spec.name !== "string" || typeof spec.data !== "string") fail("invalid_input", "each file needs a name and base64 data", { field: "files", index: index });
  var binary;
  try {
    binary = root.atob(spec.data);
  } catch (_notBase64) {
    fail("invalid_input", "a file's data is not base64", { field: "files", index: index });
  }
  var bytes = new Uint8Array(binary.length);
  for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new win.File([bytes], spec.name, { type: typeof spec.type === "string" ? spec.type : "" });
}

function setFiles(args) {
  // A styled upload often hides its input behind a label ("Attach a file"): the label's control is the input.
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text }, { accept: function (el) { return isFileInput(el) || isFileInput(el.control || {}); }, candidates: candidates });
  var el = isFileInput(found.el) ? found.el : found.el.control || found.el;
  if (!isFileInput(el)) fail("target_not_editable", found.ref + " is not a file input", { ref: found.ref, tag: M.tagOf(el) });
  if (el.disabled) fail("target_not_editable", found.ref + " is disabled", { ref: found.ref });
  if (!Array.isArray(args.files) || !args.files.length) fail("invalid_input", "files must be a non-empty list", { field: "files" });
  if (args.files.length > 1 && !el.multiple) fail("invalid_input", found.ref + " takes one file (it has no multiple attribute)", { field: "files", ref: found.ref });
  var win = el.ownerDocument.defaultView;
  if (typeof win.DataTransfer !== "function") fail("capability_unavailable", "this browser cannot build a DataTransfer", { capability: "refs.set_files" });
  var transfer = new win.DataTransfer();
  args.files.forEach(function (spec, index) { transfer.items.add(fileOf(win, spec, index)); });
  el.files = transfer.files;
  el.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new win.Event("change", { bubbles: true }));
  return { ref: found.ref, files: Array.prototype.map.call(el.files, function (f) { return f.name; }) };
}

definePrimitive("refs.set_files", setFiles);
  })(M, root);

  // ---- observe_drag.js ----
  (function (M, root) {
/*
 * observe_drag.js — The two ends of page_drag (refs.drag_resolve; docs/mcp-surface.md, "Every kind
 * of control").
 *
 * Each end is a ref (@e12) or a visible text, resolved like the acting tools' targets
 * (resolveRefOrText: exactly one match, several refused with their refs), but over more
 * candidates: what a person drags is often no control (a draggable list item, a card with a grab
 * cursor) and where it goes is often a list or column known by its heading. So the candidates
 * are what page_observe lists, plus [draggable=true] elements, elements whose own cursor is grab
 * or move, and headings. Both ends are marked (data-mcp-actions-ref) so pointer.drag takes them
 * as locators, on either host (trusted on the Playwright tab, drag.js's events on the page runtime).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail;

var GRAB = { grab: 1, move: 1, "-webkit-grab": 1, "all-scroll": 1 };

function grabbable(el) {
  var cursor = root.getComputedStyle(el).cursor;
  if (!GRAB[cursor]) return false;
  // An own cursor, not the one a child inherits from its card.
  var parent = el.parentElement;
  return !parent || root.getComputedStyle(parent).cursor !== cursor;
}

function dragCandidates() {
  var listed = M.actionableInOrder();
  var more = M.queryAllDeep("[draggable=true], h1, h2, h3, h4, h5, h6, [role=heading], div, li, span, section, article").filter(function (el) {
    if (listed.indexOf(el) >= 0 || !M.isVisible(el)) return false;
    var tag = M.tagOf(el);
    return el.getAttribute("draggable") === "true" || /^h[1-6]$/.test(tag) || el.getAttribute("role") === "heading" || grabbable(el);
  });
  return listed.concat(more);
}

function end(spec, label) {
  if (typeof spec !== "object" || spec === null) fail("invalid_input", label + " must be {ref} or {text}", { field: label });
  var found = M.resolveRefOrText({ ref: spec.ref, text: spec.text }, { candidates: dragCandidates });
  var role = M.candidateRole(found.el);
  var out = { ref: found.ref, role: role, key: found.key, el: found.el };
  var name = M.candidateName(found.el, role);
  if (name) out.name = M.cap(name, 80);
  if (M.inFrame && M.inFrame(found.el)) out.frame = true;
  return out;
}

function dragResolve(args) {
  var from = end(args.from, "from");
  var to = end(args.to, "to");
  if (from.el === to.el) fail("invalid_input", "from and to name the same element (" + from.ref + ")", { field: "to", ref: to.ref });
  var selectors = M.markOnly([from, to]);
  return [from, to].reduce(function (out, e, i) {
    var side = { ref: e.ref, role: e.role, selector: selectors[i] };
    if (e.name) side.name = e.name;
    if (e.frame) side.frame = true;
    out[i ? "to" : "from"] = side;
    return out;
  }, {});
}

definePrimitive("refs.drag_resolve", dragResolve);
  })(M, root);

  // ---- describe.js ----
  (function (M, root) {
/*
 * describe.js — refs.describe: how a person would find an element again, for
 * tools learned from a session (actions_save_tool; docs/mcp-surface.md).
 *
 *   {ref?: "@e3" | focused?: true, watch?: [text]}
 *   -> {element?: {...}, texts?: {text: count}}
 *
 * element: the role, accessible name, label, placeholder, own text, tag and
 * stable attributes (an id unless it looks generated, name, data-testid) of
 * the element, the row, item or section it sits in (`container`: a selector a
 * person would write — li, tr, [role=row], article, .card — and that
 * container's text), and `locator`: the locator a person would write for it
 * (role and name, label, text; never a ref, a position or coordinates) with
 * whether it resolves to this one element now (`unique`). `scoped` is the
 * same locator inside its container ({within: {selector, text_equals}}, the
 * locator form of docs/manifest-language.md), counted the same way; an
 * element no row tells apart is scoped to the section around it, named by its
 * heading ({within: {selector: "section", has: {role: "heading", name}}}). When
 * nothing but position would find the element, `locator` is null and
 * `reason` says why. Describe before acting: a click may remove the element.
 *
 * texts: for each string of `watch` (and the element's row text), how many visible elements show exactly
 * that text (innermost only): read before and after an action, it tells what
 * the action made appear or go (the row that went, the todo that appeared).
 *
 * Counting is done here, not through locators.js, so that a description is
 * judged the same way whatever locator keys the resolver knows.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  tagOf = M.tagOf,
  isVisible = M.isVisible,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  elementText = M.elementText,
  allElementsDeep = M.allElementsDeep,
  queryAllDeep = M.queryAllDeep,
  composedParent = M.composedParent;

var TEXT_CAP = 200;
var WATCH_CAP = 20;
// Rows and items a person names a scope by, nearest first; then sections (see containerOf).
var ROW_TAGS = { li: "li", tr: "tr", article: "article" };
var ROW_ROLES = { row: true, listitem: true, article: true, option: true, treeitem: true, gridcell: false };
var ITEM_CLASSES = ["card", "item", "row", "entry", "todo", "result", "tile"];
// Ids frameworks generate (React's :r1:, Ember's ember123, long numbers or hex): not what a person would write.
var GENERATED_ID = /^[:_]|\d{3,}|[0-9a-f]{8,}|^(ember|react|radix|mui|headlessui|downshift|rc-|yui_)/i;
var NO_FIND = "this click has no name, role or text to find it by";

function cssString(value) {
  return '"' + String(value).replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ") + '"';
}

function cssIdent(value) {
  if (typeof CSS !== "undefined" && typeof CSS.escape === "function") return CSS.escape(value);
  return String(value).replace(/[^a-zA-Z0-9_-]/g, "\\$&");
}

function parentOf(el) {
  return composedParent ? composedParent(el) : el.parentElement;
}

/** The row, item or card an element sits in, as {element, selector}; null when none. */
function rowOf(el) {
  for (var node = parentOf(el), depth = 0; node && node.nodeType === 1 && depth < 12; node = parentOf(node), depth++) {
    var tag = tagOf(node);
    if (tag === "body" || tag === "html") return null;
    var role = normalize(node.getAttribute("role")).split(" ")[0].toLowerCase();
    if (role && ROW_ROLES[role]) return { element: node, selector: "[role=" + role + "]" };
    if (ROW_TAGS[tag]) return { element: node, selector: ROW_TAGS[tag] };
    var classes = String(node.getAttribute("class") || "").split(/\s+/);
    for (var i = 0; i < ITEM_CLASSES.length; i++) {
      if (classes.indexOf(ITEM_CLASSES[i]) >= 0) return { element: node, selector: "." + ITEM_CLASSES[i] };
    }
  }
  return null;
}

// Sections a person names by their heading ("the Save button of the Shipping section"), nearest first.
var SECTION_SELECTORS = ["dialog", "[role=dialog]", "form", "fieldset", "section", "article", "aside", "nav", "[role=region]"];
var HEADING = "h1, h2, h3, h4, h5, h6, [role=heading]";

/** The nearest section around an element that has a visible heading: {element, selector, heading}; null when none. */
function sectionOf(el) {
  for (var node = parentOf(el), depth = 0; node && node.nodeType === 1 && depth < 20; node = parentOf(node), depth++) {
    var tag = tagOf(node);
    if (tag === "body" || tag === "html") return null;
    for (var i = 0; i < SECTION_SELECTORS.length; i++) {
      if (!node.matches(SECTION_SELECTORS[i])) continue;
      var heading = Array.prototype.filter.call(node.querySelectorAll(HEADING), isVisible)[0];
      var text = heading ? elementText(heading) : "";
      if (text && text.length <= TEXT_CAP) return { element: node, selector: SECTION_SELECTORS[i], heading: headingName(text) };
    }
  }
  return null;
}

/**
 * How a person names a section by its heading: the heading, or when it carries a number ("Doing 4 cards",
 * a count that changes as the page is used) its longest run of words without digits ("Doing").
 */
function headingName(text) {
  if (!/\d/.test(text)) return text;
  var best = "", run = [];
  text.split(/\s+/).concat(["0"]).forEach(function (word) {
    if (/\d/.test(word)) {
      var joined = run.join(" ");
      if (joined.length > best.length) best = joined;
      run = [];
    } else run.push(word);
  });
  return best.replace(/[:\s]+$/, "") || text;
}

/**
 * Visible sections (selector) with a heading named `heading`, as the resolver reads
 * {selector, has: {role: "heading", name}}: exact names if any heading has one, else names that contain it.
 */
function sectionsNamed(selector, heading) {
  var sections = visibleWhere(queryAllDeep(selector), function () { return true; });
  function named(test) {
    return sections.filter(function (c) {
      return Array.prototype.some.call(c.querySelectorAll(HEADING), function (h) { return isVisible(h) && test(accessibleName(h, "heading")); });
    });
  }
  var wanted = normalize(heading).toLowerCase();
  var exact = named(function (name) { return normalize(name).toLowerCase() === wanted; });
  if (exact.length) return exact;
  return named(function (name) { return normalize(name).toLowerCase().indexOf(wanted) >= 0; });
}

function visibleWhere(elements, test) {
  // The test first: on a large page most elements fail a role or name test, and isVisible (computed
  // style, layout) is what costs; tested on every element it made one describe take most of a second.
  return elements.filter(function (el) { return test(el) && isVisible(el); });
}

function sameName(a, b) {
  return normalize(a).toLowerCase() === normalize(b).toLowerCase();
}

/** A predicate for the base locator (role+name, role, text_equals, or a stable attribute selector). */
function matcherOf(locator) {
  if (locator.selector) return function (el) { return el.matches(locator.selector); };
  if (locator.role) {
    return function (el) {
      if (roleOf(el) !== locator.role) return false;
      return locator.name === undefined || sameName(accessibleName(el, locator.role), locator.name);
    };
  }
  return function (el) { return elementText(el) === locator.text_equals; };
}

/** Visible elements the base locator matches on the whole page (text_equals: innermost only, as locators.js does). */
function countOnPage(locator) {
  if (locator.selector) return visibleWhere(queryAllDeep(locator.selector), function () { return true; }).length;
  var matches = visibleWhere(allElementsDeep(), matcherOf(locator));
  if (locator.text_equals !== undefined) matches = innermost(matches);
  return matches.length;
}

function innermost(elements) {
  return elements.filter(function (el) {
    for (var i = 0; i < elements.length; i++) if (elements[i] !== el && el.contains(elements[i])) return false;
    return true;
  });
}

/** Visible matches of the base locator inside the scopes (visible rows whose text is exactly `text`, or given sections). */
function countInScope(locator, selector, text, sections) {
  var scopes = sections || visibleWhere(queryAllDeep(selector), function (c) { return elementText(c) === text; });
  var test = matcherOf(locator);
  var found = [];
  scopes.forEach(function (scope) {
    Array.prototype.forEach.call(scope.querySelectorAll("*"), function (el) {
      if (found.indexOf(el) < 0 && isVisible(el) && test(el)) found.push(el);
    });
  });
  if (locator.text_equals !== undefined) found = innermost(found);
  return found.length;
}

function stableAttributes(el) {
  var out = {};
  var id = el.getAttribute("id");
  if (id && !GENERATED_ID.test(id)) out.id = id;
  var name = el.getAttribute("name");
  if (name) out.name = name;
  var testid = el.getAttribute("data-testid");
  if (testid) out["data-testid"] = testid;
  return out;
}

/** The locators a person would write, best first, each {locator, label}. */
function candidatesFor(el, role, name, text, attributes) {
  var out = [];
  if (role && name) out.push({ role: role, name: name });
  if (attributes["data-testid"]) out.push({ selector: "[data-testid=" + cssString(attributes["data-testid"]) + "]" });
  if (attributes.id) out.push({ selector: "#" + cssIdent(attributes.id) });
  if (attributes.name) out.push({ selector: tagOf(el) + "[name=" + cssString(attributes.name) + "]" });
  if (!role && text) out.push({ text_equals: text });
  if (role) out.push({ role: role });
  return out;
}

function describeElement(el) {
  var role = roleOf(el) || null;
  var name = accessibleName(el, role === null ? undefined : role);
  var text = elementText(el);
  var attributes = stableAttributes(el);
  var out = { tag: tagOf(el), role: role, name: cap(name, TEXT_CAP), text: cap(text, TEXT_CAP), attributes: attributes };
  var type = el.getAttribute("type");
  if (type) out.type = type.toLowerCase();
  var labels = el.labels ? Array.prototype.map.call(el.labels, function (l) { return normalize(l.textContent); }).filter(Boolean) : [];
  if (labels.length) out.label = cap(labels.join(" "), TEXT_CAP);
  var placeholder = normalize(el.getAttribute("placeholder"));
  if (placeholder) out.placeholder = placeholder;
  var editable = tagOf(el) === "textarea" || el.isContentEditable || (tagOf(el) === "input" && ["checkbox", "radio", "button", "submit", "reset", "image", "range", "color", "file"].indexOf(String(el.type).toLowerCase()) < 0);
  out.editable = !!editable;
  var row = rowOf(el);
  out.container = row ? { selector: row.selector, text: cap(elementText(row.element), TEXT_CAP) } : null;
  // A long name is a sentence, not a label a person would write again (and is capped above).
  var candidates = candidatesFor(el, role, name.length <= TEXT_CAP ? name : "", text.length <= TEXT_CAP ? text : "", attributes);
  out.locator = null;
  out.unique = false;
  for (var i = 0; i < candidates.length; i++) {
    if (countOnPage(candidates[i]) === 1) {
      out.locator = candidates[i];
      out.unique = true;
      break;
    }
  }
  if (row && candidates.length) {
    // The scope's own locator: the first candidate that finds exactly one element in the row,
    // so "the checkbox of the row 'Buy milk'" needs no name of its own.
    var rowText = elementText(row.element);
    // In a row, its role alone first: "the checkbox of the row X", whatever name the row lends it.
    var inRow = role ? [{ role: role }].concat(candidates) : candidates;
    for (var j = 0; j < inRow.length; j++) {
      if (inRow[j].selector) continue; // an id or attribute needs no row
      if (rowText && rowText.length <= TEXT_CAP && countInScope(inRow[j], row.selector, rowText) === 1) {
        var scoped = {};
        Object.keys(inRow[j]).forEach(function (k) { scoped[k] = inRow[j][k]; });
        scoped.within = { selector: row.selector, text_equals: rowText };
        // A row that carries numbers ("Ship status page #4 3 comments") is named by its words when they
        // alone tell it apart: its counts change as the page is used.
        var words = headingName(rowText);
        if (words !== rowText && words.length >= 3) {
          var having = visibleWhere(queryAllDeep(row.selector), function (c) { return elementText(c).indexOf(words) >= 0; });
          if (countInScope(inRow[j], null, null, having) === 1) scoped.within = { selector: row.selector, has_text: words };
        }
        out.scoped = scoped;
        break;
      }
    }
  }
  if (!out.locator && !out.scoped && candidates.length) {
    // No row tells it apart: the section around it, named by its heading.
    var section = sectionOf(el);
    if (section) {
      var named = sectionsNamed(section.selector, section.heading);
      for (var k = 0; k < candidates.length; k++) {
        if (candidates[k].selector || countInScope(candidates[k], null, null, named) !== 1) continue;
        var inSection = {};
        Object.keys(candidates[k]).forEach(function (key) { inSection[key] = candidates[k][key]; });
        inSection.within = { selector: section.selector, has: { role: "heading", name: section.heading } };
        out.scoped = inSection;
        out.section = { selector: section.selector, heading: section.heading };
        break;
      }
    }
  }
  if (!out.locator && !out.scoped) {
    out.locator = candidates.length ? candidates[0] : null;
    out.reason = candidates.length
      ? "this element has look-alikes that its " + (role ? "role" : "text") + " cannot tell apart, and no row or item around it that does"
      : NO_FIND;
  }
  return out;
}

/** How many visible elements show exactly each text (innermost), found from text nodes (cheap on large pages). */
function countTexts(watch) {
  if (!Array.isArray(watch)) fail("invalid_input", "watch must be an array of strings", { field: "watch" });
  if (watch.length > WATCH_CAP) fail("invalid_input", "at most " + WATCH_CAP + " texts to watch", { field: "watch" });
  var out = {};
  watch.forEach(function (raw) {
    var text = normalize(String(raw));
    if (!text || Object.prototype.hasOwnProperty.call(out, raw)) return;
    var hits = [];
    var walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var piece = normalize(node.nodeValue);
      if (!piece || text.indexOf(piece) < 0) continue;
      // The innermost element whose whole text is the watched text, a few levels up at most.
      for (var el = node.parentElement, depth = 0; el && depth < 4; el = el.parentElement, depth++) {
        var own = elementText(el);
        if (own === text) {
          if (hits.indexOf(el) < 0 && isVisible(el)) hits.push(el);
          break;
        }
        if (own.length > text.length) break;
      }
    }
    out[raw] = innermost(hits).length;
  });
  return out;
}

function elementFor(args) {
  // A call that named its element by text is described through the ref refs.resolve gave that element.
  if (args.ref !== undefined) return M.elementOfRef(args.ref).el;
  if (args.focused === true) {
    var active = document.activeElement;
    if (!active || active === document.body) fail("target_not_found", "no element has the focus", {});
    return active;
  }
  return null;
}

function describeCall(args) {
  var out = {};
  var el = elementFor(args);
  // An element inside a frame is left undescribed: a learned locator searches the top document only (observe_frames.js).
  if (el && !(M.inFrame && M.inFrame(el))) out.element = describeElement(el);
  if (args.watch !== undefined) {
    // The row the element sits in is watched too: whether the action made it go.
    var watch = Array.isArray(args.watch) ? args.watch.slice(0, WATCH_CAP - 1) : args.watch;
    if (out.element && out.element.container && out.element.container.text && Array.isArray(watch)) watch.push(out.element.container.text);
    out.texts = countTexts(watch);
  }
  return out;
}

M.describeElement = describeElement;
M.describeCall = describeCall; // refs.change_mark/change_report's journal counts (observe_changes.js)

definePrimitive("refs.describe", describeCall);
  })(M, root);

  // ---- select.js ----
  (function (M, root) {
/*
 * select.js — locator.select: choose options of the one <select> a locator
 * resolves to, by value or visible label, as refs.select does for a ref.
 * Learned tools (actions_save_tool) repeat a page_select with it: their
 * steps name elements by locators a person would write, never by ref.
 *
 *   {locator, values: [value or label, ...]} -> {selected: [value, ...], matched_by}
 *
 * A single <select> takes the first enabled option that matches; a multiple
 * one every match. input and change events follow, as a user's choice fires them.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf,
  normalize = M.normalize,
  resolveOne = M.resolveOne;

function selectByLocator(args) {
  if (!Array.isArray(args.values) || !args.values.length) fail("invalid_input", "values must be a non-empty array of option values or labels", { field: "values" });
  var resolved = resolveOne(args.locator, true);
  var el = resolved.element;
  if (tagOf(el) !== "select") fail("target_not_editable", "the locator resolves to a <" + tagOf(el) + ">, not a <select>", { tag: tagOf(el), matched_by: resolved.matched_by });
  if (el.disabled) fail("target_not_editable", "the <select> is disabled", { matched_by: resolved.matched_by });
  var wanted = args.values.map(String);
  var matched = [];
  Array.prototype.forEach.call(el.options, function (o) {
    var hit = !o.disabled && (wanted.indexOf(o.value) >= 0 || wanted.indexOf(o.label) >= 0 || wanted.indexOf(normalize(o.textContent)) >= 0);
    if (hit && (el.multiple || matched.length === 0)) matched.push(o);
  });
  if (!matched.length) {
    var options = Array.prototype.map.call(el.options, function (o) { return normalize(o.label || o.textContent); }).slice(0, 20);
    fail("target_not_found", "no enabled option matches " + JSON.stringify(wanted) + "; there are: " + JSON.stringify(options), { values: wanted, candidates: options });
  }
  Array.prototype.forEach.call(el.options, function (o) { o.selected = matched.indexOf(o) >= 0; });
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { selected: matched.map(function (o) { return o.value; }), matched_by: resolved.matched_by };
}

definePrimitive("locator.select", selectByLocator, ["locator", "values"]);
  })(M, root);

  // ---- read_structure.js ----
  (function (M, root) {
/*
 * read_structure.js — What page_read and page_find agree on about a page's
 * structure (docs/mcp-surface.md, "page_read" and "page_find"):
 *
 * - what a reader leaves out (skipReason): hidden (display:none, the hidden
 *   attribute, aria-hidden, content-visibility), visually hidden on purpose
 *   (sr-only clips, a positioned box of at most 1px that clips, a box placed
 *   where no scroll reaches, such as skip links at left:-9999px), zero-size
 *   boxes that clip their content, boxes drawn invisible (opacity 0, a
 *   transform that flattens them, a filter that blanks them: dom.js
 *   drawnInvisible), images of 2px or less, and the engine's own UI; and whose
 *   own text it leaves out while reading its children (textHidden):
 *   visibility:hidden, glyphs of 1px or less, text with no ink or the
 *   colour it sits on, text pushed off by text-indent (dom.js inkHidden), and
 *   text another opaque element covers at its centre (coveredText);
 * - the composed tree a reader walks (childrenOf): a shadow host's open shadow
 *   root instead of its light children, a slot's assigned nodes, and a
 *   same-origin iframe's document (frameDocument);
 * - what counts as one item (isItem): li, listitem, tr, row, and a member of
 *   a run of three or more look-alike siblings (same tag and first class, as
 *   a framework renders 300 cards), so repeated structure reads as one line
 *   per item;
 * - the section an element sits in and its name (sectionName): a named
 *   landmark, section, fieldset or dialog, or the nearest container whose
 *   heading comes before the element.
 */
var tagOf = M.tagOf,
  normalize = M.normalize,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  isHiddenFromEngine = M.isHiddenFromEngine,
  drawnInvisible = M.drawnInvisible,
  inkHidden = M.inkHidden,
  isInteractiveElement = M.isInteractiveElement,
  composedParent = M.composedParent,
  LAUNCHER_HOST_TAG = M.LAUNCHER_HOST_TAG;

// Never content: scripts, styles, templates, and the parts of a <select> its token already says.
var NOT_CONTENT = { script: 1, style: 1, noscript: 1, template: 1, head: 1, meta: 1, link: 1, title: 1, option: 1, optgroup: 1, datalist: 1, param: 1, source: 1, track: 1 };
// Tags never taken as look-alike items: running text repeats its tags without being a list of things.
var NOT_ITEMS = { p: 1, span: 1, br: 1, hr: 1, h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1, pre: 1, blockquote: 1, table: 1, ul: 1, ol: 1, dl: 1, img: 1, svg: 1, form: 1, fieldset: 1, label: 1, input: 1, select: 1, textarea: 1, button: 1, a: 1, tr: 1, td: 1, th: 1, li: 1, option: 1 };
var ITEM_TEXT_CAP = 400; // a look-alike sibling longer than this is prose, not an item
var SECTION_TAGS = { section: 1, article: 1, aside: 1, nav: 1, main: 1, form: 1, fieldset: 1, dialog: 1 };
var SECTION_ROLES = { region: 1, group: 1, dialog: 1, alertdialog: 1, tabpanel: 1, navigation: 1, main: 1, complementary: 1, form: 1, search: 1, list: 1, listbox: 1, menu: 1 };
var HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading], legend";

function styleOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  return view.getComputedStyle(el);
}

// element -> skipReason's answer, for one read or find (withStructure): isReadable asks it of every ancestor.
var skipAnswers = null;

/** Why a reader leaves el (and everything under it) out, or "" when it reads it. */
function skipReason(el, style) {
  var known = skipAnswers ? skipAnswers.get(el) : undefined;
  if (known !== undefined) return known;
  var why = judgeSkip(el, style);
  if (skipAnswers) skipAnswers.set(el, why);
  return why;
}

function judgeSkip(el, style) {
  var tag = tagOf(el);
  if (NOT_CONTENT[tag] || tag === LAUNCHER_HOST_TAG || isHiddenFromEngine(el)) return "not_content";
  if (el.hasAttribute("hidden")) return "hidden";
  if (el.getAttribute("aria-hidden") === "true") return "aria_hidden"; // still seen: page_observe lists its controls
  style = style || styleOf(el);
  if (!style || style.display === "none") return "hidden";
  if (style.contentVisibility === "hidden") return "hidden";
  // Laid out but drawn where no one sees it (issue 41): cheap, the style in hand.
  var drawn = drawnInvisible(el, style);
  if (drawn) return drawn;
  if (tag === "img") {
    // A tracking pixel's alt is no text a person reads.
    var box = el.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2) return "tiny_image";
  }
  if (style.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(style.clipPath || "")) return "visually_hidden";
  var clips = /^(hidden|clip)$/.test(style.overflowX + "") || /^(hidden|clip)$/.test(style.overflowY + "");
  var placed = style.position === "absolute" || style.position === "fixed" || (style.transform && style.transform !== "none");
  if (!clips && !placed) return "";
  var r = el.getBoundingClientRect();
  if (clips && (r.width <= (placed ? 1 : 0) || r.height <= (placed ? 1 : 0))) return "visually_hidden";
  if (placed) {
    var view = el.ownerDocument.defaultView || root;
    // Where no scroll reaches: left of or above the document, or far past its right edge.
    var docWidth = Math.max(el.ownerDocument.documentElement.scrollWidth, view.innerWidth);
    if (r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0 || r.left + view.scrollX >= docWidth + 1000) return "off_screen";
  }
  return "";
}

/** Whether a reader reads el: neither it nor an ancestor (up through frames) is left out. */
function isReadable(el) {
  for (var node = el; node; ) {
    if (node.nodeType === 1 && skipReason(node)) return false;
    if (node.nodeType === 1 && node !== el && tagOf(node) === "details" && !node.open && !isSummaryOf(el, node)) return false;
    var parent = composedParent(node);
    if (!parent && node.ownerDocument && node.ownerDocument.defaultView && node.ownerDocument !== document) {
      parent = frameElementOf(node.ownerDocument);
    }
    node = parent;
  }
  return !textHidden(el, styleOf(el));
}

/** Whether el has text of its own (a text node child with more than spaces): the only text textHidden hides. */
function hasOwnText(el) {
  for (var n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && /\S/.test(n.nodeValue)) return true;
  return false;
}

/**
 * Why el's own text is not read though its children may be (see the module comment), or "".
 * visibility:hidden, then the ink tests on the style in hand, then the costly covered test last.
 */
function textHidden(el, style) {
  if (!style) return "";
  if (style.visibility === "hidden" || style.visibility === "collapse") return "visibility_hidden";
  var own = hasOwnText(el);
  // A control is judged by its own style when its name is its text, in a child or not (a link whose
  // span inherits its font-size 0); one with no text at all (an icon) has no ink to judge.
  if (!own && !(isInteractiveElement(el) && /\S/.test(el.textContent || ""))) return "";
  return inkHidden(el, style) || (own ? coveredText(el, style) : "");
}

/**
 * Whether another element covers el's text: the element hit at the centre of el's first box is
 * neither el, inside el, nor a see-through box, but something opaque on top of it (or an opaque
 * ancestor el is drawn behind, by a negative z-index). A cheap test: one point, and only where the
 * hit test can see it (in the top document's viewport); text partly covered, or covered below the
 * fold, is read (docs/threat-model.md, "Hidden text").
 */
function coveredText(el, style) {
  if (el.ownerDocument !== document || style.pointerEvents === "none") return "";
  var rects = el.getClientRects();
  if (!rects.length) return "";
  var r = rects[0];
  var x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (!(x >= 0 && y >= 0 && x < root.innerWidth && y < root.innerHeight)) return "";
  var hit = M.elementFromPointDeep(x, y);
  if (!hit || hit === el || M.isWithin(hit, el)) return "";
  for (var n = hit; n && n.nodeType === 1; n = composedParent(n)) {
    var holds = M.isWithin(el, n); // n is an ancestor of el
    if (holds && n !== hit) return ""; // the hit was a see-through box over el's own ancestor
    if (M.opaqueAt(n)) return "covered";
    if (holds) return "";
  }
  return "";
}

/**
 * Why page_observe leaves out an element a click would reach (dom.js isVisible holds): what a reader
 * leaves out, it or an ancestor (skipReason), but aria-hidden, which a sighted person still sees; or its
 * name is its text and that text has no ink (inkHidden). Not the covered test: a covered control is
 * listed, and a click on it says it went to what was on top.
 */
function unseen(el) {
  for (var node = el; node && node.nodeType === 1; node = composedParent(node)) {
    var why = skipReason(node);
    if (why && why !== "aria_hidden" && why !== "not_content") return why;
  }
  return /\S/.test(el.textContent || "") ? inkHidden(el, styleOf(el)) : "";
}

/**
 * The text of el a reader reads (the document order of its text nodes, spaced), without what
 * skipReason leaves out or textHidden hides: what page_find matches and quotes, and the context
 * page_observe and page_find give.
 */
function visibleText(el) {
  var parts = [];
  (function walk(node) {
    var nodes = childrenOf(node);
    var hidden = null;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.nodeType === 3) {
        if (hidden === null) hidden = node.nodeType === 1 && !!textHidden(node, styleOf(node));
        if (!hidden) parts.push(n.nodeValue);
      } else if (n.nodeType === 1 && !skipReason(n)) {
        // Blocks apart, inline boxes run on ("$<b>5</b>" is "$5"), as innerText says them.
        var inline = /^inline/.test(styleOf(n).display);
        if (!inline) parts.push(" ");
        walk(n);
        if (!inline) parts.push(" ");
      }
    }
  })(el);
  return normalize(parts.join(""));
}

function isSummaryOf(el, details) {
  var summary = details.querySelector(":scope > summary");
  return !!summary && (summary === el || summary.contains(el));
}

function frameElementOf(doc) {
  try {
    return doc.defaultView.frameElement;
  } catch (_crossOrigin) {
    return null;
  }
}

/** A same-origin iframe's document (with a body), or null for a cross-origin or empty frame. */
function frameDocument(frame) {
  try {
    var doc = frame.contentDocument;
    return doc && doc.body ? doc : null;
  } catch (_crossOrigin) {
    return null;
  }
}

/** The child nodes a reader walks, in the composed tree (see the module comment). */
function childrenOf(el) {
  if (el.shadowRoot && el.shadowRoot.mode === "open") return el.shadowRoot.childNodes;
  if (tagOf(el) === "slot" && typeof el.assignedNodes === "function") {
    var assigned = el.assignedNodes({ flatten: true });
    if (assigned.length) return assigned;
  }
  return el.childNodes;
}

function signature(el) {
  return tagOf(el) + "." + String(el.getAttribute("class") || "").trim().split(/\s+/)[0];
}

// parent -> {signature: count}, for one read or find (structureCache): without it, 3,000
// look-alike siblings would each count the other 2,999.
var runCounts = null;
// element -> isItem's answer, for one read or find: page_find asks it of the same columns for every card.
var itemAnswers = null;

/**
 * fn() with these caches held for its duration only (a read, a find, an observation): the page
 * may change between two calls, so no answer outlives the call that computed it.
 */
function withStructure(fn) {
  runCounts = typeof WeakMap === "function" ? new WeakMap() : null;
  itemAnswers = typeof WeakMap === "function" ? new WeakMap() : null;
  skipAnswers = typeof WeakMap === "function" ? new WeakMap() : null;
  try {
    return M.withInkCache(fn);
  } finally {
    runCounts = null;
    itemAnswers = null;
    skipAnswers = null;
  }
}

function runLength(el) {
  // How many siblings (counting el) share el's signature, among its parent's element children.
  var parent = el.parentNode;
  if (!parent) return 1;
  var counts = runCounts ? runCounts.get(parent) : undefined;
  if (!counts) {
    counts = {};
    for (var c = parent.firstElementChild; c; c = c.nextElementSibling) {
      var key = signature(c);
      counts[key] = (Object.prototype.hasOwnProperty.call(counts, key) ? counts[key] : 0) + 1;
    }
    if (runCounts) runCounts.set(parent, counts);
  }
  return counts[signature(el)];
}

/** Whether el is one item of a list or of rows (see the module comment). */
function isItem(el) {
  var known = itemAnswers ? itemAnswers.get(el) : undefined;
  if (known !== undefined) return known;
  var answer = judgeItem(el);
  if (itemAnswers) itemAnswers.set(el, answer);
  return answer;
}

function judgeItem(el) {
  var tag = tagOf(el), role = roleOf(el);
  if (tag === "li" || role === "listitem" || role === "row" || role === "option") return true;
  // Cards are often <article>s; a role other than that says the element is something else.
  if (tag === "tr" || NOT_ITEMS[tag] || (role && role !== "article") || !el.firstElementChild || isInteractiveElement(el)) return false;
  // The run's test first: it is counted once per parent, where the text length is a long string for a column.
  return runLength(el) >= 3 && !runHoldsItems(el) && (el.textContent || "").length <= ITEM_TEXT_CAP;
}

/** Whether any sibling of el's run holds items: then all are columns (one with a single card is too). */
function runHoldsItems(el) {
  var parent = el.parentNode, sig = signature(el);
  var known = runCounts ? runCounts.get(parent) : null;
  var key = "holds:" + sig;
  if (known && Object.prototype.hasOwnProperty.call(known, key)) return known[key];
  var holds = false;
  for (var c = parent.firstElementChild; c && !holds; c = c.nextElementSibling) if (signature(c) === sig && holdsItems(c)) holds = true;
  if (known) known[key] = holds;
  return holds;
}

var CONTROLS = "a[href], button, input, select, textarea, [role=button], [role=link], [tabindex]";

/**
 * Whether el holds items of its own (a list, a table, or two look-alike children with controls in
 * them): then it is a column or a group, not one item, however few things it holds yet.
 */
function holdsItems(el) {
  if (el.querySelector("ul, ol, table, [role=list], [role=listbox], [role=grid], [role=table]")) return true;
  var inner = el.querySelectorAll("*");
  for (var i = 0; i < inner.length; i++) {
    var seen = {};
    for (var c = inner[i].firstElementChild; c; c = c.nextElementSibling) {
      if (c.matches(CONTROLS) || !c.querySelector(CONTROLS)) continue;
      var key = signature(c);
      if (seen[key]) return true;
      seen[key] = true;
    }
  }
  return false;
}

/** The nearest item el sits in (el itself when it is one), up to a section; null when none. */
function itemOf(el) {
  for (var node = el; node && node.nodeType === 1; node = composedParent(node)) {
    if (tagOf(node) === "body" || SECTION_TAGS[tagOf(node)]) return null;
    if (isItem(node)) return node;
  }
  return null;
}

function headingBefore(container, headings, el) {
  // The last of container's headings that comes before el (or holds it), skipping the titles of items (a card's own heading).
  var found = null;
  for (var i = 0; i < headings.length; i++) {
    var h = headings[i];
    if (h === el || h.contains(el)) return h;
    // eslint-disable-next-line no-bitwise
    if (!(h.compareDocumentPosition(el) & 4)) break; // this heading comes after el: the search ends
    var item = itemOf(h);
    if (!item || item === container || !container.contains(item)) found = h;
  }
  return found;
}

/**
 * The name of the section el sits in (the nearest one that has a name), or "" when none has one.
 * cache (a Map, for one search) keeps what does not depend on el: a section's own name, or that a
 * container has no heading at all.
 */
function sectionName(el, cache) {
  for (var node = composedParent(el); node && node.nodeType === 1; node = composedParent(node)) {
    var tag = tagOf(node);
    if (tag === "html") {
      // Out of a frame's document: on through its iframe, which its title names.
      var frame = node.ownerDocument === document ? null : frameElementOf(node.ownerDocument);
      if (!frame) break;
      var title = normalize(frame.getAttribute("title"));
      if (title) return title;
      node = frame;
      continue;
    }
    var known = cache ? cache.get(node) : undefined;
    if (known === undefined) {
      var role = roleOf(node);
      var labelled = SECTION_TAGS[tag] || SECTION_ROLES[role] ? accessibleName(node, role) : "";
      // The top document's body is left out: its first heading (the page's title) tells no element from another.
      var topBody = tag === "body" && node.ownerDocument === document;
      // Its headings are listed once per search: 3,000 cards in one column would each list them again.
      known = labelled ? { name: labelled } : { name: "", headings: topBody ? [] : Array.prototype.slice.call(node.querySelectorAll(HEADINGS)) };
      if (cache) cache.set(node, known);
    }
    if (known.name) return known.name;
    if (known.headings.length) {
      var heading = headingBefore(node, known.headings, el);
      // The heading's words a person reads (a hidden span in it names nothing).
      var said = heading ? visibleText(heading) : "";
      if (said) return said;
    }
  }
  return "";
}

M.withStructure = withStructure;
M.styleOf = styleOf;
M.skipReason = skipReason;
M.textHidden = textHidden;
M.visibleText = visibleText;
M.unseen = unseen;
M.isReadable = isReadable;
M.frameDocument = frameDocument;
M.childrenOf = childrenOf;
M.isItem = isItem;
M.itemOf = itemOf;
M.sectionName = sectionName;
  })(M, root);

  // ---- read_cursor.js ----
  (function (M, root) {
/*
 * read_cursor.js — page_read's byte budget and cursor (read.js): a text is cut
 * at a line end when a whole line fits, inside the line (on a code point
 * boundary) when even one does not, and a cursor "<scope>.<offset>" names the
 * character offset where the next part starts ("p" for the whole page, "e12"
 * for the part under @e12). docs/mcp-surface.md, "page_read".
 */
var fail = M.fail;

var encoder = typeof TextEncoder === "function" ? new TextEncoder() : null;
function utf8Length(text) {
  return encoder ? encoder.encode(text).length : unescape(encodeURIComponent(text)).length;
}

function parseCursor(cursor) {
  var m = typeof cursor === "string" ? /^(p|e[0-9]+)\.([0-9]{1,9})$/.exec(cursor) : null;
  if (!m) fail("invalid_input", "cursor must be one a previous page_read answered", { field: "cursor" });
  return { scope: m[1], offset: Number(m[2]) };
}

/** The part of text from start that fits in room bytes: {end, next} (next: where the following part starts). */
function cutText(text, start, room) {
  var used = 0, pos = start, fit = -1;
  // Whole lines while they fit.
  for (;;) {
    var nl = text.indexOf("\n", pos);
    var lineEnd = nl < 0 ? text.length : nl;
    var size = utf8Length(text.slice(pos, lineEnd)) + (fit < 0 ? 0 : 1);
    if (used + size > room) break;
    used += size;
    fit = lineEnd;
    if (nl < 0) break;
    pos = nl + 1;
  }
  if (fit > start) return { end: fit, next: fit < text.length ? fit + 1 : fit }; // the newline is between parts
  // One line longer than the budget: cut inside it, on a code point boundary.
  var piece = "";
  var chars = Array.from(text.slice(start, start + room));
  for (var i = 0; i < chars.length && utf8Length(piece + chars[i]) <= room; i++) piece += chars[i];
  var end = start + Math.max(piece.length, 1);
  return { end: end, next: end };
}

M.utf8Length = utf8Length;
M.parseCursor = parseCursor;
M.cutText = cutText;
  })(M, root);

  // ---- read_tokens.js ----
  (function (M, root) {
/*
 * read_tokens.js — How page_read says one interactive element (read.js): a
 * token [role "name" @eN state], with the ref page_observe gives it
 * (observe_refs.js refFor) and its state: the value (= "bob"; a password is
 * "••••"), checked, mixed, selected, pressed, expanded or collapsed, disabled.
 * docs/mcp-surface.md, "page_read".
 */
var cap = M.cap,
  normalize = M.normalize,
  tagOf = M.tagOf,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  isEnabled = M.isEnabled,
  refFor = M.refFor,
  quote = M.quote; // page text quoted, never read as the product's own tokens (core.js pageText)

var NAME_CAP = 80;
var VALUE_CAP = 120;

function stateOf(el, role) {
  var tag = tagOf(el), type = String(el.type || "").toLowerCase(), out = "";
  if (tag === "select") {
    var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.label || o.value; });
    if (chosen.length) out += " = " + quote(cap(chosen.join(", "), VALUE_CAP));
  } else if (tag === "input" && (type === "checkbox" || type === "radio")) {
    if (el.checked) out += " checked";
  } else if (tag === "input" || tag === "textarea") {
    var value = type === "password" ? (el.value ? "••••" : "") : String(el.value == null ? "" : el.value);
    if (value && type !== "submit" && type !== "button" && type !== "reset" && type !== "image") out += " = " + quote(cap(value.replace(/\s+/g, " "), VALUE_CAP));
  } else if (el.isContentEditable) {
    var text = normalize(el.innerText);
    if (text) out += " = " + quote(cap(text, VALUE_CAP));
  }
  var checked = el.getAttribute("aria-checked");
  if (checked === "true") out += " checked";
  else if (checked === "mixed") out += " mixed";
  if (el.getAttribute("aria-selected") === "true") out += " selected";
  if (el.getAttribute("aria-pressed") === "true") out += " pressed";
  var expanded = tag === "summary" && el.parentElement && tagOf(el.parentElement) === "details" ? String(el.parentElement.open) : el.getAttribute("aria-expanded");
  if (expanded === "true") out += " expanded";
  else if (expanded === "false") out += " collapsed";
  if (!isEnabled(el)) out += " disabled";
  return out;
}

/** The token of el; named false: a container's token, named only by its aria-label (its content is read after it). */
function token(el, named) {
  // The role and name page_observe gives it ("clickable" for a div a handler or cursor makes one).
  var role = candidateRole(el);
  var name = named ? cap(candidateName(el, role), NAME_CAP) : normalize(el.getAttribute("aria-label"));
  return "[" + role + (name ? " " + quote(name) : "") + " " + refFor(el) + stateOf(el, role) + "]";
}

M.token = token;
  })(M, root);

  // ---- read.js ----
  (function (M, root) {
/*
 * read.js — refs.read (the page_read tool): the page, or the part under a ref,
 * as compact text in reading order (docs/mcp-surface.md, "page_read").
 *
 * One line per block: "# h1" / "## h2" headings, "- " list items (nested
 * lists indented two spaces), "| a | b |" table rows (a header row once),
 * "[dialog "Name"]" ... "[/dialog]", "[navigation "Name"]" and the other
 * landmarks, "[frame "Title"]" ... "[/frame]" for a same-origin iframe's
 * document, and paragraphs of text. Each interactive element is one token
 * inline, with the ref page_observe gives it (observe_refs.js refFor):
 * [textbox "Username" @e3 = "bob"], [checkbox "Done" @e7 checked],
 * [link "Home" @e1]. An item (read_structure.js isItem: li, row, or one of
 * three or more look-alike siblings) is one line whatever its markup, so 300
 * cards read as 300 short lines of their own text and refs. What a reader
 * leaves out is read_structure.js skipReason's.
 *
 * The text is cut at max_bytes (UTF-8, the answer's trailer included) at a
 * line end when one fits; the cursor "<scope>.<offset>" continues at that
 * character offset of the same text read again.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  tagOf = M.tagOf,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  refFor = M.refFor,
  isInteractiveElement = M.isInteractiveElement,
  elementOfRef = M.elementOfRef,
  styleOf = M.styleOf,
  skipReason = M.skipReason,
  textHidden = M.textHidden,
  frameDocument = M.frameDocument,
  childrenOf = M.childrenOf,
  isItem = M.isItem,
  isReadable = M.isReadable,
  quote = M.quote,
  pageText = M.pageText,
  token = M.token,
  withStructure = M.withStructure,
  utf8Length = M.utf8Length,
  parseCursor = M.parseCursor,
  cutText = M.cutText;

var NAME_CAP = 80;
var DEFAULT_BYTES = 8000;
// A long list (more items than COLLAPSE_AT) inside what is read shows its first SHOWN items and
// the ref that reads it all: a page of 3,000 cards reads as its outline, not as 3,000 lines.
var COLLAPSE_AT = 30;
var SHOWN = 20;
// Bytes kept free for the trailer the page_read tool adds when it cuts (dispatch/read_tools.py).
var TRAILER_BYTES = 96;
var LANDMARKS = { navigation: 1, main: 1, complementary: 1, banner: 1, contentinfo: 1, search: 1, form: 1, region: 1 };
var DIALOGS = { dialog: 1, alertdialog: 1 };
var LISTS = { list: 1, menu: 1, listbox: 1, tablist: 1, tree: 1, menubar: 1 };
// Interactive elements whose content is their name: never read inside.
var LEAVES = { a: 1, button: 1, input: 1, select: 1, textarea: 1, summary: 1 };
// Boxes that sit on the line (inline-block and the like stay on it, spaced apart).
var ON_THE_LINE = /^(inline|contents|inline-block|inline-flex|inline-grid|inline-table)$/;

// -- the writer: lines, and the inline buffer of the current one -------------

function Writer() {
  this.lines = [];
  this.buf = "";
  this.pad = false; // a block boundary was crossed: the next text starts after a space
  this.inline = 0; // inside a heading, cell or item title: everything stays on the line
  this.item = false; // inside an item: block boundaries stay on the line, nested lists do not
  this.indent = "";
  this.marker = "";
  this.mute = 0; // inside a label its control's token names: its text is said there
  this.scope = null; // the element read: its own items are all said, however many
}

Writer.prototype.put = function (text) {
  if (!text) return;
  if (this.pad && this.buf && !/ $/.test(this.buf) && !/^ /.test(text)) this.buf += " ";
  this.pad = false;
  this.buf += this.buf === "" || / $/.test(this.buf) ? text.replace(/^ /, "") : text;
};

/** A block boundary: a new line, or a space inside a line that must stay one. */
Writer.prototype.soft = function () {
  if (this.inline || this.item) this.pad = true;
  else this.flush();
};

/** End the current line (unless inside a heading or cell, where nothing may break the line). */
Writer.prototype.flush = function () {
  if (this.inline) {
    this.pad = true;
    return;
  }
  var line = this.buf.replace(/ +$/, "");
  this.buf = "";
  this.pad = false;
  if (!line) return;
  this.lines.push(this.indent + this.marker + line);
  if (this.marker) this.marker = "  "; // an item's next lines (after a nested list) line up under its text
};

Writer.prototype.line = function (text) {
  this.flush();
  if (!this.inline) this.lines.push(this.indent + text);
  else this.put(text);
};

/** The text fn writes, on one line (a heading's, a cell's). */
Writer.prototype.capture = function (fn) {
  var saved = [this.buf, this.pad];
  this.buf = "";
  this.pad = false;
  this.inline += 1;
  fn();
  this.inline -= 1;
  var text = this.buf.replace(/ +$/, "");
  this.buf = saved[0];
  this.pad = saved[1];
  return text;
};

// -- walking -------------------------------------------------------------------

function walkChildren(w, el, hidden) {
  var nodes = childrenOf(el);
  var shown = el === w.scope || nodes.length <= COLLAPSE_AT ? -1 : SHOWN, items = 0, more = 0;
  for (var i = 0; i < nodes.length; i++) {
    var n = nodes[i];
    if (n.nodeType === 3) {
      // The page's words: never read as a token of ours (core.js pageText), never a line of their own.
      if (!hidden && !w.mute) w.put(pageText(n.nodeValue).replace(/\s+/g, " "));
    } else if (n.nodeType === 1) {
      if (shown >= 0 && isItem(n) && !skipReason(n)) {
        items += 1;
        if (items > shown) {
          more += 1;
          continue;
        }
      }
      walk(w, n);
    }
  }
  if (more > 0 && items > COLLAPSE_AT) {
    w.flush();
    w.lines.push(w.indent + "- … " + more + " more: page_read {\"ref\":\"" + refFor(el) + "\"}");
  } else if (more > 0) {
    // Few enough after all (the children were mostly not items): read the ones held back.
    for (var j = 0, seen = 0; j < nodes.length; j++) {
      if (nodes[j].nodeType === 1 && isItem(nodes[j]) && !skipReason(nodes[j]) && ++seen > shown) walk(w, nodes[j]);
    }
  }
}

function walk(w, el) {
  var style = styleOf(el);
  if (skipReason(el, style)) return;
  var tag = tagOf(el), role = roleOf(el);
  // visibility:hidden, no ink, glyphs too small, text pushed or covered away (read_structure.js textHidden)
  // hide el's own text and token; a child may still be drawn where it shows.
  var hidden = !!textHidden(el, style);
  var block = !ON_THE_LINE.test(style.display);
  var spaced = !block && style.display !== "inline" && style.display !== "contents";
  if (block) w.soft();
  else if (spaced) w.pad = true;
  if (tag === "iframe" || tag === "frame") frame(w, el);
  else if (isInteractiveElement(el) && !hidden) interactive(w, el, tag, style);
  else if (tag === "img" || role === "img") image(w, el, role);
  else if (tag === "svg" || tag === "canvas") return; // drawings without a name are decoration
  else if (tag === "br" || tag === "hr") w.soft();
  else if (role === "heading" && !w.item && !w.inline) heading(w, el, hidden);
  else if (tag === "label" && namesItsControl(el)) muted(w, el, hidden);
  else if (w.inline) walkChildren(w, el, hidden);
  else if (tag === "table" || role === "table" || role === "grid" || role === "treegrid") table(w, el);
  else if (tag === "tr" || role === "row") row(w, el);
  else if (LISTS[role] || tag === "ul" || tag === "ol" || tag === "menu") list(w, el, hidden);
  else if (isItem(el)) item(w, el, hidden);
  else if (DIALOGS[role] && (tag !== "dialog" || el.open)) dialog(w, el, role, hidden);
  else if (tag === "details" && !el.open) details(w, el);
  else if (LANDMARKS[role] && !w.item) landmark(w, el, role, hidden);
  else walkChildren(w, el, hidden);
  if (block) w.soft();
  else if (spaced) w.pad = true;
}

function interactive(w, el, tag, style) {
  var r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0) && style.display !== "contents") return; // nothing there to click
  // A control, or a small clickable whose text is its name: one token. A larger one (a clickable card,
  // a focusable panel) or one with controls inside: its token, then its content read as usual.
  var small = (el.textContent || "").length <= NAME_CAP;
  if (LEAVES[tag] || (small && !el.querySelector("a[href], button, input, select, textarea, [role], [tabindex]"))) {
    w.put(token(el, true));
    return;
  }
  // A focusable container (a listbox, a card with tabindex): its own token, then what it holds.
  w.put(token(el, false));
  w.soft();
  walkChildren(w, el, false);
}

/** Whether the control a <label> names reads as a token, which says the label's text already. */
function namesItsControl(label) {
  var control = label.control;
  if (!control || !isInteractiveElement(control) || !isReadable(control)) return false;
  var r = control.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/** el's tokens without its text (a label whose control's token carries it). */
function muted(w, el, hidden) {
  w.mute += 1;
  walkChildren(w, el, hidden);
  w.mute -= 1;
}

function image(w, el, role) {
  if (w.mute) return;
  var name = accessibleName(el, role);
  if (name && role !== "presentation" && role !== "none") w.put("[img " + quote(cap(name, NAME_CAP)) + "]");
}

function heading(w, el, hidden) {
  var level = Number(el.getAttribute("aria-level")) || Number(tagOf(el).slice(1)) || 2;
  var text = w.capture(function () { walkChildren(w, el, hidden); });
  if (text) w.line(new Array(Math.min(level, 6) + 1).join("#") + " " + text);
}

function frame(w, el) {
  var title = M.normalize(el.getAttribute("title") || el.getAttribute("name") || "");
  var doc = frameDocument(el);
  if (!doc) {
    var src = "", attr = el.getAttribute("src");
    try {
      if (attr) src = new URL(attr, el.ownerDocument.baseURI).origin;
    } catch (_bad) { /* not a URL: say nothing of where it points */ }
    w.line("[frame" + (title ? " " + quote(title) : "") + (src && src !== "null" ? " " + src : "") + " (another site's, not read)]");
    return;
  }
  w.line("[frame" + (title ? " " + quote(title) : "") + "]");
  walk(w, doc.body);
  w.line("[/frame]");
}

function list(w, el, hidden) {
  var saved = [w.indent, w.marker, w.item];
  w.flush();
  if (w.item) w.indent += "  "; // a list nested in an item
  w.marker = "";
  w.item = false;
  walkChildren(w, el, hidden);
  w.flush();
  w.indent = saved[0];
  w.marker = saved[1];
  w.item = saved[2];
}

function item(w, el, hidden) {
  var saved = [w.indent, w.marker, w.item];
  w.flush();
  if (saved[2]) w.indent += "  "; // an item directly inside another (look-alikes within a card)
  w.marker = "- ";
  w.item = true;
  walkChildren(w, el, hidden);
  w.flush();
  w.indent = saved[0];
  w.marker = saved[1];
  w.item = saved[2];
}

function cells(w, rowEl) {
  var out = [];
  (function collect(parent) {
    var nodes = childrenOf(parent);
    for (var i = 0; i < nodes.length; i++) {
      var c = nodes[i];
      if (c.nodeType !== 1 || skipReason(c)) continue;
      var tag = tagOf(c), role = roleOf(c);
      if (tag === "td" || tag === "th" || /^(cell|gridcell|columnheader|rowheader)$/.test(role || "")) {
        out.push({ text: w.capture(function () { walkChildren(w, c, false); }).replace(/\|/g, "\\|"), header: tag === "th" || role === "columnheader" });
      } else {
        collect(c); // a wrapper between a row and its cells
      }
    }
  })(rowEl);
  return out;
}

function rowLine(w, rowEl) {
  var found = cells(w, rowEl);
  if (!found.length) return null;
  return { line: "| " + found.map(function (c) { return c.text; }).join(" | ") + " |", header: found.every(function (c) { return c.header; }) };
}

function row(w, el) {
  var r = rowLine(w, el);
  if (r) w.line(r.line);
}

function table(w, el) {
  w.flush();
  var name = accessibleName(el, "table");
  if (name) w.line("[table " + quote(cap(name, NAME_CAP)) + "]");
  var rows = [];
  (function collect(parent) {
    var nodes = childrenOf(parent);
    for (var i = 0; i < nodes.length; i++) {
      var c = nodes[i];
      if (c.nodeType !== 1 || skipReason(c) || tagOf(c) === "caption") continue;
      if (tagOf(c) === "tr" || roleOf(c) === "row") rows.push(c);
      else collect(c); // thead, tbody, tfoot, rowgroups
    }
  })(el);
  // A long table inside what is read shows its header and first rows, like a long list (walkChildren).
  var shown = el === w.scope || rows.length <= COLLAPSE_AT ? rows.length : SHOWN + 1;
  var header = null;
  for (var i = 0; i < shown; i++) {
    var r = rowLine(w, rows[i]);
    if (!r) continue;
    if (i === 0 && r.header) header = r.line;
    else if (header !== null && r.line === header) continue; // a header repeated in the body is said once
    w.line(r.line);
  }
  if (shown < rows.length) w.line("| … " + (rows.length - shown) + " more rows: page_read {\"ref\":\"" + refFor(el) + "\"} |");
}

function dialog(w, el, role, hidden) {
  var name = accessibleName(el, role);
  var modal = el.getAttribute("aria-modal") === "true" || (typeof el.matches === "function" && safeMatches(el, ":modal"));
  w.line("[" + role + (name ? " " + quote(cap(name, NAME_CAP)) : "") + (modal ? " modal" : "") + "]");
  walkChildren(w, el, hidden);
  w.line("[/" + role + "]");
}

function safeMatches(el, selector) {
  try {
    return el.matches(selector);
  } catch (_unsupported) {
    return false;
  }
}

function details(w, el) {
  var summary = el.querySelector(":scope > summary");
  if (summary) walk(w, summary);
}

function landmark(w, el, role, hidden) {
  var name = accessibleName(el, role);
  // An unnamed form or region says nothing a reader needs, nor one its own heading names (said next).
  var first = role === "form" || role === "region" ? el.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]") : null;
  if (first && name && M.normalize(first.textContent).indexOf(name) === 0) name = "";
  if (name || (role !== "form" && role !== "region")) w.line("[" + role + (name ? " " + quote(cap(name, NAME_CAP)) : "") + "]");
  walkChildren(w, el, hidden);
}

/** The lines of el (the body for the whole page), as page_read reads them. */
function readLines(el) {
  return withStructure(function () {
    var w = new Writer();
    w.scope = el;
    walk(w, el);
    w.flush();
    return w.lines;
  });
}

// -- the primitive ----------------------------------------------------------------

function read(args) {
  var maxBytes = args.max_bytes === undefined ? DEFAULT_BYTES : args.max_bytes;
  if (typeof maxBytes !== "number" || !(maxBytes >= 256) || maxBytes > 1000000) fail("invalid_input", "max_bytes must be a number from 256 to 1000000", { field: "max_bytes" });
  var position = args.cursor === undefined ? null : parseCursor(args.cursor);
  var ref = args.ref === undefined ? null : args.ref;
  // A cursor carries its scope; a ref given beside it must be the same one.
  if (position && ref !== null && "@" + position.scope !== (String(ref).charAt(0) === "@" ? ref : "@" + ref)) {
    fail("invalid_input", "this cursor continues another read (give the same ref as the read that answered it)", { field: "cursor" });
  }
  if (ref === null && position && position.scope !== "p") ref = "@" + position.scope;
  var scope = ref === null ? document.body : elementOfRef(ref).el;
  var text = scope ? readLines(scope).join("\n") : "";
  var start = position ? Math.min(position.offset, text.length) : 0;
  var out = { text: text.slice(start), offset: start };
  if (utf8Length(out.text) <= maxBytes) return out;
  var part = cutText(text, start, maxBytes - TRAILER_BYTES);
  out.text = text.slice(start, part.end);
  out.cursor = (ref === null ? "p" : refFor(scope).slice(1)) + "." + part.next;
  out.rest_bytes = utf8Length(text.slice(part.next));
  return out;
}

M.readLines = readLines;

definePrimitive("refs.read", read);
  })(M, root);

  // ---- find.js ----
  (function (M, root) {
/*
 * find.js — refs.find (the page_find tool): the elements that match a text, a
 * role or a name, each {ref, role, name, context} (docs/mcp-surface.md,
 * "page_find"). Refs are page_observe's (observe_refs.js refFor).
 *
 * Candidates: the interactive elements and headings a reader reads
 * (read_structure.js isReadable), or, given a role, every readable element of
 * that role (a list, a row, a dialog: page_read {ref} then reads it).
 * Searched: the document, its open shadow roots and its same-origin frames.
 * Case-insensitive substrings: `name` matches the accessible name; `text`
 * matches the name, the element's own text, the text of the item or row it
 * sits in, or the name of its section (so {text: "Doing", name: "Add a card"}
 * is the Doing list's button). Exact matches come first, then name matches,
 * then matches by the item's text, then by the section's name; document order
 * breaks ties. context: the section's name and the item's text (when they
 * differ from the element's name), short.
 *
 * Text that is neither a control nor a heading (a sentence of an article, a
 * cell) is found too: `role: "paragraph"` takes <p> elements (ARIA's implicit
 * role of <p>, which roleOf leaves out), and a `text` query that matches no
 * control or heading falls back to the innermost text blocks holding it (TEXT_BLOCKS).
 * A text block's name is the words around the match, so the answer shows it.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  tagOf = M.tagOf,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  queryAllDeep = M.queryAllDeep,
  refFor = M.refFor,
  isInteractiveElement = M.isInteractiveElement,
  isReadable = M.isReadable,
  frameDocument = M.frameDocument,
  itemOf = M.itemOf,
  sectionName = M.sectionName,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  withStructure = M.withStructure,
  visibleText = M.visibleText,
  skipReason = M.skipReason,
  textHidden = M.textHidden,
  styleOf = M.styleOf;

var NAME_CAP = 80;
var CONTEXT_CAP = 100;
var ITEM_CAP = 60;
var DEFAULT_RESULTS = 20;
var SNIPPET_BEFORE = 24;
// Blocks of running text a reader reads, searched when a text query finds no control or heading.
var TEXT_BLOCKS = { p: true, li: true, dd: true, dt: true, td: true, th: true, blockquote: true, figcaption: true, pre: true, caption: true };

/** Every element of the document, its open shadow roots and its same-origin frames, in order. */
function allElements(doc) {
  var out = [];
  var found = queryAllDeep("*", doc);
  for (var i = 0; i < found.length; i++) {
    out.push(found[i]);
    var tag = tagOf(found[i]);
    var inner = tag === "iframe" || tag === "frame" ? frameDocument(found[i]) : null;
    if (inner) out.push.apply(out, allElements(inner));
  }
  return out;
}

function optionalText(args, key) {
  var value = args[key];
  if (value === undefined) return "";
  if (typeof value !== "string") fail("invalid_input", key + " must be a string", { field: key });
  return normalize(value).toLowerCase();
}

function has(haystack, needle) {
  return haystack.toLowerCase().indexOf(needle) >= 0;
}

function ownRole(el, actionable) {
  // page_observe's role for what a person can act on ("clickable", a popup's "option"), ARIA's for the rest.
  if (actionable) return candidateRole(el);
  return roleOf(el) || (tagOf(el) === "p" ? "paragraph" : null);
}

/**
 * The words of text around the first place needle is found in it, at most NAME_CAP characters, cut
 * at word boundaries with an ellipsis at each cut end.
 */
function snippet(text, needle) {
  var at = text.toLowerCase().indexOf(needle);
  if (at < 0) at = 0;
  var start = Math.max(0, at - SNIPPET_BEFORE);
  if (start > 0) start = Math.min(at, text.indexOf(" ", start) + 1 || at);
  var end = Math.min(text.length, Math.max(start + NAME_CAP - 2, at + needle.length));
  if (end < text.length) {
    var space = text.lastIndexOf(" ", end);
    if (space > at + needle.length) end = space;
  }
  return (start > 0 ? "\u2026" : "") + text.slice(start, end).trim() + (end < text.length ? "\u2026" : "");
}

/** How well el matches (0 best), or -1 when it does not. */
function rank(el, role, actionable, query, cache) {
  var name = actionable ? candidateName(el, role) : accessibleName(el, role);
  // A heading named by its content is named by the words a person reads in it (not a hidden span's).
  if (!actionable && role === "heading" && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) name = visibleText(el);
  var own = name || visibleText(el);
  // A paragraph has no accessible name: it is named by its words around the match.
  if (!name && role === "paragraph") name = snippet(own, query.text || query.name);
  if (query.name && !has(own, query.name)) return { rank: -1 };
  var found = { name: name, rank: query.name && own.toLowerCase() === query.name ? 0 : 1 };
  if (!query.text) return found;
  if (own.toLowerCase() === query.text) return { name: name, rank: 0 };
  if (has(own, query.text)) return { name: name, rank: 1 };
  var item = itemOf(el);
  var said = item && item !== el ? itemText(item) : "";
  if (said && has(said, query.text)) return { name: name, rank: said.toLowerCase() === query.text ? 2 : 3, item: item };
  var section = sectionName(el, cache);
  if (section && has(section, query.text)) return { name: name, rank: 4, section: section };
  return { rank: -1 };
}

/**
 * An item's text as a person reads it: without the glyphs of icon buttons (an element with an
 * aria-label says its name there, "Delete", not its "×") and without aria-hidden decoration.
 */
function itemText(item) {
  var parts = [];
  var walker = item.ownerDocument.createTreeWalker(item, NodeFilter.SHOW_TEXT);
  for (var n = walker.nextNode(); n; n = walker.nextNode()) {
    var skip = false;
    for (var p = n.parentElement; p && p !== item.parentElement; p = p.parentElement) {
      // Also text a reader leaves out or does not see (read_structure.js skipReason, textHidden).
      if (p.hasAttribute("aria-label") && p !== item || /^(script|style)$/.test(tagOf(p)) || skipReason(p) || (p === n.parentElement && textHidden(p, styleOf(p)))) {
        skip = true;
        break;
      }
    }
    if (!skip) parts.push(n.nodeValue);
  }
  return normalize(parts.join(" "));
}

function contextOf(el, name, found, cache) {
  var parts = [];
  var section = found.section || sectionName(el, cache);
  if (section && section !== name) parts.push(cap(section, ITEM_CAP));
  var item = found.item || itemOf(el);
  var said = item && item !== el ? itemText(item) : "";
  if (said && said !== name && said !== section) parts.push(cap(said, ITEM_CAP));
  return cap(parts.join(" › "), CONTEXT_CAP);
}

function find(args) {
  var query = { text: optionalText(args, "text"), name: optionalText(args, "name"), role: optionalText(args, "role") };
  if (!query.text && !query.name && !query.role) fail("invalid_input", "give text, role or name to find", { field: "text" });
  var limit = args.max_results === undefined ? DEFAULT_RESULTS : args.max_results;
  if (typeof limit !== "number" || !(limit >= 1) || limit > 500 || Math.floor(limit) !== limit) fail("invalid_input", "max_results must be an integer from 1 to 500", { field: "max_results" });
  return withStructure(function () {
    return search(query, limit);
  });
}

function search(query, limit) {
  var cache = typeof Map === "function" ? new Map() : null;
  var hits = [];
  var all = allElements(document);
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    var actionable = isInteractiveElement(el); // asked once: it reads the element's cursor style
    var role = ownRole(el, actionable);
    if (query.role ? role !== query.role : !(actionable || role === "heading")) continue;
    var found = rank(el, role, actionable, query, cache);
    // Visibility last: it is the costly test, and most elements fail the cheap ones.
    if (found.rank < 0 || !isReadable(el)) continue;
    var r = el.getBoundingClientRect();
    if (actionable && !(r.width > 0 && r.height > 0)) continue;
    hits.push({ el: el, role: role, found: found, order: hits.length });
  }
  if (!hits.length && query.text && !query.role && !query.name) hits = textBlocks(all, query.text);
  hits.sort(function (a, b) { return a.found.rank - b.found.rank || a.order - b.order; });
  var matches = hits.slice(0, limit).map(function (hit) {
    var name = hit.found.snippet ? hit.found.name : cap(hit.found.name || "", NAME_CAP);
    var match = { ref: refFor(hit.el), role: hit.role };
    if (name) match.name = name;
    var context = contextOf(hit.el, hit.found.name || "", hit.found, cache);
    if (context) match.context = context;
    return match;
  });
  return { matches: matches, total: hits.length };
}

/**
 * The innermost text blocks (TEXT_BLOCKS) whose text holds the query, each named by the words around
 * it: where no control or heading says it, the sentence that does (an article's paragraph, a cell).
 */
function textBlocks(all, text) {
  var hits = [];
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (!TEXT_BLOCKS[tagOf(el)]) continue;
    // textContent first (cheap, holds all the rest), then the words a person reads, which are matched and quoted.
    if (!has(normalize(el.textContent), text) || innerBlockHolds(el, text) || !isReadable(el)) continue;
    var own = visibleText(el);
    if (!has(own, text)) continue;
    hits.push({ el: el, role: ownRole(el, false) || tagOf(el), found: { name: snippet(own, text), snippet: true, rank: own.toLowerCase() === text ? 0 : 1 }, order: hits.length });
  }
  return hits;
}

function innerBlockHolds(el, text) {
  var inner = el.querySelectorAll("p, li, dd, dt, td, th, blockquote, figcaption, pre, caption");
  for (var i = 0; i < inner.length; i++) if (has(normalize(inner[i].textContent), text)) return true;
  return false;
}

definePrimitive("refs.find", find);
  })(M, root);

  // ---- observe_settle.js ----
  (function (M, root) {
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
 *   continuation of `await sleep(40)` or of a fetch);
 * - requests (fetch, XMLHttpRequest) started the same way.
 *
 * "Within HOT_MS of an input event" rather than "while armed": the engine itself, and a page's
 * mutation observers reacting to a poll, schedule short timers at any time. Work the page was doing
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
var MAX_GENERATIONS = 4; // timer -> callback -> timer ... hops followed from the action
var HOT_MS = 20; // code this soon after an input event or tracked work continues it (handlers, promise chains)
// The events an action delivers (trusted input or the engine's own): each starts a hot window.
var INPUT_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "keydown", "keypress", "keyup", "beforeinput", "input", "change", "submit", "focusin", "focusout", "mouseover", "pointerover", "dragstart", "drop", "dragend", "scroll", "wheel"];

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
var lastActivity = 0; // when tracked work last finished
var listener = null; // the running settle's wake-up

function now() {
  return nativeNow.call(Date);
}

/** The generation work started now belongs to, or 0 when it is not the action's. */
function generationNow() {
  if (!armed || context < 0) return 0;
  var generation = 0;
  if (context > 0) generation = context + 1;
  else if (now() <= hotUntil) generation = hotGeneration + 1;
  return generation > 0 && generation <= MAX_GENERATIONS ? generation : 0;
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
      if (generation && timers[id]) {
        delete timers[id];
        pendingTimers--;
      }
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
      timers[id] = true;
      pendingTimers++;
    }
    return id;
  };
  root.clearTimeout = function clearTimeout(id) {
    if (timers[id]) {
      delete timers[id];
      pendingTimers--;
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

function onInput() {
  if (!armed) return;
  hotUntil = now() + HOT_MS;
  hotGeneration = 0;
}

function listenToInput() {
  if (typeof root.addEventListener !== "function") return;
  // Capturing on the window: it hears every event of the document first, whatever the page stops later.
  INPUT_EVENTS.forEach(function (type) { root.addEventListener(type, onInput, { capture: true, passive: true }); });
}

/** Start tracking what an action starts (refs.change_mark); wraps the page's timers and requests once. */
function arm() {
  if (!installed) {
    installed = true;
    wrapTimers();
    wrapRequests();
    listenToInput();
  }
  timers = {};
  pendingTimers = 0;
  pendingRequests = 0;
  hotUntil = 0;
  lastActivity = 0;
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
      resolve({ settled: settled, waited_ms: now() - started });
    }
    function check() {
      if (done) return;
      nativeClearTimeout.call(root, timer);
      var t = now();
      if (t - started >= timeout) return finish(false);
      var pending = armed && (pendingTimers > 0 || pendingRequests > 0);
      var quietSince = Math.max(lastMutation, armed ? lastActivity : 0, started);
      if (!pending && t - quietSince >= quiet) return finish(true);
      // Pending work wakes check() when it ends (listener); the timer covers the quiet window and the cap.
      var next = pending ? timeout - (t - started) : Math.min(quiet - (t - quietSince), timeout - (t - started));
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
  })(M, root);

  // ---- observe_changes.js ----
  (function (M, root) {
/*
 * observe_changes.js — What an action changed, briefly (docs/mcp-surface.md, "What acting
 * tools answer"): refs.change_mark notes the page's visible text lines, its open dialogs and
 * its URL before an action; refs.change_report, after it (and a settle), says which lines
 * appeared and went (multiset difference, capped), which dialogs opened or closed, and the new
 * URL of a same-document navigation. A full navigation replaces the page and its engine; the
 * acting tool says that itself when the report cannot be read.
 *
 * Cheap on purpose: one innerText of the body (and of each visible same-origin frame's body,
 * and of the top children of each visible open shadow root, which no outer innerText includes)
 * before and one after, no MutationObserver left running between calls.
 *
 * One round trip each side of the action: refs.change_report {settle} first waits until the page
 * has done what the action started (observe_settle.js, armed by refs.change_mark), and both take
 * what the journal of acting calls needs (dispatch/act_journal.py): change_mark {describe, watch}
 * describes the element a ref or text names (refs.describe) and counts the watched texts before
 * the action, change_report {watch} counts them after it.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  isVisible = M.isVisible,
  accessibleName = M.accessibleName,
  queryAllDeep = M.queryAllDeep;

var LINE_CAP = 100; // characters of one reported line
var MAX_LINES = 5; // lines reported per direction by default
var DIALOGS = "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]";

var mark = null; // {lines: {text: count}, dialogs: [elements], url}

function countLines(raw, counts) {
  raw.split("\n").forEach(function (line) {
    var text = normalize(line);
    if (text) counts[text] = (Object.prototype.hasOwnProperty.call(counts, text) ? counts[text] : 0) + 1;
  });
}

/** The text of open shadow roots under scope, which no innerText outside them includes (a widget's counter). */
function addShadowLines(scope, counts) {
  var walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
  for (var n = walker.nextNode(); n; n = walker.nextNode()) {
    var shadow = n.shadowRoot;
    if (!shadow || shadow.mode !== "open" || !isVisible(n)) continue;
    Array.prototype.forEach.call(shadow.children, function (child) {
      if (typeof child.innerText === "string" && child.localName !== "style" && child.localName !== "script") countLines(child.innerText, counts);
    });
    addShadowLines(shadow, counts);
  }
}

function addLines(doc, counts, depth) {
  var body = doc.body;
  countLines(body && typeof body.innerText === "string" ? body.innerText : "", counts);
  if (body) addShadowLines(body, counts);
  // A same-origin iframe's text is not in its parent's innerText: a form in a frame says what it saved too.
  if (depth > 3 || !M.frameDocument) return;
  Array.prototype.forEach.call(doc.querySelectorAll("iframe, frame"), function (frame) {
    var inner = isVisible(frame) ? M.frameDocument(frame) : null;
    if (inner) addLines(inner, counts, depth + 1);
  });
}

function visibleLines() {
  var counts = {};
  addLines(document, counts, 0);
  return counts;
}

function openDialogs() {
  return queryAllDeep(DIALOGS).filter(isVisible);
}

function dialogName(el) {
  var name = accessibleName(el, "dialog");
  if (!name) {
    var heading = el.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
    name = heading ? normalize(heading.textContent) : normalize(el.textContent);
  }
  return cap(name, LINE_CAP);
}

/** Lines of `a` that `b` has fewer of, in a's order, each once per missing copy. */
function missing(a, b) {
  var out = [];
  Object.keys(a).forEach(function (text) {
    var extra = a[text] - (Object.prototype.hasOwnProperty.call(b, text) ? b[text] : 0);
    for (var i = 0; i < extra; i++) out.push(text);
  });
  return out;
}

/**
 * The journal's look before an action: {element, ref, texts} as refs.describe gives them, the element
 * found as the acting tool finds it (a ref or a text, fields only with field). A failure to find or
 * describe it is the journal's note (why_not), never the action's failure: the action decides that.
 */
function describeBefore(describe, watch) {
  var out = {};
  try {
    var asked = {};
    if (describe) {
      if (!M.isObject(describe)) fail("invalid_input", "describe must be an object", { field: "describe" });
      var found = M.resolveRefOrText({ ref: describe.ref, text: describe.text }, describe.field === true ? { accept: M.isField } : null);
      asked.ref = found.ref;
      out.ref = found.ref;
    }
    if (watch !== undefined) asked.watch = watch;
    var described = M.describeCall(asked);
    if (described.element) out.element = described.element;
    if (described.texts) out.texts = described.texts;
  } catch (err) {
    if (!(err instanceof M.EngineError)) throw err;
    out.why_not = { code: err.code, message: String(err.message) };
  }
  return out;
}

function takeMark(journal) {
  mark = { lines: visibleLines(), dialogs: openDialogs(), url: String(root.location.href) };
  // From here on, what the page starts is the action's (observe_settle.js).
  M.actionSettle.arm();
  var out = { marked: true };
  if (journal) out.journal = journal;
  return out;
}

function changeMark(args) {
  return takeMark(args.describe !== undefined || args.watch !== undefined ? describeBefore(args.describe, args.watch) : null);
}

/** refs.resolve {mark}: the change mark of an element refs.resolve just found ({describe: true} describes it). */
function changeMarkOf(ref, options) {
  if (!M.isObject(options)) fail("invalid_input", "mark must be an object", { field: "mark" });
  var describe = options.describe === true ? { ref: ref } : undefined;
  return takeMark(describe !== undefined || options.watch !== undefined ? describeBefore(describe, options.watch) : null);
}

function changeReport(args, call) {
  if (!mark) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  var limit = args.max_lines === undefined ? MAX_LINES : args.max_lines;
  if (typeof limit !== "number" || !(limit >= 0) || limit > 50) fail("invalid_input", "max_lines must be a number from 0 to 50", { field: "max_lines" });
  if (args.watch !== undefined && !Array.isArray(args.watch)) fail("invalid_input", "watch must be an array of strings", { field: "watch" });
  if (args.settle === undefined) return report(limit, args.watch);
  if (!M.isObject(args.settle)) fail("invalid_input", "settle must be an object", { field: "settle" });
  return M.actionSettle.settle(args.settle, call).then(function (waited) {
    M.actionSettle.disarm();
    var out = report(limit, args.watch);
    out.settle = waited;
    return out;
  }, function (err) {
    M.actionSettle.disarm();
    throw err;
  });
}

function report(limit, watch) {
  M.actionSettle.disarm();
  if (!mark) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  var before = mark;
  mark = null;
  var after = visibleLines();
  var added = missing(after, before.lines);
  var removed = missing(before.lines, after);
  var dialogs = openDialogs();
  var out = {
    added: added.slice(0, limit).map(function (t) { return cap(t, LINE_CAP); }),
    added_count: added.length,
    removed: removed.slice(0, limit).map(function (t) { return cap(t, LINE_CAP); }),
    removed_count: removed.length,
    dialogs_opened: dialogs.filter(function (d) { return before.dialogs.indexOf(d) < 0; }).map(dialogName),
    dialogs_closed: before.dialogs.filter(function (d) { return dialogs.indexOf(d) < 0 && !(d.isConnected && isVisible(d)); }).length,
  };
  var url = String(root.location.href);
  if (url !== before.url) out.url = url;
  if (watch !== undefined) out.texts = M.describeCall({ watch: watch }).texts;
  return out;
}

M.changeMarkOf = changeMarkOf;

definePrimitive("refs.change_mark", changeMark);
definePrimitive("refs.change_report", changeReport);
  })(M, root);

  // ---- launcher_targets.js ----
  (function (M, root) {
/*
 * launcher_targets.js — Where a launcher belongs (launchers.js): the rendered elements a launcher
 * spec's target designates now, judged only while the map state it names holds; and the small
 * list and string helpers launchers.js walks its data with.
 *
 * A spec (launchers.js) carries the onClick that opens a map's tool or overlay, so nothing here
 * hands a spec, or a list holding one, to a built-in the page can replace: targets and probes are
 * read by own property and lists walked by index (docs/overlays.md, "Launcher clicks").
 */
var EngineError = M.EngineError,
  resolveAll = M.resolveAll,
  hiddenReason = M.hiddenReason,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray;

// An anchor may be rendered but empty (an <output> before its first result) or scrolled out of its
// box: a launcher still belongs beside it. Hidden (display:none, visibility, inert) it does not.
var RENDERED_REASONS = { zero_size: true, off_screen: true, clipped: true };

/** The items of an array-like (a NodeList, a page's list) as a fresh array, by index. */
function listOf(items) {
  var out = [];
  var n = items ? items.length : 0;
  for (var i = 0; i < n; i++) out[i] = items[i];
  return out;
}

/** text as a quoted CSS string (an attribute selector's value). */
function cssString(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var c = I.charCodeAt(text, i);
    if (c === 34 || c === 92) out += "\\" + text[i];
    else if (c < 32 || c === 127) out += "\\" + c.toString(16) + " ";
    else out += text[i];
  }
  return out + '"';
}

/** Whether every probe of a {name, probes} state check holds on this page (no probe: never). */
function stateHolds(check) {
  var probes = own(check, "probes");
  if (!isArray(probes) || !probes.length) return false;
  var url = String(root.location.href);
  var located = [];
  for (var i = 0; i < probes.length; i++) {
    var probe = probes[i];
    var contained = own(probe, "url_contains"),
      matches = own(probe, "url_matches"),
      locator = own(probe, "locator");
    if (typeof contained === "string" && url.indexOf(contained) < 0) return false;
    if (typeof matches === "string") {
      try {
        if (!new RegExp(matches).test(url)) return false;
      } catch (_bad) {
        return false;
      }
    }
    if (locator) located[located.length] = { id: own(probe, "id"), locator: locator, state: own(probe, "state") };
  }
  return locatorsHold(located);
}

/** Whether every probe's locator finds what it asks for, judged as locator.probe judges it (states.js). */
function locatorsHold(probes) {
  if (!probes.length) return true;
  try {
    var results = M.probeLocators({ probes: probes }).results;
    for (var i = 0; i < results.length; i++) if (!results[i].matched) return false;
    return true;
  } catch (_err) {
    return false; // an invalid locator: the state cannot hold
  }
}

/** A target descriptor without ``state`` (which names a map state, checked through whenState). */
function locatorOf(target) {
  if (typeof target === "string" || own(target, "state") === undefined) return target;
  var copy = {};
  var keys = I.keys(target);
  for (var i = 0; i < keys.length; i++) if (keys[i] !== "state") copy[keys[i]] = target[keys[i]];
  return copy;
}

/** The rendered elements a spec's target designates now: [] when absent, null when the descriptor is refused. */
function launcherTargets(spec) {
  if (spec.whenState && !stateHolds(spec.whenState)) return [];
  var res;
  try {
    res = resolveAll(locatorOf(spec.target));
  } catch (err) {
    if (err instanceof EngineError && err.code === "target_not_found") return [];
    return null;
  }
  // Beside an element its selectors (or role) find, never beside any text on the page: for a
  // launcher, text predicates narrow those matches and do not stand in for them when they fail
  // (an "h2 containing Results" target must not move to a "Results" link once the heading goes).
  if (/^text_/.test(res.matched_by) && hasStructure(spec.target)) return [];
  var rendered = [];
  for (var i = 0; i < res.matches.length; i++) {
    var el = res.matches[i];
    var hidden = hiddenReason(el);
    if (hidden === null || I.hasOwn(RENDERED_REASONS, hidden.reason)) rendered[rendered.length] = el;
  }
  return rendered;
}

var STRUCTURE = ["selector", "selectors", "xpath", "fallback_selectors", "role"];

function hasStructure(target) {
  if (typeof target === "string") return true;
  for (var i = 0; i < STRUCTURE.length; i++) {
    var value = own(target, STRUCTURE[i]);
    if (value !== undefined && value !== null) return true;
  }
  return false;
}

M.launcherTargets = launcherTargets;
M.listOf = listOf;
M.cssString = cssString;
  })(M, root);

  // ---- launchers.js ----
  (function (M, root) {
/*
 * launchers.js — Keeps launcher buttons installed beside their targets while the
 * page changes: the one installer behind map attachments (attachments.js) and
 * overlay.register_launcher (overlay.js).
 *
 * A launcher spec: {id, target (a target descriptor), placement
 * (beforebegin|afterbegin|beforeend|afterend), max (instances), label, title,
 * attrs ({name: value} set on each host), onClick(launcherId), badge (true: a
 * status badge, not a button: nothing to open), whenState ({name, probes}: the
 * launcher is installed only while every probe holds, i.e. while the state its
 * target names is current, judged as the server judges states)}. A *set* of specs
 * (M.launcherSet(onStates)) is replaced whole with set.replace(specs); every
 * set is reconciled against the page after each DOM mutation, history change,
 * popstate or hashchange, debounced (RECONCILE_DELAY_MS, at most MAX_WAIT_MS
 * after the first change), so a launcher follows a single-page app's section
 * as it goes, comes back and is re-rendered several times in a row.
 *
 * Never a duplicate: each reconcile keeps at most `max` hosts per spec, each
 * beside a distinct visible target, and removes any other host carrying the
 * spec's id (a framework's clone of a section, a stale copy). States reported
 * per spec, only when they change: attached, waiting (target not present
 * yet), removed (present once, gone now: context mismatch), failed (a target
 * descriptor the locator code refuses, or an insertion the page refused).
 *
 * A launcher is a real <button type=button> in an OPEN shadow root on a small
 * host element (`all: initial`): keyboard- and screen-reader reachable, found by
 * our observe tools and by Playwright's get_by_role (which pierces open roots,
 * not closed ones), and styled apart from the page's CSS. The label is the
 * button's own text inside the shadow root, never light-DOM text, so a
 * target's text (text_equals/text_contains) does not change when a launcher is
 * placed inside it.
 *
 * Open, so the page can reach a launcher's button, and a page script could click it to make the
 * server run a map tool. A launcher acts only on a click the page did not forge: trusted input
 * (the user's, or CDP input), or a click the engine itself dispatches for the agent
 * (intrinsics.js unforged; docs/overlays.md, "Launcher clicks"). Specs hold the onClick that
 * opens a map's tool or overlay, so no spec, entry or set ever passes through a built-in the
 * page can replace: lists are walked by index and keys written with the captured jsonText.
 */
var queryAllDeep = M.queryAllDeep,
  launcherTargets = M.launcherTargets,
  listOf = M.listOf,
  cssString = M.cssString,
  I = M.intrinsics;

var PLACEMENTS = ["beforebegin", "afterbegin", "beforeend", "afterend"];
var PLACEMENT_SET = { beforebegin: true, afterbegin: true, beforeend: true, afterend: true };
var RECONCILE_DELAY_MS = 60;
var MAX_WAIT_MS = 250;
var HOST_TAG = M.LAUNCHER_HOST_TAG;
var LAUNCHER_ATTR = "data-actions-json-launcher";

// Captured when the engine installs, before page scripts can patch them (a patched
// attachShadow would otherwise see every launcher's root, addEventListener our listener).
var ElementP = root.Element ? root.Element.prototype : null;
var attachShadow = I.nativeMethod(ElementP, "attachShadow", "Element.prototype.attachShadow");
var setAttribute = I.nativeMethod(ElementP, "setAttribute", "Element.prototype.setAttribute");
var listen = I.nativeMethod(root.EventTarget ? root.EventTarget.prototype : null, "addEventListener", "EventTarget.prototype.addEventListener");
var EventP = root.Event ? root.Event.prototype : null;
var preventDefault = I.nativeMethod(EventP, "preventDefault", "Event.prototype.preventDefault");
var stopPropagation = I.nativeMethod(EventP, "stopPropagation", "Event.prototype.stopPropagation");
var min = Math.min,
  max = Math.max,
  now = Date.now;

function contains(list, item) {
  for (var i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

var sets = []; // every live launcher set, reconciled together
var hosts = typeof WeakSet === "function" ? new WeakSet() : null; // every launcher host we made

var STYLE = [
  ":host { all: initial !important; display: inline-block !important; vertical-align: middle !important; margin: 0 0.4em !important; }",
  "button { all: initial; box-sizing: border-box; display: inline-flex; align-items: center; gap: 0.3em; cursor: pointer;",
  "  font: 500 12px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f2a44; background: #eef2ff;",
  "  border: 1px solid #9aa8d8; border-radius: 999px; padding: 2px 10px; white-space: nowrap; }",
  "button:hover { background: #dfe6ff; }",
  "button:focus-visible { outline: 2px solid #3456d1; outline-offset: 2px; }",
  ".badge { all: initial; display: inline-block; font: 500 11px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif;",
  "  color: #1f2a44; background: #eef2ff; border: 1px solid #9aa8d8; border-radius: 4px; padding: 1px 6px; white-space: nowrap; }",
].join("\n");

function isLauncherHost(el) {
  return !!(hosts && el && hosts.has(el));
}

/** Whether el is a launcher host or inside one (targets there are never anchors). */
function insideLauncher(el) {
  for (var n = el; n; n = M.composedParent(n)) if (isLauncherHost(n)) return true;
  return false;
}

var sheet = null;
/** The launcher look, adopted (a page's CSP may refuse a <style> element) or else a <style>. */
function adoptStyle(shadow) {
  try {
    if (!sheet) {
      sheet = new root.CSSStyleSheet();
      sheet.replaceSync(STYLE);
    }
    shadow.adoptedStyleSheets = [sheet];
  } catch (_ignored) {
    var style = document.createElement("style");
    style.textContent = STYLE;
    shadow.appendChild(style);
  }
}

function makeHost(spec) {
  var host = document.createElement(HOST_TAG);
  setAttribute(host, LAUNCHER_ATTR, spec.id);
  var attrs = spec.attrs || {};
  var names = I.keys(attrs);
  for (var i = 0; i < names.length; i++) setAttribute(host, names[i], attrs[names[i]]);
  // A bare init dictionary: attachShadow reads members we do not set, and none may come from Object.prototype.
  var shadow = attachShadow(host, I.bare({ mode: "open" }));
  adoptStyle(shadow);
  if (spec.badge) {
    // A status badge says something about its target; it opens nothing, so it is no button.
    var badge = document.createElement("span");
    badge.className = "badge";
    badge.setAttribute("part", "badge");
    badge.textContent = spec.label;
    if (spec.title) badge.title = spec.title;
    shadow.appendChild(badge);
    if (hosts) hosts.add(host);
    return host;
  }
  var button = document.createElement("button");
  button.type = "button";
  button.setAttribute("part", "button");
  button.textContent = spec.label;
  if (spec.title) button.title = spec.title;
  listen(button, "click", function (ev) {
    // A launcher placed inside a link or a clickable card opens the overlay, not the card.
    preventDefault(ev);
    stopPropagation(ev);
    // A page script's click() or dispatched MouseEvent opens nothing (docs/overlays.md, "Launcher clicks").
    if (!I.unforged(ev, button)) return;
    spec.onClick(spec.id);
  });
  shadow.appendChild(button);
  if (hosts) hosts.add(host);
  return host;
}

/** Is host still where the spec's placement put it relative to anchor? */
function inPlace(host, anchor, placement) {
  if (!host.isConnected || !anchor.isConnected) return false;
  if (placement === "afterbegin" || placement === "beforeend") return host.parentNode === anchor;
  return host.parentNode === anchor.parentNode;
}

/** The instance of `instances` beside `anchor`, or null. */
function instanceAt(instances, anchor) {
  for (var i = 0; i < instances.length; i++) if (instances[i].anchor === anchor) return instances[i];
  return null;
}

/** The rendered elements a spec's target designates now, none inside a launcher: [] when absent, null when refused. */
function targetsOf(spec) {
  var found = launcherTargets(spec);
  if (found === null) return null;
  var out = [];
  for (var i = 0; i < found.length; i++) if (!insideLauncher(found[i])) out[out.length] = found[i];
  return out;
}

function reconcileSpec(spec, entry) {
  var wanted = targetsOf(spec);
  if (wanted === null) {
    removeAll(entry);
    return "failed";
  }
  if (wanted.length > spec.max) wanted.length = spec.max;
  var kept = [];
  var i, inst;
  for (i = 0; i < entry.instances.length; i++) {
    inst = entry.instances[i];
    if (contains(wanted, inst.anchor) && inPlace(inst.host, inst.anchor, spec.placement) && !instanceAt(kept, inst.anchor)) kept[kept.length] = inst;
    else if (inst.host.parentNode) inst.host.parentNode.removeChild(inst.host);
  }
  var failed = false;
  for (i = 0; i < wanted.length; i++) {
    var anchor = wanted[i];
    if (instanceAt(kept, anchor)) continue;
    var host = makeHost(spec);
    try {
      anchor.insertAdjacentElement(spec.placement, host);
    } catch (_err) {
      failed = true; // beforebegin/afterend of the root element, say
      continue;
    }
    kept[kept.length] = { host: host, anchor: anchor };
  }
  entry.instances = kept;
  // Any other host with this id (a framework cloned a section with our button in it) goes.
  var sel = HOST_TAG + "[" + LAUNCHER_ATTR + "=" + cssString(spec.id) + "]";
  var copies = listOf(queryAllDeep(sel));
  for (i = 0; i < copies.length; i++) {
    var h = copies[i];
    var ours = false;
    for (var k = 0; k < kept.length; k++) if (kept[k].host === h) ours = true;
    if (!ours && h.parentNode) h.parentNode.removeChild(h);
  }
  if (kept.length) {
    entry.everAttached = true;
    return "attached";
  }
  if (failed) return "failed";
  return entry.everAttached ? "removed" : "waiting";
}

function removeAll(entry) {
  for (var i = 0; i < entry.instances.length; i++) {
    var host = entry.instances[i].host;
    if (host.parentNode) host.parentNode.removeChild(host);
  }
  entry.instances = [];
}

// -- watching the page ------------------------------------------------------

var observer = null;
var timer = null;
var firstChangeAt = 0;
var historyHooked = false;

function ownMutation(record) {
  // Our own insertions and removals do not call for another reconcile (no feedback loop).
  if (record.type !== "childList") return isLauncherHost(record.target) || insideLauncher(record.target);
  var added = listOf(record.addedNodes),
    removed = listOf(record.removedNodes);
  if (!added.length && !removed.length) return false;
  for (var i = 0; i < added.length; i++) if (!isLauncherHost(added[i])) return false;
  for (var j = 0; j < removed.length; j++) if (!isLauncherHost(removed[j])) return false;
  return true;
}

function schedule() {
  var at = now();
  if (!timer) firstChangeAt = at;
  else clearTimeout(timer);
  // Trailing debounce, but never later than MAX_WAIT_MS after the first change of a burst.
  var delay = max(0, min(RECONCILE_DELAY_MS, firstChangeAt + MAX_WAIT_MS - at));
  timer = setTimeout(function () {
    timer = null;
    reconcileAll();
  }, delay);
}

function hookHistory() {
  if (historyHooked || !root.history) return;
  historyHooked = true;
  ["pushState", "replaceState"].forEach(function (method) {
    var original = root.history[method];
    if (typeof original !== "function") return;
    root.history[method] = function () {
      var result = original.apply(this, arguments);
      if (sets.length) schedule();
      return result;
    };
  });
  root.addEventListener("popstate", function () { if (sets.length) schedule(); });
  root.addEventListener("hashchange", function () { if (sets.length) schedule(); });
}

function watch() {
  var any = false;
  for (var i = 0; i < sets.length; i++) if (sets[i].specs.length > 0) any = true;
  if (any && !observer && typeof MutationObserver === "function") {
    observer = new MutationObserver(function (records) {
      for (var r = 0; r < records.length; r++) {
        if (!ownMutation(records[r])) {
          schedule();
          return;
        }
      }
    });
    observer.observe(document.documentElement || document, {
      childList: true, subtree: true, attributes: true, attributeFilter: ["class", "style", "hidden", "open", "aria-hidden"],
    });
  } else if (!any && observer) {
    observer.disconnect();
    observer = null;
  }
  if (any) hookHistory();
}

function reconcileAll() {
  for (var i = 0; i < sets.length; i++) sets[i].reconcile();
  if (observer) observer.takeRecords(); // our own changes of this pass are not news
}

/**
 * A replaceable set of launcher specs; onStates([{id, state}]) is called after a
 * reconcile that changed any state (and once after each replace).
 */
function launcherSet(onStates) {
  var entries = I.create(null); // id -> {spec, key, instances, everAttached, state}
  var set = { specs: [] };

  set.replace = function (specs) {
    var next = I.create(null);
    var i;
    for (i = 0; i < specs.length; i++) {
      var spec = specs[i];
      var key = I.jsonText([spec.target, spec.placement, spec.max, spec.label, spec.title, spec.attrs, !!spec.badge, spec.whenState || null]);
      var old = entries[spec.id];
      if (old && old.key === key) {
        old.spec = spec; // same launcher: keep its buttons (a new onClick is taken)
        next[spec.id] = old;
      } else {
        if (old) removeAll(old);
        next[spec.id] = { spec: spec, key: key, instances: [], everAttached: false, state: null };
      }
    }
    var ids = I.keys(entries);
    for (i = 0; i < ids.length; i++) if (!next[ids[i]]) removeAll(entries[ids[i]]);
    entries = next;
    set.specs = specs;
    watch();
    set.reconcile(true);
    if (observer) observer.takeRecords();
  };

  set.reconcile = function (force) {
    var changed = !!force;
    var ids = I.keys(entries);
    for (var i = 0; i < ids.length; i++) {
      var entry = entries[ids[i]];
      var state = reconcileSpec(entry.spec, entry);
      if (state !== entry.state) {
        entry.state = state;
        changed = true;
      }
    }
    if (changed && typeof onStates === "function") {
      try {
        onStates(set.states());
      } catch (_ignored) { /* a failing sink must not stop the installer */ }
    }
  };

  set.states = function () {
    var ids = I.keys(entries);
    var out = [];
    for (var i = 0; i < ids.length; i++) out[i] = { id: ids[i], state: entries[ids[i]].state || "waiting" };
    return out;
  };

  sets[sets.length] = set;
  return set;
}

/** A launcher spec's placement, checked (afterend by default). */
function placementOf(value, code) {
  if (value === undefined || value === null) return "afterend";
  if (typeof value !== "string" || !I.hasOwn(PLACEMENT_SET, value)) M.fail(code, "placement must be one of " + PLACEMENTS.join(", "), { field: "placement", placement: value });
  return value;
}

M.launcherSet = launcherSet;
M.placementOf = placementOf;
M.isLauncherHost = isLauncherHost;
  })(M, root);

  // ---- overlay_render.js ----
  (function (M, root) {
/*
 * overlay_render.js — The overlay's panel in the page: its arguments checked, its HTML and
 * data_json made into an inert document, and the panel built into a CLOSED shadow root.
 *
 * overlay.js keeps the one-overlay state and the primitives and calls in here (through M only)
 * to check a rendering's arguments, build and mount its panel, focus it, let the pointer
 * through it and remove it. The panel shows HTML the agent wrote (already resolved by the
 * server: a `template`/`data` storage reference arrives as `html` plus an optional `data_json`
 * value; an unresolved reference fails asset_not_found) in an <iframe sandbox=""> — no
 * allow-scripts, no allow-same-origin: scripts in it never run, and its document has an
 * opaque origin the page cannot read — filled through srcdoc. The iframe lives in a CLOSED
 * shadow root on a host element appended to <html> (not <body>), built with DOM methods
 * captured when the engine installs and called uncurried (intrinsics.js): page scripts find
 * neither the iframe nor its HTML (document.body.innerHTML, querySelectorAll('iframe'),
 * frames[0].document all come up empty or throw), even if they replace
 * Function.prototype.call/apply/bind, Reflect.apply, DOM methods, getters and setters, Event
 * getters or Object.prototype members later. So nothing here calls a method through `.call`,
 * reads a property that may be missing (a getter the page put on Object.prototype would run),
 * uses JSON.stringify (toJSON) or a RegExp, iterates an array the DOM converts, or reads an
 * event through Event.prototype while our listener runs (composedPath() would then list the
 * closed root). What holds on which host: docs/overlays.md.
 *
 * The panel floats above the page (fixed, top z-index) with a title bar (drag handle) and a
 * real close button; locators and hit tests skip its host (dom.js hideFromEngine).
 */
var fail = M.fail,
  isObject = M.isObject,
  hideFromEngine = M.hideFromEngine,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray,
  bare = I.bare;

var WIDTH = { min: 420, max: 1400, fallback: 640 };
var HEIGHT = { min: 320, max: 1000, fallback: 480 };
var MARGIN = 16;
var MAX_HTML_CHARS = 2000000;
var MAX_DATA_DEPTH = 100;
var HOST_TAG = "actions-json-overlay";
var HTML_NS = "http://www.w3.org/1999/xhtml";
// What the overlay's document may load: styles and images, never scripts, frames or form posts.
var OVERLAY_CSP = "default-src 'none'; style-src 'unsafe-inline' data: https: http:; img-src data: blob: https: http:; font-src data: https: http:; media-src data: https: http:; form-action 'none'; base-uri 'none'";

// -- built-ins captured at install, called uncurried (intrinsics.js) ---------------
// Handing an element of the closed root to page code (a replaced method, getter or setter,
// or Function.prototype.call itself) hands it the root through getRootNode().
function proto(name) {
  var ctor = root[name];
  return typeof ctor === "function" ? ctor.prototype : null;
}
var ElementP = proto("Element"),
  NodeP = proto("Node"),
  HTMLElementP = proto("HTMLElement"),
  DocumentP = proto("Document"),
  EventP = proto("Event"),
  MouseEventP = proto("MouseEvent"),
  PointerEventP = proto("PointerEvent"),
  KeyboardEventP = proto("KeyboardEvent"),
  RectP = proto("DOMRectReadOnly");

var DOM = {
  attachShadow: I.nativeMethod(ElementP, "attachShadow", "Element.prototype.attachShadow"),
  // createElementNS and append, not createElement and appendChild: tag managers and consent
  // tools replace the latter two for their own reasons; the overlay needs the browser's own.
  createElementNS: I.nativeMethod(DocumentP, "createElementNS", "Document.prototype.createElementNS"),
  append: I.nativeMethod(ElementP, "append", "Element.prototype.append"),
  appendToFragment: I.nativeMethod(proto("DocumentFragment"), "append", "DocumentFragment.prototype.append"),
  remove: I.nativeMethod(ElementP, "remove", "Element.prototype.remove"),
  setAttribute: I.nativeMethod(ElementP, "setAttribute", "Element.prototype.setAttribute"),
  listen: I.nativeMethod(proto("EventTarget"), "addEventListener", "EventTarget.prototype.addEventListener"),
  focus: I.nativeMethod(HTMLElementP, "focus", "HTMLElement.prototype.focus"),
  setText: I.nativeSetter(NodeP, "textContent", "set Node.prototype.textContent"),
  setSrcdoc: I.nativeSetter(proto("HTMLIFrameElement"), "srcdoc", "set HTMLIFrameElement.prototype.srcdoc"),
  isConnected: I.nativeGetter(NodeP, "isConnected", "get Node.prototype.isConnected"),
  documentElement: I.nativeGetter(DocumentP, "documentElement", "get Document.prototype.documentElement"),
  // CSSOM, not style attributes or <style>: a page's CSP without 'unsafe-inline' refuses those.
  style: I.nativeGetter(HTMLElementP, "style", "get HTMLElement.prototype.style"),
  setProperty: I.nativeMethod(proto("CSSStyleDeclaration"), "setProperty", "CSSStyleDeclaration.prototype.setProperty"),
  adoptedStyleSheets: I.nativeSetter(proto("ShadowRoot"), "adoptedStyleSheets", "set ShadowRoot.prototype.adoptedStyleSheets"),
  replaceSync: I.nativeMethod(proto("CSSStyleSheet"), "replaceSync", "CSSStyleSheet.prototype.replaceSync"),
  rect: I.nativeMethod(ElementP, "getBoundingClientRect", "Element.prototype.getBoundingClientRect"),
  rectLeft: I.nativeGetter(RectP, "left"),
  rectTop: I.nativeGetter(RectP, "top"),
  setPointerCapture: I.nativeMethod(ElementP, "setPointerCapture", "Element.prototype.setPointerCapture"),
  definedElement: I.nativeMethod(proto("CustomElementRegistry"), "get", "CustomElementRegistry.prototype.get"),
  innerWidth: I.nativeGetter(root, "innerWidth"),
  innerHeight: I.nativeGetter(root, "innerHeight"),
};
// What our listeners read of an event: through Event.prototype, a page's getter would run
// while the event is at our node, where composedPath() still lists the closed root.
var EV = {
  target: I.nativeGetter(EventP, "target", "get Event.prototype.target"),
  button: I.nativeGetter(MouseEventP, "button", "get MouseEvent.prototype.button"),
  clientX: I.nativeGetter(MouseEventP, "clientX", "get MouseEvent.prototype.clientX"),
  clientY: I.nativeGetter(MouseEventP, "clientY", "get MouseEvent.prototype.clientY"),
  pointerId: I.nativeGetter(PointerEventP, "pointerId", "get PointerEvent.prototype.pointerId"),
  key: I.nativeGetter(KeyboardEventP, "key", "get KeyboardEvent.prototype.key"),
};
var CSSSheet = typeof root.CSSStyleSheet === "function" ? root.CSSStyleSheet : null;
var registry = root.customElements || null;
var theDocument = document;
var random = Math.random,
  floor = Math.floor;

// No library has a harmless reason to replace these: when one does not print as native code,
// the engine loaded after a page that is prying (the page runtime, a late injection), and an
// overlay there would be the page's to read. Other replacements (Angular's zone.js wraps
// addEventListener) cannot be told from a careful attack, and are documented, not refused.
var PRYING = ["Function.prototype.call", "Function.prototype.apply", "Function.prototype.bind", "Function.prototype.toString", "Reflect.apply"];
var PRIED = I.patchedBuiltins(PRYING);

function styleOf(node) {
  return DOM.style(node);
}

function setStyle(node, name, value, priority) {
  DOM.setProperty(styleOf(node), name, value, priority || "");
}

function viewportNow() {
  if (DOM.innerWidth && DOM.innerHeight) return { width: DOM.innerWidth(root) || 0, height: DOM.innerHeight(root) || 0 };
  return M.viewport();
}

/** The panel's stylesheet in the closed root: adopted when the browser can (CSP-proof), else a <style>. */
function adoptStyles(shadow, css) {
  if (DOM.adoptedStyleSheets && CSSSheet && DOM.replaceSync) {
    try {
      var sheet = new CSSSheet();
      DOM.replaceSync(sheet, css);
      // An array of our own making: the page's Array iterator never sees the sheet.
      DOM.adoptedStyleSheets(shadow, I.iterable([sheet]));
      return;
    } catch (_ignored) { /* an older browser: fall back to <style> */ }
  }
  DOM.appendToFragment(shadow, el("style", [], css));
}

/** A new element with attributes [[name, value], ...] and optional text. */
function el(tag, attrs, text) {
  var node = DOM.createElementNS(theDocument, HTML_NS, tag);
  for (var i = 0; i < attrs.length; i++) DOM.setAttribute(node, attrs[i][0], attrs[i][1]);
  if (text !== undefined) DOM.setText(node, text);
  return node;
}

function on(node, type, fn) {
  DOM.listen(node, type, fn);
}

var PANEL_CSS = [
  ".panel { position: fixed; box-sizing: border-box; display: flex; flex-direction: column; background: #fff; color: #1c2333;",
  "  border: 1px solid #8792b0; border-radius: 10px; box-shadow: 0 12px 40px rgba(15, 23, 42, 0.35); overflow: hidden;",
  "  font: 13px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; pointer-events: auto; }",
  ".bar { display: flex; align-items: center; gap: 8px; padding: 6px 8px 6px 12px; background: #eef1f8; border-bottom: 1px solid #d3d8e6;",
  "  cursor: move; user-select: none; touch-action: none; }",
  ".title { flex: 1; min-width: 0; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }",
  ".title::before { content: attr(data-title); }",
  ".close { font: inherit; font-size: 18px; line-height: 1; width: 28px; height: 28px; border: 0; border-radius: 6px; background: transparent;",
  "  color: inherit; cursor: pointer; }",
  ".close:hover { background: #dde2ef; }",
  ".close:focus-visible { outline: 2px solid #3456d1; outline-offset: 1px; }",
  "iframe { flex: 1; width: 100%; border: 0; background: #fff; }",
].join("\n");

var HEX = "0123456789abcdef";

function hex(n, digits) {
  var out = "";
  for (var i = 0; i < digits; i++) {
    out = HEX[n % 16] + out;
    n = floor(n / 16);
  }
  return out;
}

function clampSize(value, range, room) {
  var v = value === undefined ? range.fallback : value;
  v = Math.min(Math.max(v, range.min), range.max);
  return Math.max(200, Math.min(v, room - 2 * MARGIN));
}

// -- data_json as inert JSON text ---------------------------------------------------
// Written here rather than with JSON.stringify, which asks every object for a toJSON the
// page may have put on Object.prototype (and would hand it the data).

function jsonString(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var c = I.charCodeAt(text, i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    // Control characters, and what could end the <script> element or a line: escaped.
    else if (c < 32 || c === 60 || c === 62 || c === 38 || c === 0x2028 || c === 0x2029) out += "\\u" + hex(c, 4);
    else out += text[i];
  }
  return out + '"';
}

function jsonText(value, depth) {
  if (depth > MAX_DATA_DEPTH) fail("invalid_json", "data_json is nested deeper than " + MAX_DATA_DEPTH + " levels (or refers to itself)", { field: "data_json" });
  if (value === null) return "null";
  var type = typeof value;
  if (type === "boolean") return value ? "true" : "false";
  if (type === "number") return isFinite(value) ? "" + value : "null";
  if (type === "string") return jsonString(value);
  if (type !== "object") fail("invalid_json", "data_json is not JSON", { field: "data_json", type: type });
  var out, i;
  if (isArray(value)) {
    out = "[";
    for (i = 0; i < value.length; i++) {
      var item = own(value, i);
      var itemType = typeof item;
      out += (i ? "," : "") + (item === undefined || itemType === "function" || itemType === "symbol" ? "null" : jsonText(item, depth + 1));
    }
    return out + "]";
  }
  var keys = I.keys(value);
  var first = true;
  out = "{";
  for (i = 0; i < keys.length; i++) {
    var v = own(value, keys[i]);
    var vType = typeof v;
    if (v === undefined || vType === "function" || vType === "symbol") continue;
    out += (first ? "" : ",") + jsonString(keys[i]) + ":" + jsonText(v, depth + 1);
    first = false;
  }
  return out + "}";
}

function documentFor(html, dataText) {
  var head = '<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + OVERLAY_CSP + '">';
  if (dataText !== undefined) head += '<script type="application/json" data-actions-json-overlay-data>' + dataText + "</script>";
  // Prepended tags land in the implicit <head>; the agent's own <!doctype>/<html>/<head> merge into it.
  return head + html;
}

function optionalNumber(args, f) {
  var value = own(args, f);
  if (value !== undefined && (typeof value !== "number" || !isFinite(value))) fail("invalid_input", f + " must be a number", { field: f });
  return value;
}

/**
 * The checked rendering arguments of overlay.open / overlay.register_launcher. Only own
 * properties are read: a missing one never reaches a getter on Object.prototype.
 */
function renderArgs(args, code) {
  var html = own(args, "html"),
    template = own(args, "template"),
    title = own(args, "title"),
    dataJson = own(args, "data_json");
  if (template !== undefined && html !== undefined) fail("invalid_input", "give html or template, not both", { field: "template" });
  if (template !== undefined) fail("asset_not_found", "the template storage reference was not resolved before it reached the page", { field: "template", template: isObject(template) ? template : null });
  if (own(args, "data") !== undefined && dataJson === undefined) fail("asset_not_found", "the data storage reference was not resolved before it reached the page", { field: "data" });
  if (typeof html !== "string") fail("invalid_input", "html must be a string", { field: "html" });
  if (html.length > MAX_HTML_CHARS) fail(code, "html is larger than " + MAX_HTML_CHARS + " characters", { field: "html", length: html.length });
  if (title !== undefined && typeof title !== "string") fail("invalid_input", "title must be a string", { field: "title" });
  var width = optionalNumber(args, "width"),
    height = optionalNumber(args, "height");
  return { html: html, dataText: dataJson === undefined ? undefined : jsonText(dataJson, 0), title: title === undefined ? "" : title, width: width, height: height };
}

function dragBy(bar, title, panel) {
  var start = null;
  on(bar, "pointerdown", function (ev) {
    var target = EV.target(ev);
    if (EV.button(ev) !== 0 || (target !== bar && target !== title)) return;
    var r = DOM.rect(panel);
    start = { x: EV.clientX(ev), y: EV.clientY(ev), left: DOM.rectLeft(r), top: DOM.rectTop(r) };
    if (DOM.setPointerCapture) DOM.setPointerCapture(bar, EV.pointerId(ev));
  });
  on(bar, "pointermove", function (ev) {
    if (!start) return;
    var vp = viewportNow();
    var left = Math.min(Math.max(start.left + EV.clientX(ev) - start.x, 0), Math.max(0, vp.width - 80));
    var top = Math.min(Math.max(start.top + EV.clientY(ev) - start.y, 0), Math.max(0, vp.height - 40));
    setStyle(panel, "left", left + "px");
    setStyle(panel, "top", top + "px");
  });
  on(bar, "pointerup", function () { start = null; });
  on(bar, "pointercancel", function () { start = null; });
}

/**
 * A host tag no custom element is defined for, so the host stays an "undefined" element: a
 * page's own definition of our tag would run its constructor on the host, and an
 * ElementInternals it took there would hand it the closed root (internals.shadowRoot).
 */
function hostTag() {
  if (!registry || !DOM.definedElement || DOM.definedElement(registry, HOST_TAG) === undefined) return HOST_TAG;
  for (;;) {
    var tag = HOST_TAG + "-" + hex(floor(random() * 0x1000000), 6);
    if (DOM.definedElement(registry, tag) === undefined) return tag;
  }
}

/**
 * The panel of `spec` (renderArgs) in a new host, mounted on <html>: {host, panel, closeButton}.
 * onUserClose() runs when the user closes it (its close button, Escape in the panel).
 */
function buildOverlay(spec, onUserClose) {
  var vp = viewportNow();
  var width = clampSize(spec.width, WIDTH, vp.width);
  var height = clampSize(spec.height, HEIGHT, vp.height);

  var host = el(hostTag(), []);
  // The host itself takes no room and no clicks; only the panel inside does.
  setStyle(host, "all", "initial", "important");
  setStyle(host, "position", "fixed", "important");
  setStyle(host, "inset", "0", "important");
  setStyle(host, "z-index", "2147483647", "important");
  setStyle(host, "pointer-events", "none", "important");
  setStyle(host, "display", "block", "important");
  hideFromEngine(host);
  // Every member spelt out on an object with no prototype: a member read from Object.prototype
  // (serializable, clonable) would let getHTML() or cloneNode() copy the root out.
  var shadow = DOM.attachShadow(host, bare({ mode: "closed", delegatesFocus: false, clonable: false, serializable: false, slotAssignment: "named" }));

  var label = spec.title || "Overlay";
  var panel = el("div", [["class", "panel"], ["role", "dialog"], ["aria-label", label]]);
  setStyle(panel, "width", width + "px");
  setStyle(panel, "height", height + "px");
  // Top right, below the usual sticky header height, and inside the viewport.
  setStyle(panel, "left", Math.max(MARGIN, vp.width - width - MARGIN) + "px");
  setStyle(panel, "top", Math.max(MARGIN, Math.min(64, vp.height - height - MARGIN)) + "px");
  var bar = el("div", [["class", "bar"]]);
  // The title is generated content from an attribute, not a text node: window.find() and the
  // selection search the text of closed roots too, and would confirm a guess at it.
  var title = el("span", [["class", "title"], ["data-title", spec.title || ""]]);
  var closeButton = el("button", [["type", "button"], ["class", "close"], ["aria-label", "Close overlay"], ["title", "Close overlay"]], "\u00d7");
  var frame = el("iframe", [["sandbox", ""], ["referrerpolicy", "no-referrer"], ["title", label]]);
  DOM.setSrcdoc(frame, documentFor(spec.html, spec.dataText));

  adoptStyles(shadow, PANEL_CSS);
  DOM.append(bar, title);
  DOM.append(bar, closeButton);
  DOM.append(panel, bar);
  DOM.append(panel, frame);
  DOM.appendToFragment(shadow, panel);
  on(closeButton, "click", function () { onUserClose(); });
  on(panel, "keydown", function (ev) { if (EV.key(ev) === "Escape") onUserClose(); });
  dragBy(bar, title, panel);

  DOM.append(DOM.documentElement(theDocument), host);
  return { host: host, panel: panel, closeButton: closeButton };
}

/** Refused before anything renders: the page replaced built-ins before the engine loaded. */
function refuseIfPried() {
  if (PRIED.length) {
    fail("render_failed", "this page replaced built-ins the overlay relies on before the engine loaded; its content would be the page's to read", { reason: "page_patched_builtins", builtins: PRIED });
  }
}

/** Moves focus to the close button (opened from a launcher: keyboard users land in it). */
function focusOverlay(shown) {
  DOM.focus(shown.closeButton);
}

function removeOverlay(shown) {
  DOM.remove(shown.host);
}

/** While on, the panel lets the pointer through to the page below (overlay.js passThrough). */
function pointerThrough(shown, through) {
  setStyle(shown.panel, "pointer-events", through ? "none" : "");
}

M.overlayRenderArgs = renderArgs;
M.refuseOverlayIfPried = refuseIfPried;
M.buildOverlay = buildOverlay;
M.focusOverlay = focusOverlay;
M.removeOverlay = removeOverlay;
M.overlayPointerThrough = pointerThrough;
M.overlayHex = hex;
  })(M, root);

  // ---- overlay.js ----
  (function (M, root) {
/*
 * overlay.js — The agent's overlay: overlay.open, overlay.close, overlay.register_launcher.
 *
 * The one overlay's state, its launchers and the primitives; overlay_render.js checks a
 * rendering's arguments and builds, focuses and removes the panel in its CLOSED shadow root,
 * and nothing here touches a node of it. The same rules hold here as there (docs/overlays.md):
 * the arguments are read by own property only, and what travels between the two modules goes
 * through the engine's private namespace M, never anything a page can reach.
 *
 * One overlay at a time (a new open replaces it). A user's close dispatches
 * `actions-json:overlay-closed` {overlay_id} on the document. It never stands in the way of
 * our own primitives on the page below: locators and hit tests skip its host (dom.js
 * hideFromEngine), and a host that clicks with real input (the Playwright tab) makes it
 * transparent to the pointer for the click (passThrough).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  launcherSet = M.launcherSet,
  placementOf = M.placementOf,
  renderArgs = M.overlayRenderArgs,
  refuseIfPried = M.refuseOverlayIfPried,
  buildOverlay = M.buildOverlay,
  focusOverlay = M.focusOverlay,
  removeOverlay = M.removeOverlay,
  pointerThrough = M.overlayPointerThrough,
  hex = M.overlayHex,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray,
  bare = I.bare;

var CLOSED_EVENT = "actions-json:overlay-closed";
var OPENED_EVENT = "actions-json:overlay-launcher-opened";
// Captured as this module loads, in the same synchronous run as overlay_render.js's own.
var random = Math.random,
  floor = Math.floor;

// -- the one overlay -------------------------------------------------------------

var current = null; // {id, host, panel, closeButton}
var counter = 0;
var overlayListeners = [];

function newId() {
  counter += 1;
  return "overlay-" + counter + "-" + hex(floor(random() * 0x100000), 5);
}

function notifyOverlay() {
  var open = current !== null;
  for (var i = 0; i < overlayListeners.length; i++) {
    try {
      overlayListeners[i](open);
    } catch (_ignored) { /* a failing listener must not break the overlay */ }
  }
}

/** fn(open) after every open and close (the Playwright host makes trusted clicks pass through while open). */
function onOverlayChange(fn) {
  if (typeof fn === "function") overlayListeners[overlayListeners.length] = fn;
}

function render(spec, byUser) {
  refuseIfPried();
  closeOverlay();
  var id = newId();
  var shown = buildOverlay(spec, function () { closeByUser(id); });
  current = { id: id, host: shown.host, panel: shown.panel, closeButton: shown.closeButton };
  if (byUser) focusOverlay(current); // opened from a launcher: keyboard users land in it
  notifyOverlay();
  return id;
}

function closeOverlay() {
  if (!current) return false;
  var shown = current;
  current = null;
  removeOverlay(shown);
  notifyOverlay();
  return true;
}

function closeByUser(id) {
  if (!current || current.id !== id) return;
  closeOverlay();
  document.dispatchEvent(new CustomEvent(CLOSED_EVENT, { detail: { overlay_id: id }, bubbles: true }));
}

/**
 * While on, the open overlay lets the pointer through to the page below: a host
 * clicking with real input (page.mouse) turns it on around its own click. Returns
 * whether an overlay is open.
 */
function passThrough(on) {
  if (!current) return false;
  pointerThrough(current, on);
  return true;
}

// -- launchers (overlay.register_launcher, overlay.open's launchers) ----------------

var launchers = launcherSet(null);
var launcherSpecs = I.create(null); // launcher id -> spec (all registrations so far)
var launcherCounter = 0;

function launcherOpened(launcherId) {
  document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
}

var TARGET_KEYS = ["selector", "selectors", "text_contains", "text_equals", "url_contains", "url_matches"];

function launcherTarget(item) {
  var target = {};
  for (var i = 0; i < TARGET_KEYS.length; i++) {
    var value = own(item, TARGET_KEYS[i]);
    if (value !== undefined) target[TARGET_KEYS[i]] = value;
  }
  if (target.selector === undefined && target.selectors === undefined) fail("launcher_failed", "a launcher needs a selector or selectors", { field: "launchers" });
  try {
    M.resolveAll(target); // a malformed selector or pattern fails here, not silently later
  } catch (err) {
    if (!(err instanceof M.EngineError) || err.code !== "target_not_found") fail("launcher_failed", "a launcher's target is not valid: " + err.message, { field: "launchers", cause: err.code });
  }
  return target;
}

/** One launcher item as a launchers.js spec; its click renders `rendering` (which never leaves this closure). */
function launcherSpec(item, rendering, overlayId) {
  if (!isObject(item)) fail("invalid_input", "each launcher must be an object", { field: "launchers" });
  var max = own(item, "max_instances");
  if (max === undefined) max = 3;
  if (typeof max !== "number" || max < 1 || max > 10 || floor(max) !== max) fail("invalid_input", "max_instances must be an integer from 1 to 10", { field: "max_instances" });
  launcherCounter += 1;
  var id = own(item, "id"),
    label = own(item, "label"),
    title = own(item, "title");
  return {
    id: typeof id === "string" && id ? id : overlayId + "-launcher-" + launcherCounter,
    target: launcherTarget(item),
    placement: placementOf(own(item, "placement"), "invalid_input"),
    max: max,
    label: typeof label === "string" && label ? label : rendering.title || "Open overlay",
    title: typeof title === "string" ? title : "",
    attrs: {},
    onClick: function (launcherId) {
      render(rendering, true);
      launcherOpened(launcherId);
    },
  };
}

function registerLaunchers(items, rendering, overlayId) {
  if (!isArray(items) || !items.length) fail("invalid_input", "launchers must be a non-empty array", { field: "launchers" });
  var specs = [], i;
  for (i = 0; i < items.length; i++) specs[i] = launcherSpec(own(items, i), rendering, overlayId);
  for (i = 0; i < specs.length; i++) launcherSpecs[specs[i].id] = specs[i]; // a stable id replaces its older buttons
  var all = [], ids = I.keys(launcherSpecs);
  for (i = 0; i < ids.length; i++) all[i] = launcherSpecs[ids[i]];
  launchers.replace(all);
  var states = I.create(null), now = launchers.states();
  for (i = 0; i < now.length; i++) states[now[i].id] = now[i].state;
  var out = [];
  for (i = 0; i < specs.length; i++) out[i] = { id: specs[i].id, state: states[specs[i].id] || "waiting" };
  return out;
}

function overlayOpen(args) {
  var rendering = renderArgs(args, "render_failed");
  var id;
  try {
    id = render(rendering, false);
  } catch (err) {
    if (err instanceof M.EngineError) throw err;
    fail("render_failed", "the overlay could not be rendered: " + String((err && err.message) || err), {});
  }
  var out = { ok: true, overlay_id: id };
  var items = own(args, "launchers");
  if (items !== undefined) out.launchers = registerLaunchers(items, rendering, id);
  return out;
}

function overlayClose() {
  try {
    closeOverlay();
  } catch (err) {
    fail("close_failed", "the overlay could not be closed: " + String((err && err.message) || err), {});
  }
  return { ok: true };
}

function overlayRegisterLauncher(args) {
  var rendering = renderArgs(args, "launcher_failed");
  var items = own(args, "launchers");
  if (items === undefined) fail("invalid_input", "overlay.register_launcher needs a launchers", { field: "launchers" });
  var overlayId = newId();
  return { ok: true, overlay_id: overlayId, launchers: registerLaunchers(items, rendering, overlayId) };
}

// The registry entries are locked: a page that got hold of the registry object (any code that
// hands it to a replaced built-in) cannot put its own function where the agent's HTML arrives.
// No `required` names: the dispatcher would read them off the arguments, where a missing one
// reaches Object.prototype; the primitives check their own.
var NONE_REQUIRED = I.freeze([]);
function defineLocked(name, fn) {
  definePrimitive(name, fn, NONE_REQUIRED);
  I.freeze(M.PRIMITIVES[name]);
  I.defineProperty(M.PRIMITIVES, name, bare({ writable: false, configurable: false }));
}

defineLocked("overlay.open", overlayOpen);
defineLocked("overlay.close", overlayClose);
defineLocked("overlay.register_launcher", overlayRegisterLauncher);

/** Open the overlay as a user's launcher click does (validated like overlay.open; focus moves into it). */
function renderOverlayFromArgs(args) {
  return render(renderArgs(isObject(args) ? args : {}, "render_failed"), true);
}

M.renderOverlayFromArgs = renderOverlayFromArgs;
M.onOverlayChange = onOverlayChange;
M.overlayPassThrough = passThrough;
M.renderOverlay = render;
M.OVERLAY_OPENED_EVENT = OPENED_EVENT;
  })(M, root);

  // ---- attachments.js ----
  (function (M, root) {
/*
 * attachments.js — A map's attachments on the page: applyAttachments(list, sinks).
 *
 * Each item is an attachment object as a map declares it (actions-json schema v1,
 * "attachments"): {id, kind, target, affordance: {label, title?, placement,
 * max_instances, opens: {tool, arguments, kind?}}, lifecycle: {install, remove,
 * reattach}, signals}. The list replaces the current set; launchers.js keeps a
 * launcher button beside each matching target (at most max_instances, default 1),
 * removes it when the target goes (when_context_mismatch) and puts it back when
 * the target returns or the URL or DOM changes (on_url_or_dom_change).
 *
 * A click opens what the attachment names: a primitive of this engine runs here
 * with opens.arguments (opens.kind "primitive", or no kind and a primitive the
 * engine has whose arguments need nothing from the server); anything else (a map
 * tool: opens.kind "tool", or arguments naming storage the server must resolve)
 * goes to sinks.open(attachment_id, launcher_id), for the host to send
 * attachment_open to the bridge. Either way `actions-json:overlay-launcher-opened`
 * {launcher_id} is dispatched on the document (declared signals are forwarded by
 * handlers.js watchEvents). sinks.status([{id, state}]) gets every state change.
 *
 * An attachment that opens nothing (a status_badge, say) is a badge, not a
 * button. One whose opens the server marked unavailable (a file that is not
 * there, a tool of no map) is reported failed and not installed. A target
 * naming a map state is installed only while the state's probes (when_state,
 * sent by the server) hold.
 *
 * The list holds what the map gives the user (an overlay's HTML and data, in
 * opens.arguments), so nothing of it passes through a built-in the page can
 * replace (docs/overlays.md, "What a page can reach"): items are read by own
 * property, lists by index, copies are made with the captured JSON.parse
 * (intrinsics.js), and a host may hand the list over as JSON text so that no
 * page-visible code builds it. A launcher opens only on a click the page did
 * not forge (launchers.js, docs/overlays.md "Launcher clicks").
 */
var isObject = M.isObject,
  PRIMITIVES = M.PRIMITIVES,
  launcherSet = M.launcherSet,
  OPENED_EVENT = M.OVERLAY_OPENED_EVENT,
  I = M.intrinsics;

var own = I.own,
  hasOwn = I.hasOwn,
  isArray = I.isArray;

var ATTACHMENT_ATTR = "data-actions-json-attachment";
var PLACEMENTS = { beforebegin: true, afterbegin: true, beforeend: true, afterend: true };
// Arguments only the server can turn into something a page can render (storage references).
var SERVER_RESOLVED = ["template", "data", "html_source", "data_source"];
var promiseThen = typeof Promise === "function" ? I.nativeMethod(Promise.prototype, "then", "Promise.prototype.then") : null;
var nothing = function () {};
var floor = Math.floor;

var sinks = { status: null, open: null };
var refused = []; // [{id, state: "failed"}] for items that cannot be installed at all
var installed = launcherSet(function (states) {
  var all = [];
  for (var i = 0; i < states.length; i++) all[all.length] = states[i];
  for (var j = 0; j < refused.length; j++) all[all.length] = refused[j];
  if (typeof sinks.status === "function") sinks.status(all);
});

function ownObject(obj, key) {
  var value = own(obj, key);
  return isObject(value) ? value : null;
}

function ownString(obj, key) {
  var value = own(obj, key);
  return typeof value === "string" ? value : null;
}

function runsHere(opens) {
  var tool = ownString(opens, "tool");
  if (!isObject(opens) || tool === null) return false;
  var kind = own(opens, "kind");
  if (kind === "tool") return false;
  if (!hasOwn(PRIMITIVES, tool)) return false;
  if (kind === "primitive") return true;
  var args = ownObject(opens, "arguments") || {};
  for (var i = 0; i < SERVER_RESOLVED.length; i++) if (own(args, SERVER_RESOLVED[i]) !== undefined) return false;
  return true;
}

function opener(id, opens) {
  return function (launcherId) {
    if (runsHere(opens)) {
      var tool = own(opens, "tool");
      var args = ownObject(opens, "arguments") || {};
      try {
        // A user's click: the overlay it opens takes the keyboard focus.
        if (tool === "overlay.open") M.renderOverlayFromArgs(args);
        else {
          // The primitive gets its own copy; its result is nobody's. A rejection is dropped through
          // the captured then (which throws when the result is no promise).
          var result = own(PRIMITIVES, tool).fn(I.jsonCopy(args));
          if (promiseThen && result !== null && typeof result === "object") {
            try {
              promiseThen(result, nothing, nothing);
            } catch (_notAPromise) { /* a plain output: nothing to wait for */ }
          }
        }
      } catch (err) {
        try {
          console.warn("[mcp-actions] attachment " + id + " could not open " + tool + ": " + (err && err.message));
        } catch (_ignored) { /* no console */ }
      }
    } else if (typeof sinks.open === "function") {
      sinks.open(id, launcherId);
    }
    document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
  };
}

function switchedOff(attachment) {
  var install = own(ownObject(attachment, "lifecycle"), "install");
  return install === "disabled" || install === "never";
}

/** One declared attachment as a launcher spec, or null when it cannot be installed. */
function specOf(attachment) {
  var id = ownString(attachment, "id");
  if (!isObject(attachment) || !id) return null;
  var affordance = ownObject(attachment, "affordance") || {};
  var target = own(attachment, "target");
  if (!isObject(target) && typeof target !== "string") return null;
  var placement = own(affordance, "placement");
  if (placement === undefined) placement = "afterend";
  if (typeof placement !== "string" || !hasOwn(PLACEMENTS, placement)) return null;
  var max = own(affordance, "max_instances");
  if (max === undefined) max = 1;
  if (typeof max !== "number" || !(max >= 1)) return null;
  if (switchedOff(attachment)) return null;
  var opens = ownObject(affordance, "opens");
  if (opens && own(opens, "kind") === "unavailable") return null;
  var label = ownString(affordance, "label") || id;
  var title = ownString(affordance, "title");
  if (title === null) title = ownString(attachment, "description") || "";
  var attrs = {};
  attrs[ATTACHMENT_ATTR] = id;
  return {
    id: id,
    target: target,
    placement: placement,
    max: max > 10 ? 10 : floor(max),
    label: label,
    title: title,
    attrs: attrs,
    badge: !opens,
    whenState: ownObject(attachment, "when_state"),
    onClick: opener(id, opens),
  };
}

/**
 * Replace the page's attachments with `list` (an array, or its JSON text). sinks:
 * {status([{id, state}]), open(attachment_id, launcher_id)}, either may be missing;
 * none at all keeps the sinks given before. Returns the states now.
 */
function applyAttachments(list, newSinks) {
  if (typeof list === "string") {
    try {
      list = I.parseJSON(list);
    } catch (_bad) {
      list = [];
    }
  }
  if (newSinks !== undefined) sinks = isObject(newSinks) ? { status: own(newSinks, "status"), open: own(newSinks, "open") } : { status: null, open: null };
  var items = isArray(list) ? list : [];
  var specs = [];
  refused = [];
  var seen = I.create(null);
  for (var i = 0; i < items.length; i++) {
    var attachment = items[i];
    var spec = specOf(attachment);
    var id = ownString(attachment, "id");
    if (spec && !seen[spec.id]) {
      seen[spec.id] = true;
      specs[specs.length] = spec;
    } else if (isObject(attachment) && id && !seen[id]) {
      seen[id] = true;
      refused[refused.length] = { id: id, state: switchedOff(attachment) ? "disabled" : "failed" };
    }
  }
  installed.replace(specs);
  var states = installed.states();
  for (var j = 0; j < refused.length; j++) states[states.length] = refused[j];
  return states;
}

M.applyAttachments = applyAttachments;
  })(M, root);

  // ---- engine.js ----
  (function (M, root) {
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
  })(M, root);

  // ---- boot.js ----
  (function (M, root) {
/*
 * boot.js — Installs the engine once per window and, when the client module
 * is part of this script (runtime_js, not engine_js) and a bridge URL is
 * known, starts the WebSocket client. Loading the script twice does nothing
 * the second time: the first engine and the first client stay.
 */
var engine = root.__mcpActions;
if (!engine) {
  engine = M.createEngine();
  try {
    Object.defineProperty(root, "__mcpActions", {
      value: engine,
      enumerable: false,
      configurable: false,
      writable: false,
    });
  } catch (_ignored) {
    // Another copy won the race between the check and the define: use it.
    engine = root.__mcpActions;
  }
}

// A page global of the same name that is not this engine: stay out of its way.
if (!engine || typeof engine.run !== "function" || typeof engine._attachClient !== "function") return;

if (typeof M.startClient === "function" && !root.__mcpActionsClientStarted) {
  var config = M.discoverBridge();
  if (config) {
    try {
      Object.defineProperty(root, "__mcpActionsClientStarted", { value: true, enumerable: false });
    } catch (_ignored) {
      return;
    }
    M.startClient(engine, config);
  }
}
  })(M, root);
})(typeof window !== "undefined" ? window : null);
