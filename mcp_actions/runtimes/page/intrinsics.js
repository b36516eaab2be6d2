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
