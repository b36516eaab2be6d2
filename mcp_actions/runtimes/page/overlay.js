/*
 * overlay.js — The agent's overlay: overlay.open, overlay.close, overlay.register_launcher.
 *
 * The one overlay's state, its launchers and the primitives; overlay_render.js checks a
 * rendering's arguments and builds, focuses and removes the panel in its CLOSED shadow root,
 * and nothing here touches a node of it. The same rules hold here as there (docs/overlays.md):
 * the arguments are read by own property only, and what travels between the two modules goes
 * through the engine's private namespace M, never anything a page can reach.
 *
 * One overlay at a time (a new open replaces it). A user's close dispatches
 * `actions-json:overlay-closed` {overlay_id} on the document. It never stands in the way of
 * our own primitives on the page below: locators and hit tests skip its host (dom.js
 * hideFromEngine), and a host that clicks with real input (the Playwright tab) makes it
 * transparent to the pointer for the click (passThrough).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  launcherSet = M.launcherSet,
  placementOf = M.placementOf,
  renderArgs = M.overlayRenderArgs,
  refuseIfPried = M.refuseOverlayIfPried,
  buildOverlay = M.buildOverlay,
  focusOverlay = M.focusOverlay,
  removeOverlay = M.removeOverlay,
  pointerThrough = M.overlayPointerThrough,
  hex = M.overlayHex,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray,
  bare = I.bare;

var CLOSED_EVENT = "actions-json:overlay-closed";
var OPENED_EVENT = "actions-json:overlay-launcher-opened";
// Captured as this module loads, in the same synchronous run as overlay_render.js's own.
var random = Math.random,
  floor = Math.floor;

// -- the one overlay -------------------------------------------------------------

var current = null; // {id, host, panel, closeButton}
var counter = 0;
var overlayListeners = [];

function newId() {
  counter += 1;
  return "overlay-" + counter + "-" + hex(floor(random() * 0x100000), 5);
}

function notifyOverlay() {
  var open = current !== null;
  for (var i = 0; i < overlayListeners.length; i++) {
    try {
      overlayListeners[i](open);
    } catch (_ignored) { /* a failing listener must not break the overlay */ }
  }
}

/** fn(open) after every open and close (the Playwright host makes trusted clicks pass through while open). */
function onOverlayChange(fn) {
  if (typeof fn === "function") overlayListeners[overlayListeners.length] = fn;
}

function render(spec, byUser) {
  refuseIfPried();
  closeOverlay();
  var id = newId();
  var shown = buildOverlay(spec, function () { closeByUser(id); });
  current = { id: id, host: shown.host, panel: shown.panel, closeButton: shown.closeButton };
  if (byUser) focusOverlay(current); // opened from a launcher: keyboard users land in it
  notifyOverlay();
  return id;
}

function closeOverlay() {
  if (!current) return false;
  var shown = current;
  current = null;
  removeOverlay(shown);
  notifyOverlay();
  return true;
}

function closeByUser(id) {
  if (!current || current.id !== id) return;
  closeOverlay();
  document.dispatchEvent(new CustomEvent(CLOSED_EVENT, { detail: { overlay_id: id }, bubbles: true }));
}

/**
 * While on, the open overlay lets the pointer through to the page below: a host
 * clicking with real input (page.mouse) turns it on around its own click. Returns
 * whether an overlay is open.
 */
function passThrough(on) {
  if (!current) return false;
  pointerThrough(current, on);
  return true;
}

// -- launchers (overlay.register_launcher, overlay.open's launchers) ----------------

var launchers = launcherSet(null);
var launcherSpecs = I.create(null); // launcher id -> spec (all registrations so far)
var launcherCounter = 0;

function launcherOpened(launcherId) {
  document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
}

var TARGET_KEYS = ["selector", "selectors", "text_contains", "text_equals", "url_contains", "url_matches"];

function launcherTarget(item) {
  var target = {};
  for (var i = 0; i < TARGET_KEYS.length; i++) {
    var value = own(item, TARGET_KEYS[i]);
    if (value !== undefined) target[TARGET_KEYS[i]] = value;
  }
  if (target.selector === undefined && target.selectors === undefined) fail("launcher_failed", "a launcher needs a selector or selectors", { field: "launchers" });
  try {
    M.resolveAll(target); // a malformed selector or pattern fails here, not silently later
  } catch (err) {
    if (!(err instanceof M.EngineError) || err.code !== "target_not_found") fail("launcher_failed", "a launcher's target is not valid: " + err.message, { field: "launchers", cause: err.code });
  }
  return target;
}

