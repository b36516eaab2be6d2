/*
 * read_structure.js — What page_read and page_find agree on about a page's
 * structure (docs/mcp-surface.md, "page_read" and "page_find"):
 *
 * - what a reader leaves out (skipReason): hidden (display:none, the hidden
 *   attribute, aria-hidden, content-visibility), visually hidden on purpose
 *   (sr-only clips, a positioned box of at most 1px that clips, a box placed
 *   where no scroll reaches, such as skip links at left:-9999px), zero-size
 *   boxes that clip their content, boxes drawn invisible (opacity 0, a
 *   transform that flattens them, a filter that blanks them: dom.js
 *   drawnInvisible), a clip-path of no area, a collapsed table row, images of
 *   2px or less or that draw nothing, and the engine's own UI; and whose
 *   own text it leaves out while reading its children (textHidden):
 *   visibility:hidden, glyphs of 1px or less, text with no ink or the
 *   colour it sits on, text pushed off by text-indent (dom.js inkHidden), text
 *   whose box lies outside the overflow: hidden boxes that clip it
 *   (outsideItsClip; never text in a box its user scrolls), and text another
 *   opaque element covers at its centre (coveredText);
 * - the composed tree a reader walks (childrenOf): a shadow host's open shadow
 *   root instead of its light children, a slot's assigned nodes, and a
 *   same-origin iframe's document (frameDocument);
 * - what counts as one item (isItem): li, listitem, tr, row, and a member of
 *   a run of three or more look-alike siblings (same tag and first class, as
 *   a framework renders 300 cards), so repeated structure reads as one line
 *   per item;
 * - the section an element sits in and its name (read_sections.js sectionName, built on
 *   itemOf here): a named landmark, section, fieldset or dialog, or the nearest container
 *   whose heading comes before the element.
 */
var tagOf = M.tagOf,
  normalize = M.normalize,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  isHiddenFromEngine = M.isHiddenFromEngine,
  drawnInvisible = M.drawnInvisible,
  inkHidden = M.inkHidden,
  isInteractiveElement = M.isInteractiveElement,
  composedParent = M.composedParent,
  LAUNCHER_HOST_TAG = M.LAUNCHER_HOST_TAG;

