/*
 * click_point.js — Where a click on an element lands, as a person would place it: on the part of
 * it they see, after scrolling it into view (docs/mcp-surface.md, "Acting by text").
 *
 * The element is scrolled into view when the centre of the part a person sees (reach.js seenRect)
 * is not on screen or is cut away by a box that scrolls: a row past the fold of Wagtail's scrolling
 * `main` is brought up first, as Playwright does before it acts. A box that stays put while the
 * rest scrolls (a sticky header, a fixed bar) may then lie over it: the element is scrolled to the
 * middle of its box, and the first point of it nothing covers is clicked. When every point stays
 * covered, stillCovered says by what, and the acting tools refuse the click (observe_refs.js)
 * rather than send it to the header.
 */
var elementFromPointDeep = M.elementFromPointDeep,
  isWithin = M.isWithin,
  composedParent = M.composedParent,
  round = M.round;

function middle(r) {
  return { x: round((r.left + r.right) / 2), y: round((r.top + r.bottom) / 2) };
}

/** Whether a person would scroll before clicking: nothing of el is seen, or under half of it while all of it would fit. */
function wantsScroll(el, seen) {
  if (!seen) return true;
  var r = M.rectOf(el), vp = M.viewport();
  if (r.width > vp.width || r.height > vp.height) return false;
  return (seen.right - seen.left) * 2 < r.width || (seen.bottom - seen.top) * 2 < r.height;
}

/** The box that keeps cover over el while el's box scrolls: cover or an ancestor of it, short of one holding el, that is sticky or fixed; else null. */
function stayingCover(cover, el) {
  for (var n = cover; n && n.nodeType === 1 && !isWithin(el, n); n = composedParent(n)) {
    var pos = root.getComputedStyle(n).position;
    if (pos === "sticky" || pos === "fixed") return n;
  }
  return null;
}

/** The first point of el's seen part that hits el: its centre, else the middles of a 3 × 3 grid over it; null if none. */
function openPoint(el) {
  var seen = M.seenRect(el);
  if (!seen) return null;
  var points = [middle(seen)];
  var w = seen.right - seen.left, h = seen.bottom - seen.top;
  for (var i = 0; i < 3; i++) for (var j = 0; j < 3; j++) points.push({ x: round(seen.left + (w * (2 * j + 1)) / 6), y: round(seen.top + (h * (2 * i + 1)) / 6) });
  for (var k = 0; k < points.length; k++) {
    var hit = elementFromPointDeep(points[k].x, points[k].y);
    if (hit && isWithin(hit, el)) return points[k];
  }
  return null;
}

/**
 * The point to click el at ({x, y}), el scrolled into view first when a person would have to (see the
 * module comment); covered: the sticky or fixed box still over it, when nothing of it is open.
 */
function clickPoint(el) {
  var seen = M.seenRect(el);
  if (wantsScroll(el, seen) && typeof el.scrollIntoView === "function") {
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    seen = M.seenRect(el);
  }
  if (!seen) return { point: M.clickableCenter(el) };
  var centre = middle(seen);
  var top = elementFromPointDeep(centre.x, centre.y);
  var cover = top && !isWithin(top, el) ? stayingCover(top, el) : null;
  if (!cover) return { point: centre };
  // Under a sticky header or a fixed bar: away from it, to the middle of the box that scrolls el.
  if (typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  var open = openPoint(el);
  if (open) return { point: open };
  seen = M.seenRect(el);
  return { point: seen ? middle(seen) : M.clickableCenter(el), covered: cover };
}

/**
 * Whether hit, on top of el, is el's own widget taking the pointer: a box that scrolls, laid over el beside it
 * and about its size (glide-data-grid's scroller over its canvas). A click there is the click a person makes.
 */
function laidOver(hit, el) {
  var r = M.rectOf(el);
  for (var n = hit; n && n.nodeType === 1 && !isWithin(el, n); n = composedParent(n)) {
    var style = root.getComputedStyle(n), b = M.rectOf(n);
    if (!/^(auto|scroll|overlay)$/.test(style.overflowY + "") && !/^(auto|scroll|overlay)$/.test(style.overflowX + "")) continue;
    var parent = composedParent(n);
    return !!parent && isWithin(el, parent) && b.width * b.height <= 2 * r.width * r.height;
  }
  return false;
}

M.clickPoint = clickPoint;
M.laidOver = laidOver;
