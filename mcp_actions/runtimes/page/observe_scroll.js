/*
 * observe_scroll.js — refs.scroll (page_scroll): scroll the page, or the scrolling box an element
 * sits in, by a screenful or to its end, so lists that load more when scrolled (infinite feeds,
 * virtualised lists) load it. Instant scrolling: scroll listeners and IntersectionObservers see it
 * as they would a person's. The element is named by ref or text (observe_refs.js
 * resolveRefOrText); without either, the document scrolls. docs/mcp-surface.md, "Every kind of control".
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  round = M.round;

var DIRECTIONS = { down: 1, up: 1, bottom: 1, top: 1 };

/** The box that scrolls el: el itself or its nearest ancestor with overflow that scrolls; null: the document. */
function scrollerOf(el) {
  for (var node = el; node && node.nodeType === 1 && node !== document.body && node !== document.documentElement; node = node.parentElement) {
    var style = getComputedStyle(node);
    if (/(auto|scroll|overlay)/.test(style.overflowY + " " + style.overflowX) && node.scrollHeight > node.clientHeight + 1) return node;
  }
  return null;
}

function scroll(args) {
  var to = args.to === undefined ? "down" : args.to;
  if (!DIRECTIONS[to]) fail("invalid_input", "to must be down, up, bottom or top", { field: "to" });
  var box = null, ref = null;
  if (args.ref !== undefined || args.text !== undefined) {
    var found = M.resolveRefOrText({ ref: args.ref, text: args.text });
    ref = found.ref;
    box = scrollerOf(found.el);
  }
  var el = box || document.scrollingElement || document.documentElement;
  var page = box ? box.clientHeight : root.innerHeight;
  var before = el.scrollTop;
  var top = to === "top" ? 0 : to === "bottom" ? el.scrollHeight : to === "down" ? before + page * 0.9 : before - page * 0.9;
  el.scrollTo({ top: top, behavior: "instant" });
  var out = { scrolled: box ? "element" : "page", scroll_y: round(el.scrollTop), scroll_height: round(el.scrollHeight), moved: round(el.scrollTop - before) };
  if (ref) out.ref = ref;
  out.at_end = el.scrollTop + (box ? box.clientHeight : root.innerHeight) >= el.scrollHeight - 1;
  return out;
}

definePrimitive("refs.scroll", scroll);
