/*
 * mcp-actions page runtime.
 *
 * One file, no build step, no dependencies. Loading it twice does nothing the
 * second time. Two layers:
 *
 *   ENGINE  window.__mcpActions (non-enumerable, frozen): the portable
 *           primitives of the mcp-actions dictionary, locator resolution and
 *           handler calls. Used by this file's client and by the Playwright
 *           browser host, which injects the engine alone.
 *   CLIENT  a WebSocket runtime of the Actions Bridge Protocol. It connects to
 *           the bridge named by this script's own src (…/runtime.js?token=T)
 *           or by window.__MCP_ACTIONS_BRIDGE__ = {url, token}, announces the
 *           page, executes action_call items and forwards declared DOM events.
 *           Skipped when window.__MCP_ACTIONS_ENGINE_ONLY__ === true or when no
 *           bridge URL is known.
 *
 * Every engine entry point answers with an envelope and never rejects:
 *   {ok: true, output} | {ok: false, error: {code, message, evidence?}}
 * Handlers are dotted property paths resolved on window; source text is never
 * evaluated.
 */
(function () {
  "use strict";

  var VERSION = "0.1.0";
  var root = typeof window !== "undefined" ? window : null;
  if (!root || !root.document) return;

  // ---------------------------------------------------------------------------
  // ENGINE
  // ---------------------------------------------------------------------------

  var engine = root.__mcpActions;
  if (!engine) {
    engine = createEngine();
    try {
      Object.defineProperty(root, "__mcpActions", {
        value: engine,
        enumerable: false,
        configurable: false,
        writable: false,
      });
    } catch (_ignored) {
      // Another copy won the race between the check and the define: use it.
      engine = root.__mcpActions;
    }
  }

  // A page global of the same name that is not this engine: stay out of its way.
  if (!engine || typeof engine.run !== "function" || typeof engine._attachClient !== "function") return;

  if (root.__MCP_ACTIONS_ENGINE_ONLY__ !== true && !root.__mcpActionsClientStarted) {
    var config = discoverBridge();
    if (config) {
      try {
        Object.defineProperty(root, "__mcpActionsClientStarted", { value: true, enumerable: false });
      } catch (_ignored) {
        return;
      }
      startClient(engine, config);
    }
  }

  function createEngine() {
    var TEXT_CAP = 500;
    var DESCRIBE_TEXT_CAP = 80;
    var CANDIDATE_CAP = 5;
    var SAFE_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
    // An array, not an object literal: {__proto__: true} would not create a key.
    var FORBIDDEN_SEGMENTS = ["__proto__", "prototype", "constructor"];

    // Every primitive name of the dictionary. Those this engine does not
    // implement need a host a page cannot be (tabs, screenshots, storage,
    // clipboard reads…): they fail with capability_unavailable, not unknown_action.
    var DICTIONARY_NAMES = [
      "browser.screenshot", "browser.claimed_tabs.list", "browser.claimed_tabs.activate",
      "browser.navigate", "browser.open_tab", "browser.close_tab", "browser.dismiss_dialog",
      "pointer.move", "pointer.click", "pointer.double_click", "pointer.drag", "viewport.scroll",
      "storage.read_file", "text.insert", "keyboard.press", "transfer.insert", "transfer.clear",
      "transfer.read", "transfer.write", "clipboard.write", "clipboard.read",
      "runtime.session.name", "runtime.session.finalize_tabs", "page.info", "dom.observe.visible",
      "dom.snapshot_text", "dom.list_sections", "locator.element_info", "locator.text_content",
      "locator.wait_for", "overlay.open", "overlay.register_launcher", "overlay.close",
    ];
    var PRIVILEGED_PREFIXES = ["browser.", "tabs.", "screenshot", "clipboard.", "storage.", "transfer.", "runtime.session."];

    // -- errors ---------------------------------------------------------------

    function EngineError(code, message, evidence) {
      this.code = code;
      this.message = message;
      this.evidence = evidence;
    }

    function fail(code, message, evidence) {
      throw new EngineError(code, message, evidence);
    }

    function toEnvelopeError(err) {
      if (err instanceof EngineError) {
        var error = { code: err.code, message: err.message };
        if (err.evidence !== undefined) error.evidence = err.evidence;
        return error;
      }
      return {
        code: "handler_failed",
        message: String((err && err.message) || err || "unexpected failure"),
        evidence: { name: err && err.name ? String(err.name) : "Error" },
      };
    }

    function guard(fn) {
      return Promise.resolve()
        .then(fn)
        .then(
          function (output) { return { ok: true, output: output }; },
          function (err) { return { ok: false, error: toEnvelopeError(err) }; }
        );
    }

    // -- small helpers --------------------------------------------------------

    function isObject(value) {
      return value !== null && typeof value === "object" && !Array.isArray(value);
    }

    function normalize(text) {
      return String(text == null ? "" : text).replace(/\s+/g, " ").trim();
    }

    function cap(text, limit) {
      return text.length > limit ? text.slice(0, limit) : text;
    }

    function round(n) {
      return Math.round(n * 100) / 100;
    }

    function jsonClone(value) {
      return JSON.parse(JSON.stringify(value));
    }

    function tagOf(el) {
      return String(el.tagName || "").toLowerCase();
    }

    function viewport() {
      var de = document.documentElement;
      return {
        width: root.innerWidth || (de && de.clientWidth) || 0,
        height: root.innerHeight || (de && de.clientHeight) || 0,
      };
    }

    function requireString(args, key, optional) {
      var value = args[key];
      if (value === undefined && optional) return undefined;
      if (typeof value !== "string") fail("invalid_input", key + " must be a string", { field: key });
      return value;
    }

    function requireNumber(args, key) {
      var value = args[key];
      if (typeof value !== "number" || !isFinite(value)) fail("invalid_input", key + " must be a finite number", { field: key });
      return value;
    }

    // -- geometry and visibility ---------------------------------------------

    function box(el) {
      var r = el.getBoundingClientRect();
      return { x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) };
    }

    function isVisible(el) {
      if (!el || !el.isConnected) return false;
      if (typeof el.checkVisibility === "function") {
        if (!el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) return false;
      } else {
        var style = root.getComputedStyle(el);
        if (!style || style.visibility !== "visible" || style.display === "none") return false;
      }
      var r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    }

    function clickableCenter(el) {
      // The centre of the part of the element inside the viewport, so a
      // partially scrolled element is still clicked where a user would.
      var r = el.getBoundingClientRect();
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

    function isEnabled(el) {
      try {
        if (el.matches(":disabled")) return false;
      } catch (_ignored) { /* not a form element */ }
      return el.getAttribute("aria-disabled") !== "true";
    }

    // -- text, roles and accessible names ------------------------------------

    function elementText(el) {
      if (el instanceof HTMLInputElement) {
        var type = (el.type || "").toLowerCase();
        if (type === "submit" || type === "reset" || type === "button") return normalize(el.value || (type === "reset" ? "Reset" : type === "submit" ? "Submit" : ""));
        if (type === "image") return normalize(el.alt);
        return "";
      }
      var text = typeof el.innerText === "string" ? el.innerText : el.textContent;
      return normalize(text);
    }

    var INPUT_ROLES = {
      button: "button", submit: "button", reset: "button", image: "button",
      checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
      search: "searchbox", email: "textbox", tel: "textbox", text: "textbox",
      url: "textbox", password: "textbox", "": "textbox",
    };
    var TAG_ROLES = {
      button: "button", textarea: "textbox", nav: "navigation", main: "main",
      aside: "complementary", ul: "list", ol: "list", li: "listitem", table: "table",
      tr: "row", td: "cell", th: "columnheader", dialog: "dialog", option: "option",
      progress: "progressbar", article: "article", hr: "separator", output: "status",
      h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
      fieldset: "group", details: "group", summary: "button", menu: "list", meter: "meter",
    };
    // Roles whose accessible name comes from their content.
    var NAME_FROM_CONTENT = {
      button: true, link: true, heading: true, cell: true, columnheader: true, rowheader: true,
      option: true, tab: true, menuitem: true, menuitemcheckbox: true, menuitemradio: true,
      checkbox: true, radio: true, switch: true, treeitem: true, listitem: true, tooltip: true,
      row: true, status: true,
    };

    function roleOf(el) {
      var explicit = normalize(el.getAttribute && el.getAttribute("role")).split(" ")[0];
      if (explicit) return explicit.toLowerCase();
      var tag = tagOf(el);
      if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : null;
      if (tag === "input") {
        var type = (el.getAttribute("type") || "").toLowerCase();
        if (type === "hidden") return null;
        if (el.hasAttribute("list") && (type === "" || type === "text" || type === "search" || type === "email" || type === "tel" || type === "url")) return "combobox";
        return Object.prototype.hasOwnProperty.call(INPUT_ROLES, type) ? INPUT_ROLES[type] : "textbox";
      }
      if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
      if (tag === "img") return el.getAttribute("alt") === "" ? "presentation" : "img";
      if (tag === "form") return accessibleName(el, "form") ? "form" : null;
      if (tag === "section") return accessibleName(el, "region") ? "region" : null;
      if (tag === "header" || tag === "footer") {
        if (el.closest("article, aside, main, nav, section")) return null;
        return tag === "header" ? "banner" : "contentinfo";
      }
      if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
      return Object.prototype.hasOwnProperty.call(TAG_ROLES, tag) ? TAG_ROLES[tag] : null;
    }

    function textWithoutControls(node) {
      // The text of a <label>, without the value/options of the control it wraps.
      var parts = [];
      (function walk(n) {
        for (var child = n.firstChild; child; child = child.nextSibling) {
          if (child.nodeType === 3) parts.push(child.nodeValue);
          else if (child.nodeType === 1) {
            var t = tagOf(child);
            if (t === "input" || t === "select" || t === "textarea" || t === "script" || t === "style") continue;
            walk(child);
          }
        }
      })(node);
      return normalize(parts.join(" "));
    }

    function accessibleName(el, knownRole) {
      var ids = normalize(el.getAttribute("aria-labelledby"));
      if (ids) {
        var byIds = ids.split(" ").map(function (id) {
          var ref = document.getElementById(id);
          return ref ? normalize(ref.textContent) : "";
        }).filter(Boolean).join(" ");
        if (byIds) return byIds;
      }
      var aria = normalize(el.getAttribute("aria-label"));
      if (aria) return aria;
      var tag = tagOf(el);
      if (tag === "input" || tag === "select" || tag === "textarea" || tag === "meter" || tag === "progress" || tag === "output") {
        var type = (el.getAttribute("type") || "").toLowerCase();
        if (tag === "input" && (type === "submit" || type === "reset" || type === "button" || type === "image")) {
          var own = elementText(el);
          if (own) return own;
        }
        var labels = el.labels ? Array.prototype.slice.call(el.labels) : [];
        var fromLabels = labels.map(textWithoutControls).filter(Boolean).join(" ");
        if (fromLabels) return fromLabels;
      }
      if (tag === "img" || tag === "area") {
        var alt = normalize(el.getAttribute("alt"));
        if (alt) return alt;
      }
      if (tag === "fieldset") {
        var legend = el.querySelector(":scope > legend");
        if (legend && normalize(legend.textContent)) return normalize(legend.textContent);
      }
      if (tag === "table") {
        var caption = el.querySelector(":scope > caption");
        if (caption && normalize(caption.textContent)) return normalize(caption.textContent);
      }
      var role = knownRole === undefined ? roleOf(el) : knownRole;
      if (role && NAME_FROM_CONTENT[role]) {
        var text = elementText(el);
        if (text) return text;
      }
      var title = normalize(el.getAttribute("title"));
      if (title) return title;
      var placeholder = normalize(el.getAttribute("placeholder"));
      if (placeholder) return placeholder;
      return "";
    }

    function describe(el) {
      var out = { tag: tagOf(el), text: cap(elementText(el), DESCRIBE_TEXT_CAP), bounding_box: box(el) };
      if (el.id) out.id = el.id;
      return out;
    }

    // -- locators -------------------------------------------------------------

    function asLocator(locator) {
      if (typeof locator === "string") return { selector: locator };
      if (!isObject(locator)) fail("invalid_locator", "a locator must be an object (or a CSS selector string)", { locator: locator === undefined ? null : locator });
      return locator;
    }

    function locatorEvidence(locator) {
      try {
        return jsonClone(locator);
      } catch (_ignored) {
        return String(locator);
      }
    }

    function querySelectorAllChecked(selector, label, scope) {
      if (typeof selector !== "string" || !selector.trim()) fail("invalid_locator", label + " must be a non-empty CSS selector", { matched_by: label });
      try {
        return Array.prototype.slice.call((scope || document).querySelectorAll(selector));
      } catch (err) {
        fail("invalid_locator", label + " is not a valid CSS selector: " + selector, { matched_by: label, selector: selector });
      }
    }

    function xpathAll(expression) {
      if (typeof expression !== "string" || !expression.trim()) fail("invalid_locator", "xpath must be a non-empty string", { matched_by: "xpath" });
      var result;
      try {
        result = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      } catch (err) {
        fail("invalid_locator", "xpath is not a valid expression: " + expression, { matched_by: "xpath", xpath: expression });
      }
      var out = [];
      for (var i = 0; i < result.snapshotLength; i++) {
        var node = result.snapshotItem(i);
        if (node && node.nodeType === 1) out.push(node);
      }
      return out;
    }

    function nameMatches(elements, wanted) {
      // An exact (case- and space-insensitive) name wins over a partial one, so
      // "Submit" does not become ambiguous with "Submit later".
      var target = normalize(wanted).toLowerCase();
      var names = elements.map(function (el) { return accessibleName(el).toLowerCase(); });
      var exact = elements.filter(function (_el, i) { return names[i] === target; });
      if (exact.length) return exact;
      return elements.filter(function (_el, i) { return names[i].indexOf(target) >= 0; });
    }

    function byRole(locator) {
      var wanted = String(locator.role).toLowerCase();
      var all = Array.prototype.slice.call(document.querySelectorAll("*"));
      var matches = all.filter(function (el) { return roleOf(el) === wanted; });
      if (locator.name !== undefined && locator.name !== null && locator.name !== "") matches = nameMatches(matches, String(locator.name));
      return matches;
    }

    function candidatesOf(locator) {
      var out = [];
      if (locator.selector !== undefined && locator.selector !== null) out.push({ label: "selector", css: locator.selector });
      if (locator.selectors !== undefined) {
        if (!Array.isArray(locator.selectors)) fail("invalid_locator", "selectors must be an array of CSS selectors", { field: "selectors" });
        locator.selectors.forEach(function (s, i) { out.push({ label: "selectors[" + i + "]", css: s }); });
      }
      if (locator.xpath !== undefined && locator.xpath !== null) out.push({ label: "xpath", xpath: locator.xpath });
      if (locator.fallback_selectors !== undefined) {
        if (!Array.isArray(locator.fallback_selectors)) fail("invalid_locator", "fallback_selectors must be an array of CSS selectors", { field: "fallback_selectors" });
        locator.fallback_selectors.forEach(function (s, i) { out.push({ label: "fallback_selectors[" + i + "]", css: s }); });
      }
      if (typeof locator.role === "string" && locator.role) out.push({ label: "role", role: true });
      return out;
    }

    function applyFilters(locator, elements) {
      var out = elements;
      if (typeof locator.text_equals === "string") {
        var eq = normalize(locator.text_equals);
        out = out.filter(function (el) { return elementText(el) === eq; });
      }
      if (typeof locator.text_contains === "string") {
        var sub = normalize(locator.text_contains);
        out = out.filter(function (el) { return elementText(el).indexOf(sub) >= 0; });
      }
      if (locator.closest !== undefined && locator.closest !== null) {
        if (typeof locator.closest !== "string" || !locator.closest.trim()) fail("invalid_locator", "closest must be a CSS selector", { field: "closest" });
        var retargeted = [];
        for (var i = 0; i < out.length; i++) {
          var ancestor;
          try {
            ancestor = out[i].closest(locator.closest);
          } catch (err) {
            fail("invalid_locator", "closest is not a valid CSS selector: " + locator.closest, { field: "closest", selector: locator.closest });
          }
          if (ancestor && retargeted.indexOf(ancestor) < 0) retargeted.push(ancestor);
        }
        out = retargeted;
      }
      return out;
    }

    /**
     * All elements the locator designates, from the first candidate that
     * yields any: {matches, matched_by, tried}. Fails target_not_found.
     */
    function resolveAll(rawLocator) {
      var locator = asLocator(rawLocator);
      var candidates = candidatesOf(locator);
      if (!candidates.length) fail("invalid_locator", "the locator names no selector, selectors, xpath, fallback_selectors or role", { locator: locatorEvidence(locator) });
      var tried = [];
      for (var i = 0; i < candidates.length; i++) {
        var c = candidates[i];
        var found = c.role ? byRole(locator) : c.xpath !== undefined ? xpathAll(c.xpath) : querySelectorAllChecked(c.css, c.label);
        var matches = applyFilters(locator, found);
        var entry = { matched_by: c.label, count: matches.length };
        if (c.css !== undefined) entry.selector = c.css;
        if (c.xpath !== undefined) entry.xpath = c.xpath;
        if (c.role) { entry.role = locator.role; if (locator.name != null) entry.name = locator.name; }
        tried.push(entry);
        if (matches.length) return { locator: locator, matches: matches, matched_by: c.label, tried: tried };
      }
      fail("target_not_found", "no element matches the locator", { locator: locatorEvidence(locator), tried: tried });
    }

    /**
     * Exactly one element, never an arbitrary pick: one visible match wins;
     * several visible ones are narrowed by the locator's role+name when given,
     * else multiple_targets. Hidden-only matches fail target_not_visible when
     * requireVisible, else a single hidden match is returned.
     */
    function resolveOne(rawLocator, requireVisible) {
      var res = resolveAll(rawLocator);
      var visible = res.matches.filter(isVisible);
      var element = null;
      if (visible.length > 1 && res.matched_by !== "role" && typeof res.locator.role === "string" && res.locator.role) {
        var wanted = res.locator.role.toLowerCase();
        var narrowed = visible.filter(function (el) { return roleOf(el) === wanted; });
        if (res.locator.name != null && res.locator.name !== "") narrowed = nameMatches(narrowed, String(res.locator.name));
        if (narrowed.length === 1) element = narrowed[0];
      }
      if (!element && visible.length > 1) {
        fail("multiple_targets", visible.length + " visible elements match the locator; make it more specific", {
          count: visible.length,
          matched_by: res.matched_by,
          locator: locatorEvidence(res.locator),
          candidates: visible.slice(0, CANDIDATE_CAP).map(describe),
        });
      }
      if (!element && visible.length === 1) element = visible[0];
      if (!element) {
        if (requireVisible) {
          fail("target_not_visible", "the locator matches " + res.matches.length + " element(s) but none is visible", {
            count: res.matches.length,
            matched_by: res.matched_by,
            locator: locatorEvidence(res.locator),
            candidates: res.matches.slice(0, CANDIDATE_CAP).map(describe),
          });
        }
        if (res.matches.length > 1) {
          fail("multiple_targets", res.matches.length + " hidden elements match the locator and none is visible", {
            count: res.matches.length,
            matched_by: res.matched_by,
            locator: locatorEvidence(res.locator),
            candidates: res.matches.slice(0, CANDIDATE_CAP).map(describe),
          });
        }
        element = res.matches[0];
      }
      return { element: element, matched_by: res.matched_by, match_count: res.matches.length, tried: res.tried };
    }

    // -- editing helpers ------------------------------------------------------

    var TEXT_INPUT_TYPES = { "": true, text: true, search: true, email: true, tel: true, url: true, password: true, number: true };

    function editableOf(el) {
      if (!el) return null;
      if (el instanceof HTMLLabelElement && el.control) el = el.control;
      if (el instanceof HTMLTextAreaElement) return el.disabled || el.readOnly ? null : el;
      if (el instanceof HTMLInputElement) {
        var type = (el.getAttribute("type") || "").toLowerCase();
        if (!TEXT_INPUT_TYPES[type] || el.disabled || el.readOnly) return null;
        return el;
      }
      if (el.isContentEditable) return el;
      return null;
    }

    function supportsSelection(el) {
      try {
        return typeof el.selectionStart === "number";
      } catch (_ignored) {
        return false;
      }
    }

    function focusedElement() {
      var el = document.activeElement;
      // Descend into open shadow roots, where custom editors keep their focus.
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      return el;
    }

    function editableTarget(target) {
      var el;
      if (target !== undefined && target !== null) {
        var resolved = resolveOne(target, true);
        el = editableOf(resolved.element);
        if (!el) fail("target_not_editable", "the target is not an editable text field", { target: describe(resolved.element), matched_by: resolved.matched_by });
        return { element: el, matched_by: resolved.matched_by };
      }
      var focused = focusedElement();
      el = editableOf(focused);
      if (!el) fail("target_not_editable", "no target given and the focused element is not editable", { focused: focused && focused !== document.body ? describe(focused) : null });
      return { element: el, matched_by: "focused" };
    }

    function placeCaret(el, mode) {
      // Prepare the selection so that typed/inserted text replaces everything
      // (mode replace) or lands at the end (mode append).
      if (el.isContentEditable && !(el instanceof HTMLInputElement) && !(el instanceof HTMLTextAreaElement)) {
        var range = document.createRange();
        range.selectNodeContents(el);
        if (mode !== "replace") range.collapse(false);
        var sel = root.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        return true;
      }
      if (mode === "replace") {
        el.select();
        return true;
      }
      if (supportsSelection(el)) {
        var end = el.value.length;
        el.setSelectionRange(end, end);
        return true;
      }
      return false;
    }

    function nativeValueSetter(el) {
      var proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
      return descriptor && descriptor.set;
    }

    function setFieldValue(el, value, insertedText) {
      // The prototype's setter bypasses frameworks' instance-level value
      // trackers (React), so their onChange sees the input event.
      var setter = nativeValueSetter(el);
      if (setter) setter.call(el, value);
      else el.value = value;
      var inputEvent;
      try {
        inputEvent = new InputEvent("input", { bubbles: true, cancelable: false, composed: true, inputType: "insertText", data: insertedText });
      } catch (_ignored) {
        inputEvent = new Event("input", { bubbles: true });
      }
      el.dispatchEvent(inputEvent);
      el.dispatchEvent(new Event("change", { bubbles: true }));
    }

    // -- keyboard -------------------------------------------------------------

    var NAMED_KEYS = {
      enter: ["Enter", "Enter", 13], tab: ["Tab", "Tab", 9], escape: ["Escape", "Escape", 27],
      backspace: ["Backspace", "Backspace", 8], delete: ["Delete", "Delete", 46], space: [" ", "Space", 32],
      arrowup: ["ArrowUp", "ArrowUp", 38], arrowdown: ["ArrowDown", "ArrowDown", 40],
      arrowleft: ["ArrowLeft", "ArrowLeft", 37], arrowright: ["ArrowRight", "ArrowRight", 39],
      home: ["Home", "Home", 36], end: ["End", "End", 35], pageup: ["PageUp", "PageUp", 33],
      pagedown: ["PageDown", "PageDown", 34], insert: ["Insert", "Insert", 45],
      capslock: ["CapsLock", "CapsLock", 20], contextmenu: ["ContextMenu", "ContextMenu", 93],
      shift: ["Shift", "ShiftLeft", 16], control: ["Control", "ControlLeft", 17],
      alt: ["Alt", "AltLeft", 18], meta: ["Meta", "MetaLeft", 91],
    };
    var KEY_ALIASES = {
      esc: "escape", return: "enter", up: "arrowup", down: "arrowdown", left: "arrowleft",
      right: "arrowright", del: "delete", spacebar: "space", ctrl: "control", cmd: "meta",
      command: "meta", option: "alt",
    };
    var MODIFIER_ALIASES = { alt: "Alt", option: "Alt", control: "Control", ctrl: "Control", meta: "Meta", cmd: "Meta", command: "Meta", shift: "Shift" };
    for (var f = 1; f <= 12; f++) NAMED_KEYS["f" + f] = ["F" + f, "F" + f, 111 + f];

    function parseChord(keyArg, extraModifiers) {
      if (typeof keyArg !== "string" || !keyArg) fail("invalid_key", "key must be a non-empty string", { key: keyArg === undefined ? null : keyArg });
      var parts;
      if (keyArg === "+") parts = ["+"];
      else if (/\+\+$/.test(keyArg)) parts = keyArg.slice(0, -2).split("+").concat(["+"]);
      else parts = keyArg.split("+");
      var keyName = parts.pop();
      var modifiers = [];
      function addModifier(m) {
        var canonical = MODIFIER_ALIASES[String(m).toLowerCase()];
        if (!canonical) fail("invalid_key", "unknown modifier: " + m, { key: keyArg, modifier: m });
        if (modifiers.indexOf(canonical) < 0) modifiers.push(canonical);
      }
      parts.forEach(addModifier);
      if (extraModifiers !== undefined) {
        if (!Array.isArray(extraModifiers)) fail("invalid_input", "modifiers must be an array", { field: "modifiers" });
        extraModifiers.forEach(addModifier);
      }
      var lower = keyName.toLowerCase();
      lower = KEY_ALIASES[lower] || lower;
      var spec;
      if (keyName === " ") spec = NAMED_KEYS.space;
      else if (NAMED_KEYS[lower]) spec = NAMED_KEYS[lower];
      else if (Array.from(keyName).length === 1) {
        var ch = keyName;
        var upper = ch.toUpperCase();
        var code = /^[a-z]$/i.test(ch) ? "Key" + upper : /^[0-9]$/.test(ch) ? "Digit" + ch : "";
        var keyCode = /^[a-z0-9]$/i.test(ch) ? upper.charCodeAt(0) : 0;
        if (modifiers.indexOf("Shift") >= 0 && /^[a-z]$/.test(ch)) ch = upper;
        spec = [ch, code, keyCode];
      } else {
        fail("invalid_key", "unknown key: " + keyName, { key: keyArg });
      }
      return { key: spec[0], code: spec[1], keyCode: spec[2], modifiers: modifiers };
    }

    function keyEvent(type, chord) {
      var mods = chord.modifiers;
      var init = {
        key: chord.key, code: chord.code, bubbles: true, cancelable: true, composed: true,
        ctrlKey: mods.indexOf("Control") >= 0, shiftKey: mods.indexOf("Shift") >= 0,
        altKey: mods.indexOf("Alt") >= 0, metaKey: mods.indexOf("Meta") >= 0,
      };
      var ev = new KeyboardEvent(type, init);
      // keyCode/which are read-only on KeyboardEvent yet still read by older code.
      var code = type === "keypress" ? (chord.key.length === 1 ? chord.key.charCodeAt(0) : chord.keyCode) : chord.keyCode;
      try {
        Object.defineProperty(ev, "keyCode", { get: function () { return code; } });
        Object.defineProperty(ev, "which", { get: function () { return code; } });
      } catch (_ignored) { /* keep the defaults */ }
      return ev;
    }

    function defaultButtonOf(form) {
      var elements = form.elements;
      for (var i = 0; i < elements.length; i++) {
        var el = elements[i];
        var type = (el.getAttribute("type") || (tagOf(el) === "button" ? "submit" : "")).toLowerCase();
        if ((tagOf(el) === "button" || tagOf(el) === "input") && (type === "submit" || type === "image")) return el;
      }
      return null;
    }

    function emulateKeyDefault(target, chord) {
      // Synthetic key events have no default action; emulate the few that
      // flows rely on, only when no listener cancelled the keydown.
      var plain = chord.modifiers.every(function (m) { return m === "Shift"; });
      if (!plain || !target) return null;
      var tag = tagOf(target);
      if (chord.key === "Enter") {
        if (target instanceof HTMLInputElement && target.form && TEXT_INPUT_TYPES[(target.getAttribute("type") || "").toLowerCase()]) {
          // HTML implicit submission: click the default button, else submit.
          var button = defaultButtonOf(target.form);
          if (button) {
            if (!button.disabled) button.click();
            return "implicit_submission";
          }
          if (typeof target.form.requestSubmit === "function") target.form.requestSubmit();
          else target.form.submit();
          return "implicit_submission";
        }
        if (tag === "button" || (tag === "a" && target.hasAttribute("href")) || (target instanceof HTMLInputElement && /^(submit|button|reset|image)$/.test(target.type))) {
          target.click();
          return "click";
        }
      }
      if (chord.key === " " && (tag === "button" || (target instanceof HTMLInputElement && /^(checkbox|radio|submit|button|reset)$/.test(target.type)))) {
        target.click();
        return "click";
      }
      return null;
    }

    // -- pointer --------------------------------------------------------------

    var BUTTONS = { left: [0, 1], middle: [1, 4], right: [2, 2] };

    function pointTarget(args) {
      var x = requireNumber(args, "x");
      var y = requireNumber(args, "y");
      var vp = viewport();
      if (!inViewport({ x: x, y: y })) fail("point_out_of_viewport", "(" + x + ", " + y + ") is outside the " + vp.width + "x" + vp.height + " viewport", { x: x, y: y, viewport: vp });
      var el = document.elementFromPoint(x, y);
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

    function firePointer(el, type, init) {
      var Ctor = typeof PointerEvent === "function" ? PointerEvent : MouseEvent;
      return el.dispatchEvent(new Ctor(type, init));
    }

    function fireMouse(el, type, init) {
      return el.dispatchEvent(new MouseEvent(type, init));
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

    // -- primitives -----------------------------------------------------------

    function elementInfo(args) {
      var resolved = resolveOne(args.locator, false);
      var el = resolved.element;
      var visible = isVisible(el);
      if (visible) {
        // Bring an off-screen target into view so clickable_center is a point
        // pointer.click can use, as a user would scroll to it first.
        var c = clickableCenter(el);
        if (!inViewport(c) && typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      }
      var center = clickableCenter(el);
      var info = {
        bounding_box: box(el),
        clickable_center: center,
        visible: visible,
        in_viewport: visible && inViewport(center),
        enabled: isEnabled(el),
        editable: editableOf(el) !== null,
        tag: tagOf(el),
        text: cap(elementText(el), TEXT_CAP),
        matched_by: resolved.matched_by,
        match_count: resolved.match_count,
      };
      var role = roleOf(el);
      if (role) info.role = role;
      var name = accessibleName(el, role);
      if (name) info.name = cap(name, TEXT_CAP);
      if (visible && info.in_viewport) {
        var hit = document.elementFromPoint(center.x, center.y);
        info.occluded = !(hit && (hit === el || el.contains(hit)));
      }
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
        info.value = cap(String(el.value), TEXT_CAP);
        if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) info.checked = el.checked;
      }
      return info;
    }

    function textContent(args) {
      var resolved = resolveOne(args.locator, false);
      var el = resolved.element;
      var raw = isVisible(el) && typeof el.innerText === "string" ? el.innerText : el.textContent;
      var out = { text: String(raw || "").trim(), matched_by: resolved.matched_by };
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) out.value = String(el.value);
      return out;
    }

    function waitFor(args) {
      var state = args.state === undefined ? "visible" : args.state;
      if (state !== "attached" && state !== "visible") fail("invalid_input", "state must be attached or visible", { field: "state" });
      var timeout = args.timeout_ms === undefined ? 5000 : args.timeout_ms;
      if (typeof timeout !== "number" || !(timeout >= 0)) fail("invalid_input", "timeout_ms must be a non-negative number", { field: "timeout_ms" });
      var locator = asLocator(args.locator);
      var started = Date.now();

      function check() {
        var res;
        try {
          res = resolveAll(locator);
        } catch (err) {
          if (err instanceof EngineError && err.code === "target_not_found") return { done: false, tried: err.evidence.tried };
          throw err; // invalid locators fail at once: waiting cannot fix them
        }
        var count = state === "visible" ? res.matches.filter(isVisible).length : res.matches.length;
        if (count > 0) return { done: true, output: { matched: true, state: state, matched_by: res.matched_by, match_count: count } };
        return { done: false, tried: res.tried };
      }

      var first = check();
      if (first.done) return first.output;
      return new Promise(function (resolve, reject) {
        var last = first;
        var finished = false;
        var observer = null, interval = null, timer = null, frame = null;
        function finish(fn, value) {
          if (finished) return;
          finished = true;
          if (observer) observer.disconnect();
          if (interval) clearInterval(interval);
          if (timer) clearTimeout(timer);
          if (frame && root.cancelAnimationFrame) root.cancelAnimationFrame(frame);
          fn(value);
        }
        function poll() {
          frame = null;
          if (finished) return;
          try {
            var r = check();
            if (r.done) finish(resolve, r.output);
            else last = r;
          } catch (err) {
            finish(reject, err);
          }
        }
        function schedule() {
          // Coalesce bursts of mutations into one check per frame.
          if (frame || finished) return;
          frame = root.requestAnimationFrame ? root.requestAnimationFrame(poll) : setTimeout(poll, 16);
        }
        if (typeof MutationObserver === "function") {
          observer = new MutationObserver(schedule);
          observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
        }
        // Style/layout changes (CSS classes elsewhere, animations) and hidden
        // tabs without animation frames are caught by a plain interval.
        interval = setInterval(poll, 100);
        timer = setTimeout(function () {
          finish(reject, new EngineError("timeout", "the locator did not become " + state + " within " + timeout + " ms", {
            locator: locatorEvidence(locator), state: state, timeout_ms: timeout, elapsed_ms: Date.now() - started, tried: last.tried,
          }));
        }, timeout);
      });
    }

    function pointerClick(args) {
      var button = args.button === undefined ? "left" : args.button;
      if (!BUTTONS[button]) fail("invalid_input", "button must be left, middle or right", { field: "button" });
      var point = pointTarget(args);
      syntheticClick(point, button, 1);
      return { clicked: true, button: button, target: describe(point.el) };
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

    function textInsert(args) {
      var text = requireString(args, "text");
      var mode = args.mode === undefined ? "append" : args.mode;
      if (mode !== "append" && mode !== "replace") fail("invalid_input", "mode must be append or replace", { field: "mode" });
      var target = editableTarget(args.target);
      var el = target.element;
      if (document.activeElement !== el && typeof el.focus === "function") el.focus();
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
        var before = el.value;
        var expected = mode === "replace" ? text : before + text;
        setFieldValue(el, expected, text);
        // Input masks may reformat the value, so only "nothing went in" fails
        // (a number field refusing letters, a script resetting the field).
        if (text !== "" && (mode === "append" ? el.value === before : el.value === "")) {
          fail("insert_failed", "the field did not accept the text (its type or a page script refused it)", {
            target: describe(el), expected_length: expected.length, actual_length: el.value.length,
          });
        }
        if (supportsSelection(el)) el.setSelectionRange(el.value.length, el.value.length);
      } else {
        placeCaret(el, mode);
        var done = false;
        try {
          done = document.execCommand("insertText", false, text);
        } catch (_ignored) {
          done = false;
        }
        if (!done) {
          // execCommand is unavailable in some editors: edit the range directly.
          var sel = root.getSelection();
          var range = sel.rangeCount ? sel.getRangeAt(0) : document.createRange();
          range.deleteContents();
          var node = document.createTextNode(text);
          range.insertNode(node);
          range.setStartAfter(node);
          range.collapse(true);
          sel.removeAllRanges();
          sel.addRange(range);
          el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
        }
      }
      return { inserted: true, inserted_length: text.length, matched_by: target.matched_by };
    }

    function keyboardPress(args) {
      var chord = parseChord(args.key, args.modifiers);
      var target = focusedElement() || document.body || document.documentElement;
      var allowed = target.dispatchEvent(keyEvent("keydown", chord));
      var printable = chord.key.length === 1 || chord.key === "Enter";
      var noCommand = chord.modifiers.indexOf("Control") < 0 && chord.modifiers.indexOf("Meta") < 0 && chord.modifiers.indexOf("Alt") < 0;
      if (allowed && printable && noCommand) target.dispatchEvent(keyEvent("keypress", chord));
      var defaultAction = allowed ? emulateKeyDefault(target, chord) : null;
      var keyupTarget = target.isConnected ? target : document.body || document.documentElement;
      keyupTarget.dispatchEvent(keyEvent("keyup", chord));
      var out = { pressed: true, key: chord.key, modifiers: chord.modifiers, fidelity: "synthetic" };
      if (defaultAction) out.default_action = defaultAction;
      if (!allowed) out.default_prevented = true;
      return out;
    }

    function pageInfo() {
      return { url: String(root.location.href), title: String(document.title || "") };
    }

    function snapshotText(args) {
      var maxChars = args.max_chars === undefined ? 20000 : args.max_chars;
      if (typeof maxChars !== "number" || maxChars < 1) fail("invalid_input", "max_chars must be a positive integer", { field: "max_chars" });
      var elements;
      if (args.selector === undefined) elements = [document.body || document.documentElement];
      else {
        if (typeof args.selector !== "string") fail("invalid_selector", "selector must be a CSS selector string", { selector: args.selector });
        try {
          elements = Array.prototype.slice.call(document.querySelectorAll(args.selector));
        } catch (_err) {
          fail("invalid_selector", "not a valid CSS selector: " + args.selector, { selector: args.selector });
        }
      }
      var text = elements.map(function (el) {
        return String((typeof el.innerText === "string" ? el.innerText : el.textContent) || "").trim();
      }).filter(Boolean).join("\n\n");
      var truncated = text.length > maxChars;
      return { text: truncated ? text.slice(0, maxChars) : text, truncated: truncated, match_count: elements.length };
    }

    var OBSERVE_DEFAULT = "a[href], button, input:not([type=hidden]), select, textarea, [role], h1, h2, h3, h4, h5, h6, [contenteditable]";
    var OBSERVE_CAP = 50;

    function observeVisible(args) {
      var selector = args.selector === undefined ? OBSERVE_DEFAULT : args.selector;
      if (typeof selector !== "string") fail("invalid_selector", "selector must be a CSS selector string", { selector: selector });
      var elements;
      try {
        elements = Array.prototype.slice.call(document.querySelectorAll(selector));
      } catch (_err) {
        fail("invalid_selector", "not a valid CSS selector: " + selector, { selector: selector });
      }
      var visible = elements.filter(isVisible);
      if (typeof args.text_contains === "string") {
        var sub = normalize(args.text_contains);
        visible = visible.filter(function (el) { return elementText(el).indexOf(sub) >= 0; });
      }
      var matches = visible.slice(0, OBSERVE_CAP).map(function (el) {
        var item = describe(el);
        var role = roleOf(el);
        if (role) item.role = role;
        var name = accessibleName(el, role);
        if (name) item.name = cap(name, DESCRIBE_TEXT_CAP);
        return item;
      });
      return { matches: matches, match_count: visible.length, truncated: visible.length > OBSERVE_CAP };
    }

    var PRIMITIVES = {
      "page.info": pageInfo,
      "dom.snapshot_text": snapshotText,
      "dom.observe.visible": observeVisible,
      "locator.element_info": elementInfo,
      "locator.text_content": textContent,
      "locator.wait_for": waitFor,
      "pointer.move": pointerMove,
      "pointer.click": pointerClick,
      "pointer.double_click": pointerDoubleClick,
      "viewport.scroll": viewportScroll,
      "text.insert": textInsert,
      "keyboard.press": keyboardPress,
    };
    var LOCATOR_PRIMITIVES = { "locator.element_info": true, "locator.text_content": true, "locator.wait_for": true };

    function capabilities() {
      return Object.keys(PRIMITIVES);
    }

    function isPrivileged(name) {
      if (DICTIONARY_NAMES.indexOf(name) >= 0) return true;
      return PRIVILEGED_PREFIXES.some(function (p) { return name.indexOf(p) === 0; });
    }

    function run(name, args) {
      return guard(function () {
        if (typeof name !== "string" || !name) fail("unknown_action", "a primitive name is required", { name: name === undefined ? null : name });
        var fn = Object.prototype.hasOwnProperty.call(PRIMITIVES, name) ? PRIMITIVES[name] : null;
        if (!fn) {
          if (isPrivileged(name)) fail("capability_unavailable", name + " needs browser-level authority that a page runtime does not have", { capability: name, host: "page" });
          fail("unknown_action", "no primitive is named " + name, { name: name });
        }
        if (args === undefined || args === null) args = {};
        if (!isObject(args)) fail("invalid_input", "arguments must be an object", { name: name });
        if (LOCATOR_PRIMITIVES[name] && args.locator === undefined) fail("invalid_input", name + " needs a locator", { field: "locator" });
        return fn(args);
      });
    }

    // -- handlers -------------------------------------------------------------

    function resolveHandler(path) {
      if (typeof path !== "string" || !path || path.length > 256) fail("invalid_input", "a handler is a dotted property path", { handler: path === undefined ? null : path });
      var segments = path.split(".");
      for (var i = 0; i < segments.length; i++) {
        if (!SAFE_SEGMENT.test(segments[i])) fail("invalid_input", "handler segment " + JSON.stringify(segments[i]) + " is not an identifier; handlers are property paths, never source", { handler: path, segment: segments[i] });
        if (FORBIDDEN_SEGMENTS.indexOf(segments[i]) >= 0) fail("invalid_input", "handler segment " + segments[i] + " is not allowed", { handler: path, segment: segments[i] });
      }
      var parent = null;
      var current = root;
      for (var j = 0; j < segments.length; j++) {
        var seg = segments[j];
        if (current === null || current === undefined || (typeof current !== "object" && typeof current !== "function") || !(seg in current)) {
          fail("missing_handler", "the page has no handler " + path + " (" + segments.slice(0, j + 1).join(".") + " is missing)", { handler: path, missing: segments.slice(0, j + 1).join(".") });
        }
        parent = current;
        try {
          current = current[seg];
        } catch (err) {
          fail("missing_handler", "reading " + segments.slice(0, j + 1).join(".") + " failed: " + String((err && err.message) || err), { handler: path });
        }
      }
      if (typeof current !== "function") fail("missing_handler", path + " is not a function", { handler: path, type: current === null ? "null" : typeof current });
      // Evaluation sinks reached through a property path would run strings as code.
      if (current === root.eval || current === root.Function || current === root.setTimeout || current === root.setInterval) {
        fail("permission_denied", path + " would evaluate source text and is refused", { handler: path });
      }
      return { fn: current, self: parent };
    }

    function callHandler(path, args) {
      return guard(function () {
        var target = resolveHandler(path);
        var value;
        try {
          value = target.fn.call(target.self, args === undefined ? {} : args);
        } catch (err) {
          fail("handler_failed", String((err && err.message) || err), { handler: path, name: err && err.name ? String(err.name) : "Error" });
        }
        return Promise.resolve(value).then(
          function (result) {
            if (result === undefined) return null;
            var text;
            try {
              text = JSON.stringify(result);
            } catch (err) {
              fail("invalid_result", "the handler result is not JSON-serialisable: " + String((err && err.message) || err), { handler: path });
            }
            if (text === undefined) fail("invalid_result", "the handler returned a " + typeof result + ", which is not JSON", { handler: path, type: typeof result });
            return JSON.parse(text);
          },
          function (err) {
            fail("handler_failed", String((err && err.message) || err), { handler: path, name: err && err.name ? String(err.name) : "Error" });
          }
        );
      });
    }

    // -- helpers for hosts (the Playwright browser host, the client) ---------

    /**
     * Resolve and focus an editable target (or the focused editable element)
     * and place the caret for mode "append" or "replace", so a host can type
     * trusted text next. Output: {tag, matched_by, caret_placed, value_length}.
     */
    function focusEditable(target, mode) {
      return guard(function () {
        var m = mode === undefined ? "append" : mode;
        if (m !== "append" && m !== "replace") fail("invalid_input", "mode must be append or replace", { field: "mode" });
        var t = editableTarget(target);
        var el = t.element;
        if (document.activeElement !== el && typeof el.focus === "function") el.focus();
        var placed = placeCaret(el, m);
        var out = { tag: tagOf(el), matched_by: t.matched_by, caret_placed: placed };
        if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) out.value = String(el.value);
        return out;
      });
    }

    /**
     * Forward DOM events: listen = [{name, event}]. For each declared event
     * (caught on document and window, once per event object) sink({name,
     * event, payload}) is called, payload being event.detail as JSON (or {}).
     * Replaces the previous listening set. Returns the number of events watched.
     */
    var watched = [];
    function watchEvents(listen, sink) {
      watched.forEach(function (w) {
        document.removeEventListener(w.type, w.fn, true);
        root.removeEventListener(w.type, w.fn, true);
      });
      watched = [];
      if (!Array.isArray(listen) || typeof sink !== "function") return 0;
      var byType = {};
      listen.forEach(function (entry) {
        if (!isObject(entry) || typeof entry.name !== "string" || !entry.name || typeof entry.event !== "string" || !entry.event || entry.event.length > 200) return;
        (byType[entry.event] = byType[entry.event] || []).push(entry.name);
      });
      var seen = typeof WeakSet === "function" ? new WeakSet() : null;
      Object.keys(byType).forEach(function (type) {
        var names = byType[type];
        var fn = function (ev) {
          // Capture listeners on both document and window see one event twice.
          if (seen) {
            if (seen.has(ev)) return;
            seen.add(ev);
          }
          var payload = {};
          if (ev && ev.detail !== undefined && ev.detail !== null) {
            try {
              payload = jsonClone(ev.detail);
            } catch (_ignored) {
              payload = {};
            }
            if (payload === undefined) payload = {};
          }
          names.forEach(function (name) {
            try {
              sink({ name: name, event: type, payload: payload });
            } catch (_ignored) { /* a failing sink must not break the page */ }
          });
        };
        document.addEventListener(type, fn, true);
        root.addEventListener(type, fn, true);
        watched.push({ type: type, fn: fn });
      });
      return watched.length;
    }

    var clientState = { client: null };

    function status() {
      var c = clientState.client;
      return { version: VERSION, client: c ? c() : null };
    }

    return Object.freeze({
      version: VERSION,
      run: run,
      callHandler: callHandler,
      capabilities: capabilities,
      focusEditable: focusEditable,
      watchEvents: watchEvents,
      status: status,
      // Internal: lets this file's client publish its state to status().
      _attachClient: function (reporter) {
        if (!clientState.client && typeof reporter === "function") clientState.client = reporter;
      },
    });
  }

  // ---------------------------------------------------------------------------
  // CLIENT
  // ---------------------------------------------------------------------------

  function discoverBridge() {
    var explicit = root.__MCP_ACTIONS_BRIDGE__;
    if (explicit && typeof explicit === "object" && typeof explicit.url === "string" && explicit.url) {
      var token = typeof explicit.token === "string" ? explicit.token : tokenOf(explicit.url);
      return { url: toBridgeUrl(explicit.url), token: token };
    }
    var script = document.currentScript;
    var src = script && script.src;
    if (!src) return null;
    var parsed;
    try {
      parsed = new URL(src, root.location.href);
    } catch (_ignored) {
      return null;
    }
    if (!/\/runtime\.js$/.test(parsed.pathname) || !/^https?:$/.test(parsed.protocol)) return null;
    var base = parsed.pathname.replace(/runtime\.js$/, "bridge");
    var scheme = parsed.protocol === "https:" ? "wss:" : "ws:";
    return { url: scheme + "//" + parsed.host + base, token: parsed.searchParams.get("token") };
  }

  function tokenOf(url) {
    try {
      return new URL(url, root.location.href).searchParams.get("token");
    } catch (_ignored) {
      return null;
    }
  }

  function toBridgeUrl(url) {
    // Accept ws(s)://host/bridge as given, or an http(s) base such as http://host:port.
    var parsed;
    try {
      parsed = new URL(url, root.location.href);
    } catch (_ignored) {
      return url;
    }
    if (parsed.protocol === "http:" || parsed.protocol === "https:") {
      parsed.protocol = parsed.protocol === "https:" ? "wss:" : "ws:";
      if (!/\/bridge$/.test(parsed.pathname)) parsed.pathname = parsed.pathname.replace(/\/?$/, "/bridge");
    }
    parsed.searchParams.delete("token");
    return parsed.toString();
  }

  function randomId(bytes) {
    var arr = new Uint8Array(bytes || 8);
    if (root.crypto && root.crypto.getRandomValues) root.crypto.getRandomValues(arr);
    else for (var i = 0; i < arr.length; i++) arr[i] = Math.floor(Math.random() * 256);
    return Array.prototype.map.call(arr, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }

  function sessionValue(key, make) {
    // sessionStorage survives reloads of the same tab; it throws on opaque
    // origins and in some sandboxes, where an in-memory id has to do.
    try {
      var value = root.sessionStorage.getItem(key);
      if (!value) {
        value = make();
        root.sessionStorage.setItem(key, value);
      }
      return value;
    } catch (_ignored) {
      return make();
    }
  }

  function startClient(engine, config) {
    var HEARTBEAT_MS = 15000;
    var BACKOFF_MIN_MS = 500;
    var BACKOFF_MAX_MS = 10000;
    var PREVIOUS_CALL_WINDOW_MS = 5000;
    var MAX_EVENT_CHARS = 16000;

    var runtimeId = sessionValue("__mcp_actions_runtime_id", function () { return "page-" + randomId(8); });
    var runtimeKey = "page:" + sessionValue("__mcp_actions_tab_id", function () { return randomId(8); });
    var wsUrl = config.url + (config.token ? (config.url.indexOf("?") >= 0 ? "&" : "?") + "token=" + encodeURIComponent(config.token) : "");
    var socket = null;
    var connected = false;
    var backoff = BACKOFF_MIN_MS;
    var reconnectTimer = null;
    var heartbeatTimer = null;
    var suspended = false;
    var lastAnnounced = { url: null, title: null };
    var lastCall = null; // {call_id, at}: the call an event may have been caused by
    var listenConfig = [];

    engine._attachClient(function () {
      return { connected: connected, runtime_id: runtimeId, runtime_key: runtimeKey, bridge_url: config.url, listening: listenConfig.length };
    });

    function log(level, message, detail) {
      try {
        (console[level] || console.log).call(console, "[mcp-actions] " + message, detail === undefined ? "" : detail);
      } catch (_ignored) { /* no console */ }
    }

    function send(item) {
      if (!socket || socket.readyState !== 1) return false;
      try {
        socket.send(JSON.stringify(item));
        return true;
      } catch (err) {
        log("warn", "could not send " + item.type, err);
        return false;
      }
    }

    function now() {
      return new Date().toISOString();
    }

    function pageState() {
      return { url: String(root.location.href), title: String(document.title || "") };
    }

    function announceReady() {
      var page = pageState();
      lastAnnounced = page;
      send({
        type: "runtime_ready",
        runtime_id: runtimeId,
        runtime_key: runtimeKey,
        url: page.url,
        title: page.title,
        capabilities: engine.capabilities(),
        extension_version: "page-runtime/" + VERSION,
      });
    }

    function sendStatus(force) {
      var page = pageState();
      if (!force && page.url === lastAnnounced.url && page.title === lastAnnounced.title) return;
      lastAnnounced = page;
      send({ type: "runtime_status", runtime_id: runtimeId, url: page.url, title: page.title, observed_at: now() });
    }

    function scheduleAnnounce() {
      // Let the single-page app update its title after the route change.
      setTimeout(function () { sendStatus(false); }, 50);
    }

    function hookHistory() {
      ["pushState", "replaceState"].forEach(function (method) {
        var original = root.history && root.history[method];
        if (typeof original !== "function") return;
        root.history[method] = function () {
          var result = original.apply(this, arguments);
          scheduleAnnounce();
          return result;
        };
      });
      root.addEventListener("popstate", scheduleAnnounce);
      root.addEventListener("hashchange", scheduleAnnounce);
    }

    function errorItem(callId, error) {
      var body = { code: String(error.code || "handler_failed"), message: String(error.message || error.code || "failed"), severity: "major", recoverable: true };
      if (error.evidence !== undefined) body.evidence = error.evidence;
      return { type: "action_error", call_id: callId, runtime_id: runtimeId, error: body };
    }

    function execute(item) {
      var name = item.name;
      var args = item.arguments && typeof item.arguments === "object" ? item.arguments : {};
      if (typeof item.handler === "string" && item.handler) return engine.callHandler(item.handler, args);
      // The engine answers privileged names with capability_unavailable and
      // anything else it does not know with unknown_action.
      return engine.run(name, args);
    }

    // The bridge reads an output shaped like the protocol's {ok, result} / {ok, error} envelope
    // as that envelope (CONTRACT §2). A value that merely looks like one (a handler returning
    // {ok: true, result: ...}) is wrapped in a real envelope so it arrives unchanged.
    function wireOutput(output) {
      if (output === undefined) return null;
      if (output && typeof output === "object" && typeof output.ok === "boolean" && (output.ok ? "result" in output : "error" in output)) {
        return { ok: true, result: output };
      }
      return output;
    }

    function handleCall(item) {
      var callId = item.call_id;
      if (typeof callId !== "string" || !callId) {
        log("warn", "ignored an action_call without call_id");
        return;
      }
      lastCall = { call_id: callId, at: Date.now() };
      var settled = false;
      var timer = null;
      function reply(envelope) {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        lastCall = { call_id: callId, at: Date.now() };
        if (envelope.ok) send({ type: "action_call_output", call_id: callId, runtime_id: runtimeId, output: wireOutput(envelope.output) });
        else send(errorItem(callId, envelope.error));
      }
      var timeoutMs = item.timeout_ms;
      if (typeof timeoutMs === "number" && timeoutMs >= 0 && isFinite(timeoutMs)) {
        var started = Date.now();
        timer = setTimeout(function () {
          reply({ ok: false, error: {
            code: "handler_timeout",
            message: (item.handler || item.name) + " did not finish within " + timeoutMs + " ms",
            evidence: { elapsed_ms: Date.now() - started, timeout_ms: timeoutMs, name: item.name },
          } });
        }, timeoutMs);
      }
      execute(item).then(reply, function (err) {
        reply({ ok: false, error: { code: "handler_failed", message: String((err && err.message) || err) } });
      });
    }

    function forwardEvent(signal) {
      var item = {
        type: "dom_event",
        event_id: "evt-" + randomId(8),
        runtime_id: runtimeId,
        name: signal.name,
        event: signal.event,
        url: String(root.location.href),
        payload: signal.payload,
        observed_at: now(),
      };
      if (lastCall && Date.now() - lastCall.at <= PREVIOUS_CALL_WINDOW_MS) item.previous_call_id = lastCall.call_id;
      var text = JSON.stringify(item);
      if (text.length > MAX_EVENT_CHARS) {
        log("warn", "dropped " + signal.name + ": its payload is too large", text.length);
        return;
      }
      send(item);
    }

    function applyConfig(item) {
      listenConfig = Array.isArray(item.listen) ? item.listen : [];
      engine.watchEvents(listenConfig, forwardEvent);
    }

    function onMessage(ev) {
      var item;
      try {
        item = JSON.parse(ev.data);
      } catch (_ignored) {
        log("warn", "ignored a frame that is not JSON");
        return;
      }
      if (!item || typeof item !== "object") return;
      if (item.type === "action_call") handleCall(item);
      else if (item.type === "runtime_config") applyConfig(item);
      else if (item.type === "action_error") log("warn", "bridge reported an error", item.error);
    }

    function scheduleReconnect() {
      if (suspended || reconnectTimer) return;
      var delay = Math.min(backoff, BACKOFF_MAX_MS);
      delay = delay * (0.8 + Math.random() * 0.4); // jitter: tabs reloaded together do not reconnect in lockstep
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      reconnectTimer = setTimeout(function () {
        reconnectTimer = null;
        connect();
      }, delay);
    }

    function stopHeartbeat() {
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      heartbeatTimer = null;
    }

    function connect() {
      if (suspended) return;
      var ws;
      try {
        ws = new WebSocket(wsUrl);
      } catch (err) {
        log("warn", "cannot open the bridge connection", err && err.message);
        scheduleReconnect();
        return;
      }
      socket = ws;
      ws.onopen = function () {
        if (socket !== ws) return;
        connected = true;
        backoff = BACKOFF_MIN_MS;
        announceReady();
        stopHeartbeat();
        heartbeatTimer = setInterval(function () { sendStatus(true); }, HEARTBEAT_MS);
      };
      ws.onmessage = function (ev) {
        if (socket === ws) onMessage(ev);
      };
      ws.onclose = function (ev) {
        if (socket !== ws) return;
        connected = false;
        socket = null;
        stopHeartbeat();
        // 4001: the bridge replaced this connection with a newer one of the same runtime_key
        // (a reload, or a copy sharing this tab's sessionStorage such as a same-origin
        // iframe or a duplicated tab). Reconnecting would replace that one in turn, forever.
        if (ev && ev.code === 4001) {
          log("warn", "another connection of this runtime took over; not reconnecting");
          return;
        }
        scheduleReconnect();
      };
      ws.onerror = function () { /* onclose follows and reconnects */ };
    }

    function suspend() {
      suspended = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      stopHeartbeat();
      var ws = socket;
      socket = null;
      connected = false;
      if (ws) {
        try {
          ws.close(1000, "page hidden");
        } catch (_ignored) { /* already closing */ }
      }
    }

    // Leaving the page (or entering the back/forward cache) closes cleanly;
    // coming back from the cache reconnects.
    root.addEventListener("pagehide", suspend);
    root.addEventListener("pageshow", function (ev) {
      if (ev.persisted && suspended) {
        suspended = false;
        backoff = BACKOFF_MIN_MS;
        connect();
      }
    });

    hookHistory();
    connect();
  }
})();
