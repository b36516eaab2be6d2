/*
 * read.js — refs.read (the page_read tool): the page, or the part under a ref,
 * as compact text in reading order (docs/mcp-surface.md, "page_read").
 *
 * One line per block: "# h1" / "## h2" headings, "- " list items (nested
 * lists indented two spaces), "| a | b |" table rows (a header row once),
 * "[dialog "Name"]" ... "[/dialog]", "[navigation "Name"]" and the other
 * landmarks, "[frame "Title"]" ... "[/frame]" for a same-origin iframe's
 * document, and paragraphs of text. Each interactive element is one token
 * inline, with the ref page_observe gives it (observe_refs.js refFor):
 * [textbox "Username" @e3 = "bob"], [checkbox "Done" @e7 checked],
 * [link "Home" @e1]. An item (read_structure.js isItem: li, row, or one of
 * three or more look-alike siblings) is one line whatever its markup, so 300
 * cards read as 300 short lines of their own text and refs. What a reader
 * leaves out is read_structure.js skipReason's.
 *
 * The text is cut at max_bytes (UTF-8, the answer's trailer included) at a
 * line end when one fits; the cursor "<scope>.<offset>" continues at that
 * character offset of the same text read again.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  tagOf = M.tagOf,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  refFor = M.refFor,
  isInteractiveElement = M.isInteractiveElement,
  elementOfRef = M.elementOfRef,
  styleOf = M.styleOf,
  skipReason = M.skipReason,
  textHidden = M.textHidden,
  frameDocument = M.frameDocument,
  childrenOf = M.childrenOf,
  isItem = M.isItem,
  isReadable = M.isReadable,
  quote = M.quote,
  pageText = M.pageText,
  token = M.token,
  withStructure = M.withStructure,
  utf8Length = M.utf8Length,
  parseCursor = M.parseCursor,
  cutText = M.cutText,
  readTable = M.readTable, // tables and rows (read_tables.js)
  readRow = M.readRow,
  // A long list (more items than COLLAPSE_AT) inside what is read shows its first SHOWN items and
  // the ref that reads it all: a page of 3,000 cards reads as its outline, not as 3,000 lines.
  COLLAPSE_AT = M.COLLAPSE_AT,
  SHOWN = M.SHOWN;

var NAME_CAP = 80;
var DEFAULT_BYTES = 8000;
// Bytes kept free for the trailer the page_read tool adds when it cuts (dispatch/read_tools.py).
var TRAILER_BYTES = 96;
// Bytes of the page's errors line (read_tools.py: '[page errors: "…" (+N)]') but its quoted error.
var ERRORS_LINE_BYTES = 32;
var LANDMARKS = { navigation: 1, main: 1, complementary: 1, banner: 1, contentinfo: 1, search: 1, form: 1, region: 1 };
var DIALOGS = { dialog: 1, alertdialog: 1 };
var LISTS = { list: 1, menu: 1, listbox: 1, tablist: 1, tree: 1, menubar: 1 };
// Interactive elements whose content is their name: never read inside.
var LEAVES = { a: 1, button: 1, input: 1, select: 1, textarea: 1, summary: 1 };
// Roles named by their content (ARIA's "name from content") that one token says whole.
var NAMED_BY_CONTENT = { tab: 1, option: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, treeitem: 1, button: 1, link: 1, clickable: 1, checkbox: 1, radio: 1, switch: 1 };
// Boxes that sit on the line (inline-block and the like stay on it, spaced apart).
var ON_THE_LINE = /^(inline|contents|inline-block|inline-flex|inline-grid|inline-table)$/;

// -- the writer: lines, and the inline buffer of the current one -------------

function Writer() {
  this.lines = [];
  this.buf = "";
  this.pad = false; // a block boundary was crossed: the next text starts after a space
  this.inline = 0; // inside a heading, cell or item title: everything stays on the line
  this.item = false; // inside an item: block boundaries stay on the line, nested lists do not
  this.indent = "";
  this.marker = "";
  this.mute = 0; // inside a label its control's token names: its text is said there
  this.scope = null; // the element read: its own items are all said, however many
}

Writer.prototype.put = function (text) {
  if (!text) return;
  if (this.pad && this.buf && !/ $/.test(this.buf) && !/^ /.test(text)) this.buf += " ";
  this.pad = false;
  this.buf += this.buf === "" || / $/.test(this.buf) ? text.replace(/^ /, "") : text;
};

/** A block boundary: a new line, or a space inside a line that must stay one. */
Writer.prototype.soft = function () {
  if (this.inline || this.item) this.pad = true;
  else this.flush();
};

