/*
 * reach.js — What a person reaches by scrolling (docs/mcp-surface.md, "What page_observe lists").
 *
 * A person scrolls the document and every box whose overflow is auto or scroll (Wagtail's admin
 * scrolls a `main` with overflow-y: auto; Streamlit's app view hides its overflow around a column
 * that scrolls). A box with overflow: hidden or clip is never scrolled by a person: what lies
 * outside it stays hidden (the hidden-text rules, read_hidden.js, say the same).
 *
 * Only the boxes that contain an element can clip it (CSS containing blocks): an in-flow box's
 * parent, an absolute box's nearest positioned ancestor, a fixed box's nearest ancestor with a
 * transform, filter or containment (else the viewport alone). So a fixed slide-out panel drawn
 * inside a sidebar that clips its overflow is not clipped by that sidebar.
 *
 * clipOf(el, r) walks those boxes outward and answers null when el is seen or can be scrolled
 * into view, else {element, axis} of the box that hides it. seenRect(el) is the part of el a
 * person sees now, without scrolling (what a click can hit).
 */
var rectOf = M.rectOf,
  viewport = M.viewport;

/** The parent in the composed tree (a slot, a shadow root's host for its top children). */
function composedParent(el) {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  var rootNode = el.getRootNode ? el.getRootNode() : null;
  return rootNode && rootNode.host ? rootNode.host : null;
}

function styleOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  return view.getComputedStyle(el);
}

/** Whether a box with this style is the containing block of fixed descendants (a transform, filter, containment). */
function holdsFixed(s) {
  if (s.transform && s.transform !== "none") return true;
  if (s.perspective && s.perspective !== "none") return true;
  if (s.filter && s.filter !== "none") return true;
  if (s.backdropFilter && s.backdropFilter !== "none") return true;
  if (/(paint|layout|strict|content)/.test(s.contain || "")) return true;
  return /(transform|perspective|filter)/.test(s.willChange || "");
}

/** The box that contains el (its containing block's element), given el's style; null: the viewport or the document. */
function containerOf(el, style) {
  var pos = style.position;
  for (var anc = composedParent(el); anc && anc.nodeType === 1; anc = composedParent(anc)) {
    if (pos !== "absolute" && pos !== "fixed") return anc;
    var s = styleOf(anc);
    if (holdsFixed(s) || (pos === "absolute" && s.position !== "static")) return anc;
  }
  return null;
}

var SCROLLS = /^(auto|scroll|overlay)$/;
var CLIPS = /^(hidden|clip|auto|scroll|overlay)$/;

/** The inside of a box (its padding box, scroll bars left out), in the viewport. */
function innerRect(el) {
  var a = rectOf(el);
  var left = a.left + el.clientLeft, top = a.top + el.clientTop;
  return { left: left, top: top, right: left + el.clientWidth, bottom: top + el.clientHeight };
}

/**
 * One axis of a box judged: r's span [lo, hi) against the box's [alo, ahi). Returns the span el
 * has inside the box after a person's scroll (moved in, clipped to it), or null when no scroll
 * of theirs brings it in.
 */
function alongAxis(lo, hi, alo, ahi, scrolls, el, horizontal) {
  var pos = horizontal ? el.scrollLeft : el.scrollTop;
  var size = horizontal ? el.scrollWidth : el.scrollHeight;
  var client = horizontal ? el.clientWidth : el.clientHeight;
  if (hi > alo && lo < ahi) return [Math.max(lo, alo), Math.min(hi, ahi)];
  if (!scrolls) return null;
  // The scroll range: 0 to size - client, or -(size - client) to 0 for a right-to-left box.
  var rtl = horizontal && pos <= 0 && styleOf(el).direction === "rtl";
  var min = rtl ? -(size - client) : 0, max = rtl ? 0 : size - client;
  if (hi <= alo - (pos - min) || lo >= ahi + (max - pos)) return null; // before the scroll's start, or past its end
  var shift = hi <= alo ? alo - lo : ahi - hi; // scrolled to its nearest edge
  return [Math.max(lo + shift, alo), Math.min(hi + shift, ahi)];
}

function isRootBox(el) {
  var doc = el.ownerDocument;
  return el === doc.body || el === doc.documentElement;
}

/**
 * The box that hides el ({element, axis: "x"|"y"}), or null when el is seen or a person's scroll
 * of its containing boxes brings it into view. r: el's box (rectOf). moved: whether to move r into
 * boxes that scroll (false: judge what is seen now, without scrolling).
 */
function walkClips(el, r, moved, onBox) {
  var span = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  var style = styleOf(el);
  for (var box = containerOf(el, style); box && !isRootBox(box); box = containerOf(box, style)) {
    style = styleOf(box);
    var clipX = CLIPS.test(style.overflowX), clipY = CLIPS.test(style.overflowY);
    if (clipX || clipY) {
      var a = innerRect(box);
      if (clipX) {
        var x = alongAxis(span.left, span.right, a.left, a.right, moved && SCROLLS.test(style.overflowX), box, true);
        if (!x) return { element: box, axis: "x" };
        span.left = x[0];
        span.right = x[1];
      }
      if (clipY) {
        var y = alongAxis(span.top, span.bottom, a.top, a.bottom, moved && SCROLLS.test(style.overflowY), box, false);
        if (!y) return { element: box, axis: "y" };
        span.top = y[0];
        span.bottom = y[1];
      }
      if (onBox) onBox(box);
    }
  }
  // A fixed box (or one inside it) stays where the viewport puts it: no scroll of the document moves it in.
  if (!box && style.position === "fixed") {
    var vp = viewport();
    if (span.right <= 0 || span.bottom <= 0 || span.left >= vp.width || span.top >= vp.height) return { element: null, axis: "viewport" };
  } else if (moved) {
    // Left of or above the document, once the boxes between are scrolled to it: where no scroll reaches.
    var view = el.ownerDocument.defaultView || root;
    if (span.right + view.scrollX <= 0 || span.bottom + view.scrollY <= 0) return { element: null, axis: "document" };
  }
  if (onBox) onBox(null, span);
  return null;
}

/** Why no scroll of a person's shows el: {element, axis} of the box that hides it, or null (see walkClips). */
function clipOf(el, r) {
  return walkClips(el, r || rectOf(el), true, null);
}

/**
 * The part of el a person sees now, in the viewport ({left, top, right, bottom}), or null when none:
 * its box cut by the boxes that contain it and by the viewport.
 */
function seenRect(el) {
  var seen = null;
  var hidden = walkClips(el, rectOf(el), false, function (_box, span) { if (span) seen = span; });
  if (hidden || !seen) return null;
  var vp = viewport();
  var out = { left: Math.max(seen.left, 0), top: Math.max(seen.top, 0), right: Math.min(seen.right, vp.width), bottom: Math.min(seen.bottom, vp.height) };
  return out.right > out.left && out.bottom > out.top ? out : null;
}

/** The box a person scrolls to move el: its nearest containing box with overflow auto or scroll that can scroll; null: the document. */
function scrollerOf(el) {
  var style = styleOf(el);
  for (var box = containerOf(el, style); box && !isRootBox(box); box = containerOf(box, style)) {
    style = styleOf(box);
    if ((SCROLLS.test(style.overflowY) && box.scrollHeight > box.clientHeight + 1) || (SCROLLS.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1)) return box;
  }
  return null;
}

M.composedParent = composedParent;
M.clipOf = clipOf;
M.seenRect = seenRect;
M.scrollerOf = scrollerOf;
M.containerOf = containerOf;
