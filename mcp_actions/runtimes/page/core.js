/*
 * core.js — Engine basics: the error type and envelopes, small helpers, and the primitive
 * registry every other module registers into (boxes and the viewport are geometry.js's).
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
  return shown(text).replace(/\s+/g, " ").trim();
}

// -- characters a person cannot see (docs/threat-model.md, "Page text is the page's, and says so") ----------
//
// Unicode's default-ignorable code points draw nothing, yet a model reads them: tag characters
// (U+E0000–E0FFF) spell whole sentences after visible words, bidi controls (U+200E/200F, U+202A–202E,
// U+2066–2069, U+061C) reorder what a person sees, zero-width characters (U+200B–200D, U+2060, U+FEFF)
// split or join words unseen, and variation selectors (U+FE00–FE0F, U+E0100–E01EF) carry bytes after
// an emoji. All are removed from page text before any tool hands it on. An emoji joined by U+200D reads
// as its parts ("👨👩👧"), a subdivision flag as its black flag: still the same pictures, side by side.
var INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFF8]|\uD82F[\uDCA0-\uDCA3]|\uD834[\uDD73-\uDD7A]|[\uDB40-\uDB43][\uDC00-\uDFFF]/g;
// A surrogate without its other half: no character at all, and a transport that encodes UTF-8 stops at it.
var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A page string as a person sees its characters: default-ignorable code points removed (see above)
 * and a lone surrogate shown as U+FFFD. Every page string the engine hands on passes here (through
 * normalize, pageText or cap); the server repeats it for what it reads itself (mcp_actions/page_chars.py).
 */
var PLAIN = /^[\u0000-\u00AC]*$/; // no character at or past U+00AD: nothing to remove (most text; the fast path)

function shown(text) {
  var s = String(text == null ? "" : text);
  return PLAIN.test(s) ? s : s.replace(INVISIBLE, "").replace(LONE_SURROGATE, "\uFFFD");
}

/**
 * Where text may be cut at or before index `at` without splitting a character: one less when `at`
 * would part a surrogate pair (a tag character, an emoji), so no cut leaves half of one.
 */
function cutPoint(text, at) {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  var before = text.charCodeAt(at - 1), after = text.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? at - 1 : at;
}

/** text.slice(start, end), both ends moved back to the nearest whole character (cutPoint). */
function sliceText(text, start, end) {
  return text.slice(cutPoint(text, start), end === undefined ? undefined : cutPoint(text, end));
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
 * server renders some answers itself with the same rule (dispatch/builtins/answers.py page_text).
 */
function pageText(text) {
  return shown(text)
    .replace(/@(?=e[0-9]|e?$)/g, "\uFF20")
    .replace(/\[(?=[a-z][a-z]|\/|[a-z]?$)/g, "\uFF3B")
    .replace(/[\u0085\u2028\u2029]/g, " ");
}

/** A page string as a JSON string, "…" (quotes and newlines escaped), as pageText shows it. */
function quote(text) {
  return JSON.stringify(pageText(text));
}

/** Page text as a person sees it (shown), at most `limit` UTF-16 units, cut between whole characters. */
function cap(text, limit) {
  text = shown(text);
  return text.length > limit ? text.slice(0, cutPoint(text, limit)) : text;
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
M.cap = cap;
M.cutPoint = cutPoint;
M.fail = fail;
M.guard = guard;
M.isEnabled = isEnabled;
M.isObject = isObject;
M.jsonClone = jsonClone;
M.normalize = normalize;
M.pageText = pageText;
M.quote = quote;
M.round = round;
M.shown = shown;
M.sliceText = sliceText;
M.requireNumber = requireNumber;
M.requireString = requireString;
M.tagOf = tagOf;