// Never content: scripts, styles, templates, and the parts of a <select> its token already says.
var NOT_CONTENT = { script: 1, style: 1, noscript: 1, template: 1, head: 1, meta: 1, link: 1, title: 1, option: 1, optgroup: 1, datalist: 1, param: 1, source: 1, track: 1 };
// Tags never taken as look-alike items: running text repeats its tags without being a list of things.
// Inline code, emphasis and the like are words of their sentence (three <code>s in a paragraph, a
// signature's <em class="sig-param">s), and a definition list's terms and definitions are read as such.
var NOT_ITEMS = { p: 1, span: 1, br: 1, hr: 1, h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1, pre: 1, blockquote: 1, table: 1, ul: 1, ol: 1, dl: 1, dt: 1, dd: 1, img: 1, svg: 1, form: 1, fieldset: 1, label: 1, input: 1, select: 1, textarea: 1, button: 1, a: 1, tr: 1, td: 1, th: 1, li: 1, option: 1, figure: 1, figcaption: 1, code: 1, em: 1, strong: 1, b: 1, i: 1, u: 1, s: 1, kbd: 1, samp: 1, var: 1, abbr: 1, cite: 1, dfn: 1, q: 1, small: 1, sub: 1, sup: 1, mark: 1, time: 1, del: 1, ins: 1, tt: 1 };
// A permalink beside a heading or a term (Sphinx's <a class="headerlink">¶</a>): a mark, not words.
var PERMALINK_MARKS = /^(?:[\u00B6#\u00A7\u2693]|\uD83D\uDD17)$/;
var PERMALINK_HOSTS = { h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1, dt: 1, caption: 1, figcaption: 1 };
var ITEM_TEXT_CAP = 400; // a look-alike sibling longer than this is prose, not an item
var SECTION_TAGS = { section: 1, article: 1, aside: 1, nav: 1, main: 1, form: 1, fieldset: 1, dialog: 1 };

function styleOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  return view.getComputedStyle(el);
}

// element -> skipReason's answer, for one read or find (withStructure): isReadable asks it of every ancestor.
var skipAnswers = null;

/** Why a reader leaves el (and everything under it) out, or "" when it reads it. */
function skipReason(el, style) {
  var known = skipAnswers ? skipAnswers.get(el) : undefined;
  if (known !== undefined) return known;
  var why = judgeSkip(el, style);
  if (skipAnswers) skipAnswers.set(el, why);
  return why;
}

function judgeSkip(el, style) {
  var tag = tagOf(el);
  if (NOT_CONTENT[tag] || tag === LAUNCHER_HOST_TAG || isHiddenFromEngine(el)) return "not_content";
  if (tag === "a" && isPermalink(el)) return "permalink";
  if (el.hasAttribute("hidden")) return "hidden";
  if (el.getAttribute("aria-hidden") === "true") return "aria_hidden"; // still seen: page_observe lists its controls
  style = style || styleOf(el);
  if (!style || style.display === "none") return "hidden";
  if (style.contentVisibility === "hidden") return "hidden";
  // Laid out but drawn where no one sees it (issue 41): cheap, the style in hand.
  var drawn = drawnInvisible(el, style);
  if (drawn) return drawn;
  if (tag === "img") {
    // A tracking pixel's alt is no text a person reads.
    var box = el.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2) return "tiny_image";
    // Nor is the alt of a picture that draws nothing (a transparent image, a 1px spacer stretched), nor of one
    // whose box lies outside what clips it.
    if (M.drawsNothing(el)) return "transparent_image";
    if (M.outsideItsClip(el)) return "clipped_away";
  }
  if (style.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(style.clipPath || "")) return "visually_hidden";
  if (style.clipPath && style.clipPath !== "none" && M.clipPathEmpty(el, style.clipPath)) return "clipped";
  // A collapsed table row (or row group, column) is removed with all it holds; elsewhere collapse is hidden (textHidden).
  if (style.visibility === "collapse" && /^table-(row|row-group|header-group|footer-group|column|column-group)$/.test(style.display)) return "collapsed";
  var clips = /^(hidden|clip)$/.test(style.overflowX + "") || /^(hidden|clip)$/.test(style.overflowY + "");
  var placed = style.position === "absolute" || style.position === "fixed" || (style.transform && style.transform !== "none");
  if (!clips && !placed) return "";
  var r = el.getBoundingClientRect();
  if (clips && (r.width <= (placed ? 1 : 0) || r.height <= (placed ? 1 : 0))) return "visually_hidden";
  if (placed) {
    var view = el.ownerDocument.defaultView || root;
    // Where no scroll reaches: left of or above the document, or far past its right edge.
    var docWidth = Math.max(el.ownerDocument.documentElement.scrollWidth, view.innerWidth);
    if (r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0 || r.left + view.scrollX >= docWidth + 1000) return "off_screen";
  }
  return "";
}

/** Whether el is a heading's or a term's permalink: a link to a fragment whose text is one mark (¶, #, §). */
function isPermalink(el) {
  var href = el.getAttribute("href");
  var host = el.parentElement;
  return !!href && href.charAt(0) === "#" && !!host && (PERMALINK_HOSTS[tagOf(host)] || roleOf(host) === "heading") && PERMALINK_MARKS.test(normalize(el.textContent));
}

/**
 * Whether a reader reads el: neither it nor an ancestor (up through frames) is left out; or el is a control
 * a page draws by what a person sees while the control itself is visually hidden (drawn_controls.js).
 */
function isReadable(el) {
  return readableAsIs(el) || (M.isDrawableControl(el) && !!M.drawnControl(el));
}

function readableAsIs(el) {
  for (var node = el; node; ) {
    if (node.nodeType === 1 && skipReason(node)) return false;
    if (node.nodeType === 1 && node !== el && tagOf(node) === "details" && !node.open && !isSummaryOf(el, node)) return false;
    var parent = composedParent(node);
    if (!parent && node.ownerDocument && node.ownerDocument.defaultView && node.ownerDocument !== document) {
      parent = frameElementOf(node.ownerDocument);
    }
    node = parent;
  }
  return !textHidden(el, styleOf(el));
}

/** Whether el has text of its own (a text node child with more than spaces): the only text textHidden hides. */
function hasOwnText(el) {
  for (var n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && /\S/.test(n.nodeValue)) return true;
  return false;
}

/**
 * Why el's own text is not read though its children may be (see the module comment), or "".
 * visibility:hidden, then the ink tests on the style in hand, then the costly covered test last.
 */
function textHidden(el, style) {
  if (!style) return "";
  if (style.visibility === "hidden" || style.visibility === "collapse") return "visibility_hidden";
  var own = hasOwnText(el);
  // A control is judged by its own style when its name is its text, in a child or not (a link whose
  // span inherits its font-size 0); one with no text at all (an icon) has no ink to judge.
  if (!own && !(isInteractiveElement(el) && /\S/.test(el.textContent || ""))) return "";
  return inkHidden(el, style) || (M.outsideItsClip(el) ? "clipped_away" : "") || (own ? coveredText(el, style) : "");
}

