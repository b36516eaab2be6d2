/*
 * observe_marks.js — refs.marks: numbered badges on the elements page_observe lists inside the
 * viewport, drawn for one screenshot and taken away after it (browser_screenshot {marks: true},
 * BAP's agent/observe {annotateScreenshot}; docs/mcp-surface.md).
 *
 * {show: true} lists what a person can act on inside the viewport, in page_observe's order and
 * under the refs page_observe gives (M.refFor; page_observe's own memory of what is new or moved
 * is not touched), draws an outline and a badge "1", "2"… on each, waits until that is painted,
 * and answers {marks: [{n, ref, role, name?, bounds}], total}. {show: false} removes it.
 *
 * Drawn in a CLOSED shadow root of one host appended to <html> (not <body>): fixed, on top,
 * pointer-events none, skipped by the engine's own searches (dom.js hideFromEngine). So the page's
 * MutationObservers see one element added under <html> and removed again, and nothing else of the
 * page changes. Drawn in the page rather than on the picture, the badges work on every host that
 * takes a screenshot (the Playwright tabs, the extension's captureVisibleTab). A host left by a
 * server that never came back for it is removed after HOLD_MS.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  box = M.box,
  viewport = M.viewport,
  isVisible = M.isVisible,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  actionableInTree = M.actionableInTree,
  hideFromEngine = M.hideFromEngine,
  I = M.intrinsics;

var HOST_TAG = "mcp-actions-marks";
var HTML_NS = "http://www.w3.org/1999/xhtml";
var MAX_MARKS = 500;
var NAME_CAP = 80;
var HOLD_MS = 15000; // longer than any screenshot takes; the server removes it at once after
var PAINT_WAIT_MS = 120; // when no animation frame comes (a hidden tab), answer anyway
var COLOURS = ["#d6004c", "#0047c2", "#007a29", "#a65200", "#7000c2"];

function proto(name) {
  var ctor = root[name];
  return typeof ctor === "function" ? ctor.prototype : null;
}
var DOM = {
  attachShadow: I.nativeMethod(proto("Element"), "attachShadow", "Element.prototype.attachShadow"),
  createElementNS: I.nativeMethod(proto("Document"), "createElementNS", "Document.prototype.createElementNS"),
  append: I.nativeMethod(proto("Element"), "append", "Element.prototype.append"),
  appendToFragment: I.nativeMethod(proto("DocumentFragment"), "append", "DocumentFragment.prototype.append"),
  remove: I.nativeMethod(proto("Element"), "remove", "Element.prototype.remove"),
  setText: I.nativeSetter(proto("Node"), "textContent", "set Node.prototype.textContent"),
  documentElement: I.nativeGetter(proto("Document"), "documentElement", "get Document.prototype.documentElement"),
  style: I.nativeGetter(proto("HTMLElement"), "style", "get HTMLElement.prototype.style"),
  setProperty: I.nativeMethod(proto("CSSStyleDeclaration"), "setProperty", "CSSStyleDeclaration.prototype.setProperty"),
};
var frame = typeof root.requestAnimationFrame === "function" ? root.requestAnimationFrame.bind(root) : null;
var theDocument = document;

var shown = null; // {host, timer}

function element(tag, styles) {
  var node = DOM.createElementNS(theDocument, HTML_NS, tag);
  var style = DOM.style(node);
  for (var i = 0; i < styles.length; i += 2) DOM.setProperty(style, styles[i], styles[i + 1], "important");
  return node;
}

function inViewport(el, vp) {
  var r = el.getBoundingClientRect();
  return r.bottom > 0 && r.right > 0 && r.top < vp.height && r.left < vp.width;
}

/** The elements page_observe lists, those inside the viewport, as {n, ref, role, name?, bounds}. */
function listed(vp) {
  var all = actionableInTree().filter(function (el) {
    return isVisible(el) && inViewport(el, vp) && !M.unseen(el);
  });
  return all.slice(0, MAX_MARKS).map(function (el, i) {
    var role = candidateRole(el);
    var name = candidateName(el, role);
    var mark = { n: i + 1, ref: M.refFor(el), role: role, bounds: box(el) };
    if (name) mark.name = cap(name, NAME_CAP);
    return mark;
  });
}

function badgeFor(mark, vp) {
  var b = mark.bounds, colour = COLOURS[(mark.n - 1) % COLOURS.length];
  var left = Math.max(0, b.x), top = Math.max(0, b.y);
  var outline = element("div", [
    "position", "absolute", "box-sizing", "border-box", "left", left + "px", "top", top + "px",
    "width", Math.max(2, Math.min(b.x + b.width, vp.width) - left) + "px", "height", Math.max(2, Math.min(b.y + b.height, vp.height) - top) + "px",
    "border", "2px solid " + colour, "margin", "0", "padding", "0",
  ]);
  // The badge sits in the box's top left corner, inside the viewport.
  var badge = element("span", [
    "position", "absolute", "left", Math.min(left, Math.max(0, vp.width - 28)) + "px", "top", Math.min(top, Math.max(0, vp.height - 16)) + "px",
    "background", colour, "color", "#fff", "font", "bold 12px/15px Arial, Helvetica, sans-serif", "padding", "0 3px", "margin", "0",
    "min-width", "10px", "text-align", "center", "border-radius", "2px", "white-space", "nowrap", "letter-spacing", "0",
  ]);
  DOM.setText(badge, String(mark.n));
  return [outline, badge];
}

function remove() {
  if (!shown) return false;
  I.nativeClearTimeout.call(root, shown.timer);
  try {
    DOM.remove(shown.host);
  } catch (_gone) { /* the page removed it already */ }
  shown = null;
  return true;
}

function painted() {
  return new Promise(function (resolve) {
    var done = false;
    function finish() {
      if (!done) {
        done = true;
        resolve();
      }
    }
    I.setTimeout(finish, PAINT_WAIT_MS);
    // Two frames: the first runs before the badges' paint, the second after it.
    if (frame) frame(function () { frame(finish); });
  });
}

function draw(marks, vp) {
  var host = element(HOST_TAG, [
    "all", "initial", "position", "fixed", "inset", "0", "z-index", "2147483647", "pointer-events", "none", "display", "block",
    "contain", "strict",
  ]);
  hideFromEngine(host);
  var shadow = DOM.attachShadow(host, I.bare({ mode: "closed" }));
  marks.forEach(function (mark) {
    badgeFor(mark, vp).forEach(function (node) { DOM.appendToFragment(shadow, node); });
  });
  DOM.append(DOM.documentElement(theDocument), host);
  shown = { host: host, timer: I.setTimeout(remove, HOLD_MS) };
}

function marks(args) {
  if (args.show !== true && args.show !== false) fail("invalid_input", "show must be true or false", { field: "show" });
  remove();
  if (!args.show) return { removed: true };
  if (!DOM.attachShadow || !DOM.createElementNS || !DOM.setProperty) fail("capability_unavailable", "this page cannot draw the marks", { capability: "refs.marks" });
  var vp = viewport();
  var found = listed(vp);
  draw(found, vp);
  return painted().then(function () {
    return { marks: found, total: found.length, viewport: vp };
  });
}

definePrimitive("refs.marks", marks);
