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
 * the engine installs and called uncurried (intrinsics.js): page scripts find
 * neither the iframe nor its HTML (document.body.innerHTML,
 * querySelectorAll('iframe'), frames[0].document all come up empty or throw),
 * even if they replace Function.prototype.call/apply/bind, Reflect.apply, DOM
 * methods, getters and setters, Event getters or Object.prototype members
 * later. So nothing here calls a method through `.call`, reads a property that
 * may be missing (a getter the page put on Object.prototype would run), uses
 * JSON.stringify (toJSON) or a RegExp, iterates an array the DOM converts, or
 * reads an event through Event.prototype while our listener runs (composedPath()
 * would then list the closed root). What holds on which host: docs/overlays.md.
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
  hideFromEngine = M.hideFromEngine,
  launcherSet = M.launcherSet,
  placementOf = M.placementOf,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray,
  bare = I.bare;

var WIDTH = { min: 420, max: 1400, fallback: 640 };
var HEIGHT = { min: 320, max: 1000, fallback: 480 };
var MARGIN = 16;
var MAX_HTML_CHARS = 2000000;
var MAX_DATA_DEPTH = 100;
var HOST_TAG = "actions-json-overlay";
var HTML_NS = "http://www.w3.org/1999/xhtml";
var CLOSED_EVENT = "actions-json:overlay-closed";
var OPENED_EVENT = "actions-json:overlay-launcher-opened";
// What the overlay's document may load: styles and images, never scripts, frames or form posts.
var OVERLAY_CSP = "default-src 'none'; style-src 'unsafe-inline' data: https: http:; img-src data: blob: https: http:; font-src data: https: http:; media-src data: https: http:; form-action 'none'; base-uri 'none'";

// -- built-ins captured at install, called uncurried (intrinsics.js) ---------------
// Handing an element of the closed root to page code (a replaced method, getter or setter,
// or Function.prototype.call itself) hands it the root through getRootNode().
function proto(name) {
  var ctor = root[name];
  return typeof ctor === "function" ? ctor.prototype : null;
}
var ElementP = proto("Element"),
  NodeP = proto("Node"),
  HTMLElementP = proto("HTMLElement"),
  DocumentP = proto("Document"),
  EventP = proto("Event"),
  MouseEventP = proto("MouseEvent"),
  PointerEventP = proto("PointerEvent"),
  KeyboardEventP = proto("KeyboardEvent"),
  RectP = proto("DOMRectReadOnly");

var DOM = {
  attachShadow: I.nativeMethod(ElementP, "attachShadow", "Element.prototype.attachShadow"),
  // createElementNS and append, not createElement and appendChild: tag managers and consent
  // tools replace the latter two for their own reasons; the overlay needs the browser's own.
  createElementNS: I.nativeMethod(DocumentP, "createElementNS", "Document.prototype.createElementNS"),
  append: I.nativeMethod(ElementP, "append", "Element.prototype.append"),
  appendToFragment: I.nativeMethod(proto("DocumentFragment"), "append", "DocumentFragment.prototype.append"),
  remove: I.nativeMethod(ElementP, "remove", "Element.prototype.remove"),
  setAttribute: I.nativeMethod(ElementP, "setAttribute", "Element.prototype.setAttribute"),
  listen: I.nativeMethod(proto("EventTarget"), "addEventListener", "EventTarget.prototype.addEventListener"),
  focus: I.nativeMethod(HTMLElementP, "focus", "HTMLElement.prototype.focus"),
  setText: I.nativeSetter(NodeP, "textContent", "set Node.prototype.textContent"),
  setSrcdoc: I.nativeSetter(proto("HTMLIFrameElement"), "srcdoc", "set HTMLIFrameElement.prototype.srcdoc"),
  isConnected: I.nativeGetter(NodeP, "isConnected", "get Node.prototype.isConnected"),
  documentElement: I.nativeGetter(DocumentP, "documentElement", "get Document.prototype.documentElement"),
  // CSSOM, not style attributes or <style>: a page's CSP without 'unsafe-inline' refuses those.
  style: I.nativeGetter(HTMLElementP, "style", "get HTMLElement.prototype.style"),
  setProperty: I.nativeMethod(proto("CSSStyleDeclaration"), "setProperty", "CSSStyleDeclaration.prototype.setProperty"),
  adoptedStyleSheets: I.nativeSetter(proto("ShadowRoot"), "adoptedStyleSheets", "set ShadowRoot.prototype.adoptedStyleSheets"),
  replaceSync: I.nativeMethod(proto("CSSStyleSheet"), "replaceSync", "CSSStyleSheet.prototype.replaceSync"),
  rect: I.nativeMethod(ElementP, "getBoundingClientRect", "Element.prototype.getBoundingClientRect"),
  rectLeft: I.nativeGetter(RectP, "left"),
  rectTop: I.nativeGetter(RectP, "top"),
  setPointerCapture: I.nativeMethod(ElementP, "setPointerCapture", "Element.prototype.setPointerCapture"),
  definedElement: I.nativeMethod(proto("CustomElementRegistry"), "get", "CustomElementRegistry.prototype.get"),
  innerWidth: I.nativeGetter(root, "innerWidth"),
  innerHeight: I.nativeGetter(root, "innerHeight"),
};
// What our listeners read of an event: through Event.prototype, a page's getter would run
// while the event is at our node, where composedPath() still lists the closed root.
var EV = {
  target: I.nativeGetter(EventP, "target", "get Event.prototype.target"),
  button: I.nativeGetter(MouseEventP, "button", "get MouseEvent.prototype.button"),
  clientX: I.nativeGetter(MouseEventP, "clientX", "get MouseEvent.prototype.clientX"),
  clientY: I.nativeGetter(MouseEventP, "clientY", "get MouseEvent.prototype.clientY"),
  pointerId: I.nativeGetter(PointerEventP, "pointerId", "get PointerEvent.prototype.pointerId"),
  key: I.nativeGetter(KeyboardEventP, "key", "get KeyboardEvent.prototype.key"),
};
var CSSSheet = typeof root.CSSStyleSheet === "function" ? root.CSSStyleSheet : null;
var registry = root.customElements || null;
var theDocument = document;
var random = Math.random,
  floor = Math.floor;

