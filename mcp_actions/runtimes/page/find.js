/*
 * find.js — refs.find (the page_find tool): the elements that match a text, a
 * role or a name, each {ref, role, name, context} (docs/mcp-surface.md,
 * "page_find"). Refs are page_observe's (observe_refs.js refFor).
 *
 * Candidates: the interactive elements and headings a reader reads
 * (read_structure.js isReadable), or, given a role, every readable element of
 * that role (a list, a row, a dialog: page_read {ref} then reads it).
 * Searched: the document, its open shadow roots and its same-origin frames.
 * Case-insensitive substrings: `name` matches the accessible name; `text`
 * matches the name, the element's own text, the text of the item or row it
 * sits in, or the name of its section (so {text: "Doing", name: "Add a card"}
 * is the Doing list's button). Exact matches come first, then name matches,
 * then matches by the item's text, then by the section's name; document order
 * breaks ties. context: the section's name and the item's text (when they
 * differ from the element's name), short.
 *
 * Text that is neither a control nor a heading (a sentence of an article, a
 * cell) is found too: `role: "paragraph"` takes <p> elements (ARIA's implicit
 * role of <p>, which roleOf leaves out), and a `text` query that matches no
 * control or heading falls back to the innermost text blocks holding it (TEXT_BLOCKS).
 * A text block's name is the words around the match, so the answer shows it. A block is a tag of
 * TEXT_BLOCKS or any other element with words of its own that a browser lays out as a block (a <div>); a
 * block inside a table cell is said as the cell, whose context is its row.
 *
 * A term (<dt>) says its definition's first sentence as its context, and the sentence that gives a
 * default when it has one (a setting's), so a found term answers without a read. Elements matched only
 * by the text of their item or section (a code block's copy buttons) come after the rest, those alike
 * (same role and name) said once with how many more (unless a role was asked for); when exact matches answered, PARTIAL_AFTER_EXACT
 * partial ones at most follow them, with a role asked for too, unless max_results asks for more than its default.
 * A match in a table row said from the middle of its words says the row's head first (rowHead).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  tagOf = M.tagOf,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  queryAllDeep = M.queryAllDeep,
  refFor = M.refFor,
  isInteractiveElement = M.isInteractiveElement,
  isReadable = M.isReadable,
  frameDocument = M.frameDocument,
  itemOf = M.itemOf,
  sectionName = M.sectionName,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  withStructure = M.withStructure,
  visibleText = M.visibleText,
  skipReason = M.skipReason,
  textHidden = M.textHidden,
  styleOf = M.styleOf;

var NAME_CAP = 80;
var CONTEXT_CAP = 180;
var SECTION_CAP = 60;
var ITEM_CAP = 110;
var ROW_HEAD_CAP = 50; // a row's first cell, said before the words around the match
// Roles that say where words are (a heading, a glossary's term): among matches as good, said first.
var TITLES = { heading: 1, term: 1 };
var DEFAULT_RESULTS = 20;
var SNIPPET_BEFORE = 24;
var DEFINITION_CAP = 200;
var PARTIAL_AFTER_EXACT = 2;
// Tags never read as a block of running text (their text is not the page's, or a control says it).
var NOT_BLOCKS = { html: 1, head: 1, title: 1, script: 1, style: 1, noscript: 1, template: 1, select: 1, option: 1, button: 1, textarea: 1 };
// Blocks of running text a reader reads, searched when a text query finds no control or heading.
var TEXT_BLOCKS = { p: true, li: true, dd: true, dt: true, td: true, th: true, blockquote: true, figcaption: true, pre: true, caption: true };

/** Every element of the document, its open shadow roots and its same-origin frames, in order. */
function allElements(doc) {
  var out = [];
  var found = queryAllDeep("*", doc);
  for (var i = 0; i < found.length; i++) {
    out.push(found[i]);
    var tag = tagOf(found[i]);
    var inner = tag === "iframe" || tag === "frame" ? frameDocument(found[i]) : null;
    if (inner) out.push.apply(out, allElements(inner));
  }
  return out;
}

function optionalText(args, key) {
  var value = args[key];
  if (value === undefined) return "";
  if (typeof value !== "string") fail("invalid_input", key + " must be a string", { field: key });
  return normalize(value).toLowerCase();
}

function has(haystack, needle) {
  return haystack.toLowerCase().indexOf(needle) >= 0;
}

// ARIA's implicit roles of tags roleOf leaves out (it names what the other tools need).
var TEXT_ROLES = { p: "paragraph", dt: "term", dd: "definition", figure: "figure" };

function ownRole(el, actionable) {
  // page_observe's role for what a person can act on ("clickable", a popup's "option"), ARIA's for the rest.
  if (actionable) return candidateRole(el);
  return roleOf(el) || TEXT_ROLES[tagOf(el)] || null;
}

