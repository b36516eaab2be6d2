/*
 * overlay.js — The agent's overlay: overlay.open, overlay.close, overlay.register_launcher.
 *
 * The overlay shows HTML the agent wrote (already resolved by the server: a
 * `template`/`data` storage reference arrives as `html` plus an optional
 * `data_json` value; an unresolved reference fails asset_not_found) in an
 * <iframe sandbox=""> — no allow-scripts, no allow-same-origin: scripts in it
 * never run, and its document has an opaque origin the page cannot read —
 * filled through srcdoc. The iframe lives in a CLOSED shadow root on a host
 * element appended to <html> (not <body>), built with DOM methods captured when
 * the engine installs: page scripts find neither the iframe nor its HTML
 * (document.body.innerHTML, querySelectorAll('iframe'), frames[0].document all
 * come up empty or throw), even if they patch prototypes later.
 *
 * One overlay at a time (a new open replaces it). It floats above the page
 * (fixed, top z-index) with a title bar (drag handle) and a real close button.
 * A user's close dispatches `actions-json:overlay-closed` {overlay_id} on the
 * document. It never stands in the way of our own primitives on the page below:
 * locators and hit tests skip its host (dom.js hideFromEngine), and a host that
 * clicks with real input (the Playwright tab) makes it transparent to the
 * pointer for the click (passThrough).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  viewport = M.viewport,
  hideFromEngine = M.hideFromEngine,
  launcherSet = M.launcherSet,
  placementOf = M.placementOf;

var WIDTH = { min: 420, max: 1400, fallback: 640 };
var HEIGHT = { min: 320, max: 1000, fallback: 480 };
var MARGIN = 16;
var MAX_HTML_CHARS = 2000000;
var CLOSED_EVENT = "actions-json:overlay-closed";
var OPENED_EVENT = "actions-json:overlay-launcher-opened";
// What the overlay's document may load: styles and images, never scripts, frames or form posts.
var OVERLAY_CSP = "default-src 'none'; style-src 'unsafe-inline' data: https: http:; img-src data: blob: https: http:; font-src data: https: http:; media-src data: https: http:; form-action 'none'; base-uri 'none'";

// -- DOM methods captured at install, before page scripts can patch them --------
// Calling a patched method on an element inside the closed root would hand the page
// that element (and, through getRootNode, the root itself).
function capture(proto, name) {
  return proto && typeof proto[name] === "function" ? proto[name] : null;
}
function setterOf(proto, name) {
  var d = proto && Object.getOwnPropertyDescriptor(proto, name);
  return d && d.set ? d.set : null;
}
function getterOf(proto, name) {
  var d = proto && Object.getOwnPropertyDescriptor(proto, name);
  return d && d.get ? d.get : null;
}
var NATIVE = {
  attachShadow: capture(root.Element && Element.prototype, "attachShadow"),
  createElement: capture(root.Document && Document.prototype, "createElement"),
  appendChild: capture(root.Node && Node.prototype, "appendChild"),
  removeChild: capture(root.Node && Node.prototype, "removeChild"),
  setAttribute: capture(root.Element && Element.prototype, "setAttribute"),
  addEventListener: capture(root.EventTarget && EventTarget.prototype, "addEventListener"),
  focus: capture(root.HTMLElement && HTMLElement.prototype, "focus"),
  textContent: setterOf(root.Node && Node.prototype, "textContent"),
  srcdoc: setterOf(root.HTMLIFrameElement && HTMLIFrameElement.prototype, "srcdoc"),
  // CSSOM, not style attributes or <style>: a page's CSP without 'unsafe-inline' refuses those.
  style: getterOf(root.HTMLElement && HTMLElement.prototype, "style"),
  adoptedStyleSheets: setterOf(root.ShadowRoot && ShadowRoot.prototype, "adoptedStyleSheets"),
  getBoundingClientRect: capture(root.Element && Element.prototype, "getBoundingClientRect"),
  setPointerCapture: capture(root.Element && Element.prototype, "setPointerCapture"),
};

function styleOf(node) {
  return NATIVE.style.call(node);
}

/** The panel's stylesheet in the closed root: adopted when the browser can (CSP-proof), else a <style>. */
function adoptStyles(shadow, css) {
  if (NATIVE.adoptedStyleSheets && typeof root.CSSStyleSheet === "function") {
    try {
      var sheet = new root.CSSStyleSheet();
      sheet.replaceSync(css);
      NATIVE.adoptedStyleSheets.call(shadow, [sheet]);
      return;
    } catch (_ignored) { /* an older browser: fall back to <style> */ }
  }
  NATIVE.appendChild.call(shadow, el("style", {}, css));
}