// No library has a harmless reason to replace these: when one does not print as native code,
// the engine loaded after a page that is prying (the page runtime, a late injection), and an
// overlay there would be the page's to read. Other replacements (Angular's zone.js wraps
// addEventListener) cannot be told from a careful attack, and are documented, not refused.
var PRYING = ["Function.prototype.call", "Function.prototype.apply", "Function.prototype.bind", "Function.prototype.toString", "Reflect.apply"];
var PRIED = I.patchedBuiltins(PRYING);

function styleOf(node) {
  return DOM.style(node);
}

function setStyle(node, name, value, priority) {
  DOM.setProperty(styleOf(node), name, value, priority || "");
}

function viewportNow() {
  if (DOM.innerWidth && DOM.innerHeight) return { width: DOM.innerWidth(root) || 0, height: DOM.innerHeight(root) || 0 };
  return M.viewport();
}

/** The panel's stylesheet in the closed root: adopted when the browser can (CSP-proof), else a <style>. */
function adoptStyles(shadow, css) {
  if (DOM.adoptedStyleSheets && CSSSheet && DOM.replaceSync) {
    try {
      var sheet = new CSSSheet();
      DOM.replaceSync(sheet, css);
      // An array of our own making: the page's Array iterator never sees the sheet.
      DOM.adoptedStyleSheets(shadow, I.iterable([sheet]));
      return;
    } catch (_ignored) { /* an older browser: fall back to <style> */ }
  }
  DOM.appendToFragment(shadow, el("style", [], css));
}

/** A new element with attributes [[name, value], ...] and optional text. */
function el(tag, attrs, text) {
  var node = DOM.createElementNS(theDocument, HTML_NS, tag);
  for (var i = 0; i < attrs.length; i++) DOM.setAttribute(node, attrs[i][0], attrs[i][1]);
  if (text !== undefined) DOM.setText(node, text);
  return node;
}

function on(node, type, fn) {
  DOM.listen(node, type, fn);
}

