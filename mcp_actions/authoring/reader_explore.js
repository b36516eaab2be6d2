/*
 * reader_explore.js — What `mcp-actions init` reads for exploring (authoring/explore.py): the text
 * fields outside any form that it types into, the checkboxes and filters outside rows, and — once it
 * has typed a probe text and pressed Enter — where that text shows: the row (refs.describe's rule for
 * rows, describe.js), the row's selector, the element that shows the text, and the row's controls,
 * each with a locator that finds it inside the row that has that text.
 *
 * Loaded after reader.js (authoring/reader.py), whose locators and field descriptions it uses, so
 * what it reports resolves in the engine as the drafted map will. Nothing here changes the page.
 */
var normalize = M.normalize,
  cap = M.cap,
  tagOf = M.tagOf,
  isEnabled = M.isEnabled,
  isVisible = M.isVisible,
  queryAllDeep = M.queryAllDeep,
  allElementsDeep = M.allElementsDeep,
  roleOf = M.roleOf,
  elementText = M.elementText,
  quoted = M.readerQuoted,
  stableId = M.readerStableId,
  designates = M.readerDesignates,
  roleName = M.readerRoleName,
  locatorFor = M.readerLocatorFor,
  regionOf = M.readerRegionOf,
  fieldBase = M.readerFieldBase,
  isSearchBox = M.readerIsSearchBox,
  TEXT_TYPES = M.READER_TEXT_TYPES;

var NAME_CAP = 80;
var TEXT_CAP = 200;

/**
 * Text fields outside any form that are not search boxes (TodoMVC's input.new-todo): nothing
 * says what submits them, so init learns it by typing and pressing Enter (when it explores).
 * Each: the field's base, its locator (or reason no_locator), region.
 */
function loneFields() {
  return queryAllDeep("input, textarea, [role=textbox]").filter(function (el) {
    if (el.form || el.closest("form")) return false;
    var type = String(el.type || "").toLowerCase();
    if (tagOf(el) === "input" && !TEXT_TYPES[type]) return false;
    if (tagOf(el) === "textarea" || type === "password") return false; // Enter adds a line / a secret is no probe's business
    return !isSearchBox(el) && isVisible(el) && isEnabled(el) && !el.readOnly;
  }).map(function (el) {
    var out = fieldBase(el);
    out.control = "text";
    out.locator = locatorFor(el, {});
    out.region = regionOf(el);
    return out;
  });
}

/** Words that say what a control does, for the risk-word rules: its name, text, title, classes, id. */
function wordsOf(el) {
  var rn = roleName(el);
  return [rn.name, el.getAttribute("title") || "", el.getAttribute("class") || "", el.id || "", el.getAttribute("name") || ""].join(" ");
}

/** The checkboxes and switches outside forms and rows (TodoMVC's "Mark all as complete"), each {name, locator, checked}. */
function toggles() {
  return queryAllDeep("input[type=checkbox], [role=checkbox], [role=switch]").filter(function (el) {
    return !(el.form || el.closest("form")) && !rowOf(el) && isVisible(el) && isEnabled(el);
  }).map(function (el) {
    var rn = roleName(el);
    var locator = rn.name ? locatorFor(el, {}) : null;
    return locator ? { name: cap(rn.name, TEXT_CAP), role: rn.role, locator: locator, checked: !!el.checked || el.getAttribute("aria-checked") === "true", words: wordsOf(el), region: regionOf(el) } : null;
  }).filter(Boolean);
}

/**
 * Filters: links to this same page that differ only in their fragment, two or more in one
 * list or nav (TodoMVC's All / Active / Completed), and tabs ([role=tab]). Each {name, href,
 * locator, kind, selected}.
 */
function filters() {
  var here = String(root.location.href).split("#")[0];
  var out = [];
  var groups = [];
  queryAllDeep("a[href]").forEach(function (a) {
    var url;
    try { url = new URL(a.href, root.location.href); } catch (_e) { return; }
    if (url.href.split("#")[0] !== here || !url.hash || url.hash === "#" || !isVisible(a)) return;
    var group = a.closest("ul, ol, nav, [role=tablist], [role=navigation]");
    if (!group) return;
    groups.push({ el: a, group: group, hash: url.hash });
  });
  groups.forEach(function (entry) {
    var siblings = groups.filter(function (other) { return other.group === entry.group; });
    if (siblings.length < 2) return; // one fragment link is a skip link, not a filter
    var rn = roleName(entry.el);
    var locator = rn.name ? locatorFor(entry.el, {}) : null;
    if (!locator) return;
    var cls = String(entry.el.getAttribute("class") || "");
    out.push({ name: cap(rn.name, TEXT_CAP), href: entry.hash, locator: locator, kind: "link", selected: /\b(selected|active|current)\b/.test(cls) || entry.el.getAttribute("aria-current") !== null });
  });
  queryAllDeep("[role=tab]").forEach(function (tab) {
    if (!isVisible(tab)) return;
    var rn = roleName(tab);
    var locator = rn.name ? locatorFor(tab, {}) : null;
    if (locator) out.push({ name: cap(rn.name, TEXT_CAP), href: "", locator: locator, kind: "tab", selected: tab.getAttribute("aria-selected") === "true" });
  });
  return out;
}

var ROW_CONTROLS = "input, button, select, textarea, a[href], [role=button], [role=checkbox], [role=switch], [role=link], [role=menuitem]";

