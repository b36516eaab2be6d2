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
      var heading = firstVisible(node.querySelectorAll(HEADING));
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
      // The name first: isVisible (computed style, layout) is what costs, and few headings have the name.
      return Array.prototype.some.call(c.querySelectorAll(HEADING), function (h) { return test(accessibleName(h, "heading")) && isVisible(h); });
    });
  }
  var wanted = normalize(heading).toLowerCase();
  var exact = named(function (name) { return normalize(name).toLowerCase() === wanted; });
  if (exact.length) return exact;
  return named(function (name) { return normalize(name).toLowerCase().indexOf(wanted) >= 0; });
}

/** The first visible element of a list, in its order (a section's heading): the rest are not laid out. */
function firstVisible(elements) {
  for (var i = 0; i < elements.length; i++) if (isVisible(elements[i])) return elements[i];
  return undefined;
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

/**
 * Visible elements the base locator matches on the whole page (text_equals: innermost only, as locators.js
 * does), counted up to MANY: a description asks only whether a locator finds exactly one. `pageElements()`
 * gives the page's elements (allElementsDeep), read once for all the candidates of one description.
 */
function countOnPage(locator, pageElements) {
  if (locator.selector) return visibleWhere(queryAllDeep(locator.selector), function () { return true; }).length;
  var test = matcherOf(locator);
  if (locator.text_equals !== undefined) return innermost(visibleWhere(pageElements(), test)).length;
  return countUpTo(pageElements(), test);
}

// Counting stops at two: "more than one" is all a count of two or more tells (issue 55: on a large page
// the role candidate, "button", tested every element of the page on every acting call the journal describes).
var MANY = 2;

function countUpTo(elements, test) {
  var found = 0;
  for (var i = 0; i < elements.length && found < MANY; i++) if (test(elements[i]) && isVisible(elements[i])) found++;
  return found;
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
  // Up to MANY, as countOnPage (text_equals counts all: its innermost matches are what count).
  var enough = locator.text_equals === undefined ? MANY : Infinity;
  scopes.forEach(function (scope) {
    Array.prototype.forEach.call(scope.querySelectorAll("*"), function (el) {
      if (found.length >= enough) return;
      // The locator's test first, as visibleWhere does: a column of cards has hundreds of elements to test.
      if (found.indexOf(el) < 0 && test(el) && isVisible(el)) found.push(el);
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
  // What the field holds, as the page says it (current-password, one-time-code): learning never writes a secret's value.
  var autocomplete = el.getAttribute("autocomplete");
  if (autocomplete) out.autocomplete = autocomplete.toLowerCase();
  // Its id as written, even one that looks generated (attributes leaves those out of locators): learning reads
  // the name, id, label and placeholder for what calls a field a secret (a PIN, a CVV: learning/secrets.py).
  var rawId = el.getAttribute("id");
  if (rawId) out.id = cap(rawId, TEXT_CAP);
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
  var everything = null; // the page's elements, read at most once: nothing changes while a description runs
  var pageElements = function () { return everything || (everything = allElementsDeep()); };
  for (var i = 0; i < candidates.length; i++) {
    if (countOnPage(candidates[i], pageElements) === 1) {
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
