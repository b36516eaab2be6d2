/*
 * observe_scroll.js — refs.scroll (page_scroll): scroll what a person's wheel scrolls, by a screenful or
 * to its end, so lists that load more when scrolled (infinite feeds, virtualised lists) load it, and say
 * what came into view. Instant scrolling: scroll listeners and IntersectionObservers see it as they would
 * a person's. docs/mcp-surface.md, "Every kind of control".
 *
 * Which box scrolls (reach.js says what a person can scroll: overflow auto or scroll, or the document):
 * - with a ref or text (observe_refs.js resolveRefOrText): the box a wheel over that element scrolls, the
 *   element itself or its nearest scrolling box; a box laid over it counts (a canvas data grid's scroller,
 *   glide-data-grid's, lies over the canvas and its table of rows);
 * - with neither: the document when it scrolls, else the box under the middle of the window (Wagtail's
 *   `main`, Streamlit's column), else the largest box on screen that scrolls.
 * Of a chain of boxes, the first that can still move that way is scrolled, as a wheel hands the scroll on.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  round = M.round;

var DIRECTIONS = { down: 1, up: 1, bottom: 1, top: 1 };
var SCROLLS = /^(auto|scroll|overlay)$/;
var SAID = 5; // controls named in "came into view"
var FRAME_WAIT_MS = 100;
var GRID_WAIT_MS = 600;

function scrollsItself(node) {
  var style = getComputedStyle(node);
  return SCROLLS.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1;
}

/** The boxes a wheel over node scrolls, innermost first (node itself when it scrolls); the document is null, last. */
function chainOf(node) {
  var chain = [];
  var first = node && node.nodeType === 1 && scrollsItself(node) ? node : null;
  for (var box = first || (node && node.nodeType === 1 ? M.scrollerOf(node) : null); box; box = M.scrollerOf(box)) {
    if (scrollsItself(box) && chain.indexOf(box) < 0) chain.push(box);
  }
  if (pageScrolls()) chain.push(null);
  return chain;
}

function pageScrolls() {
  var doc = document.scrollingElement || document.documentElement;
  var hidden = /^(hidden|clip)$/.test(getComputedStyle(document.documentElement).overflowY) || /^(hidden|clip)$/.test(getComputedStyle(document.body || document.documentElement).overflowY);
  return !hidden && doc.scrollHeight > root.innerHeight + 1;
}

/** What a wheel over el would hit: the element at the middle of its seen part (a box laid over it), else el. */
function underWheel(el) {
  var probe = laidOut(el); // a canvas's fallback rows: the canvas
  var seen = M.seenRect(probe);
  var hit = seen ? M.elementFromPointDeep((seen.left + seen.right) / 2, (seen.top + seen.bottom) / 2) : null;
  return hit || probe;
}

/** The largest box on screen that scrolls (a page whose document does not), or null. */
function largestBox() {
  var best = null, area = 0;
  M.queryAllDeep("*").forEach(function (node) {
    if (!scrollsItself(node)) return;
    var seen = M.seenRect(node);
    var a = seen ? (seen.right - seen.left) * (seen.bottom - seen.top) : 0;
    if (a > area) {
      best = node;
      area = a;
    }
  });
  return best;
}

function canMove(box, to) {
  var el = box || document.scrollingElement || document.documentElement;
  var page = box ? box.clientHeight : root.innerHeight;
  return to === "down" || to === "bottom" ? el.scrollTop + page < el.scrollHeight - 1 : el.scrollTop > 0;
}

/** The box to scroll ({box}: null for the document): the first of the chain that can move that way, else its first. */
function boxToScroll(el, to) {
  var chain;
  if (el) chain = chainOf(underWheel(el));
  else {
    // The page's own scrolling: the document, else the outermost box under the middle of the window (not a
    // list or grid that happens to lie there).
    chain = pageScrolls() ? [null] : [];
    var vp = M.viewport();
    chainOf(M.elementFromPointDeep(vp.width / 2, vp.height / 2)).reverse().forEach(function (b) { if (chain.indexOf(b) < 0) chain.push(b); });
    if (!chain.length) {
      var big = largestBox();
      if (big) chain.push(big);
    }
  }
  for (var i = 0; i < chain.length; i++) if (canMove(chain[i], to)) return { box: chain[i] };
  return { box: chain.length ? chain[0] : null };
}