var PANEL_CSS = [
  ".panel { position: fixed; box-sizing: border-box; display: flex; flex-direction: column; background: #fff; color: #1c2333;",
  "  border: 1px solid #8792b0; border-radius: 10px; box-shadow: 0 12px 40px rgba(15, 23, 42, 0.35); overflow: hidden;",
  "  font: 13px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; pointer-events: auto; }",
  ".bar { display: flex; align-items: center; gap: 8px; padding: 6px 8px 6px 12px; background: #eef1f8; border-bottom: 1px solid #d3d8e6;",
  "  cursor: move; user-select: none; touch-action: none; }",
  ".title { flex: 1; min-width: 0; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }",
  ".title::before { content: attr(data-title); }",
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
var HEX = "0123456789abcdef";

function hex(n, digits) {
  var out = "";
  for (var i = 0; i < digits; i++) {
    out = HEX[n % 16] + out;
    n = floor(n / 16);
  }
  return out;
}

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

function clampSize(value, range, room) {
  var v = value === undefined ? range.fallback : value;
  v = Math.min(Math.max(v, range.min), range.max);
  return Math.max(200, Math.min(v, room - 2 * MARGIN));
}

// -- data_json as inert JSON text ---------------------------------------------------
// Written here rather than with JSON.stringify, which asks every object for a toJSON the
// page may have put on Object.prototype (and would hand it the data).

function jsonString(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var c = I.charCodeAt(text, i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    // Control characters, and what could end the <script> element or a line: escaped.
    else if (c < 32 || c === 60 || c === 62 || c === 38 || c === 0x2028 || c === 0x2029) out += "\\u" + hex(c, 4);
    else out += text[i];
  }
  return out + '"';
}

function jsonText(value, depth) {
  if (depth > MAX_DATA_DEPTH) fail("invalid_json", "data_json is nested deeper than " + MAX_DATA_DEPTH + " levels (or refers to itself)", { field: "data_json" });
  if (value === null) return "null";
  var type = typeof value;
  if (type === "boolean") return value ? "true" : "false";
  if (type === "number") return isFinite(value) ? "" + value : "null";
  if (type === "string") return jsonString(value);
  if (type !== "object") fail("invalid_json", "data_json is not JSON", { field: "data_json", type: type });
  var out, i;
  if (isArray(value)) {
    out = "[";
    for (i = 0; i < value.length; i++) {
      var item = own(value, i);
      var itemType = typeof item;
      out += (i ? "," : "") + (item === undefined || itemType === "function" || itemType === "symbol" ? "null" : jsonText(item, depth + 1));
    }
    return out + "]";
  }
  var keys = I.keys(value);
  var first = true;
  out = "{";
  for (i = 0; i < keys.length; i++) {
    var v = own(value, keys[i]);
    var vType = typeof v;
    if (v === undefined || vType === "function" || vType === "symbol") continue;
    out += (first ? "" : ",") + jsonString(keys[i]) + ":" + jsonText(v, depth + 1);
    first = false;
  }
  return out + "}";
}

function documentFor(html, dataText) {
  var head = '<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + OVERLAY_CSP + '">';
  if (dataText !== undefined) head += '<script type="application/json" data-actions-json-overlay-data>' + dataText + "</script>";
  // Prepended tags land in the implicit <head>; the agent's own <!doctype>/<html>/<head> merge into it.
  return head + html;
}

function optionalNumber(args, f) {
  var value = own(args, f);
  if (value !== undefined && (typeof value !== "number" || !isFinite(value))) fail("invalid_input", f + " must be a number", { field: f });
  return value;
}

/**
 * The checked rendering arguments of overlay.open / overlay.register_launcher. Only own
 * properties are read: a missing one never reaches a getter on Object.prototype.
 */
function renderArgs(args, code) {
  var html = own(args, "html"),
    template = own(args, "template"),
    title = own(args, "title"),
    dataJson = own(args, "data_json");
  if (template !== undefined && html !== undefined) fail("invalid_input", "give html or template, not both", { field: "template" });
  if (template !== undefined) fail("asset_not_found", "the template storage reference was not resolved before it reached the page", { field: "template", template: isObject(template) ? template : null });
  if (own(args, "data") !== undefined && dataJson === undefined) fail("asset_not_found", "the data storage reference was not resolved before it reached the page", { field: "data" });
  if (typeof html !== "string") fail("invalid_input", "html must be a string", { field: "html" });
  if (html.length > MAX_HTML_CHARS) fail(code, "html is larger than " + MAX_HTML_CHARS + " characters", { field: "html", length: html.length });
  if (title !== undefined && typeof title !== "string") fail("invalid_input", "title must be a string", { field: "title" });
  var width = optionalNumber(args, "width"),
    height = optionalNumber(args, "height");
  return { html: html, dataText: dataJson === undefined ? undefined : jsonText(dataJson, 0), title: title === undefined ? "" : title, width: width, height: height };
}

function dragBy(bar, title, panel) {
  var start = null;
  on(bar, "pointerdown", function (ev) {
    var target = EV.target(ev);
    if (EV.button(ev) !== 0 || (target !== bar && target !== title)) return;
    var r = DOM.rect(panel);
    start = { x: EV.clientX(ev), y: EV.clientY(ev), left: DOM.rectLeft(r), top: DOM.rectTop(r) };
    if (DOM.setPointerCapture) DOM.setPointerCapture(bar, EV.pointerId(ev));
  });
  on(bar, "pointermove", function (ev) {
    if (!start) return;
    var vp = viewportNow();
    var left = Math.min(Math.max(start.left + EV.clientX(ev) - start.x, 0), Math.max(0, vp.width - 80));
    var top = Math.min(Math.max(start.top + EV.clientY(ev) - start.y, 0), Math.max(0, vp.height - 40));
    setStyle(panel, "left", left + "px");
    setStyle(panel, "top", top + "px");
  });
  on(bar, "pointerup", function () { start = null; });
  on(bar, "pointercancel", function () { start = null; });
}

/**
 * A host tag no custom element is defined for, so the host stays an "undefined" element: a
 * page's own definition of our tag would run its constructor on the host, and an
 * ElementInternals it took there would hand it the closed root (internals.shadowRoot).
 */
function hostTag() {
  if (!registry || !DOM.definedElement || DOM.definedElement(registry, HOST_TAG) === undefined) return HOST_TAG;
  for (;;) {
    var tag = HOST_TAG + "-" + hex(floor(random() * 0x1000000), 6);
    if (DOM.definedElement(registry, tag) === undefined) return tag;
  }
}

function render(spec, byUser) {
  if (PRIED.length) {
    fail("render_failed", "this page replaced built-ins the overlay relies on before the engine loaded; its content would be the page's to read", { reason: "page_patched_builtins", builtins: PRIED });
  }
  closeOverlay();
  var id = newId();
  var vp = viewportNow();
  var width = clampSize(spec.width, WIDTH, vp.width);
  var height = clampSize(spec.height, HEIGHT, vp.height);

  var host = el(hostTag(), []);
  // The host itself takes no room and no clicks; only the panel inside does.
  setStyle(host, "all", "initial", "important");
  setStyle(host, "position", "fixed", "important");
  setStyle(host, "inset", "0", "important");
  setStyle(host, "z-index", "2147483647", "important");
  setStyle(host, "pointer-events", "none", "important");
  setStyle(host, "display", "block", "important");
  hideFromEngine(host);
  // Every member spelt out on an object with no prototype: a member read from Object.prototype
  // (serializable, clonable) would let getHTML() or cloneNode() copy the root out.
  var shadow = DOM.attachShadow(host, bare({ mode: "closed", delegatesFocus: false, clonable: false, serializable: false, slotAssignment: "named" }));

  var label = spec.title || "Overlay";
  var panel = el("div", [["class", "panel"], ["role", "dialog"], ["aria-label", label]]);
  setStyle(panel, "width", width + "px");
  setStyle(panel, "height", height + "px");
  // Top right, below the usual sticky header height, and inside the viewport.
  setStyle(panel, "left", Math.max(MARGIN, vp.width - width - MARGIN) + "px");
  setStyle(panel, "top", Math.max(MARGIN, Math.min(64, vp.height - height - MARGIN)) + "px");
  var bar = el("div", [["class", "bar"]]);
  // The title is generated content from an attribute, not a text node: window.find() and the
  // selection search the text of closed roots too, and would confirm a guess at it.
  var title = el("span", [["class", "title"], ["data-title", spec.title || ""]]);
  var closeButton = el("button", [["type", "button"], ["class", "close"], ["aria-label", "Close overlay"], ["title", "Close overlay"]], "\u00d7");
  var frame = el("iframe", [["sandbox", ""], ["referrerpolicy", "no-referrer"], ["title", label]]);
  DOM.setSrcdoc(frame, documentFor(spec.html, spec.dataText));

  adoptStyles(shadow, PANEL_CSS);
  DOM.append(bar, title);
  DOM.append(bar, closeButton);
  DOM.append(panel, bar);
  DOM.append(panel, frame);
  DOM.appendToFragment(shadow, panel);
  on(closeButton, "click", function () { closeByUser(id); });
  on(panel, "keydown", function (ev) { if (EV.key(ev) === "Escape") closeByUser(id); });
  dragBy(bar, title, panel);

  DOM.append(DOM.documentElement(theDocument), host);
  current = { id: id, host: host, panel: panel, closeButton: closeButton };
  if (byUser) DOM.focus(closeButton); // opened from a launcher: keyboard users land in it
  notifyOverlay();
  return id;
}

function closeOverlay() {
  if (!current) return false;
  var host = current.host;
  current = null;
  DOM.remove(host);
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
  setStyle(current.panel, "pointer-events", on ? "none" : "");
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
