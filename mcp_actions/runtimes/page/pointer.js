/*
 * pointer.js — Pointer emulation (pointer.move, pointer.click, pointer.double_click) and
 * viewport.scroll, with synthetic pointer and mouse events.
 */
var definePrimitive = M.definePrimitive,
  elementFromPointDeep = M.elementFromPointDeep,
  fail = M.fail,
  viewport = M.viewport,
  requireNumber = M.requireNumber,
  inViewport = M.inViewport,
  describe = M.describe,
  resolveClickable = M.resolveClickable;

// -- pointer --------------------------------------------------------------

var BUTTONS = { left: [0, 1], middle: [1, 4], right: [2, 2] };

/**
 * The point of a click given as a locator (``target``) instead of x and y: the
 * clickable centre of the one visible element it resolves to, scrolled into view
 * first as locator.element_info does. Saves a map the element_info step.
 */
function targetPoint(args) {
  if (args.x !== undefined || args.y !== undefined) fail("invalid_input", "give x and y, or target, not both", { field: "target" });
  var resolved = resolveClickable(args.target);
  return { x: resolved.center.x, y: resolved.center.y, matched_by: resolved.matched_by };
}

function pointTarget(args) {
  if (args.target !== undefined) {
    var at = targetPoint(args);
    var point = pointTarget({ x: at.x, y: at.y });
    point.matched_by = at.matched_by;
    return point;
  }
  var x = requireNumber(args, "x");
  var y = requireNumber(args, "y");
  var vp = viewport();
  if (!inViewport({ x: x, y: y })) fail("point_out_of_viewport", "(" + x + ", " + y + ") is outside the " + vp.width + "x" + vp.height + " viewport", { x: x, y: y, viewport: vp });
  var el = elementFromPointDeep(x, y);
  if (!el) fail("target_not_found", "no element at (" + x + ", " + y + ")", { x: x, y: y });
  return { x: x, y: y, el: el };
}

function mouseInit(x, y, button, buttons, detail) {
  return {
    bubbles: true, cancelable: true, composed: true, view: root, clientX: x, clientY: y,
    screenX: x + (root.screenX || 0), screenY: y + (root.screenY || 0),
    button: button, buttons: buttons, detail: detail, pointerId: 1, pointerType: "mouse", isPrimary: true,
  };
}

// Dispatched as the engine's own (intrinsics.js dispatchForAgent): a launcher takes the agent's
// synthetic click, never a page script's (docs/overlays.md, "Launcher clicks").
function firePointer(el, type, init) {
  var Ctor = typeof PointerEvent === "function" ? PointerEvent : MouseEvent;
  return M.intrinsics.dispatchForAgent(el, new Ctor(type, init));
}

function fireMouse(el, type, init) {
  return M.intrinsics.dispatchForAgent(el, new MouseEvent(type, init));
}

function focusFromPointer(el) {
  var focusable = el.closest("input, select, textarea, button, a[href], area[href], iframe, [tabindex], [contenteditable]:not([contenteditable='false'])");
  if (focusable && typeof focusable.focus === "function") focusable.focus();
  else if (document.activeElement && document.activeElement !== document.body && typeof document.activeElement.blur === "function") document.activeElement.blur();
}

function syntheticClick(point, buttonName, clickCount) {
  var b = BUTTONS[buttonName];
  var el = point.el;
  var down = mouseInit(point.x, point.y, b[0], b[1], clickCount);
  var up = mouseInit(point.x, point.y, b[0], 0, clickCount);
  // A cancelled pointerdown suppresses the compatibility mouse events (not click).
  var pointerAllowed = firePointer(el, "pointerdown", down);
  if (pointerAllowed && fireMouse(el, "mousedown", down)) focusFromPointer(el);
  firePointer(el, "pointerup", up);
  if (pointerAllowed) fireMouse(el, "mouseup", up);
  if (buttonName === "left") fireMouse(el, "click", up);
  else if (buttonName === "middle") fireMouse(el, "auxclick", up);
  else {
    fireMouse(el, "auxclick", up);
    fireMouse(el, "contextmenu", up);
  }
}


function pointerClick(args) {
  var button = args.button === undefined ? "left" : args.button;
  if (!BUTTONS[button]) fail("invalid_input", "button must be left, middle or right", { field: "button" });
  var point = pointTarget(args);
  syntheticClick(point, button, 1);
  var out = { clicked: true, button: button, target: describe(point.el) };
  if (point.matched_by) out.matched_by = point.matched_by;
  return out;
}

function pointerDoubleClick(args) {
  var point = pointTarget(args);
  syntheticClick(point, "left", 1);
  syntheticClick(point, "left", 2);
  fireMouse(point.el, "dblclick", mouseInit(point.x, point.y, 0, 0, 2));
  return { double_clicked: true, target: describe(point.el) };
}

var lastHover = null;
function pointerMove(args) {
  var point = pointTarget(args);
  var init = mouseInit(point.x, point.y, 0, 0, 0);
  if (lastHover !== point.el) {
    if (lastHover && lastHover.isConnected) {
      firePointer(lastHover, "pointerout", init);
      fireMouse(lastHover, "mouseout", init);
    }
    firePointer(point.el, "pointerover", init);
    fireMouse(point.el, "mouseover", init);
    lastHover = point.el;
  }
  firePointer(point.el, "pointermove", init);
  fireMouse(point.el, "mousemove", init);
  return { x: point.x, y: point.y };
}

function viewportScroll(args) {
  var dx = args.delta_x === undefined ? 0 : requireNumber(args, "delta_x");
  var dy = args.delta_y === undefined ? 0 : requireNumber(args, "delta_y");
  root.scrollBy({ left: dx, top: dy, behavior: "instant" });
  return { scroll_x: root.scrollX, scroll_y: root.scrollY };
}

definePrimitive("pointer.move", pointerMove);
definePrimitive("pointer.click", pointerClick);
definePrimitive("pointer.double_click", pointerDoubleClick);
definePrimitive("viewport.scroll", viewportScroll);

M.pointTarget = pointTarget;
M.mouseInit = mouseInit;
M.firePointer = firePointer;
M.fireMouse = fireMouse;
