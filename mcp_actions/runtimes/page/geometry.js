/*
 * geometry.js — Where the browser lays an element out, read so that no page script can answer
 * instead of it: boxes, clickable centres and the viewport (docs/threat-model.md, "What a page
 * could forge, and what holds now", rows 4 and 5).
 *
 * A page can give an element its own getBoundingClientRect, replace Element.prototype's, or put
 * getters on DOMRect.prototype and window.innerWidth. A box read through those would place one
 * element's badge (browser_screenshot {marks: true}) or trusted click on another element. So the
 * methods and getters are captured when the engine installs (intrinsics.js: before any page script
 * in the browser host's tabs and the extension's document_start injection) and called uncurried:
 * an own property on the element, a replaced prototype method or a DOMRect getter never runs.
 *
 * M.rectOf, M.box, M.clickableCenter, M.inViewport and M.viewport are defined here once, for every
 * module loaded after this one.
 */
var I = M.intrinsics,
  round = M.round;

function protoOf(name) {
  var ctor = root[name];
  return typeof ctor === "function" ? ctor.prototype : null;
}

var ElementP = protoOf("Element"),
  RectP = protoOf("DOMRectReadOnly");
var NATIVE = {
  rect: I.nativeMethod(ElementP, "getBoundingClientRect", "Element.prototype.getBoundingClientRect"),
  left: I.nativeGetter(RectP, "left", "get DOMRectReadOnly.prototype.left"),
  top: I.nativeGetter(RectP, "top", "get DOMRectReadOnly.prototype.top"),
  width: I.nativeGetter(RectP, "width", "get DOMRectReadOnly.prototype.width"),
  height: I.nativeGetter(RectP, "height", "get DOMRectReadOnly.prototype.height"),
  // Own accessors of the window ([Replaceable]): a page may overwrite the property, not this getter.
  innerWidth: I.nativeGetter(root, "innerWidth", "get window.innerWidth"),
  innerHeight: I.nativeGetter(root, "innerHeight", "get window.innerHeight"),
  clientWidth: I.nativeGetter(ElementP, "clientWidth", "get Element.prototype.clientWidth"),
  clientHeight: I.nativeGetter(ElementP, "clientHeight", "get Element.prototype.clientHeight"),
  documentElement: I.nativeGetter(protoOf("Document"), "documentElement", "get Document.prototype.documentElement"),
};
var NATIVE_RECTS = !!(NATIVE.rect && NATIVE.left && NATIVE.top && NATIVE.width && NATIVE.height);
var theDocument = document;

/**
 * el's border box in its own document's viewport, as the browser lays it out (transforms included):
 * {left, top, right, bottom, width, height}. Read through the captured built-ins; a browser without
 * them (none the engine supports) falls back to the element's own method.
 */
function rectOf(el) {
  var r, left, top, width, height;
  if (NATIVE_RECTS) {
    r = NATIVE.rect(el);
    left = NATIVE.left(r);
    top = NATIVE.top(r);
    width = NATIVE.width(r);
    height = NATIVE.height(r);
  } else {
    r = el.getBoundingClientRect();
    left = r.left;
    top = r.top;
    width = r.width;
    height = r.height;
  }
  return { left: left, top: top, right: left + width, bottom: top + height, width: width, height: height };
}

/** The top document's viewport in CSS pixels (innerWidth × innerHeight, scrollbars included). */
function viewport() {
  var de = NATIVE.documentElement ? NATIVE.documentElement(theDocument) : theDocument.documentElement;
  var width = NATIVE.innerWidth ? NATIVE.innerWidth(root) : root.innerWidth;
  var height = NATIVE.innerHeight ? NATIVE.innerHeight(root) : root.innerHeight;
  return {
    width: width || (de && (NATIVE.clientWidth ? NATIVE.clientWidth(de) : de.clientWidth)) || 0,
    height: height || (de && (NATIVE.clientHeight ? NATIVE.clientHeight(de) : de.clientHeight)) || 0,
  };
}

/** el's box {x, y, width, height} in its document's viewport, rounded to 1/100 px. */
function box(el) {
  var r = rectOf(el);
  return { x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) };
}

/**
 * The centre of the part of el inside the viewport, where a trusted click lands: a partly scrolled
 * element is still clicked where a user would.
 */
function clickableCenter(el) {
  var r = rectOf(el);
  var vp = viewport();
  var left = Math.max(r.left, 0), right = Math.min(r.right, vp.width);
  var top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vp.height);
  if (right > left && bottom > top) return { x: round((left + right) / 2), y: round((top + bottom) / 2) };
  return { x: round(r.left + r.width / 2), y: round(r.top + r.height / 2) };
}

function inViewport(point) {
  var vp = viewport();
  return point.x >= 0 && point.y >= 0 && point.x < vp.width && point.y < vp.height;
}

M.rectOf = rectOf;
M.box = box;
M.clickableCenter = clickableCenter;
M.inViewport = inViewport;
M.viewport = viewport;