/** End the current line (unless inside a heading or cell, where nothing may break the line). */
Writer.prototype.flush = function () {
  if (this.inline) {
    this.pad = true;
    return;
  }
  var line = this.buf.replace(/ +$/, "");
  this.buf = "";
  this.pad = false;
  if (!line) return;
  this.lines.push(this.indent + this.marker + line);
  if (this.marker) this.marker = "  "; // an item's next lines (after a nested list) line up under its text
};

Writer.prototype.line = function (text) {
  this.flush();
  if (!this.inline) this.lines.push(this.indent + text);
  else this.put(text);
};

/** The text fn writes, on one line (a heading's, a cell's). */
Writer.prototype.capture = function (fn) {
  var saved = [this.buf, this.pad];
  this.buf = "";
  this.pad = false;
  this.inline += 1;
  fn();
  this.inline -= 1;
  var text = this.buf.replace(/ +$/, "");
  this.buf = saved[0];
  this.pad = saved[1];
  return text;
};

// -- walking -------------------------------------------------------------------

function walkChildren(w, el, hidden) {
  var nodes = childrenOf(el);
  var shown = el === w.scope || nodes.length <= COLLAPSE_AT ? -1 : SHOWN, items = 0, more = 0;
  for (var i = 0; i < nodes.length; i++) {
    var n = nodes[i];
    if (n.nodeType === 3) {
      // The page's words: never read as a token of ours (core.js pageText), never a line of their own.
      if (!hidden && !w.mute) w.put(pageText(n.nodeValue).replace(/\s+/g, " "));
    } else if (n.nodeType === 1) {
      if (shown >= 0 && isItem(n) && !skipReason(n)) {
        items += 1;
        if (items > shown) {
          more += 1;
          continue;
        }
      }
      walk(w, n);
    }
  }
  if (more > 0 && items > COLLAPSE_AT) {
    w.flush();
    w.lines.push(w.indent + "- … " + more + " more: page_read {\"ref\":\"" + refFor(el) + "\"}");
  } else if (more > 0) {
    // Few enough after all (the children were mostly not items): read the ones held back.
    for (var j = 0, seen = 0; j < nodes.length; j++) {
      if (nodes[j].nodeType === 1 && isItem(nodes[j]) && !skipReason(nodes[j]) && ++seen > shown) walk(w, nodes[j]);
    }
  }
}

function walk(w, el) {
  var style = styleOf(el);
  if (skipReason(el, style)) return M.drawnInside(el).forEach(function (c) { w.put(token(c, true)); }); // drawn_controls.js
  var tag = tagOf(el), role = roleOf(el);
  // visibility:hidden, no ink, glyphs too small, text pushed or covered away (read_structure.js textHidden)
  // hide el's own text and token; a child may still be drawn where it shows.
  var hidden = !!textHidden(el, style);
  var block = !ON_THE_LINE.test(style.display);
  var spaced = !block && style.display !== "inline" && style.display !== "contents";
  if (block) w.soft();
  else if (spaced) w.pad = true;
  if (tag === "iframe" || tag === "frame") frame(w, el);
  else if (isInteractiveElement(el) && !hidden) {
    if (isItem(el) && !w.item) item(w, el, hidden, function () { interactive(w, el, tag, style); });
    else interactive(w, el, tag, style);
  }
  else if (tag === "img" || role === "img") image(w, el, role);
  else if (tag === "svg" || tag === "canvas") return; // drawings without a name are decoration
  else if (tag === "br" || tag === "hr") w.soft();
  else if (role === "heading" && !w.item && !w.inline) heading(w, el, hidden);
  else if (tag === "label" && namesItsControl(el)) muted(w, el, hidden);
  else if (w.inline) walkChildren(w, el, hidden);
  else if (tag === "table" || role === "table" || role === "grid" || role === "treegrid") readTable(w, el, walkChildren);
  else if (tag === "tr" || role === "row") readRow(w, el, walkChildren);
  else if (LISTS[role] || tag === "ul" || tag === "ol" || tag === "menu" || tag === "dl") list(w, el, hidden);
  else if (isItem(el)) item(w, el, hidden);
  else if (DIALOGS[role] && (tag !== "dialog" || el.open)) dialog(w, el, role, hidden);
  else if (tag === "details" && !el.open) details(w, el);
  else if (tag === "dt") term(w, el, hidden);
  else if (tag === "dd") definition(w, el, hidden);
  else if (tag === "figcaption") caption(w, el, hidden);
  else if (LANDMARKS[role] && !w.item) landmark(w, el, role, hidden);
  else walkChildren(w, el, hidden);
  if (block) w.soft();
  else if (spaced) w.pad = true;
}