/** One launcher item as a launchers.js spec; its click renders `rendering` (which never leaves this closure). */
function launcherSpec(item, rendering, overlayId) {
  if (!isObject(item)) fail("invalid_input", "each launcher must be an object", { field: "launchers" });
  var max = own(item, "max_instances");
  if (max === undefined) max = 3;
  if (typeof max !== "number" || max < 1 || max > 10 || floor(max) !== max) fail("invalid_input", "max_instances must be an integer from 1 to 10", { field: "max_instances" });
  launcherCounter += 1;
  var id = own(item, "id"),
    label = own(item, "label"),
    title = own(item, "title");
  return {
    id: typeof id === "string" && id ? id : overlayId + "-launcher-" + launcherCounter,
    target: launcherTarget(item),
    placement: placementOf(own(item, "placement"), "invalid_input"),
    max: max,
    label: typeof label === "string" && label ? label : rendering.title || "Open overlay",
    title: typeof title === "string" ? title : "",
    attrs: {},
    onClick: function (launcherId) {
      render(rendering, true);
      launcherOpened(launcherId);
    },
  };
}

function registerLaunchers(items, rendering, overlayId) {
  if (!isArray(items) || !items.length) fail("invalid_input", "launchers must be a non-empty array", { field: "launchers" });
  var specs = [], i;
  for (i = 0; i < items.length; i++) specs[i] = launcherSpec(own(items, i), rendering, overlayId);
  for (i = 0; i < specs.length; i++) launcherSpecs[specs[i].id] = specs[i]; // a stable id replaces its older buttons
  var all = [], ids = I.keys(launcherSpecs);
  for (i = 0; i < ids.length; i++) all[i] = launcherSpecs[ids[i]];
  launchers.replace(all);
  var states = I.create(null), now = launchers.states();
  for (i = 0; i < now.length; i++) states[now[i].id] = now[i].state;
  var out = [];
  for (i = 0; i < specs.length; i++) out[i] = { id: specs[i].id, state: states[specs[i].id] || "waiting" };
  return out;
}

function overlayOpen(args) {
  var rendering = renderArgs(args, "render_failed");
  var id;
  try {
    id = render(rendering, false);
  } catch (err) {
    if (err instanceof M.EngineError) throw err;
    fail("render_failed", "the overlay could not be rendered: " + String((err && err.message) || err), {});
  }
  var out = { ok: true, overlay_id: id };
  var items = own(args, "launchers");
  if (items !== undefined) out.launchers = registerLaunchers(items, rendering, id);
  return out;
}

function overlayClose() {
  try {
    closeOverlay();
  } catch (err) {
    fail("close_failed", "the overlay could not be closed: " + String((err && err.message) || err), {});
  }
  return { ok: true };
}

function overlayRegisterLauncher(args) {
  var rendering = renderArgs(args, "launcher_failed");
  var items = own(args, "launchers");
  if (items === undefined) fail("invalid_input", "overlay.register_launcher needs a launchers", { field: "launchers" });
  var overlayId = newId();
  return { ok: true, overlay_id: overlayId, launchers: registerLaunchers(items, rendering, overlayId) };
}

// The registry entries are locked: a page that got hold of the registry object (any code that
// hands it to a replaced built-in) cannot put its own function where the agent's HTML arrives.
// No `required` names: the dispatcher would read them off the arguments, where a missing one
// reaches Object.prototype; the primitives check their own.
var NONE_REQUIRED = I.freeze([]);
function defineLocked(name, fn) {
  definePrimitive(name, fn, NONE_REQUIRED);
  I.freeze(M.PRIMITIVES[name]);
  I.defineProperty(M.PRIMITIVES, name, bare({ writable: false, configurable: false }));
}

defineLocked("overlay.open", overlayOpen);
defineLocked("overlay.close", overlayClose);
defineLocked("overlay.register_launcher", overlayRegisterLauncher);

/** Open the overlay as a user's launcher click does (validated like overlay.open; focus moves into it). */
function renderOverlayFromArgs(args) {
  return render(renderArgs(isObject(args) ? args : {}, "render_failed"), true);
}

M.renderOverlayFromArgs = renderOverlayFromArgs;
M.onOverlayChange = onOverlayChange;
M.overlayPassThrough = passThrough;
M.renderOverlay = render;
M.OVERLAY_OPENED_EVENT = OPENED_EVENT;
