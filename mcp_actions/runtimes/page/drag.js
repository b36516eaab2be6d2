/*
 * drag.js — pointer.drag with synthetic events: press at `from`, move in
 * steps, release at `to`. Endpoints are viewport points {x, y} or locators
 * ({locator: {...}}, or locator fields such as selector / text_equals /
 * text_contains / text given inline). When the pressed element is HTML5
 * draggable, the drag-and-drop events (dragstart … drop, dragend) follow too.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  round = M.round,
  inViewport = M.inViewport,
  viewport = M.viewport,
  clickableCenter = M.clickableCenter,
  resolveOne = M.resolveOne,
  closestDeep = M.closestDeep,
  elementFromPointDeep = M.elementFromPointDeep,
  describe = M.describe,
  mouseInit = M.mouseInit,
  firePointer = M.firePointer,
  fireMouse = M.fireMouse;

/** The locator an endpoint names, or null when it is a bare point. */
function endpointLocator(spec) {
  if (isObject(spec.locator)) return spec.locator;
  var locator = {};
  Object.keys(spec).forEach(function (k) {
    if (k !== "x" && k !== "y" && k !== "text" && k !== "locator") locator[k] = spec[k];
  });
  if (typeof spec.text === "string") locator.text_contains = spec.text;
  return Object.keys(locator).length ? locator : null;
}

/**
 * A viewport point for an endpoint: {x, y, matched_by?}. A located element is
 * scrolled into view first; a hidden one fails target_not_visible.
 */
function endpointPoint(spec, label) {
  if (!isObject(spec)) fail("invalid_input", label + " must be an object", { field: label });
  var locator = endpointLocator(spec);
  if (!locator) {
    if (typeof spec.x !== "number" || typeof spec.y !== "number") fail("invalid_input", label + " needs x and y, or a locator", { field: label });
    return { x: spec.x, y: spec.y };
  }
  var resolved = resolveOne(locator, true);
  var el = resolved.element;
  if (!inViewport(clickableCenter(el))) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  var c = clickableCenter(el);
  return { x: c.x, y: c.y, matched_by: resolved.matched_by };
}

function dragEvent(type, x, y, data) {
  try {
    return new DragEvent(type, { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: data });
  } catch (_ignored) {
    return new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y });
  }
}

function pointerDrag(args) {
  var steps = args.steps === undefined ? 10 : args.steps;
  if (typeof steps !== "number" || steps % 1 !== 0 || steps < 1 || steps > 40) fail("invalid_input", "steps must be an integer from 1 to 40", { field: "steps" });
  // Resolve the target first, then the source: the press must happen where the source is now.
  var to = endpointPoint(args.to, "to");
  var from = endpointPoint(args.from, "from");
  var vp = viewport();
  [["from", from], ["to", to]].forEach(function (pair) {
    if (!inViewport(pair[1])) fail("point_out_of_viewport", pair[0] + " (" + pair[1].x + ", " + pair[1].y + ") is outside the " + vp.width + "x" + vp.height + " viewport", { endpoint: pair[0], x: pair[1].x, y: pair[1].y, viewport: vp });
  });
  var source = elementFromPointDeep(from.x, from.y);
  if (!source) fail("drag_failed", "no element at the drag's start point", { from: from });
  var draggable = closestDeep(source, "[draggable=true]");
  var data = draggable && typeof DataTransfer === "function" ? new DataTransfer() : null;
  firePointer(source, "pointerdown", mouseInit(from.x, from.y, 0, 1, 1));
  fireMouse(source, "mousedown", mouseInit(from.x, from.y, 0, 1, 1));
  var html5 = false;
  if (draggable) {
    html5 = draggable.dispatchEvent(dragEvent("dragstart", from.x, from.y, data));
    if (!html5) fail("drag_failed", "the page cancelled dragstart", { source: describe(draggable) });
  }
  var over = null;
  for (var i = 1; i <= steps; i++) {
    var x = round(from.x + ((to.x - from.x) * i) / steps);
    var y = round(from.y + ((to.y - from.y) * i) / steps);
    var hit = elementFromPointDeep(x, y) || document.body;
    firePointer(hit, "pointermove", mouseInit(x, y, 0, 1, 0));
    fireMouse(hit, "mousemove", mouseInit(x, y, 0, 1, 0));
    if (html5) {
      if (hit !== over) hit.dispatchEvent(dragEvent("dragenter", x, y, data));
      over = hit;
      hit.dispatchEvent(dragEvent("dragover", x, y, data));
    }
  }
  var target = elementFromPointDeep(to.x, to.y) || document.body;
  var dropped = null;
  if (html5) {
    dropped = !target.dispatchEvent(dragEvent("drop", to.x, to.y, data)); // a handled drop is cancelled
    draggable.dispatchEvent(dragEvent("dragend", to.x, to.y, data));
  }
  firePointer(target, "pointerup", mouseInit(to.x, to.y, 0, 0, 1));
  fireMouse(target, "mouseup", mouseInit(to.x, to.y, 0, 0, 1));
  var diagnostics = { from: from, to: to, source: describe(source), target: describe(target), html5: !!draggable, fidelity: "synthetic" };
  if (dropped !== null) diagnostics.drop_handled = dropped;
  return { dragged: true, steps: steps, diagnostics: diagnostics };
}

definePrimitive("pointer.drag", pointerDrag, ["from", "to"]);
