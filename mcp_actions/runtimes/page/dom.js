/*
 * dom.js — Querying through open shadow roots, and why an element is not
 * visible. Locators, observation and extraction all search the composed tree
 * a user sees: the document plus every open shadow root inside it.
 */
var fail = M.fail,
  round = M.round;

// Elements the engine itself put on the page as its own UI (the overlay's host):
// not part of the page our primitives act on, so searches and hit tests skip them.
var OWN_HOSTS = typeof WeakSet === "function" ? new WeakSet() : null;

/** Mark el as engine UI that locators, observation and hit tests must not see. */
function hideFromEngine(el) {
  if (OWN_HOSTS) OWN_HOSTS.add(el);
}

// The tag of the launcher buttons' hosts (launchers.js), which observation lists (observe.js).
var LAUNCHER_HOST_TAG = "actions-json-launcher";

function isHiddenFromEngine(el) {
  return !!(OWN_HOSTS && el && OWN_HOSTS.has(el));
}

/** The document (or a scope) and every open shadow root below it, outermost first. */
function searchRoots(scope) {
  var roots = [scope || document];
  if (scope && scope.shadowRoot && scope.shadowRoot.mode === "open") roots.push(scope.shadowRoot);
  for (var i = 0; i < roots.length; i++) {
    var walker = document.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.shadowRoot && n.shadowRoot.mode === "open") roots.push(n.shadowRoot);
    }
  }
  return roots;
}

/**
 * querySelectorAll over the scope and its open shadow roots, in document
 * order per root. A malformed selector throws a SyntaxError (callers turn it
 * into their own error code).
 */
function queryAllDeep(selector, scope) {
  var roots = searchRoots(scope);
  var out = [];
  for (var i = 0; i < roots.length; i++) {
    var found = roots[i].querySelectorAll(selector);
    for (var j = 0; j < found.length; j++) if (!isHiddenFromEngine(found[j])) out.push(found[j]);
  }
  return out;
}

/** Every element of the composed tree (used by role and text searches). */
function allElementsDeep(scope) {
  return queryAllDeep("*", scope);
}

/** Element.closest that continues from a shadow root to its host. */
function closestDeep(el, selector) {
  var node = el;
  while (node) {
    var hit = node.closest(selector);
    if (hit) return hit;
    var rootNode = node.getRootNode ? node.getRootNode() : null;
    node = rootNode && rootNode.host ? rootNode.host : null;
  }
  return null;
}

// The parent in the composed tree (a shadow root's host for its top children): reach.js.
var composedParent = M.composedParent;

function shortTag(el) {
  return String(el.tagName || "").toLowerCase() + (el.id ? "#" + el.id : "");
}

/**
 * Why el is not visible, or null when it is: {reason, element?, ...}.
 * Reasons: detached, display_none, visibility_hidden, zero_size, inert,
 * off_screen (entirely at negative document coordinates once the boxes that
 * scroll it are scrolled to it, where no scroll reaches, or a fixed box
 * outside the viewport), clipped (outside a box that
 * contains it, and no scroll of a person's brings it in: reach.js). aria-hidden is
 * not a reason: such an element is still on screen for a sighted user.
 */
function hiddenReason(el) {
  if (!el || !el.isConnected) return { reason: "detached" };
  for (var node = el; node; node = composedParent(node)) {
    var style = root.getComputedStyle(node);
    if (style && style.display === "none") return { reason: "display_none", element: shortTag(node) };
    if (node.hasAttribute && node.hasAttribute("inert")) return { reason: "inert", element: shortTag(node) };
  }
  var own = root.getComputedStyle(el);
  if (own && (own.visibility === "hidden" || own.visibility === "collapse")) return { reason: "visibility_hidden" };
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) {
    return { reason: "content_hidden" }; // content-visibility or another CSS rule the checks above missed
  }
  if (own && (own.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(own.clipPath || ""))) return { reason: "clipped", element: shortTag(el) };
  var r = M.rectOf(el); // the browser's box (geometry.js): a page script's cannot hide or show an element
  if (!(r.width > 0 && r.height > 0)) return { reason: "zero_size", width: round(r.width), height: round(r.height) };
  // Outside a box that contains it, and no scroll of a person's (auto/scroll boxes, the document) brings it in (reach.js).
  var clip = M.clipOf(el, r);
  if (clip) return clip.element ? { reason: "clipped", element: shortTag(clip.element) } : { reason: "off_screen", x: round(r.left + root.scrollX), y: round(r.top + root.scrollY) };
  return null;
}

function isVisible(el) {
  return hiddenReason(el) === null;
}

// -- text drawn where no one sees it (issue 41; docs/threat-model.md, "Hidden text") -------------
//
// A page can lay text out and still keep it from a person: see-through, flattened or blanked by a
// filter (the box and all it holds: drawnInvisible), or its glyphs too small, in the background's
// colour or pushed away by text-indent (an element's own text; its children may set their own:
// inkHidden). The page tools leave such text out of what they read (read_structure.js). Each test
// reads only the computed style in hand, cheapest first; the background an element's text sits on is
// found once per element for one read (inkCache, set by read_structure.js withStructure).