/**
 * The words of text around the first place needle is found in it, at most NAME_CAP characters, cut
 * at word boundaries with an ellipsis at each cut end.
 */
function snippet(text, needle, limit) {
  var at = text.toLowerCase().indexOf(needle);
  if (at < 0) at = 0;
  var start = Math.max(0, at - SNIPPET_BEFORE);
  if (start > 0) start = Math.min(at, text.indexOf(" ", start) + 1 || at);
  var end = Math.min(text.length, Math.max(start + (limit || NAME_CAP) - 2, at + needle.length));
  if (end < text.length) {
    var space = text.lastIndexOf(" ", end);
    if (space > at + needle.length) end = space;
  }
  return (start > 0 ? "\u2026" : "") + M.sliceText(text, start, end).trim() + (end < text.length ? "\u2026" : "");
}

/** How well el matches (0 best), or -1 when it does not. */
function rank(el, role, actionable, query, cache) {
  var name = actionable ? candidateName(el, role) : accessibleName(el, role);
  // A landmark, or a control holding the words in a smaller element of its own (a focusable panel): its own
  // name only, never its descendants' text; that smaller element is found itself (issue 53).
  var outer = actionable && query.text && (M.LANDMARK_ROLES[role] || (query.holders && query.holders.some(function (h) { return h !== el && el.contains(h); })));
  if (outer) name = accessibleName(el, role);
  // A heading named by its content is named by the words a person reads in it (not a hidden span's).
  if (!actionable && TITLES[role] && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) name = visibleText(el);
  // A <select>'s option is named by its label (what page_select takes).
  if (tagOf(el) === "option") name = normalize(el.label || el.textContent);
  // A list, a menu or a grid is found by its name; what it holds is found itself.
  var own = name || (M.CONTAINER_ROLES[role] || outer ? "" : visibleText(el));
  // A paragraph has no accessible name: it is named by its words around the match.
  if (!name && role === "paragraph") name = snippet(own, query.text || query.name);
  if (query.name && !has(own, query.name)) return { rank: -1 };
  var found = { name: name, rank: query.name && own.toLowerCase() === query.name ? 0 : 1 };
  if (!query.text) return found;
  if (own.toLowerCase() === query.text) return { name: name, rank: 0 };
  if (has(own, query.text)) return { name: name, rank: 1 };
  var item = itemOf(el);
  var said = item && item !== el ? itemText(item) : "";
  if (said && has(said, query.text)) return { name: name, rank: said.toLowerCase() === query.text ? 2 : 3, item: item };
  var section = sectionName(el, cache);
  if (section && has(section, query.text)) return { name: name, rank: 4, section: section };
  return { rank: -1 };
}

/**
 * An item's text as a person reads it: without the glyphs of icon buttons (an element with an
 * aria-label says its name there, "Delete", not its "×") and without aria-hidden decoration.
 */
function itemText(item) {
  var parts = [];
  (function walk(node) {
    var hidden = null;
    for (var n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && tagOf(n) === "br") parts.push(" ");
      else if (n.nodeType === 3) {
        // Text a reader leaves out or does not see (read_structure.js textHidden) is not said.
        if (hidden === null) hidden = node !== item && !!textHidden(node, styleOf(node));
        if (!hidden) parts.push(n.nodeValue);
      } else if (n.nodeType === 1 && !(n.hasAttribute("aria-label") && tagOf(n) !== "input") && !/^(script|style)$/.test(tagOf(n)) && !skipReason(n)) {
        // Blocks apart, inline boxes run on ("basename(sys.argv[0])" then ")"), as visibleText says them.
        var inline = /^inline/.test(styleOf(n).display);
        if (!inline) parts.push(" ");
        walk(n);
        if (!inline) parts.push(" ");
      }
    }
  })(item);
  return normalize(parts.join(""));
}

/** text cut to limit characters at a word's end, with an ellipsis where it was cut. */
function wordCap(text, limit) {
  if (text.length <= limit) return text;
  var space = text.lastIndexOf(" ", limit - 1);
  return text.slice(0, M.cutPoint(text, space > limit / 2 ? space : limit - 1)) + "\u2026";
}

/**
 * Where el sits: its section's name, then the item or row it is in (or the term it is defined under),
 * whole when short, else the words around what was searched for, so the answer can be read from it.
 */
