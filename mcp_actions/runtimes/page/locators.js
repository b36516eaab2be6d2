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
 * The one visible element a locator resolves to, scrolled into view when a
 * person would scroll to it first, and the point to click it at
 * (click_point.js): what locator.element_info reports and pointer.click's
 * target clicks. covered_by: the sticky or fixed box that stays over it.
 */
function resolveClickable(locator) {
  var resolved = resolveOne(locator, true);
  // Scrolled into view in whichever box scrolls it, out from under a sticky header (click_point.js).
  var at = M.clickPoint(resolved.element);
  resolved.center = at.point;
  if (at.covered) {
    resolved.covered_by = describe(at.covered);
    resolved.covered_by.position = root.getComputedStyle(at.covered).position; // sticky or fixed
  }
  return resolved;
}

M.asLocator = asLocator;
M.locatorEvidence = locatorEvidence;
M.resolveAll = resolveAll;
M.resolveOne = resolveOne;
M.resolveClickable = resolveClickable;
