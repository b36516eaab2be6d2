/*
 * observe_marks.js — refs.marks: the elements page_observe lists inside the viewport, each with its
 * number and its box as the browser lays it out, for the server to draw numbered badges on a
 * screenshot (browser_screenshot {marks: true}, BAP's agent/observe {annotateScreenshot};
 * docs/mcp-surface.md).
 *
 * It lists what a person can act on inside the viewport, in page_observe's order and under the
 * refs page_observe gives (M.refFor; page_observe's own memory of what is new or moved is not
 * touched), and answers {marks: [{n, ref, role, name?, bounds}], total, viewport}. `bounds` are in
 * the TOP viewport's CSS pixels (an element of a same-origin frame has its frames' offsets added),
 * the element's whole box, which may reach past the viewport's edges.
 *
 * Nothing is drawn in the page: the server draws the outlines and badges onto the picture itself
 * (dispatch/builtins/tabs/marks_picture.py). An overlay in the page was placed by the page's CSS
 * (a transformed <html> is the containing block of a fixed layer, so every badge moved with the
 * scroll) and could be kept by the page (a MutationObserver putting the layer back). The boxes are
 * read through built-ins captured at install (geometry.js), so a page script's getBoundingClientRect
 * cannot put one element's badge on another (docs/threat-model.md, rows 4–6).
 *
 * {refs: ["@e1", …]} reads those elements' boxes again, in the same coordinates ({bounds: [box or
 * null]}, null when an element is gone, hidden or out of view): the server asks once the picture is
 * taken and draws no badge for an element that moved meanwhile (an animation, a carousel, a page that
 * moves its elements on purpose), since its badge would sit where it no longer is.
 *
 * {show: false} (what servers sent to take page-drawn badges away) answers {removed: true}: there
 * is nothing to remove.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  round = M.round,
  rectOf = M.rectOf,
  viewport = M.viewport,
  isVisible = M.isVisible,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  actionableInTree = M.actionableInTree,
  I = M.intrinsics;

var MAX_MARKS = 500;
var NAME_CAP = 80;

/**
 * el's box in the top viewport, and the part of it a person sees there (inside every frame it sits
 * in, and the viewport): {rect, seen}; seen is null when no part is in view.
 */
function placed(el, vp) {
  var r = rectOf(el);
  var dx = 0, dy = 0;
  var seen = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  var chain = M.frameChain ? M.frameChain(el) : [];
  // Innermost frame first: each frame's content box clips what is seen of el, then moves it into its parent.
  for (var i = chain.length - 1; i >= 0; i--) {
    var frame = chain[i], fr = rectOf(frame), offset = M.frameContentOffset(frame);
    var width = frame.clientWidth, height = frame.clientHeight;
    seen = { left: Math.max(seen.left, 0), top: Math.max(seen.top, 0), right: Math.min(seen.right, width), bottom: Math.min(seen.bottom, height) };
    var ox = fr.left + offset.x, oy = fr.top + offset.y;
    seen = { left: seen.left + ox, top: seen.top + oy, right: seen.right + ox, bottom: seen.bottom + oy };
    dx += ox;
    dy += oy;
  }
  seen = { left: Math.max(seen.left, 0), top: Math.max(seen.top, 0), right: Math.min(seen.right, vp.width), bottom: Math.min(seen.bottom, vp.height) };
  return {
    rect: { x: round(r.left + dx), y: round(r.top + dy), width: round(r.width), height: round(r.height) },
    seen: seen.right > seen.left && seen.bottom > seen.top ? seen : null,
  };
}

/** The elements page_observe lists, those inside the viewport, as {n, ref, role, name?, bounds}. */
function listed(vp) {
  var out = [];
  var all = actionableInTree();
  for (var i = 0; i < all.length && out.length < MAX_MARKS; i++) {
    var el = all[i];
    if (!isVisible(el) || M.unseen(el)) continue;
    var at = placed(el, vp);
    if (!at.seen) continue;
    var role = candidateRole(el);
    var name = candidateName(el, role);
    var mark = { n: out.length + 1, ref: M.refFor(el), role: role, bounds: at.rect };
    if (name) mark.name = cap(name, NAME_CAP);
    out.push(mark);
  }
  return out;
}

/** The boxes of the elements `refs` name now, as listed() gives them, or null for each one not in view. */
function again(refs, vp) {
  if (!I.isArray(refs) || refs.length > MAX_MARKS) fail("invalid_input", "refs must be a list of at most " + MAX_MARKS + " refs", { field: "refs" });
  return refs.map(function (ref) {
    var el;
    try {
      el = M.elementOfRef(ref).el;
    } catch (_goneOrHidden) {
      return null;
    }
    var at = placed(el, vp);
    return at.seen ? at.rect : null;
  });
}

function marks(args) {
  if (args.show !== undefined && args.show !== true && args.show !== false) fail("invalid_input", "show must be true or false", { field: "show" });
  if (args.show === false) return { removed: true };
  if (args.refs !== undefined) return { bounds: again(args.refs, viewport()) };
  var vp = viewport();
  var found = listed(vp);
  return { marks: found, total: found.length, viewport: vp };
}

definePrimitive("refs.marks", marks);