/**
 * The row, item or card `el` sits in, by refs.describe's rule (describe.js: li, tr, [role=row],
 * article, .card, .todo…, nearest first), so init and actions_save_tool scope a row alike:
 * {element, selector}, or null.
 */
function rowOf(el) {
  var container = M.describeElement(el).container;
  var parent = M.composedParent(el);
  var element = container && parent && parent.closest ? parent.closest(container.selector) : null;
  return element ? { element: element, selector: container.selector } : null;
}

/** A class a person wrote (todo-list, destroy), not a generated one (css-1x2y3z, sc-aBcD): else "". */
function stableClass(el) {
  var classes = String(el.getAttribute("class") || "").split(/\s+/).filter(function (c) {
    return c && stableId(c) && !/^(css|sc|jsx|svelte|emotion|styled)-/.test(c) && !/^(selected|active|completed|hidden|open|checked|editing)$/.test(c);
  });
  return classes[0] || "";
}

/** The selector of the rows: "ul.todo-list li" (the list's class or id, then the row's own selector), checked to match `row`. */
function rowSelector(row, own) {
  var parent = M.composedParent(row);
  var candidates = [];
  if (parent && parent.nodeType === 1) {
    if (parent.id && stableId(parent.id)) candidates.push("#" + CSS.escape(parent.id) + " " + own);
    if (stableClass(parent)) candidates.push(tagOf(parent) + "." + CSS.escape(stableClass(parent)) + " " + own);
  }
  candidates.push(own);
  for (var i = 0; i < candidates.length; i++) {
    try { if (row.matches(candidates[i])) return candidates[i]; } catch (_e) { /* not a selector */ }
  }
  return null;
}

/** The in-row locators of a control, best first (without the row scope): role and name, role, tag.class, aria-label. */
function rowControlCandidates(el, probe) {
  var rn = roleName(el);
  var out = [];
  // A name that carries the row's text ("Delete Buy milk") differs per row: the role alone then.
  if (rn.role && rn.name && rn.name.indexOf(probe) < 0 && rn.name.length <= NAME_CAP) out.push({ role: rn.role, name: rn.name });
  if (rn.role) out.push({ role: rn.role });
  var cls = stableClass(el);
  if (cls) out.push({ selector: tagOf(el) + "." + CSS.escape(cls) });
  var aria = el.getAttribute("aria-label");
  if (aria && aria.indexOf(probe) < 0) out.push({ selector: tagOf(el) + "[aria-label=" + quoted(aria) + "]" });
  return out;
}

/**
 * Where the text `probe` shows after init typed it and pressed Enter: {found, row?}. row:
 * {selector (the rows), title ({selector, text_equals}: the element inside the row that shows
 * exactly the text), text, controls: [{kind, role, name, locator, visible, checked, words}]}.
 * A control's locator resolves, within the row that has the title, to that control alone.
 */
function readRows(probe) {
  probe = normalize(probe);
  var hits = allElementsDeep().filter(function (el) {
    return isVisible(el) && tagOf(el) !== "input" && tagOf(el) !== "textarea" && elementText(el) === probe;
  });
  hits = hits.filter(function (el) { return !hits.some(function (other) { return other !== el && el.contains(other); }); });
  if (!hits.length) return { found: false };
  var title = hits[0];
  var found = rowOf(title);
  if (!found) return { found: true, count: hits.length };
  var row = found.element;
  var selector = rowSelector(row, found.selector);
  if (!selector) return { found: true, count: hits.length };
  var titleLocator = { selector: tagOf(title), text_equals: probe };
  var scope = { selector: selector, has: titleLocator };
  if (!designates(scope, row, true)) return { found: true, count: hits.length, reason: "the row has no element whose text is the typed text alone" };
  var controls = [];
  Array.prototype.forEach.call(row.querySelectorAll(ROW_CONTROLS), function (el) {
    var tag = tagOf(el);
    var type = String(el.type || "").toLowerCase();
    var role = roleOf(el);
    var kind = role === "checkbox" || role === "switch" ? "checkbox" : role === "link" ? "link" : role === "button" || tag === "button" ? "button" : "";
    if (!kind || (tag === "input" && type !== "checkbox" && type !== "button" && type !== "submit")) return;
    var visible = isVisible(el);
    var candidates = rowControlCandidates(el, probe);
    var locator = null;
    for (var i = 0; i < candidates.length && !locator; i++) {
      var scoped = {};
      Object.keys(candidates[i]).forEach(function (k) { scoped[k] = candidates[i][k]; });
      scoped.within = scope;
      if (designates(scoped, el, visible)) locator = candidates[i];
    }
    var rn = roleName(el);
    // A name lent by the row's text (a checkbox named by its row's label) names no control of its own.
    var name = rn.name.indexOf(probe) >= 0 ? "" : cap(rn.name, TEXT_CAP);
    controls.push({ kind: kind, role: rn.role || "", name: name, class: stableClass(el), locator: locator, visible: visible, checked: !!el.checked || el.getAttribute("aria-checked") === "true", words: wordsOf(el) });
  });
  return { found: true, count: hits.length, row: { selector: selector, title: titleLocator, text: cap(elementText(row), TEXT_CAP), controls: controls } };
}

M.readLoneFields = loneFields;
M.readToggles = toggles;
M.readFilters = filters;
M.readRows = readRows;
