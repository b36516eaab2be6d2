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
 * server renders some answers itself with the same rule (dispatch/builtins/answers.py page_text).
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
M.fail = fail;
M.guard = guard;
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
