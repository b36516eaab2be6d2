/*
 * observe_drag.js — The two ends of page_drag (refs.drag_resolve; docs/mcp-surface.md, "Every kind
 * of control").
 *
 * Each end is a ref (@e12) or a visible text, resolved like the acting tools' targets
 * (resolveRefOrText: exactly one match, several refused with their refs), but over more
 * candidates: what a person drags is often no control (a draggable list item, a card with a grab
 * cursor) and where it goes is often a list or column known by its heading. So the candidates
 * are what page_observe lists, plus [draggable=true] elements, elements whose own cursor is grab
 * or move, and headings. Both ends are marked (data-mcp-actions-ref) so pointer.drag takes them
 * as locators, on either host (trusted on the Playwright tab, drag.js's events on the page runtime).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail;

var GRAB = { grab: 1, move: 1, "-webkit-grab": 1, "all-scroll": 1 };

function grabbable(el) {
  var cursor = root.getComputedStyle(el).cursor;
  if (!GRAB[cursor]) return false;
  // An own cursor, not the one a child inherits from its card.
  var parent = el.parentElement;
  return !parent || root.getComputedStyle(parent).cursor !== cursor;
}

function dragCandidates() {
  var listed = M.actionableInOrder();
  var more = M.queryAllDeep("[draggable=true], h1, h2, h3, h4, h5, h6, [role=heading], div, li, span, section, article").filter(function (el) {
    if (listed.indexOf(el) >= 0 || !M.isVisible(el)) return false;
    var tag = M.tagOf(el);
    return el.getAttribute("draggable") === "true" || /^h[1-6]$/.test(tag) || el.getAttribute("role") === "heading" || grabbable(el);
  });
  return listed.concat(more);
}

function end(spec, label) {
  if (typeof spec !== "object" || spec === null) fail("invalid_input", label + " must be {ref} or {text}", { field: label });
  var found = M.resolveRefOrText({ ref: spec.ref, text: spec.text }, { candidates: dragCandidates });
  var role = M.candidateRole(found.el);
  var out = { ref: found.ref, role: role, key: found.key, el: found.el };
  var name = M.candidateName(found.el, role);
  if (name) out.name = M.cap(name, 80);
  if (M.inFrame && M.inFrame(found.el)) out.frame = true;
  return out;
}

function dragResolve(args) {
  var from = end(args.from, "from");
  var to = end(args.to, "to");
  if (from.el === to.el) fail("invalid_input", "from and to name the same element (" + from.ref + ")", { field: "to", ref: to.ref });
  var selectors = M.markOnly([from, to]);
  return [from, to].reduce(function (out, e, i) {
    var side = { ref: e.ref, role: e.role, selector: selectors[i] };
    if (e.name) side.name = e.name;
    if (e.frame) side.frame = true;
    out[i ? "to" : "from"] = side;
    return out;
  }, {});
}

definePrimitive("refs.drag_resolve", dragResolve);