var NAMED_BOXES = { main: 1, region: 1, navigation: 1, complementary: 1, list: 1, listbox: 1, grid: 1, treegrid: 1, table: 1, tree: 1, dialog: 1, feed: 1, log: 1, tabpanel: 1, menu: 1 };

/** How a model knows the box: its landmark or role and name (main, list "Messages"), else "the <tag> box"; "the page" for the document. */
function boxName(box) {
  if (!box) return "the page";
  var role = M.roleOf(box);
  var name = role ? M.accessibleName(box, role) : "";
  if (!NAMED_BOXES[role]) return name ? "the box " + M.quote(M.cap(name, 40)) : "the <" + M.tagOf(box) + "> box";
  return name ? role + " " + M.quote(M.cap(name, 40)) : role;
}

/** The listed controls in box (all for the document) and whether a person sees each now. */
function seenNow(box) {
  // The controls page_observe would list (drawn_controls.js reachable: seen as they are, or drawn by another box).
  var els = M.actionableInTree().filter(function (el) { return (!box || box.contains(el)) && M.reachable(el); });
  return els.map(function (el) { return { el: el, seen: !!M.seenRect(el) }; });
}

/** A grid's rows as shown: {first, last, total} from aria-rowcount and aria-rowindex, near the box; or null. */
function gridOf(box, el) {
  // The grid the box scrolls: around it (a virtualised grid's viewport), beside it (a canvas grid's scroller laid
  // over the canvas), or the one the model named.
  var beside = box && box.parentElement ? box.parentElement.querySelector("[aria-rowcount]") : null;
  return (box && box.closest("[aria-rowcount]")) || (beside && !box.contains(beside) ? beside : null) || (el && el.closest ? el.closest("[aria-rowcount]") : null);
}

/** A promise that resolves once the grid drew other rows (a mutation in it, then a frame), or after GRID_WAIT_MS. */
function redrawn(grid) {
  if (!grid || typeof MutationObserver !== "function") return afterFrame();
  return new Promise(function (resolve) {
    var observer = new MutationObserver(function () {
      observer.disconnect();
      clearTimeout(timer);
      afterFrame().then(resolve);
    });
    var timer = setTimeout(function () {
      observer.disconnect();
      resolve();
    }, GRID_WAIT_MS);
    observer.observe(grid, { childList: true, subtree: true, characterData: true, attributes: true });
  });
}

/** The nearest box of el (itself or an ancestor) that is laid out: a canvas grid's table is its canvas's fallback. */
function laidOut(el) {
  for (var n = el; n && n.nodeType === 1; n = M.composedParent(n)) if (M.rectOf(n).width > 0 && M.rectOf(n).height > 0) return n;
  return el;
}

/** The grids on the page that draw only some of their rows: [{ref (what page_scroll takes), first, last, total}]. */
function gridsPartlyShown() {
  var out = [];
  M.queryAllDeep("[aria-rowcount]").forEach(function (grid) {
    var rows = rowsShown(grid);
    if (rows && M.isVisible(laidOut(grid))) out.push({ ref: M.refFor(laidOut(grid)), first: rows.first, last: rows.last, total: rows.total });
  });
  return out;
}

/**
 * Which rows of a grid or table are drawn now, out of how many (aria-rowcount: a virtualised grid, a canvas
 * grid's table of its rendered rows): {first, last, shown, total} in the grid's own row numbers
 * (aria-rowindex, header rows left out), or null when it draws all its rows or does not say how many.
 */
function rowsShown(grid) {
  var total = Number(grid.getAttribute("aria-rowcount"));
  if (!(total > 0)) return null;
  var rows = Array.prototype.filter.call(grid.querySelectorAll("[role=row], tr"), function (r) {
    return !r.closest("thead") && !r.querySelector("th, [role=columnheader]");
  });
  var indexes = rows.map(function (r) { return Number(r.getAttribute("aria-rowindex")); }).filter(function (n) { return n > 0; });
  if (!rows.length || rows.length >= total) return null;
  var first = indexes.length ? Math.min.apply(null, indexes) : 1;
  var last = indexes.length ? Math.max.apply(null, indexes) : rows.length;
  return { first: first, last: last, shown: rows.length, total: total };
}

