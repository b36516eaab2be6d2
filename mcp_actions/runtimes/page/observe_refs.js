/*
 * observe_refs.js — Observation with stable element refs, for pages without a
 * map (the idea of BAP's observe): refs.observe lists the visible elements a
 * person can act on (observe_candidates.js) as {ref: "@e1", role, name,
 * value?, actions, tag?, bounds?, change, context?}, or with as_text one compact
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
  queryAllDeep = M.queryAllDeep,
  isVisible = M.isVisible,
  roleOf = M.roleOf,
  viewport = M.viewport,
  isActionable = M.isActionable,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  actionableInTree = M.actionableInTree,
  quote = M.quote, // page strings as the model reads them (core.js pageText): never one of our refs or tokens
  pageText = M.pageText,
  actionsOf = M.actionsOf, // what one element is, as page_observe says it (observe_state.js)
  valueOf = M.valueOf,
  suggestionsOf = M.suggestionsOf,
  statesOf = M.statesOf;

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

function entryFor(el, withBounds, role, name) {
  var entry = { ref: "@" + refFor(el), role: role };
  if (name) entry.name = cap(name, NAME_CAP);
  var value = valueOf(el);
  if (value !== null && value !== "") entry.value = cap(value, VALUE_CAP);
  statesOf(el, role, entry);
  var suggested = suggestionsOf(el);
  if (suggested) entry.suggestions = suggested;
  var choices = M.choicesOf(el);
  if (choices) entry.options = choices;
  var placeholder = M.placeholderOf(el, entry.name || "");
  if (placeholder) entry.placeholder = placeholder;
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
  var r = M.rectOf(el); // the browser's box, not one a page script gives (geometry.js)
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
  if (entry.options) parts.push(M.choicesText(entry.options));
  if (entry.placeholder) parts.push("placeholder " + quote(entry.placeholder));
  if (!entry.actions.length) parts.push("disabled");
  if (entry.change === "new" && observedBefore) parts.push("new");
  if (entry.tag) parts.push("<" + entry.tag + ">");
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
  var out = M.withStructure(function () {
    return listed(args, maxBytes);
  });
  // Why a page may look dead: what it threw since the engine came (observe_changes.js; issue 44).
  var errors = M.pageErrorsSoFar ? M.pageErrorsSoFar() : null;
  if (errors) out.page_errors = errors;
  return out;
}

function listed(args, maxBytes) {
  // What a person can see: a click reaches it, and it is not drawn where no one sees it (read_structure.js unseen),
  // or a control drawn by what a person sees (drawn_controls.js reachable).
  var all = actionableInTree().filter(function (el) {
    return M.reachable(el) && (!args.viewport_only || inViewport(M.drawnControl(el) || el));
  });
  // Role and name of every listed element, so look-alikes (same role and name) get their context.
  var seen = {}, names = typeof Map === "function" ? new Map() : null;
  var described = all.map(function (el) {
    var role = candidateRole(el);
    var name = candidateName(el, role);
    if (names) names.set(el, name);
    return { el: el, role: role, name: name, key: role + "\u0000" + name };
  });
  // An element and the one control inside it of the same name (a jQuery UI tab and its link) are listed once.
  var twins = names && M.innerTwins(all, function (el) { return names.get(el); });
  if (twins) described = described.filter(function (d) { return !twins.has(d.el); });
  described.forEach(function (d) { seen[d.key] = (seen[d.key] || 0) + 1; });
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
    if (args.tags === true) entry.tag = tagOf(d.el); // the HTML tag (BAP's tagName): <input>, <a>
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
  if (!isVisible(el) && !M.drawnControl(el)) fail("target_not_visible", "the element @" + key + " is not visible now", { ref: "@" + key });
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
function textsOf(el, role, noContent) {
  var texts = [noContent ? M.accessibleName(el, role) : candidateName(el, role)]; // a container: its own name, never its content
  if (el.labels) Array.prototype.forEach.call(el.labels, function (l) { texts.push(M.normalize(l.textContent)); });
  texts.push(M.normalize(el.getAttribute("placeholder")), M.normalize(el.getAttribute("aria-placeholder")));
  if (!noContent && (tagOf(el) !== "input" || ["button", "submit", "reset"].indexOf(String(el.type)) >= 0)) texts.push(M.elementText(el));
  return texts.filter(Boolean).map(function (t) { return t.toLowerCase(); });
}

/**
 * The elements whose text matches wanted, from the best tier that has any (exact, then starts-with, then contains).
 * nameOnly: elements matched by their name, label or placeholder only, never by their descendants' text.
 */