var FILTER_STEP = /(opacity|brightness|contrast)\(\s*([0-9.]+)(%?)\s*\)/g;
var RGB = /^rgba?\(\s*([0-9.]+)[ ,]+([0-9.]+)[ ,]+([0-9.]+)(?:\s*[,/]\s*([0-9.]+)(%?))?\s*\)$/;
var inkCache = null; // element -> the colour its text sits on, for one read (null: not known)

function withInkCache(fn) {
  var saved = inkCache;
  inkCache = typeof WeakMap === "function" ? new WeakMap() : null;
  try {
    return fn();
  } finally {
    inkCache = saved;
  }
}

/** [r, g, b, a] of a computed colour, or null for one this cannot read (color(), a keyword). */
function rgba(value) {
  var m = RGB.exec(String(value || ""));
  if (!m) return null;
  var a = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
  return [Number(m[1]), Number(m[2]), Number(m[3]), a];
}

/** Whether the transform (or scale) flattens el to no area: scale(0), scaleX(0), a degenerate matrix. */
function flattened(style) {
  if (style.scale && style.scale !== "none" && /(^|\s)0(\s|$)/.test(style.scale)) return true;
  var t = style.transform;
  if (!t || t === "none") return false;
  var nums = (t.match(/-?[0-9.e-]+/g) || []).map(Number);
  // The area the x and y axes span on screen: a, b, c, d of matrix(); m11, m12, m21, m22 of matrix3d().
  var m = /^matrix3d/.test(t) ? [nums[1], nums[2], nums[5], nums[6]] : nums.slice(0, 4); // matrix3d: its "3" first
  return m.length === 4 && Math.abs(m[0] * m[3] - m[1] * m[2]) < 1e-3;
}

/** Whether a filter blanks el: opacity(0); brightness(0) or contrast(0) over its own opaque background. */
function blanked(style) {
  var f = style.filter;
  if (!f || f === "none") return false;
  var ownBackground = rgba(style.backgroundColor);
  FILTER_STEP.lastIndex = 0;
  for (var m = FILTER_STEP.exec(f); m; m = FILTER_STEP.exec(f)) {
    var amount = Number(m[2]) / (m[3] ? 100 : 1);
    if (amount > 0.05) continue;
    if (m[1] === "opacity") return true;
    if (ownBackground && ownBackground[3] >= 0.9) return true; // text and box become one colour
  }
  return false;
}

// A native field a page draws itself: its own opacity is 0 and its label shows it (custom checkboxes,
// radios, file pickers). Not hidden by that opacity: its name is its label's, read on its own.
function drawnByItsLabel(el) {
  var tag = tagName(el);
  return (tag === "input" && /^(checkbox|radio|file)$/.test(String(el.type))) || tag === "select";
}

function tagName(el) {
  return String(el.localName || el.tagName || "").toLowerCase();
}

/** Why el and everything in it are drawn invisible though laid out, or "" (see the section comment). */
function drawnInvisible(el, style) {
  if (!style) return "";
  if (Number(style.opacity) <= 0.05 && !drawnByItsLabel(el)) return "transparent";
  if (flattened(style)) return "flattened";
  if (blanked(style)) return "filtered";
  // Clipped to nothing (an sr-only clip): its box is there, nothing of it is drawn.
  if (style.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(style.clipPath || "")) return "clipped";
  return "";
}

/** The colour el's text sits on: the first ancestor background colour, white at the root; null behind an image. */
function groundOf(el) {
  var known = inkCache ? inkCache.get(el) : undefined;
  if (known !== undefined) return known;
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  var ground;
  if (style.backgroundImage && style.backgroundImage !== "none") ground = null;
  else {
    var own = rgba(style.backgroundColor);
    if (own && own[3] >= 0.9) ground = own;
    else {
      var parent = composedParent(el);
      ground = parent && parent.nodeType === 1 ? groundOf(parent) : [255, 255, 255, 1];
      if (ground && own && own[3] > 0.05) ground = null; // a see-through tint: mixed, not judged
    }
  }
  if (inkCache) inkCache.set(el, ground);
  return ground;
}

/**
 * Whether el has an accessible name of its own (aria-label, aria-labelledby): an icon button whose glyph
 * text is hidden; or el is a control drawn as an icon (iconDrawn), whose hidden text still names it as
 * ARIA computes names (jQuery UI's close button: "Close" indented away behind its x).
 */
function namedApart(el) {
  if (!el.getAttribute) return false;
  if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")) return true;
  return !!(M.isInteractiveElement && M.isInteractiveElement(el) && iconDrawn(el));
}

var ICON_TAGS = { img: 1, svg: 1, canvas: 1 };
var ICON_MIN = 4; // px: an icon a person sees, not a dot

