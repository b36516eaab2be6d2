/*
 * observe_locate.js — refs.locate (page_find {locator}): the elements a locator designates, as refs.
 *
 * An agent protocol's selectors (BAP's css, xpath, testId, role and name) are locators
 * (locators.js), while the acting tools take a ref or a visible text: this turns a locator
 * into the refs observe and the readers give the same elements, and the caller refuses
 * several as acting by text does. A module of its own after find.js, whose answer it shares.
 *
 * It also finds the words themselves (textHolders): acting by text reaches any visible element by
 * its own text, a plain span with a tooltip included, not only the controls observe lists.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  refFor = M.refFor,
  resolveAll = M.resolveAll,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName;

var NAME_CAP = 80;

/**
 * refs.locate {locator, max_results?}: every element the locator designates, the visible ones
 * when any is, each with its ref, role and name, in the shape refs.find answers.
 */
function locate(args) {
  var found = resolveAll(args.locator);
  var els = found.visible.length ? found.visible : found.matches;
  var max = typeof args.max_results === "number" ? args.max_results : 20;
  var matches = els.slice(0, max).map(function (el) {
    var role = candidateRole(el);
    var m = { ref: refFor(el), role: role };
    var name = candidateName(el, role);
    if (name) m.name = cap(name, NAME_CAP);
    return m;
  });
  return { matches: matches, total: els.length };
}

/**
 * The one element a locator designates for an acting tool (refs.resolve {locator}, observe_refs.js), found in
 * the call that acts: the visible matches when any is, else all, as refs.locate lists them. Several fail
 * multiple_targets with their refs, as acting by text does, never one picked; none, target_not_found.
 */
function locatedOne(locator) {
  var found = resolveAll(locator);
  var els = found.visible.length ? found.visible : found.matches;
  if (els.length > 1) {
    var listed = els.slice(0, 10).map(function (el) {
      var role = candidateRole(el), name = candidateName(el, role);
      return name ? { ref: refFor(el), role: role, name: cap(name, NAME_CAP) } : { ref: refFor(el), role: role };
    });
    var lines = listed.map(function (c) { return c.ref + " " + c.role + (c.name ? " " + M.quote(c.name) : ""); });
    if (els.length > listed.length) lines.push("(" + listed.length + " of " + els.length + ")");
    fail("multiple_targets", els.length + " elements match the locator; act on one by its ref:\n" + lines.join("\n"), { match_count: els.length, candidates: listed });
  }
  var ref = refFor(els[0]); // "@e12"
  return { key: ref.slice(1), el: els[0], ref: ref };
}

// What holds text a person reads, never a target by its words: the page itself and its landmarks.
var NOT_HOLDERS = { html: 1, body: 1, main: 1, nav: 1, header: 1, footer: 1, aside: 1, script: 1, style: 1, noscript: 1, template: 1, head: 1, title: 1 };
var LANDMARK_ROLES = M.LANDMARK_ROLES; // observe_candidates.js

function foldedText(text) {
  return M.normalize(text).toLowerCase();
}

/**
 * The smallest visible elements that hold `wanted` (lower-cased, normalized) in their own text:
 * each holds the words while none of its child elements does, so a landmark or a large container
 * is never one through its descendants' text. Words inside one text node are found by a walk of
 * the text nodes; words split over inline elements ("Hover <b>for</b> help") by the elements' text.
 */
function textHolders(wanted) {
  var root = document.body;
  if (!root || !wanted) return [];
  var found = [];
  var seen = typeof Set === "function" ? new Set() : null;
  var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    var parent = node.parentElement;
    if (parent && (!seen || !seen.has(parent)) && foldedText(node.nodeValue).indexOf(wanted) >= 0) {
      if (seen) seen.add(parent);
      found.push(parent);
    }
  }
  var shown = found.filter(function (el) { return isHolder(el, wanted); });
  if (shown.length) return shown;
  // Split over inline elements: every element whose text holds the words, then the innermost.
  var all = root.querySelectorAll("*");
  var holding = [];
  for (var i = 0; i < all.length; i++) if (!NOT_HOLDERS[all[i].tagName.toLowerCase()] && foldedText(all[i].textContent).indexOf(wanted) >= 0) holding.push(all[i]);
  return holding.filter(function (el) {
    return !holding.some(function (other) { return other !== el && el.contains(other); }) && isHolder(el, wanted);
  });
}

