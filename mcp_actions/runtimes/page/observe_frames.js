/*
 * observe_frames.js — Acting on an element inside a same-origin iframe, by its ref (refs.frame_act;
 * docs/mcp-surface.md, "Every kind of control").
 *
 * page_read, page_find and page_observe hand out refs for the elements of same-origin frames, but
 * the locator primitives search the top document only. So for such an element the acting tools
 * (dispatch/observe_tools.py) use this primitive instead:
 *
 * - action "point": the element scrolled into view in its frame, and its frame in the top page,
 *   and its clickable centre in the TOP viewport's coordinates (each iframe's box and border added),
 *   for a host with trusted input to click or hover there (the browser routes real input into the
 *   frame);
 * - action "click" / "hover": the engine's synthetic pointer and mouse events, dispatched on the
 *   element in the frame's own document with frame-local coordinates (the page runtime, which has
 *   no trusted input);
 * - action "fill": the field's value set with the frame realm's native setter (frameworks' value
 *   trackers see it) and input + change fired; a rich-text editor takes the text through the
 *   frame document's insertText.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  round = Math.round;

/** The iframes from the top document down to el's document (outermost first); [] for a top-document element. */
function frameChain(el) {
  var chain = [];
  var doc = el.ownerDocument;
  while (doc && doc !== document) {
    var frame = null;
    try {
      frame = doc.defaultView && doc.defaultView.frameElement;
    } catch (_crossOrigin) {
      frame = null;
    }
    if (!frame) break;
    chain.unshift(frame);
    doc = frame.ownerDocument;
  }
  return chain;
}

/** Whether el lives in a same-origin frame's document (not the top document). */
function inFrame(el) {
  return !!el && el.ownerDocument !== document && frameChain(el).length > 0;
}

/** Where a frame's content starts inside its iframe element's box: border + padding. */
function contentOffset(frame) {
  var style = frame.ownerDocument.defaultView.getComputedStyle(frame);
  return { x: frame.clientLeft + (parseFloat(style.paddingLeft) || 0), y: frame.clientTop + (parseFloat(style.paddingTop) || 0) };
}

/** el's clickable centre in its own frame's viewport, and in the top viewport. */
function points(el) {
  // Scroll the element into view inside its frame, then each frame into view in its parent (innermost out).
  if (typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  var chain = frameChain(el);
  for (var i = chain.length - 1; i >= 0; i--) chain[i].scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
  // Boxes as the browser lays them out, not as a page script says (geometry.js): the click lands on el.
  var r = M.rectOf(el);
  var local = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  var x = local.x, y = local.y;
  for (var j = chain.length - 1; j >= 0; j--) {
    var fr = M.rectOf(chain[j]);
    var offset = contentOffset(chain[j]);
    x += fr.left + offset.x;
    y += fr.top + offset.y;
  }
  return { local: { x: round(local.x), y: round(local.y) }, top: { x: round(x), y: round(y) } };
}

function mouseInit(win, p, button, buttons) {
  return { bubbles: true, cancelable: true, composed: true, view: win, clientX: p.x, clientY: p.y, button: button, buttons: buttons, detail: 1, pointerId: 1, pointerType: "mouse", isPrimary: true };
}

/** Synthetic events of the frame's realm on el (a page script there checks instanceof against its own classes). */
function fire(el, type, init) {
  var win = el.ownerDocument.defaultView;
  var Ctor = type.indexOf("pointer") === 0 && typeof win.PointerEvent === "function" ? win.PointerEvent : win.MouseEvent;
  return el.dispatchEvent(new Ctor(type, init));
}

function click(el, p) {
  var win = el.ownerDocument.defaultView;
  var down = mouseInit(win, p, 0, 1), up = mouseInit(win, p, 0, 0);
  var allowed = fire(el, "pointerdown", down);
  if (allowed && fire(el, "mousedown", down)) {
    var focusable = el.closest("input, select, textarea, button, a[href], [tabindex], [contenteditable]:not([contenteditable='false'])");
    if (focusable && typeof focusable.focus === "function") focusable.focus();
  }
  fire(el, "pointerup", up);
  if (allowed) fire(el, "mouseup", up);
  // A synthetic click event runs the element's activation (a submit button submits its form, a checkbox toggles).
  fire(el, "click", up);
}

function hover(el, p) {
  var init = mouseInit(el.ownerDocument.defaultView, p, 0, 0);
  ["pointerover", "mouseover", "pointermove", "mousemove"].forEach(function (type) { fire(el, type, init); });
}

function fill(el, value, ref) {
  var win = el.ownerDocument.defaultView;
  if (typeof el.focus === "function") el.focus();
  var tag = M.tagOf(el);
  if (tag === "input" || tag === "textarea") {
    if (el.disabled || el.readOnly) fail("target_not_editable", ref + " is disabled or read-only", { ref: ref });
    // The frame realm's prototype setter: a framework in the frame tracks values on its own prototypes.
    var proto = tag === "textarea" ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
    var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
    if (descriptor && descriptor.set) descriptor.set.call(el, value);
    else el.value = value;
    el.dispatchEvent(new win.InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: value }));
    el.dispatchEvent(new win.Event("change", { bubbles: true }));
    return String(el.value);
  }
  if (el.isContentEditable) {
    var range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    var sel = win.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    if (!el.ownerDocument.execCommand("insertText", false, value)) {
      el.textContent = value;
      el.dispatchEvent(new win.InputEvent("input", { bubbles: true, inputType: "insertText", data: value }));
    }
    return M.normalize(el.innerText);
  }
  fail("target_not_editable", ref + " does not take text", { ref: ref, tag: tag });
}

var ACTIONS = { point: 1, click: 1, hover: 1, fill: 1 };

function frameAct(args) {
  if (!ACTIONS[args.action]) fail("invalid_input", "action must be point, click, hover or fill", { field: "action" });
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text });
  var el = found.el;
  if (!inFrame(el)) fail("invalid_input", found.ref + " is not inside a frame: act on it with the ordinary primitives", { field: "ref", ref: found.ref });
  var at = points(el);
  var out = { ref: found.ref, action: args.action, x: at.top.x, y: at.top.y };
  if (args.action === "click") click(el, at.local);
  else if (args.action === "hover") hover(el, at.local);
  else if (args.action === "fill") {
    if (typeof args.value !== "string") fail("invalid_input", "fill needs a string value", { field: "value" });
    out.value = fill(el, args.value, found.ref);
  }
  return out;
}

M.inFrame = inFrame;
M.frameChain = frameChain;
M.frameContentOffset = contentOffset;

definePrimitive("refs.frame_act", frameAct);
