/*
 * overlay_render.js — The overlay's panel in the page: its arguments checked, its HTML and
 * data_json made into an inert document, and the panel built into a CLOSED shadow root.
 *
 * overlay.js keeps the one-overlay state and the primitives and calls in here (through M only)
 * to check a rendering's arguments, build and mount its panel, focus it, let the pointer
 * through it and remove it. The panel shows HTML the agent wrote (already resolved by the
 * server: a `template`/`data` storage reference arrives as `html` plus an optional `data_json`
 * value; an unresolved reference fails asset_not_found) in an <iframe sandbox=""> — no
 * allow-scripts, no allow-same-origin: scripts in it never run, and its document has an
 * opaque origin the page cannot read — filled through srcdoc. The iframe lives in a CLOSED
 * shadow root on a host element appended to <html> (not <body>), built with DOM methods
 * captured when the engine installs and called uncurried (intrinsics.js): page scripts find
 * neither the iframe nor its HTML (document.body.innerHTML, querySelectorAll('iframe'),
 * frames[0].document all come up empty or throw), even if they replace
 * Function.prototype.call/apply/bind, Reflect.apply, DOM methods, getters and setters, Event
 * getters or Object.prototype members later. So nothing here calls a method through `.call`,
 * reads a property that may be missing (a getter the page put on Object.prototype would run),
 * uses JSON.stringify (toJSON) or a RegExp, iterates an array the DOM converts, or reads an
 * event through Event.prototype while our listener runs (composedPath() would then list the
 * closed root). What holds on which host: docs/overlays.md.
 *
 * The panel floats above the page (fixed, top z-index) with a title bar (drag handle) and a
 * real close button; locators and hit tests skip its host (dom.js hideFromEngine).
 */
var fail = M.fail,
  isObject = M.isObject,
  hideFromEngine = M.hideFromEngine,
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

var HEX = "0123456789abcdef";

function hex(n, digits) {
  var out = "";
  for (var i = 0; i < digits; i++) {
    out = HEX[n % 16] + out;
    n = floor(n / 16);
  }
  return out;
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

/**
 * The panel of `spec` (renderArgs) in a new host, mounted on <html>: {host, panel, closeButton}.
 * onUserClose() runs when the user closes it (its close button, Escape in the panel).
 */
function buildOverlay(spec, onUserClose) {
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
  on(closeButton, "click", function () { onUserClose(); });
  on(panel, "keydown", function (ev) { if (EV.key(ev) === "Escape") onUserClose(); });
  dragBy(bar, title, panel);

  DOM.append(DOM.documentElement(theDocument), host);
  return { host: host, panel: panel, closeButton: closeButton };
}

/** Refused before anything renders: the page replaced built-ins before the engine loaded. */
function refuseIfPried() {
  if (PRIED.length) {
    fail("render_failed", "this page replaced built-ins the overlay relies on before the engine loaded; its content would be the page's to read", { reason: "page_patched_builtins", builtins: PRIED });
  }
}

/** Moves focus to the close button (opened from a launcher: keyboard users land in it). */
function focusOverlay(shown) {
  DOM.focus(shown.closeButton);
}

function removeOverlay(shown) {
  DOM.remove(shown.host);
}

/** While on, the panel lets the pointer through to the page below (overlay.js passThrough). */
function pointerThrough(shown, through) {
  setStyle(shown.panel, "pointer-events", through ? "none" : "");
}

M.overlayRenderArgs = renderArgs;
M.refuseOverlayIfPried = refuseIfPried;
M.buildOverlay = buildOverlay;
M.focusOverlay = focusOverlay;
M.removeOverlay = removeOverlay;
M.overlayPointerThrough = pointerThrough;
M.overlayHex = hex;
