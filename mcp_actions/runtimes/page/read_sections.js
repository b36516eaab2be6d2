/*
 * read_sections.js — what page_read and page_find say of where an element sits: the section it is
 * under (a labelled region or table, else the heading before it), the term a definition defines,
 * and waiting for the page's load before reading it (refs.read, refs.find).
 */
var tagOf = M.tagOf,
  normalize = M.normalize,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  composedParent = M.composedParent,
  visibleText = M.visibleText,
  isItem = M.isItem,
  itemOf = M.itemOf,
  frameElementOf = M.frameElementOf,
  SECTION_TAGS = M.SECTION_TAGS;

var SECTION_ROLES = { region: 1, group: 1, dialog: 1, alertdialog: 1, tabpanel: 1, navigation: 1, main: 1, complementary: 1, form: 1, search: 1, list: 1, listbox: 1, menu: 1 };
var HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading], legend";

function headingBefore(container, headings, el) {
  // The last of container's headings that comes before el (or holds it), skipping the titles of items (a card's own heading).
  var found = null;
  for (var i = 0; i < headings.length; i++) {
    var h = headings[i];
    if (h === el || h.contains(el)) return h;
    // eslint-disable-next-line no-bitwise
    if (!(h.compareDocumentPosition(el) & 4)) break; // this heading comes after el: the search ends
    var item = itemOf(h);
    if ((!item || item === container || !container.contains(item)) && !titlesAnEndedBlock(h, container, el)) found = h;
  }
  return found;
}

/**
 * Whether heading h titles only a block that ended before el (DocBook's <div class="note"><h3>Note</h3><p>…</div>
 * before a table): a wrapper of h below container, not holding el, holds text of its own beside h (a paragraph,
 * a list, a table). A wrapper of h alone (DocBook's titlepage divs) or of h and a count (a board column's head)
 * titles what follows.
 */
function titlesAnEndedBlock(h, container, el) {
  for (var node = h.parentNode; node && node !== container && node.nodeType === 1; node = node.parentNode) {
    if (node.contains(el)) return false;
    if (node.querySelector("p, ul, ol, dl, table, pre, blockquote")) return true;
  }
  return false;
}

/**
 * The name of the section el sits in (the nearest one that has a name), or "" when none has one.
 * cache (a Map, for one search) keeps what does not depend on el: a section's own name, or that a
 * container has no heading at all.
 */
function sectionName(el, cache) {
  for (var node = composedParent(el); node && node.nodeType === 1; node = composedParent(node)) {
    var tag = tagOf(node);
    if (tag === "html") {
      // Out of a frame's document: on through its iframe, which its title names.
      var frame = node.ownerDocument === document ? null : frameElementOf(node.ownerDocument);
      if (!frame) break;
      var title = normalize(frame.getAttribute("title"));
      if (title) return title;
      node = frame;
      continue;
    }
    var known = cache ? cache.get(node) : undefined;
    if (known === undefined) {
      var role = roleOf(node);
      // A table is named by its caption or aria name, else by its summary (DocBook's "Numeric Types").
      var labelled = SECTION_TAGS[tag] || SECTION_ROLES[role] ? accessibleName(node, role) : tag === "table" ? accessibleName(node, "table") || normalize(node.getAttribute("summary")) : "";
      // The top document's body is left out: its first heading (the page's title) tells no element from another.
      var topBody = tag === "body" && node.ownerDocument === document;
      // Its headings are listed once per search: 3,000 cards in one column would each list them again.
      known = labelled ? { name: labelled } : { name: "", headings: topBody ? [] : Array.prototype.slice.call(node.querySelectorAll(HEADINGS)) };
      if (cache) cache.set(node, known);
    }
    if (known.name) return known.name;
    if (known.headings.length) {
      var heading = headingBefore(node, known.headings, el);
      // The heading's words a person reads (a hidden span in it names nothing).
      var said = heading ? visibleText(heading) : "";
      if (said) return said;
    }
  }
  return "";
}

/**
 * The term a definition defines, for what sits in that definition (a <dd>'s <dt>s before it, joined), or
 * "": a glossary's link says which entry it is in.
 */
function termOf(el) {
  for (var node = el; node && node.nodeType === 1; node = composedParent(node)) {
    var tag = tagOf(node);
    if (tag === "body" || tag === "dl") return "";
    if (tag !== "dd") continue;
    var terms = [];
    for (var prev = node.previousElementSibling; prev && tagOf(prev) !== "dd"; prev = prev.previousElementSibling) {
      if (tagOf(prev) === "dt") terms.unshift(visibleText(prev));
    }
    return normalize(terms.join(" "));
  }
  return "";
}

/** The <dd>s that define the term dt (the ones after it, past any other <dt> of the same entry). */
function definitionsOf(dt) {
  var out = [];
  if (tagOf(dt) !== "dt") return out;
  for (var next = dt.nextElementSibling; next; next = next.nextElementSibling) {
    if (tagOf(next) === "dd") out.push(next);
    else if (out.length || tagOf(next) !== "dt") break;
  }
  return out;
}