/** Whether el may be a text target for `wanted`: visible, no landmark, and the words as a person reads them there. */
function isHolder(el, wanted) {
  if (NOT_HOLDERS[el.tagName.toLowerCase()] || LANDMARK_ROLES[M.candidateRole(el)] || !M.isVisible(el)) return false;
  return foldedText(M.elementText(el)).indexOf(wanted) >= 0;
}

/**
 * Acting by text over every visible element (refs.resolve's text, observe_refs.js), given the
 * controls that could be meant: {candidates, nameOnly, settle(hits, matchText)}. A control or
 * container that says more than the words' holder inside it gives way to that holder (nameOnly:
 * matched by its name only), so the target is the smallest element holding the words, never a card
 * or landmark through its descendants' text. Plain text outside any control (an instruction that
 * quotes the words, a tooltip trigger) is looked at only when no control has them (settle), and a
 * holder inside a control that matched too (a button's label span) is that control.
 */
function textTargets(wanted, controls) {
  var holders = textHolders(wanted);
  var inControl = function (el) { return controls.some(function (c) { return c === el || c.contains(el); }); };
  var nameOnly = controls.filter(function (el) {
    return holders.some(function (h) { return h !== el && el.contains(h) && M.normalize(M.elementText(el)) !== M.normalize(M.elementText(h)); });
  });
  var inside = holders.filter(function (h) { return controls.indexOf(h) < 0 && inControl(h); });
  var plain = holders.filter(function (h) { return !inControl(h); });
  return {
    candidates: controls.concat(inside),
    nameOnly: nameOnly,
    settle: function (hits, matchText) {
      if (!hits.length && plain.length) hits = matchText(wanted, plain, null);
      // A holder inside a control that matched too, or inside its label (Base Web's checkbox's words), is that control.
      return hits.filter(function (el) { return holders.indexOf(el) < 0 || !hits.some(function (other) { return other !== el && (other.contains(el) || labelHolds(other, el)); }); });
    },
  };
}

/** Whether el is inside a <label> of control. */
function labelHolds(control, el) {
  var labels = control.labels ? Array.prototype.slice.call(control.labels) : [];
  return labels.some(function (label) { return label.contains(el); });
}

var LINE_CAP = 80;

/**
 * Where words that no element of its own holds are, for target_not_found (issue 53): the line of text a person
 * reads them in (the innermost visible element whose text holds them, a landmark too: the words may span its
 * lines), as '; the words are only in the text of main: "…Total quantity: 42 Unit price…"'; "" when not shown.
 * A page still loading (its document not complete after refs.resolve waited for it) is said too: the words may
 * be in its part still to come (page_act's next step right after a navigation; issue 53).
 */
function wordsWhere(wanted) {
  return textLine(wanted) + (document.readyState === "complete" ? "" : "; the page is still loading");
}

function textLine(wanted) {
  var all = document.body ? document.body.querySelectorAll("*") : [];
  var inner = null;
  for (var i = 0; i < all.length; i++) {
    var tag = all[i].tagName.toLowerCase();
    if (/^(script|style|noscript|template)$/.test(tag) || (inner && !inner.contains(all[i]))) continue;
    if (foldedText(all[i].textContent).indexOf(wanted) >= 0 && M.isVisible(all[i]) && foldedText(M.elementText(all[i])).indexOf(wanted) >= 0) inner = all[i];
  }
  if (!inner) return "";
  var text = M.elementText(inner), at = text.toLowerCase().indexOf(wanted);
  if (at < 0) return "";
  var start = Math.max(0, at - 24), end = Math.min(text.length, Math.max(start + LINE_CAP, at + wanted.length));
  var line = (start > 0 ? "\u2026" : "") + M.sliceText(text, start, end).trim() + (end < text.length ? "\u2026" : "");
  var role = M.candidateRole(inner), ref = M.reachable(inner) && M.isActionable(inner) ? M.refFor(inner) + " " : "";
  return "; the words are only in the text of " + ref + role + ": " + M.quote(line) + ", no element of their own";
}

definePrimitive("refs.locate", locate);
M.locatedOne = locatedOne;
M.textTargets = textTargets;
M.wordsWhere = wordsWhere;
M.textHolders = textHolders;