/**
 * Whether another element covers el's text: the element hit at the centre of el's first box is
 * neither el, inside el, nor a see-through box, but something opaque on top of it (or an opaque
 * ancestor el is drawn behind, by a negative z-index). A cheap test: one point, and only where the
 * hit test can see it (in the top document's viewport); text partly covered, or covered below the
 * fold, is read (docs/threat-model.md, "Hidden text").
 */
function coveredText(el, style) {
  if (el.ownerDocument !== document || style.pointerEvents === "none") return "";
  var rects = el.getClientRects();
  if (!rects.length) return "";
  var r = rects[0];
  var x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (!(x >= 0 && y >= 0 && x < root.innerWidth && y < root.innerHeight)) return "";
  var hit = M.elementFromPointDeep(x, y);
  if (!hit || hit === el || M.isWithin(hit, el)) return "";
  for (var n = hit; n && n.nodeType === 1; n = composedParent(n)) {
    var holds = M.isWithin(el, n); // n is an ancestor of el
    if (holds && n !== hit) return ""; // the hit was a see-through box over el's own ancestor
    if (M.opaqueAt(n)) return "covered";
    if (holds) return "";
  }
  return "";
}

/**
 * Why page_observe leaves out an element a click would reach (dom.js isVisible holds): what a reader
 * leaves out, it or an ancestor (skipReason), but aria-hidden, which a sighted person still sees; or its
 * name is its text and that text has no ink (inkHidden). Not the covered test: a covered control is
 * listed, and a click on it says it went to what was on top.
 */
function unseen(el) {
  for (var node = el; node && node.nodeType === 1; node = composedParent(node)) {
    var why = skipReason(node);
    if (why && why !== "aria_hidden" && why !== "not_content") return why;
  }
  return /\S/.test(el.textContent || "") ? inkHidden(el, styleOf(el)) : "";
}

/**
 * The text of el a reader reads (the document order of its text nodes, spaced), without what
 * skipReason leaves out or textHidden hides: what page_find matches and quotes, and the context
 * page_observe and page_find give.
 */
function visibleText(el) {
  var parts = [];
  (function walk(node) {
    var nodes = childrenOf(node);
    var hidden = null;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.nodeType === 3) {
        if (hidden === null) hidden = node.nodeType === 1 && !!textHidden(node, styleOf(node));
        if (!hidden) parts.push(n.nodeValue);
      } else if (n.nodeType === 1 && !skipReason(n)) {
        // Blocks apart, inline boxes run on ("$<b>5</b>" is "$5"), as innerText says them.
        var inline = /^inline/.test(styleOf(n).display);
        if (!inline) parts.push(" ");
        walk(n);
        if (!inline) parts.push(" ");
      }
    }
  })(el);
  return normalize(parts.join(""));
}

function isSummaryOf(el, details) {
  var summary = details.querySelector(":scope > summary");
  return !!summary && (summary === el || summary.contains(el));
}

function frameElementOf(doc) {
  try {
    return doc.defaultView.frameElement;
  } catch (_crossOrigin) {
    return null;
  }
}

/** A same-origin iframe's document (with a body), or null for a cross-origin or empty frame. */
function frameDocument(frame) {
  try {
    var doc = frame.contentDocument;
    return doc && doc.body ? doc : null;
  } catch (_crossOrigin) {
    return null;
  }
}

/** The child nodes a reader walks, in the composed tree (see the module comment). */
function childrenOf(el) {
  if (el.shadowRoot && el.shadowRoot.mode === "open") return el.shadowRoot.childNodes;
  if (tagOf(el) === "slot" && typeof el.assignedNodes === "function") {
    var assigned = el.assignedNodes({ flatten: true });
    if (assigned.length) return assigned;
  }
  return el.childNodes;
}

/**
 * What look-alike siblings share: tag and first class. A class-less element the page names by an id is one of a
 * kind, alike to none: a layout's #header, #content and #footer, or MiniWoB++'s body of #wrap, #reward-display and
 * #sync-task-cover, three class-less <div>s that are no list.
 */
function signature(el) {
  var first = String(el.getAttribute("class") || "").trim().split(/\s+/)[0];
  return tagOf(el) + (first || !el.id ? "." + first : "#" + el.id);
}

// parent -> {signature: count}, for one read or find (structureCache): without it, 3,000
// look-alike siblings would each count the other 2,999.
var runCounts = null;
// element -> isItem's answer, for one read or find: page_find asks it of the same columns for every card.
var itemAnswers = null;