function scroll(args) {
  var to = args.to === undefined ? "down" : args.to;
  if (!DIRECTIONS[to]) fail("invalid_input", "to must be down, up, bottom or top", { field: "to" });
  var ref = null, found = null;
  if (args.ref !== undefined || args.text !== undefined) {
    found = M.resolveRefOrText({ ref: args.ref, text: args.text });
    ref = found.ref;
  }
  var box = boxToScroll(found && found.el, to).box;
  var el = box || document.scrollingElement || document.documentElement;
  var page = box ? box.clientHeight : root.innerHeight;
  var before = el.scrollTop;
  var listed = seenNow(box);
  var top = to === "top" ? 0 : to === "bottom" ? el.scrollHeight : to === "down" ? before + page * 0.9 : before - page * 0.9;
  el.scrollTo({ top: top, behavior: "instant" });
  var out = { scrolled: box ? "element" : "page", box: boxName(box), scroll_y: round(el.scrollTop), scroll_height: round(el.scrollHeight), moved: round(el.scrollTop - before) };
  if (ref) out.ref = ref;
  out.at_end = to === "up" || to === "top" ? el.scrollTop <= 0 : el.scrollTop + page >= el.scrollHeight - 1;
  // The page draws what scrolled in on its scroll event, which fires with the next frame: said after it.
  // A grid redraws its rows after that (React's render of glide-data-grid's table): its rows, once redrawn.
  var grid = gridOf(box, found && found.el);
  return (grid && out.moved ? redrawn(grid) : afterFrame()).then(function () { return said(out, listed, box, grid); });
}

/** A promise that resolves after the next frame's scroll events ran (at most FRAME_WAIT_MS: a hidden tab draws no frames). */
function afterFrame() {
  return new Promise(function (resolve) {
    var done = false;
    function finish() {
      if (!done) {
        done = true;
        setTimeout(resolve, 0);
      }
    }
    if (root.requestAnimationFrame) root.requestAnimationFrame(finish);
    setTimeout(finish, FRAME_WAIT_MS);
  });
}

/** What came into view among the controls listed before the scroll, what is still below, and a grid's rows. */
function said(out, listed, box, grid) {
  // What came into view, and what is still past the fold: the model knows what to act on or to scroll for.
  var came = [], below = 0;
  listed.forEach(function (l) {
    var seen = !!M.seenRect(l.el);
    if (seen && !l.seen) came.push(l.el);
    else if (!seen && M.rectOf(l.el).top >= (box ? M.rectOf(box).bottom : root.innerHeight)) below += 1;
  });
  out.came_into_view = came.length;
  out.came = came.slice(0, SAID).map(function (c) {
    var role = M.candidateRole(c);
    var name = M.candidateName(c, role);
    return M.refFor(c) + " " + role + (name ? " " + M.quote(M.cap(name, 60)) : "");
  });
  out.more_below = below;
  var rows = grid ? rowsShown(grid) : null;
  if (rows) out.rows = rows;
  return out;
}

/**
 * page_observe {viewport_only}: the controls it left out because they lie past the window's edge, counted per
 * box that scrolls them and per side ({box, below, above}), so the model knows to scroll: "+22 more below the
 * fold of main: page_scroll". out: refs.observe's answer, given back with `fold` when there are such.
 */
function withFold(args, out) {
  if (args.viewport_only !== true) return out;
  var vp = M.viewport(), boxes = [], fold = [];
  M.actionableInTree().forEach(function (el) {
    if (!(M.reachable ? M.reachable(el) : M.isVisible(el) && !M.unseen(el))) return;
    var r = M.rectOf((M.drawnControl && M.drawnControl(el)) || el); // as refs.observe judges it in the viewport
    if (r.bottom > 0 && r.right > 0 && r.top < vp.height && r.left < vp.width) return;
    var box = M.scrollerOf(el), i = boxes.indexOf(box);
    if (i < 0) {
      i = boxes.push(box) - 1;
      fold.push({ box: boxName(box), below: 0, above: 0 });
    }
    fold[i][r.bottom <= 0 ? "above" : "below"] += 1; // right of the window is reached the same way as below
  });
  if (fold.length) out.fold = fold;
  return out;
}

definePrimitive("refs.scroll", scroll);

M.rowsShown = rowsShown;
M.withFold = withFold;
M.gridsPartlyShown = gridsPartlyShown;
M.laidOut = laidOut;
// A canvas's fallback content (glide-data-grid's table of rows) is found, read and acted on as its canvas.
M.canvasHolding = function (el) {
  var canvas = el.closest ? el.closest("canvas") : null;
  return canvas && canvas !== el ? canvas : el;
};