/** page_read {ref} of a term: its definitions' lines under it, as the whole list reads them. */
function definitionLines(el) {
  var lines = [];
  definitionsOf(el).forEach(function (dd) {
    // Under the term by two spaces, whatever depth the definition's own lines say.
    var own = M.readLines(dd), indent = Math.min.apply(null, own.map(function (line) { return line.search(/\S|$/); }));
    own.forEach(function (line) { lines.push("  " + line.slice(indent)); });
  });
  return lines;
}

// How long a read waits for the document's HTML to arrive (readyState leaves "loading"), then for its load
// (images, late scripts): it answers then, loaded or not. A load that did not come in time is not waited
// for again in the same document (an image that never loads must not cost every read).
var LOAD_WAIT_MS = 5000;
var RESOURCES_WAIT_MS = 1000;
var resourcesWaited = false;
var timerSet = M.intrinsics.nativeSetTimeout || root.setTimeout, timerClear = M.intrinsics.nativeClearTimeout || root.clearTimeout;

/**
 * fn() once the document has loaded: right after a navigation the engine is in the new document before its
 * body has arrived, and a read then would answer a page half there ("no match" for what comes next). At
 * once when it has loaded; at most LOAD_WAIT_MS for its HTML, and RESOURCES_WAIT_MS more for its load.
 * The reading tools wait alike: page_read, page_find, page_observe and page_extract. With htmlOnly, only the
 * HTML is waited for, not images (the messages of a page an action landed on, observe_landing.js).
 */
function afterLoad(fn, htmlOnly) {
  if (!htmlOnly) {
    var loaded = fn;
    fn = function () { return afterDrawn(loaded); };
  }
  if (document.readyState === "complete" || ((htmlOnly || resourcesWaited) && document.readyState !== "loading")) return fn();
  return new Promise(function (resolve) {
    var started = Date.now(), parsedAt = 0, timer = null;
    function check() {
      var now = Date.now();
      if (!parsedAt && document.readyState !== "loading") parsedAt = now;
      var left = parsedAt ? RESOURCES_WAIT_MS - (now - parsedAt) : LOAD_WAIT_MS - (now - started);
      var enough = document.readyState === "complete" || (htmlOnly && parsedAt);
      if (timer !== null) timerClear.call(root, timer);
      if (!enough && left > 0) {
        timer = timerSet.call(root, check, left);
        return;
      }
      if (!htmlOnly && parsedAt && document.readyState !== "complete") resourcesWaited = true;
      document.removeEventListener("readystatechange", check);
      root.removeEventListener("load", check);
      resolve();
    }
    document.addEventListener("readystatechange", check);
    root.addEventListener("load", check);
    check();
  }).then(fn);
}

// What a page's scripts draw right after its load is the page, not an action's change: Wagtail's editor draws its
// minimap (its "Collapse all", its fields' names, "Toggle side panel") ~100 ms after load, so a click right after
// browser_navigate said them as new ('+ "Collapse all"' … with the chooser it opened). Until DRAWN_MS after the
// load, a read or a mark waits for the DOM to be quiet for DRAWN_QUIET_MS since the load and its last change (the
// engine's own ref marks aside): a render the load scheduled comes within it.
var DRAWN_MS = 1000, DRAWN_QUIET_MS = 150;
var lastDrawn = Date.now(), drawing = null;

/** How long ago the document's load ended (ms), null while it has not (Infinity when the browser does not say). */
function sinceLoad() {
  var nav = root.performance && typeof performance.getEntriesByType === "function" ? performance.getEntriesByType("navigation")[0] : null;
  if (nav && nav.loadEventEnd > 0) return performance.now() - nav.loadEventEnd;
  return document.readyState === "complete" || !nav ? Infinity : null;
}

if (typeof MutationObserver === "function" && (sinceLoad() === null || sinceLoad() < DRAWN_MS)) {
  drawing = new MutationObserver(function (records) {
    if (records.some(function (r) { return r.attributeName !== "data-mcp-actions-ref"; })) lastDrawn = Date.now();
    if (sinceLoad() !== null && sinceLoad() >= DRAWN_MS) drawing.disconnect();
  });
  drawing.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
}

/**
 * fn() once what the page draws at its load is drawn: at once when the load is DRAWN_MS old or the DOM is quiet,
 * or when the load has not come (afterLoad waited for it long enough: an image that never arrives).
 */
function afterDrawn(fn) {
  var ago = sinceLoad(), left = ago === null ? 0 : DRAWN_MS - ago;
  if (!drawing || !(left > 0)) return fn();
  return new Promise(function (resolve) {
    var until = Date.now() + left;
    (function check() {
      var now = Date.now(), quietLeft = DRAWN_QUIET_MS - (now - Math.max(lastDrawn, now - sinceLoad()));
      if (quietLeft <= 0 || now >= until) return resolve();
      timerSet.call(root, check, Math.min(quietLeft, until - now));
    })();
  }).then(fn);
}

M.afterLoad = afterLoad;
M.termOf = termOf;
M.definitionsOf = definitionsOf;
M.definitionLines = definitionLines;
M.sectionName = sectionName;