/**
 * fn() with these caches held for its duration only (a read, a find, an observation): the page
 * may change between two calls, so no answer outlives the call that computed it.
 */
function withStructure(fn) {
  runCounts = typeof WeakMap === "function" ? new WeakMap() : null;
  itemAnswers = typeof WeakMap === "function" ? new WeakMap() : null;
  skipAnswers = typeof WeakMap === "function" ? new WeakMap() : null;
  try {
    return M.withInkCache(function () { return M.withClipCache(fn); });
  } finally {
    runCounts = null;
    itemAnswers = null;
    skipAnswers = null;
  }
}

function runLength(el) {
  // How many siblings (counting el) share el's signature, among its parent's element children.
  var parent = el.parentNode;
  if (!parent) return 1;
  var counts = runCounts ? runCounts.get(parent) : undefined;
  if (!counts) {
    counts = {};
    for (var c = parent.firstElementChild; c; c = c.nextElementSibling) {
      var key = signature(c);
      counts[key] = (Object.prototype.hasOwnProperty.call(counts, key) ? counts[key] : 0) + 1;
    }
    if (runCounts) runCounts.set(parent, counts);
  }
  return counts[signature(el)];
}

/** Whether el is one item of a list or of rows (see the module comment). */
function isItem(el) {
  var known = itemAnswers ? itemAnswers.get(el) : undefined;
  if (known !== undefined) return known;
  var answer = judgeItem(el);
  if (itemAnswers) itemAnswers.set(el, answer);
  return answer;
}

function judgeItem(el) {
  var tag = tagOf(el), role = roleOf(el);
  if (tag === "li" || role === "listitem" || role === "row" || role === "option") return true;
  // Cards are often <article>s; a role other than that says the element is something else.
  // A card clickable by its cursor or a handler is an item like any other of its run (a 300-card board of
  // clickable <div>s reads as its outline); a control by tag or role is not (NOT_ITEMS, the role test).
  if (tag === "tr" || NOT_ITEMS[tag] || (role && role !== "article") || !el.firstElementChild) return false;
  if (styleOf(el).display === "inline") return false; // words of a line, whatever their tag
  // The run's test first: it is counted once per parent, where the text length is a long string for a column.
  return runLength(el) >= 3 && !runHoldsItems(el) && (el.textContent || "").length <= ITEM_TEXT_CAP;
}

/** Whether any sibling of el's run holds items: then all are columns (one with a single card is too). */
function runHoldsItems(el) {
  var parent = el.parentNode, sig = signature(el);
  var known = runCounts ? runCounts.get(parent) : null;
  var key = "holds:" + sig;
  if (known && Object.prototype.hasOwnProperty.call(known, key)) return known[key];
  var holds = false;
  for (var c = parent.firstElementChild; c && !holds; c = c.nextElementSibling) if (signature(c) === sig && holdsItems(c)) holds = true;
  if (known) known[key] = holds;
  return holds;
}

var CONTROLS = "a[href], button, input, select, textarea, [role=button], [role=link], [tabindex]";

/**
 * Whether el holds items of its own (a list, a table, or two look-alike children with controls in
 * them): then it is a column or a group, not one item, however few things it holds yet.
 */
function holdsItems(el) {
  if (el.querySelector("ul, ol, table, [role=list], [role=listbox], [role=grid], [role=table]")) return true;
  var inner = el.querySelectorAll("*");
  for (var i = 0; i < inner.length; i++) {
    var seen = {};
    for (var c = inner[i].firstElementChild; c; c = c.nextElementSibling) {
      if (c.matches(CONTROLS) || !c.querySelector(CONTROLS)) continue;
      var key = signature(c);
      if (seen[key]) return true;
      seen[key] = true;
    }
  }
  return false;
}

/** The nearest item el sits in (el itself when it is one), up to a section; null when none. */
function itemOf(el) {
  for (var node = el; node && node.nodeType === 1; node = composedParent(node)) {
    if (tagOf(node) === "body" || SECTION_TAGS[tagOf(node)]) return null;
    if (isItem(node)) return node;
  }
  return null;
}

M.withStructure = withStructure;
M.SECTION_TAGS = SECTION_TAGS;
M.frameElementOf = frameElementOf;
M.styleOf = styleOf;
M.skipReason = skipReason;
M.textHidden = textHidden;
M.visibleText = visibleText;
M.unseen = unseen;
M.isReadable = isReadable;
M.frameDocument = frameDocument;
M.childrenOf = childrenOf;
M.isItem = isItem;
M.itemOf = itemOf;