function contextOf(el, name, found, cache, needle) {
  var parts = [];
  var section = found.section || sectionName(el, cache);
  if (section && section !== name) parts.push(wordCap(section, SECTION_CAP));
  var item = found.item || itemOf(el);
  var said = item && item !== el ? itemText(item) : M.termOf(el);
  // An item that is the element's own words again (a list item of one paragraph) says nothing more.
  if (said && item && item !== el && squeeze(said) === squeeze(visibleText(el))) said = "";
  var definition = !said && tagOf(el) === "dt" ? definitionOf(el) : "";
  var words = "";
  if (!definition && said && said !== name && said !== section) {
    words = said.length <= ITEM_CAP ? said : needle && has(said, needle) ? snippet(said, needle, ITEM_CAP) : wordCap(said, ITEM_CAP);
  }
  // A row said from the middle (the words around the match), or a cell that is all its row says, would lose what
  // the row is about (PostgreSQL's operator `jsonb @> jsonb → boolean` before its description): its head says it.
  var cut = words ? words.charAt(0) === "\u2026" : item && item !== el && name.charAt(0) === "\u2026";
  var head = cut && item ? rowHead(el, item) : "";
  if (head) {
    parts.push(wordCap(head, ROW_HEAD_CAP));
    if (words) words = snippet(said, needle, ITEM_CAP - Math.min(head.length, ROW_HEAD_CAP));
  }
  if (definition) parts.push(definition);
  else if (words) parts.push(words);
  return cap(parts.join(" \u203a "), definition ? SECTION_CAP + 3 + DEFINITION_CAP : CONTEXT_CAP);
}

function squeeze(text) {
  return text.replace(/\s+/g, "");
}

/**
 * The words that head a table row: its first cell's when el is in another, else, in a one-column table whose
 * cells open with a block of their own (PostgreSQL's <p class="func_signature">), that block when el is past it.
 */
function rowHead(el, row) {
  if (tagOf(row) !== "tr" && roleOf(row) !== "row") return "";
  var first = null;
  for (var c = row.firstElementChild; c && !first; c = c.nextElementSibling) {
    if (/^(td|th)$/.test(tagOf(c)) || /^(cell|gridcell|rowheader|columnheader)$/.test(roleOf(c) || "")) first = c;
  }
  if (!first || !isReadable(first)) return "";
  var head = first;
  if (first.contains(el)) {
    head = first.firstElementChild;
    while (head && !/\S/.test(head.textContent)) head = head.nextElementSibling;
    if (!head || head.contains(el) || !head.nextElementSibling || /^inline/.test(styleOf(head).display)) return "";
  }
  return visibleText(head);
}

/** A term's definition as its context: whole when short, else its first sentence and the one that gives a default. */
function definitionOf(dt) {
  var text = M.definitionsOf(dt).map(visibleText).join(" ");
  if (text.length <= DEFINITION_CAP) return text;
  var sentences = text.split(/(?<=[.!?])\s+(?=[A-Z(])/);
  for (var i = 1; i < sentences.length; i++) {
    if (/\bdefaults?\b/i.test(sentences[i])) return wordCap(sentences[0] + (i === 1 ? " " : " \u2026 ") + sentences[i], DEFINITION_CAP);
  }
  return wordCap(text, DEFINITION_CAP);
}

function find(args) {
  var query = { text: optionalText(args, "text"), name: optionalText(args, "name"), role: optionalText(args, "role") };
  if (!query.text && !query.name && !query.role) fail("invalid_input", "give text, role or name to find", { field: "text" });
  var limit = args.max_results === undefined ? DEFAULT_RESULTS : args.max_results;
  if (typeof limit !== "number" || !(limit >= 1) || limit > 500 || Math.floor(limit) !== limit) fail("invalid_input", "max_results must be an integer from 1 to 500", { field: "max_results" });
  return withStructure(function () {
    // A max_results at or under the default (a host may send the schema's default) asks for no more partial matches.
    return search(query, limit, !(limit > DEFAULT_RESULTS));
  });
}

function search(query, limit, trim) {
  var cache = typeof Map === "function" ? new Map() : null;
  // The smallest elements holding the words (observe_locate.js): a container around one is not found by them.
  if (query.text) query.holders = M.textHolders(query.text);
  var hits = [];
  var all = allElements(document);
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    var actionable = isInteractiveElement(el); // asked once: it reads the element's cursor style
    var role = ownRole(el, actionable);
    if (query.role ? role !== query.role : !(actionable || TITLES[role])) continue;
    var found = rank(el, role, actionable, query, cache);
    // Visibility last: it is the costly test, and most elements fail the cheap ones.
    // A <select>'s option is read where its select is (page_read says the options on the select's token),
    // and is in that select, which its name says.
    var select = tagOf(el) === "option" ? el.closest("select") : null;
    if (found.rank < 0 || !isReadable(select || el)) continue;
    if (select) found.section = candidateName(select, candidateRole(select));
    var r = el.getBoundingClientRect();
    if (actionable && !(r.width > 0 && r.height > 0) && !M.drawnControl(el)) continue; // drawn by another box (drawn_controls.js)
    hits.push({ el: el, role: role, found: found, order: hits.length });
  }
  if (!hits.length && query.text && !query.role && !query.name) hits = textBlocks(all, query.text);
  // Exact matches first, then partial ones; among matches as good, a heading or a term (where the words
  // are defined) before the links to it; then document order.
  hits.sort(function (a, b) { return a.found.rank - b.found.rank || (TITLES[b.role] ? 1 : 0) - (TITLES[a.role] ? 1 : 0) || a.order - b.order; });
  if (!query.role) hits = foldAlike(hits); // asked for a role, each of them is wanted
  var exact = 0;
  while (exact < hits.length && hits[exact].found.rank === 0) exact++;
  // Asked for a role too: the role narrows what is searched, not how many partial matches are worth saying.
  if (exact && trim) limit = Math.min(limit, exact + PARTIAL_AFTER_EXACT);
  var matches = hits.slice(0, limit).map(function (hit) {
    var name = hit.found.snippet ? hit.found.name : cap(hit.found.name || "", NAME_CAP);
    var match = { ref: refFor(M.canvasHolding(hit.el)), role: hit.role }; // a canvas grid's table: the canvas (observe_scroll.js)
    if (name) match.name = name;
    M.statesOf(hit.el, hit.role, match); // checked, expanded, selected, pressed: as page_observe says them
    var to = M.linkTarget(hit.el);
    if (to) match.to = to;
    var context = contextOf(hit.el, hit.found.name || "", hit.found, cache, query.text);
    if (context) match.context = context;
    if (hit.more) match.more = hit.more;
    return match;
  });
  var out = { matches: matches, total: hits.length };
  // Grids that draw only some of their rows: the words may be in a row not drawn (observe_scroll.js).
  var grids = M.gridsPartlyShown();
  if (grids.length) out.grids = grids;
  // Nothing found on a page that threw: that may be why (read_tools.py says it under "no match").
  var errors = !matches.length && M.pageErrorsSoFar ? M.pageErrorsSoFar() : null;
  if (errors) out.page_errors = errors;
  return out;
}

