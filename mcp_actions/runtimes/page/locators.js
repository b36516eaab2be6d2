/*
 * locators.js — Locator resolution: a target descriptor (selector, selectors, xpath,
 * fallback_selectors, role+name, text predicates, closest) to elements, never
 * an arbitrary pick among several visible matches.
 */
var CANDIDATE_CAP = M.CANDIDATE_CAP,
  fail = M.fail,
  isObject = M.isObject,
  normalize = M.normalize,
  jsonClone = M.jsonClone,
  isVisible = M.isVisible,
  elementText = M.elementText,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  describe = M.describe;

// -- locators -------------------------------------------------------------

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

function querySelectorAllChecked(selector, label, scope) {
  if (typeof selector !== "string" || !selector.trim()) fail("invalid_locator", label + " must be a non-empty CSS selector", { matched_by: label });
  try {
    return Array.prototype.slice.call((scope || document).querySelectorAll(selector));
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

function byRole(locator) {
  var wanted = String(locator.role).toLowerCase();
  var all = Array.prototype.slice.call(document.querySelectorAll("*"));
  var matches = all.filter(function (el) { return roleOf(el) === wanted; });
  if (locator.name !== undefined && locator.name !== null && locator.name !== "") matches = nameMatches(matches, String(locator.name));
  return matches;
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
  if (typeof locator.role === "string" && locator.role) out.push({ label: "role", role: true });
  return out;
}

function applyFilters(locator, elements) {
  var out = elements;
  if (typeof locator.text_equals === "string") {
    var eq = normalize(locator.text_equals);
    out = out.filter(function (el) { return elementText(el) === eq; });
  }
  if (typeof locator.text_contains === "string") {
    var sub = normalize(locator.text_contains);
    out = out.filter(function (el) { return elementText(el).indexOf(sub) >= 0; });
  }
  if (locator.closest !== undefined && locator.closest !== null) {
    if (typeof locator.closest !== "string" || !locator.closest.trim()) fail("invalid_locator", "closest must be a CSS selector", { field: "closest" });
    var retargeted = [];
    for (var i = 0; i < out.length; i++) {
      var ancestor;
      try {
        ancestor = out[i].closest(locator.closest);
      } catch (err) {
        fail("invalid_locator", "closest is not a valid CSS selector: " + locator.closest, { field: "closest", selector: locator.closest });
      }
      if (ancestor && retargeted.indexOf(ancestor) < 0) retargeted.push(ancestor);
    }
    out = retargeted;
  }
  return out;
}

/**
 * All elements the locator designates, from the first candidate that
 * yields any: {matches, matched_by, tried}. Fails target_not_found.
 */
function resolveAll(rawLocator) {
  var locator = asLocator(rawLocator);
  var candidates = candidatesOf(locator);
  if (!candidates.length) fail("invalid_locator", "the locator names no selector, selectors, xpath, fallback_selectors or role", { locator: locatorEvidence(locator) });
  var tried = [];
  for (var i = 0; i < candidates.length; i++) {
    var c = candidates[i];
    var found = c.role ? byRole(locator) : c.xpath !== undefined ? xpathAll(c.xpath) : querySelectorAllChecked(c.css, c.label);
    var matches = applyFilters(locator, found);
    var entry = { matched_by: c.label, count: matches.length };
    if (c.css !== undefined) entry.selector = c.css;
    if (c.xpath !== undefined) entry.xpath = c.xpath;
    if (c.role) { entry.role = locator.role; if (locator.name != null) entry.name = locator.name; }
    tried.push(entry);
    if (matches.length) return { locator: locator, matches: matches, matched_by: c.label, tried: tried };
  }
  fail("target_not_found", "no element matches the locator", { locator: locatorEvidence(locator), tried: tried });
}

/**
 * Exactly one element, never an arbitrary pick: one visible match wins;
 * several visible ones are narrowed by the locator's role+name when given,
 * else multiple_targets. Hidden-only matches fail target_not_visible when
 * requireVisible, else a single hidden match is returned.
 */
function resolveOne(rawLocator, requireVisible) {
  var res = resolveAll(rawLocator);
  var visible = res.matches.filter(isVisible);
  var element = null;
  if (visible.length > 1 && res.matched_by !== "role" && typeof res.locator.role === "string" && res.locator.role) {
    var wanted = res.locator.role.toLowerCase();
    var narrowed = visible.filter(function (el) { return roleOf(el) === wanted; });
    if (res.locator.name != null && res.locator.name !== "") narrowed = nameMatches(narrowed, String(res.locator.name));
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
        candidates: res.matches.slice(0, CANDIDATE_CAP).map(describe),
      });
    }
    if (res.matches.length > 1) {
      fail("multiple_targets", res.matches.length + " hidden elements match the locator and none is visible", {
        count: res.matches.length,
        matched_by: res.matched_by,
        locator: locatorEvidence(res.locator),
        candidates: res.matches.slice(0, CANDIDATE_CAP).map(describe),
      });
    }
    element = res.matches[0];
  }
  return { element: element, matched_by: res.matched_by, match_count: res.matches.length, tried: res.tried };
}

M.asLocator = asLocator;
M.locatorEvidence = locatorEvidence;
M.resolveAll = resolveAll;
M.resolveOne = resolveOne;