function interactive(w, el, tag, style) {
  var r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0) && style.display !== "contents" && !M.drawnControl(el)) return; // nothing there to click
  // A control, or a small clickable whose text is its name: one token. A larger one (a clickable card,
  // a focusable panel) or one with controls inside: its token, then its content read as usual.
  var small = (el.textContent || "").length <= NAME_CAP;
  if (LEAVES[tag] || (small && !holdsOtherControls(el))) {
    w.put(token(el, true));
    return;
  }
  // A focusable container (a listbox, a card with tabindex): its own token, then what it holds.
  w.put(token(el, false));
  w.soft();
  walkChildren(w, el, false);
}

/**
 * Whether el holds controls of its own besides one that only repeats it: a jQuery UI tab's <li role=tab>
 * holds its <a> of the same name (one token, the tab's, named as page_observe names it), a popup's option
 * a wrapper with tabindex -1 (no control), a card its title link and buttons (controls of their own).
 */
function holdsOtherControls(el) {
  // Only a small element is asked (its text is a name's length): every descendant a person could act on.
  var inner = Array.prototype.filter.call(el.querySelectorAll("*"), M.isActionable);
  if (!inner.length) return false;
  var role = M.candidateRole(el);
  if (!NAMED_BY_CONTENT[role]) return true; // a list, a toolbar, a focusable panel: what it holds is said
  var name = M.normalize(M.candidateName(el, role));
  for (var i = 0; i < inner.length; i++) {
    if (!name || M.normalize(M.candidateName(inner[i], M.candidateRole(inner[i]))) !== name) return true;
  }
  return false;
}

/** Whether the control a <label> names reads as a token, which says the label's text already. */
function namesItsControl(label) {
  var control = label.control;
  if (!control || !isInteractiveElement(control) || !isReadable(control)) return false;
  var r = control.getBoundingClientRect();
  return (r.width > 0 && r.height > 0) || !!M.drawnControl(control);
}

/** el's tokens without its text (a label whose control's token carries it). */
function muted(w, el, hidden) {
  w.mute += 1;
  walkChildren(w, el, hidden);
  w.mute -= 1;
}

function image(w, el, role) {
  if (w.mute) return;
  var name = accessibleName(el, role);
  if (name && role !== "presentation" && role !== "none") w.put("[img " + quote(cap(name, NAME_CAP)) + "]");
}

function heading(w, el, hidden) {
  var level = Number(el.getAttribute("aria-level")) || Number(tagOf(el).slice(1)) || 2;
  var text = w.capture(function () { walkChildren(w, el, hidden); });
  if (text) w.line(new Array(Math.min(level, 6) + 1).join("#") + " " + text);
}

function frame(w, el) {
  var title = M.normalize(el.getAttribute("title") || el.getAttribute("name") || "");
  var doc = frameDocument(el);
  if (!doc) {
    var src = "", attr = el.getAttribute("src");
    try {
      if (attr) src = new URL(attr, el.ownerDocument.baseURI).origin;
    } catch (_bad) { /* not a URL: say nothing of where it points */ }
    w.line("[frame" + (title ? " " + quote(title) : "") + (src && src !== "null" ? " " + src : "") + " (another site's, not read)]");
    return;
  }
  w.line("[frame" + (title ? " " + quote(title) : "") + "]");
  walk(w, doc.body);
  w.line("[/frame]");
}

/**
 * Write what body writes as its own block: flushed before and after, indented once more when deeper,
 * its lines marked with marker, inside an item or not; the writer's indent, marker and item restored.
 */
function nested(w, deeper, marker, item, body) {
  var saved = [w.indent, w.marker, w.item];
  w.flush();
  if (deeper) w.indent += "  ";
  w.marker = marker;
  w.item = item;
  body();
  w.flush();
  w.indent = saved[0];
  w.marker = saved[1];
  w.item = saved[2];
}

function list(w, el, hidden) {
  // A list nested in an item is indented under it.
  nested(w, w.item, "", false, function () { walkChildren(w, el, hidden); });
}

/** An item: "- " and its text on one line; say (a clickable card's token and text) in place of its children. */
function item(w, el, hidden, say) {
  // An item directly inside another (look-alikes within a card) is indented under it.
  nested(w, w.item, "- ", true, say || function () { walkChildren(w, el, hidden); });
}

