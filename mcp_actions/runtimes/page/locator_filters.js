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
  return "'" + (text.length > THERE_TEXT_CAP ? text.slice(0, M.cutPoint(text, THERE_TEXT_CAP - 1)) + "\u2026" : text) + "'";
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