function el(tag, attrs, text) {
  var node = NATIVE.createElement.call(document, tag);
  Object.keys(attrs || {}).forEach(function (k) { NATIVE.setAttribute.call(node, k, attrs[k]); });
  if (text !== undefined) NATIVE.textContent.call(node, text);
  return node;
}

function on(node, type, fn) {
  NATIVE.addEventListener.call(node, type, fn);
}

var PANEL_CSS = [
  ".panel { position: fixed; box-sizing: border-box; display: flex; flex-direction: column; background: #fff; color: #1c2333;",
  "  border: 1px solid #8792b0; border-radius: 10px; box-shadow: 0 12px 40px rgba(15, 23, 42, 0.35); overflow: hidden;",
  "  font: 13px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; pointer-events: auto; }",
  ".bar { display: flex; align-items: center; gap: 8px; padding: 6px 8px 6px 12px; background: #eef1f8; border-bottom: 1px solid #d3d8e6;",
  "  cursor: move; user-select: none; touch-action: none; }",
  ".title { flex: 1; min-width: 0; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }",
  ".close { font: inherit; font-size: 18px; line-height: 1; width: 28px; height: 28px; border: 0; border-radius: 6px; background: transparent;",
  "  color: inherit; cursor: pointer; }",
  ".close:hover { background: #dde2ef; }",
  ".close:focus-visible { outline: 2px solid #3456d1; outline-offset: 1px; }",
  "iframe { flex: 1; width: 100%; border: 0; background: #fff; }",
].join("\n");

// -- the one overlay -------------------------------------------------------------

var current = null; // {id, host, panel, closeButton}
var counter = 0;
var overlayListeners = [];

function newId() {
  counter += 1;
  return "overlay-" + counter + "-" + Math.floor(Math.random() * 0x100000).toString(16);
}

function notifyOverlay() {
  var open = current !== null;
  overlayListeners.forEach(function (fn) {
    try {
      fn(open);
    } catch (_ignored) { /* a failing listener must not break the overlay */ }
  });
}

/** fn(open) after every open and close (the Playwright host makes trusted clicks pass through while open). */
function onOverlayChange(fn) {
  if (typeof fn === "function") overlayListeners.push(fn);
}

function clampSize(value, range, room) {
  var v = value === undefined ? range.fallback : value;
  v = Math.min(Math.max(v, range.min), range.max);
  return Math.max(200, Math.min(v, room - 2 * MARGIN));
}