/** A definition list's term: "- term" on one line (inline code and links stay in it), its definitions under it. */
function term(w, el, hidden) {
  var text = w.capture(function () { walkChildren(w, el, hidden); });
  if (text) w.line("- " + text);
}

/** A definition: its lines indented under the term it defines. */
function definition(w, el, hidden) {
  nested(w, true, "", false, function () { walkChildren(w, el, hidden); });
}

/** A figure's caption, on a line of its own that says it is one. */
function caption(w, el, hidden) {
  var text = w.capture(function () { walkChildren(w, el, hidden); });
  if (text) w.line("[caption] " + text);
}

function dialog(w, el, role, hidden) {
  var name = accessibleName(el, role);
  var modal = el.getAttribute("aria-modal") === "true" || (typeof el.matches === "function" && safeMatches(el, ":modal"));
  w.line("[" + role + (name ? " " + quote(cap(name, NAME_CAP)) : "") + (modal ? " modal" : "") + "]");
  walkChildren(w, el, hidden);
  w.line("[/" + role + "]");
}

function safeMatches(el, selector) {
  try {
    return el.matches(selector);
  } catch (_unsupported) {
    return false;
  }
}

function details(w, el) {
  var summary = el.querySelector(":scope > summary");
  if (summary) walk(w, summary);
}

function landmark(w, el, role, hidden) {
  var name = accessibleName(el, role);
  // An unnamed form or region says nothing a reader needs, nor one its own heading names (said next).
  var first = role === "form" || role === "region" ? el.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]") : null;
  if (first && name && M.normalize(first.textContent).indexOf(name) === 0) name = "";
  if (name || (role !== "form" && role !== "region")) w.line("[" + role + (name ? " " + quote(cap(name, NAME_CAP)) : "") + "]");
  walkChildren(w, el, hidden);
  // An aside ends where the text it sits beside goes on: said, or the text after it would read as part of it.
  if (role === "complementary") w.line("[/complementary]");
}

/** The lines of el (the body for the whole page), as page_read reads them. */
function readLines(el) {
  return withStructure(function () {
    var w = new Writer();
    w.scope = el;
    walk(w, el);
    w.flush();
    return w.lines;
  });
}

// -- the primitive ----------------------------------------------------------------

function read(args) {
  var maxBytes = args.max_bytes === undefined ? DEFAULT_BYTES : args.max_bytes;
  if (typeof maxBytes !== "number" || !(maxBytes >= 256) || maxBytes > 1000000) fail("invalid_input", "max_bytes must be a number from 256 to 1000000", { field: "max_bytes" });
  var position = args.cursor === undefined ? null : parseCursor(args.cursor);
  var ref = args.ref === undefined ? null : args.ref;
  // A cursor carries its scope; a ref given beside it must be the same one.
  if (position && ref !== null && "@" + position.scope !== (String(ref).charAt(0) === "@" ? ref : "@" + ref)) {
    fail("invalid_input", "this cursor continues another read (give the same ref as the read that answered it)", { field: "cursor" });
  }
  if (ref === null && position && position.scope !== "p") ref = "@" + position.scope;
  var scope = ref === null ? document.body : elementOfRef(ref).el;
  // A term (<dt>) reads with what defines it.
  var text = scope ? readLines(scope).concat(M.definitionLines(scope)).join("\n") : "";
  var start = position ? M.cutPoint(text, Math.min(position.offset, text.length)) : 0; // a forged cursor parts no character
  var out = { text: text.slice(start), offset: start };
  // Why the page may look dead, once, before the whole page's first part: the line read_tools.py puts first.
  var errors = ref === null && !position && M.pageErrorsSoFar ? M.pageErrorsSoFar() : null;
  if (errors) out.page_errors = errors;
  var budget = maxBytes - (errors ? utf8Length(quote(errors.first || errors.latest)) + ERRORS_LINE_BYTES : 0);
  if (utf8Length(out.text) <= budget) return out;
  var part = cutText(text, start, budget - TRAILER_BYTES);
  out.text = text.slice(start, part.end);
  out.cursor = (ref === null ? "p" : refFor(scope).slice(1)) + "." + part.next;
  out.rest_bytes = utf8Length(text.slice(part.next));
  return out;
}

M.readLines = readLines;

definePrimitive("refs.read", function (args) { return M.afterLoad(function () { return read(args); }); });