/** Whether el, or one of its first few descendants, draws an image of at least ICON_MIN px a side (a background image, img, svg). */
function iconDrawn(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var boxes = [el].concat(Array.prototype.slice.call(el.getElementsByTagName ? el.getElementsByTagName("*") : [], 0, 8));
  for (var i = 0; i < boxes.length; i++) {
    var b = boxes[i], style = view.getComputedStyle(b);
    if (!ICON_TAGS[tagName(b)] && !(style.backgroundImage && style.backgroundImage !== "none")) continue;
    if (style.display === "none" || style.visibility === "hidden" || drawnInvisible(b, style)) continue;
    var r = b.getBoundingClientRect();
    if (r.width >= ICON_MIN && r.height >= ICON_MIN) return true;
  }
  return false;
}

/**
 * Why el's own text (its text nodes; its children may set their own) is drawn where no one sees it,
 * or "": glyphs of 1px or less, no ink (transparent, or the colour of what it sits on), or pushed
 * off by a negative text-indent. Text drawn by a background (background-clip: text) or a shadow is seen.
 */
function inkHidden(el, style) {
  if (!style || namedApart(el)) return "";
  if (parseFloat(style.fontSize) <= 1) return "tiny_text";
  var ink = rgba(style.webkitTextFillColor && style.webkitTextFillColor !== style.color ? style.webkitTextFillColor : style.color);
  if (ink && style.textShadow === "none" && style.backgroundClip !== "text" && style.webkitBackgroundClip !== "text") {
    if (ink[3] <= 0.05) return "no_ink";
    var ground = groundOf(el);
    if (ground && Math.abs(ink[0] - ground[0]) <= 8 && Math.abs(ink[1] - ground[1]) <= 8 && Math.abs(ink[2] - ground[2]) <= 8) return "no_ink";
  }
  var indent = parseFloat(style.textIndent);
  if (indent < 0) {
    var r = el.getBoundingClientRect();
    var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
    if (r.left + view.scrollX + indent + r.width <= 0) return "indented_away";
  }
  return "";
}

/** A CSS selector argument of a primitive, checked: the elements it matches (deep). */
function selectAll(selector, code, scope) {
  if (typeof selector !== "string" || !selector.trim()) fail(code, "selector must be a non-empty CSS selector string", { selector: selector === undefined ? null : selector });
  try {
    return queryAllDeep(selector, scope);
  } catch (_err) {
    fail(code, "not a valid CSS selector: " + selector, { selector: selector });
  }
}

/**
 * elementFromPoint that descends into open shadow roots (the innermost element).
 * The engine's own overlay is looked through: it floats above the page, and our
 * primitives act on the page below it (a trusted click passes it the same way:
 * overlay.js, passThrough).
 */
function elementFromPointDeep(x, y) {
  var el = document.elementFromPoint(x, y);
  if (isHiddenFromEngine(el) && typeof document.elementsFromPoint === "function") {
    var stack = document.elementsFromPoint(x, y);
    el = null;
    for (var i = 0; i < stack.length; i++) {
      if (!isHiddenFromEngine(stack[i])) {
        el = stack[i];
        break;
      }
    }
  }
  while (el && el.shadowRoot && el.shadowRoot.mode === "open") {
    var inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/** Whether el is in a dialog that is not modal (role dialog or alertdialog, or an open <dialog> shown non-modally). */
function inFloatingDialog(el) {
  var box = el.closest ? el.closest("dialog, [role=dialog], [role=alertdialog]") : null;
  if (!box || box.getAttribute("aria-modal") === "true") return false;
  try {
    return !box.matches(":modal");
  } catch (_err) {
    return true; // no :modal selector: only aria-modal says modal
  }
}

/** Whether node is el or inside it in the composed tree. */
function isWithin(node, el) {
  for (var n = node; n; n = composedParent(n)) if (n === el) return true;
  return false;
}

M.elementFromPointDeep = elementFromPointDeep;
M.drawnInvisible = drawnInvisible;
M.inkHidden = inkHidden;
M.iconDrawn = iconDrawn;
M.withInkCache = withInkCache;
M.opaqueAt = function (el) {
  // Whether el paints over what is under it (the covered-text test, read_structure.js). A non-modal
  // dialog floats over the page, which a person moves or closes: what it covers is still the page's.
  // Only a modal one (aria-modal, a <dialog> shown modal) hides the rest.
  if (inFloatingDialog(el)) return false;
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  var bg = rgba(style.backgroundColor);
  return Number(style.opacity) >= 0.9 && (!!(bg && bg[3] >= 0.9) || (!!style.backgroundImage && style.backgroundImage !== "none"));
};
M.hideFromEngine = hideFromEngine;
M.LAUNCHER_HOST_TAG = LAUNCHER_HOST_TAG;
M.isHiddenFromEngine = isHiddenFromEngine;
M.isWithin = isWithin;
M.searchRoots = searchRoots;
M.queryAllDeep = queryAllDeep;
M.allElementsDeep = allElementsDeep;
M.closestDeep = closestDeep;
M.hiddenReason = hiddenReason;
M.isVisible = isVisible;
M.selectAll = selectAll;