function matchText(wanted, candidates, nameOnly) {
  var tiers = [[], [], []];
  candidates.forEach(function (el) {
    var role = candidateRole(el);
    // A list, menu or tab list whose items are the controls is found by its name, never by its items' text.
    var holds = (nameOnly && nameOnly.indexOf(el) >= 0) || M.LANDMARK_ROLES[role] || (M.CONTAINER_ROLES[role] && candidates.some(function (c) { return c !== el && el.contains(c); }));
    var texts = textsOf(el, role, holds);
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
  // Any visible element is reached by its own words, not only the controls (observe_locate.js, textTargets).
  var text = !opts && M.textTargets ? M.textTargets(wanted, candidates) : null;
  var hits = matchText(wanted, text ? text.candidates : candidates, text && text.nameOnly);
  if (text) hits = text.settle(hits, matchText);
  if (hits.length > 1) {
    var twins = M.innerTwins(candidates, function (el) { return candidateName(el, candidateRole(el)); }, hits);
    if (twins) hits = hits.filter(function (el) { return !twins.has(el); });
  }
  if (!hits.length) {
    fail("target_not_found", "no visible element to act on has the text " + JSON.stringify(cap(args.text, NAME_CAP)) + (opts ? "" : M.wordsWhere(wanted)) + " (page_find or page_observe lists what there is)", { text: args.text });
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
  return actionableInTree().filter(function (el) { return isVisible(el) || !!M.drawnControl(el); });
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
  // A locator (BAP's placeholder, css, role… selectors) is found here too: one call finds and acts (observe_locate.js).
  var found = args.locator !== undefined && args.ref === undefined && args.text === undefined ? M.locatedOne(args.locator) : resolveRefOrText({ ref: args.ref, text: args.text }, args.field === true ? { accept: isField } : null);
  if (args.field === true && M.editorOf(found.el)) found = { key: refFor(M.editorOf(found.el).field), el: M.editorOf(found.el).field }; // a drawn line is its editor (editors.js)
  markOnly([found]);
  if (args.focus === true && typeof found.el.focus === "function") (M.editorOf(found.el) ? M.editorOf(found.el).input : found.el).focus(); // keys go to an editor's own input
  var role = candidateRole(found.el);
  var out = { ref: "@" + found.key, selector: "[" + REF_ATTR + '="' + found.key + '"]', role: role, actions: actionsOf(found.el, role) };
  // page_fill: a <select> chooses the option (refs.select), a date, time, range or color input its value set (refs.set_value), others typed text.
  var slider = args.field === true ? M.sliderState(found.el) : null; // page_fill moves a slider by its keys (observe_values.js)
  if (args.field === true) out.fill = tagOf(found.el) === "select" ? "select" : slider ? "slider" : M.isValueInput(found.el) ? "value" : "text";
  if (slider) out.slider = slider;
  var name = candidateName(found.el, role);
  if (name) out.name = cap(name, NAME_CAP);
  // An element of a same-origin frame: the locator primitives do not reach it, refs.frame_act does (observe_frames.js).
  if (M.inFrame && M.inFrame(found.el)) out.frame = true;
  // One round trip for what an acting tool needs before its action: the box's checked state (page_click {checked}), the point to
  // click (brought into view, and whether something covers it, as locator.element_info says) and the change mark.
  if (args.point === true) statesOf(found.el, role, out); // out.checked (and expanded, selected, pressed): observe_state.js
  if (args.point === true && !out.frame) {
    var info = M.drawnPoint(found.el) || M.elementInfo({ locator: { selector: out.selector } }); // drawn_controls.js
    out.point = info.clickable_center || { x: info.x, y: info.y };
    if (info.occluded) out.occluded = true;
    if (info.covered_by) fail("target_not_visible", "@" + found.key + " is under a " + info.covered_by.position + " <" + info.covered_by.tag + "> " + quote(cap(info.covered_by.text, NAME_CAP)) + " that stays over it however its box scrolls: close or move what covers it", { ref: "@" + found.key, covered_by: info.covered_by });
  }
  if (args.mark !== undefined) out.marked = M.changeMarkOf(found.ref, args.mark);
  return out;
}

function selectOptions(args) {
  var found = resolveRefOrText({ ref: args.ref, text: args.text }, { accept: function (el) { return tagOf(el) === "select"; } });
  var el = found.el;
  if (tagOf(el) !== "select") fail("target_not_editable", "@" + found.key + " is not a <select>", { ref: "@" + found.key, tag: tagOf(el) });
  var form = args.submit === true ? M.formToSubmit(el, "@" + found.key) : null; // before choosing (select.js)
  var wanted = Array.isArray(args.values) ? args.values.map(String) : [String(args.value)];
  var matched = [];
  Array.prototype.forEach.call(el.options, function (o) {
    var hit = !o.disabled && (wanted.indexOf(o.value) >= 0 || wanted.indexOf(o.label) >= 0 || wanted.indexOf(M.normalize(o.textContent)) >= 0);
    if (hit && (el.multiple || matched.length === 0)) matched.push(o);
  });
  if (!matched.length) {
    // What is allowed, so the next pick is right (the options' labels, the page's words).
    var allowed = Array.prototype.filter.call(el.options, function (o) { return !o.disabled; }).map(function (o) { return o.label || o.value; });
    var said = allowed.slice(0, 20).map(M.quote).join(", ") + (allowed.length > 20 ? ", … (" + allowed.length + ")" : "");
    fail("target_not_found", "no enabled option of @" + found.key + " matches; its options: " + said, { ref: "@" + found.key, values: wanted, options: allowed.slice(0, 50) });
  }
  Array.prototype.forEach.call(el.options, function (o) { o.selected = matched.indexOf(o) >= 0; });
  ["input", "change"].forEach(function (type) { el.dispatchEvent(new Event(type, { bubbles: true })); });
  var out = { ref: "@" + found.key, selected: matched.map(function (o) { return o.value; }), chosen: matched.map(function (o) { return o.label || M.normalize(o.textContent); }) };
  M.expectState(out.ref, null); // the answer's line says the chosen labels, the change report not again (change_states.js)
  return form ? Object.assign(out, M.submitForm(form)) : out;
}

// Shared with read.js and find.js (page_read, page_find): the same refs, the same elements, the same stale-ref error.
M.refFor = function (el) { return "@" + refFor(el); };
// What a person can act on (observe_candidates.js): by tag or role, a handler or pointer cursor, or an open popup list's item.
M.isInteractiveElement = isActionable;
M.elementOfRef = elementOf;
M.resolveRefOrText = resolveRefOrText; // shared with describe.js and the acting tools: {ref} or {text} to the one element
M.actionableInOrder = actionableInOrder;
M.markOnly = markOnly;
M.isField = isField;
M.contextOf = contextOf;

definePrimitive("refs.observe", function (args) { return M.afterLoad(function () { return M.withFold(args, observe(args)); }); }); // read_sections.js; what viewport_only left out: observe_scroll.js
// By text, after the document loaded, as the reading tools read (read_sections.js afterLoad): right after a
// click that navigated, the words may be in the part of the page still arriving. A ref or a locator (as page_find finds it) needs no wait.
definePrimitive("refs.resolve", function (args) { return args.text === undefined ? resolve(args) : M.afterLoad(function () { return resolve(args); }); });
definePrimitive("refs.select", selectOptions);