/** Whether el holds words of its own: a text node of its own, or an inline child's (<label>Last reward:</label>). */
function ownText(el) {
  for (var n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3 && /\S/.test(n.nodeValue)) return true;
    if (n.nodeType === 1 && !NOT_BLOCKS[tagOf(n)] && /\S/.test(n.textContent) && styleOf(n).display === "inline") return true;
  }
  return false;
}

/** Matches found only through their item's or section's text that read alike (role and name): the first, with how many more. */
function foldAlike(hits) {
  var out = [], first = {};
  for (var i = 0; i < hits.length; i++) {
    var hit = hits[i];
    var key = hit.found.rank >= 2 ? hit.role + "\n" + (hit.found.name || "") : null;
    if (key !== null && first[key]) first[key].more = (first[key].more || 0) + 1;
    else {
      if (key !== null) first[key] = hit;
      out.push(hit);
    }
  }
  return out;
}

/**
 * The innermost text blocks (TEXT_BLOCKS) whose text holds the query, each named by the words around
 * it: where no control or heading says it, the sentence that does (an article's paragraph, a cell).
 */
function textBlocks(all, text) {
  // textContent first (cheap, holds all the rest), then whether a browser lays it out as a block.
  var blocks = [];
  for (var i = 0; i < all.length; i++) {
    var el = all[i], tag = tagOf(el);
    // A closed <details> shows its summary only (found as its own block).
    if (NOT_BLOCKS[tag] || (tag === "details" && !el.open) || !has(normalize(el.textContent), text)) continue;
    if (!TEXT_BLOCKS[tag] && (!ownText(el) || /^(inline|contents|none)/.test(styleOf(el).display))) continue;
    blocks.push(el);
  }
  var hits = [];
  for (var j = 0; j < blocks.length; j++) {
    // The innermost: in document order a block's inner blocks come right after it.
    if (j + 1 < blocks.length && blocks[j].contains(blocks[j + 1])) continue;
    var block = blocks[j].closest("td, th") || blocks[j]; // Sphinx's <td><p>: the cell, said with its row
    if ((hits.length && hits[hits.length - 1].el === block) || !isReadable(block)) continue;
    var own = visibleText(block);
    if (!has(own, text)) continue;
    hits.push({ el: block, role: ownRole(block, false) || tagOf(block), found: { name: snippet(own, text), snippet: true, rank: own.toLowerCase() === text ? 0 : 1 }, order: hits.length });
  }
  return hits;
}

definePrimitive("refs.find", function (args) { return M.afterLoad(function () { return find(args); }); });