function safeJson(value) {
  // Inside <script type=application/json>: nothing in it may close the element.
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function documentFor(html, data) {
  var head = '<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + OVERLAY_CSP + '">';
  if (data !== undefined) head += '<script type="application/json" data-actions-json-overlay-data>' + safeJson(data) + "</script>";
  // Prepended tags land in the implicit <head>; the agent's own <!doctype>/<html>/<head> merge into it.
  return head + html;
}

/** The checked rendering arguments of overlay.open / overlay.register_launcher. */
function renderArgs(args, code) {
  if (args.template !== undefined && args.html !== undefined) fail("invalid_input", "give html or template, not both", { field: "template" });
  if (args.template !== undefined) fail("asset_not_found", "the template storage reference was not resolved before it reached the page", { field: "template", template: isObject(args.template) ? args.template : null });
  if (args.data !== undefined && args.data_json === undefined) fail("asset_not_found", "the data storage reference was not resolved before it reached the page", { field: "data" });
  if (typeof args.html !== "string") fail("invalid_input", "html must be a string", { field: "html" });
  if (args.html.length > MAX_HTML_CHARS) fail(code, "html is larger than " + MAX_HTML_CHARS + " characters", { field: "html", length: args.html.length });
  if (args.title !== undefined && typeof args.title !== "string") fail("invalid_input", "title must be a string", { field: "title" });
  ["width", "height"].forEach(function (f) {
    if (args[f] !== undefined && (typeof args[f] !== "number" || !isFinite(args[f]))) fail("invalid_input", f + " must be a number", { field: f });
  });
  var data;
  if (args.data_json !== undefined) {
    try {
      data = JSON.parse(JSON.stringify(args.data_json));
    } catch (_err) {
      fail("invalid_json", "data_json is not JSON", { field: "data_json" });
    }
  }
  return { html: args.html, data: data, title: args.title === undefined ? "" : args.title, width: args.width, height: args.height };
}

function dragBy(bar, title, panel) {
  var start = null;
  on(bar, "pointerdown", function (ev) {
    if (ev.button !== 0 || (ev.target !== bar && ev.target !== title)) return;
    var r = NATIVE.getBoundingClientRect.call(panel);
    start = { x: ev.clientX, y: ev.clientY, left: r.left, top: r.top };
    if (NATIVE.setPointerCapture) NATIVE.setPointerCapture.call(bar, ev.pointerId);
  });
  on(bar, "pointermove", function (ev) {
    if (!start) return;
    var vp = viewport();
    var left = Math.min(Math.max(start.left + ev.clientX - start.x, 0), Math.max(0, vp.width - 80));
    var top = Math.min(Math.max(start.top + ev.clientY - start.y, 0), Math.max(0, vp.height - 40));
    styleOf(panel).left = left + "px";
    styleOf(panel).top = top + "px";
  });
  on(bar, "pointerup", function () { start = null; });
  on(bar, "pointercancel", function () { start = null; });
}

function render(spec, byUser) {
  closeOverlay();
  var id = newId();
  var vp = viewport();
  var width = clampSize(spec.width, WIDTH, vp.width);
  var height = clampSize(spec.height, HEIGHT, vp.height);

  var host = el("actions-json-overlay");
  // The host itself takes no room and no clicks; only the panel inside does.
  host.style.setProperty("all", "initial", "important");
  host.style.setProperty("position", "fixed", "important");
  host.style.setProperty("inset", "0", "important");
  host.style.setProperty("z-index", "2147483647", "important");
  host.style.setProperty("pointer-events", "none", "important");
  host.style.setProperty("display", "block", "important");
  hideFromEngine(host);
  var shadow = NATIVE.attachShadow.call(host, { mode: "closed" });

  var panel = el("div", { class: "panel", role: "dialog", "aria-label": spec.title || "Overlay" });
  var ps = styleOf(panel);
  ps.width = width + "px";
  ps.height = height + "px";
  // Top right, below the usual sticky header height, and inside the viewport.
  ps.left = Math.max(MARGIN, vp.width - width - MARGIN) + "px";
  ps.top = Math.max(MARGIN, Math.min(64, vp.height - height - MARGIN)) + "px";
  var bar = el("div", { class: "bar" });
  var title = el("span", { class: "title" }, spec.title || "");
  var closeButton = el("button", { type: "button", class: "close", "aria-label": "Close overlay", title: "Close overlay" }, "\u00d7");
  var frame = el("iframe", { sandbox: "", referrerpolicy: "no-referrer", title: spec.title || "Overlay" });
  NATIVE.srcdoc.call(frame, documentFor(spec.html, spec.data));

  adoptStyles(shadow, PANEL_CSS);
  NATIVE.appendChild.call(bar, title);
  NATIVE.appendChild.call(bar, closeButton);
  NATIVE.appendChild.call(panel, bar);
  NATIVE.appendChild.call(panel, frame);
  NATIVE.appendChild.call(shadow, panel);
  on(closeButton, "click", function () { closeByUser(id); });
  on(panel, "keydown", function (ev) { if (ev.key === "Escape") closeByUser(id); });
  dragBy(bar, title, panel);

  NATIVE.appendChild.call(document.documentElement, host);
  current = { id: id, host: host, panel: panel, closeButton: closeButton };
  if (byUser) NATIVE.focus.call(closeButton); // opened from a launcher: keyboard users land in it
  notifyOverlay();
  return id;
}

function closeOverlay() {
  if (!current) return false;
  var host = current.host;
  current = null;
  if (host.parentNode) NATIVE.removeChild.call(host.parentNode, host);
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
  styleOf(current.panel).pointerEvents = on ? "none" : "";
  return true;
}

// -- launchers (overlay.register_launcher, overlay.open's launchers) ----------------

var launchers = launcherSet(null);
var launcherSpecs = {}; // launcher id -> spec (all registrations so far)
var launcherCounter = 0;

function launcherOpened(launcherId) {
  document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
}

function launcherTarget(item) {
  var target = {};
  ["selector", "selectors", "text_contains", "text_equals", "url_contains", "url_matches"].forEach(function (k) {
    if (item[k] !== undefined) target[k] = item[k];
  });
  if (target.selector === undefined && target.selectors === undefined) fail("launcher_failed", "a launcher needs a selector or selectors", { field: "launchers" });
  try {
    M.resolveAll(target); // a malformed selector or pattern fails here, not silently later
  } catch (err) {
    if (!(err instanceof M.EngineError) || err.code !== "target_not_found") fail("launcher_failed", "a launcher's target is not valid: " + err.message, { field: "launchers", cause: err.code });
  }
  return target;
}

function registerLaunchers(items, rendering, overlayId) {
  if (!Array.isArray(items) || !items.length) fail("invalid_input", "launchers must be a non-empty array", { field: "launchers" });
  var specs = items.map(function (item) {
    if (!isObject(item)) fail("invalid_input", "each launcher must be an object", { field: "launchers" });
    var max = item.max_instances === undefined ? 3 : item.max_instances;
    if (typeof max !== "number" || max < 1 || max > 10 || Math.floor(max) !== max) fail("invalid_input", "max_instances must be an integer from 1 to 10", { field: "max_instances" });
    launcherCounter += 1;
    var id = typeof item.id === "string" && item.id ? item.id : overlayId + "-launcher-" + launcherCounter;
    return {
      id: id,
      target: launcherTarget(item),
      placement: placementOf(item.placement, "invalid_input"),
      max: max,
      label: typeof item.label === "string" && item.label ? item.label : rendering.title || "Open overlay",
      title: typeof item.title === "string" ? item.title : "",
      attrs: {},
      onClick: function (launcherId) {
        render(rendering, true);
        launcherOpened(launcherId);
      },
    };
  });
  specs.forEach(function (spec) { launcherSpecs[spec.id] = spec; }); // a stable id replaces its older buttons
  launchers.replace(Object.keys(launcherSpecs).map(function (k) { return launcherSpecs[k]; }));
  var states = {};
  launchers.states().forEach(function (s) { states[s.id] = s.state; });
  return specs.map(function (spec) { return { id: spec.id, state: states[spec.id] || "waiting" }; });
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
  if (args.launchers !== undefined) out.launchers = registerLaunchers(args.launchers, rendering, id);
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
  var overlayId = newId();
  return { ok: true, overlay_id: overlayId, launchers: registerLaunchers(args.launchers, rendering, overlayId) };
}

definePrimitive("overlay.open", overlayOpen);
definePrimitive("overlay.close", overlayClose);
definePrimitive("overlay.register_launcher", overlayRegisterLauncher, ["launchers"]);

/** Open the overlay as a user's launcher click does (validated like overlay.open; focus moves into it). */
function renderOverlayFromArgs(args) {
  return render(renderArgs(isObject(args) ? args : {}, "render_failed"), true);
}

M.renderOverlayFromArgs = renderOverlayFromArgs;
M.onOverlayChange = onOverlayChange;
M.overlayPassThrough = passThrough;
M.renderOverlay = render;
M.OVERLAY_OPENED_EVENT = OPENED_EVENT;
