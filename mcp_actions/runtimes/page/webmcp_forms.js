/*
 * webmcp_forms.js — Declarative WebMCP: <form toolname tooldescription
 * [toolautosubmit]> as tools (the WebMCP declarative explainer).
 *
 * A form's named controls compile to a JSON Schema (number/range → number
 * with min/max, select → each option as anyOf {const, title} beside the
 * enum of their values, as Chromium's own getTools() gives it, radio →
 * enum, one checkbox → boolean, several → array, required, pattern,
 * minlength/maxlength; descriptions from
 * toolparamdescription, else the label, legend, aria-label, placeholder or
 * title). Running one fills the controls and submits the form as an
 * agent-invoked submit (SubmitEvent.agentInvoked, respondWith, polyfilled
 * when the browser has neither): the output is what the respondWith promise
 * resolves to; when the submission loads a page, {navigating: true,
 * document} at once, and the host reads the next document with pageResult
 * (its JSON-LD, or a heading and a summary). A form without toolautosubmit
 * is filled, and the call answers at once that it waits for the user's submit.
 */
var fail = M.fail,
  jsonClone = M.jsonClone,
  normalize = M.normalize,
  cap = M.cap;

var DOC_ID = Math.random().toString(36).slice(2) + Date.now().toString(36);
var SKIPPED_TYPES = ["hidden", "submit", "button", "reset", "image", "file"];
var SUMMARY_CHARS = 1500;
var forms = []; // [{name, form, descriptor}]
var listeners = [];
var pendingSubmit = null; // {form, response, deferred}

function toJson(value, tool) {
  if (value === undefined) return null;
  try {
    return jsonClone(value);
  } catch (err) {
    fail("invalid_result", "the result of " + tool + " is not JSON: " + String((err && err.message) || err), { tool: tool });
  }
}

// -- schema ------------------------------------------------------------------------

function labelOf(el) {
  var own = el.getAttribute("toolparamdescription");
  if (own) return normalize(own);
  if (el.labels && el.labels.length) return normalize(el.labels[0].textContent);
  return normalize(el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("title") || "");
}

function controlsOf(form) {
  var groups = {};
  var order = [];
  Array.prototype.forEach.call(form.elements, function (el) {
    var name = el.name;
    var type = String(el.type || "").toLowerCase();
    if (!name || el.disabled || SKIPPED_TYPES.indexOf(type) >= 0 || el.tagName === "FIELDSET" || el.tagName === "BUTTON" || el.tagName === "OUTPUT") return;
    if (!groups[name]) { groups[name] = []; order.push(name); }
    groups[name].push(el);
  });
  return order.map(function (name) { return { name: name, els: groups[name] }; });
}

/*
 * A <select> as Chromium's own WebMCP (getTools(), --enable-features=WebMCP)
 * describes it: every option, the empty placeholder and disabled ones included,
 * as {type, const: value, title: label} in anyOf, then the enum of the values.
 * The title is what the user reads ("Last 30 Days" for value "30d"): without it
 * a model guesses from codes. One difference: the title is the option's text
 * with its whitespace collapsed (option.text), where Chromium keeps the raw
 * textContent.
 */
function selectSchema(select) {
  var options = Array.prototype.slice.call(select.options);
  return {
    type: "string",
    anyOf: options.map(function (o) { return { type: "string", const: o.value, title: o.text }; }),
    enum: options.map(function (o) { return o.value; }),
  };
}

function controlSchema(els) {
  var el = els[0];
  var type = String(el.type || "").toLowerCase();
  var s = {};
  if (type === "radio") {
    s = { type: "string", enum: els.map(function (r) { return r.value; }) };
  } else if (type === "checkbox") {
    s = els.length > 1 ? { type: "array", items: { type: "string", enum: els.map(function (c) { return c.value; }) } } : { type: "boolean" };
  } else if (el.tagName === "SELECT") {
    s = selectSchema(el);
    if (el.multiple) s = { type: "array", items: s, uniqueItems: true };
  } else if (type === "number" || type === "range") {
    s = { type: "number" };
    if (el.min !== "" && isFinite(+el.min)) s.minimum = +el.min;
    if (el.max !== "" && isFinite(+el.max)) s.maximum = +el.max;
  } else {
    s = { type: "string" };
    if (type === "email") s.format = "email";
    if (type === "url") s.format = "uri";
    if (type === "date") s.format = "date";
    if (el.maxLength > 0) s.maxLength = el.maxLength;
    if (el.minLength > 0) s.minLength = el.minLength;
    if (el.pattern) s.pattern = "^(?:" + el.pattern + ")$";
  }
  // A group (radios, several checkboxes) is described by its own attribute or its
  // fieldset's legend; each option's label names the option, not the group.
  var group = type === "radio" || (type === "checkbox" && els.length > 1);
  var description = "";
  for (var i = 0; i < els.length && !description; i++) description = normalize(els[i].getAttribute("toolparamdescription") || "");
  var fieldset = el.closest ? el.closest("fieldset") : null;
  var legend = fieldset ? fieldset.querySelector("legend") : null;
  if (!description && group && legend) description = normalize(legend.textContent);
  for (var j = 0; j < els.length && !description && !group; j++) description = labelOf(els[j]);
  if (!description && legend) description = normalize(legend.textContent);
  if (description) s.description = cap(description, 300);
  return s;
}

function formDescriptor(form) {
  var properties = {};
  var required = [];
  controlsOf(form).forEach(function (c) {
    properties[c.name] = controlSchema(c.els);
    if (c.els.some(function (e) { return e.required; }) && c.els[0].type !== "checkbox") required.push(c.name);
  });
  var schema = { type: "object", properties: properties };
  if (required.length) schema.required = required;
  var d = { name: form.getAttribute("toolname"), description: normalize(form.getAttribute("tooldescription") || ""), inputSchema: schema, kind: "declarative" };
  if (form.hasAttribute("toolautosubmit")) d.autosubmit = true;
  return d;
}

function scan() {
  if (!document.querySelectorAll) return forms;
  var found = [];
  Array.prototype.forEach.call(document.querySelectorAll("form[toolname]"), function (form) {
    var name = form.getAttribute("toolname");
    if (name) found.push({ name: name, form: form, descriptor: formDescriptor(form) });
  });
  var before = JSON.stringify(forms.map(function (f) { return f.descriptor; }));
  forms = found;
  if (JSON.stringify(found.map(function (f) { return f.descriptor; })) !== before) {
    listeners.forEach(function (fn) { try { fn(); } catch (_ignored) { /* one listener must not stop the others */ } });
  }
  return forms;
}

/** Scan now and again whenever the document's forms may have changed; fn() hears every change. */
function watch(fn) {
  listeners.push(fn);
  if (typeof MutationObserver !== "function") return;
  var timer = null;
  var observer = new MutationObserver(function () {
    if (timer) return;
    // The engine's own timer: a rescan is never the reply of an action (observe_settle.js).
    timer = M.intrinsics.setTimeout(function () { timer = null; scan(); }, 50);
  });
  var start = function () {
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["toolname", "tooldescription", "toolparamdescription", "name", "disabled", "required", "toolautosubmit"] });
    scan();
  };
  if (document.documentElement) start();
  else document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("DOMContentLoaded", scan);
}

function find(name) {
  scan();
  for (var i = 0; i < forms.length; i++) if (forms[i].name === name) return forms[i];
  return null;
}

// -- SubmitEvent.agentInvoked / respondWith ------------------------------------------

function installSubmitEvent() {
  var SE = root.SubmitEvent;
  if (!SE || "agentInvoked" in SE.prototype) return false;
  Object.defineProperty(SE.prototype, "agentInvoked", { configurable: true, get: function () { return this.__mcpAgent === true; } });
  Object.defineProperty(SE.prototype, "respondWith", {
    configurable: true,
    writable: true,
    value: function (promise) {
      if (this.__mcpAgent !== true || !this.__mcpRespond) {
        var Err = root.DOMException || Error;
        throw new Err("respondWith is only available on an agent-invoked submit", "InvalidStateError");
      }
      this.__mcpRespond(promise);
    },
  });
  return true;
}

// The first listener of every submit (window, capture): mark the agent's own.
function markAgentSubmit(ev) {
  if (!pendingSubmit || ev.target !== pendingSubmit.form) return;
  var pending = pendingSubmit;
  try {
    Object.defineProperty(ev, "__mcpAgent", { value: true });
    Object.defineProperty(ev, "__mcpRespond", { value: function (p) { pending.response = Promise.resolve(p); } });
  } catch (_ignored) { /* already marked */ }
}

// The last listener (window, bubble): a submission nobody took over is
// deferred a moment, so the call can answer before the document goes away.
function deferNavigation(ev) {
  if (!pendingSubmit || ev.target !== pendingSubmit.form || ev.defaultPrevented) return;
  ev.preventDefault();
  var form = pendingSubmit.form, submitter = ev.submitter;
  pendingSubmit.deferred = true;
  setTimeout(function () {
    if (submitter && submitter.name) {
      var carry = document.createElement("input");
      carry.type = "hidden";
      carry.name = submitter.name;
      carry.value = submitter.value;
      form.appendChild(carry);
    }
    HTMLFormElement.prototype.submit.call(form);
  }, 30);
}

function listenToSubmits() {
  root.addEventListener("submit", markAgentSubmit, true);
  root.addEventListener("submit", deferNavigation, false);
}

// -- running a form ----------------------------------------------------------------------

function setValue(el, value) {
  // The prototype's setter, so pages that track values (frameworks) see the change.
  var proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : el.tagName === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
}

function fire(el) {
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function fill(form, args) {
  controlsOf(form).forEach(function (c) {
    if (!Object.prototype.hasOwnProperty.call(args, c.name)) return;
    var value = args[c.name];
    var first = c.els[0];
    var type = String(first.type || "").toLowerCase();
    if (type === "radio") {
      c.els.forEach(function (r) { r.checked = r.value === String(value); fire(r); });
    } else if (type === "checkbox") {
      var wanted = Array.isArray(value) ? value.map(String) : null;
      c.els.forEach(function (box) { box.checked = wanted ? wanted.indexOf(box.value) >= 0 : value === true; fire(box); });
    } else if (first.tagName === "SELECT" && first.multiple) {
      var chosen = Array.isArray(value) ? value.map(String) : [String(value)];
      Array.prototype.forEach.call(first.options, function (o) { o.selected = chosen.indexOf(o.value) >= 0; });
      fire(first);
    } else {
      setValue(first, value === null ? "" : String(value));
      fire(first);
    }
  });
}

function submit(entry) {
  var form = entry.form;
  var pending = { form: form, response: null, deferred: false };
  pendingSubmit = pending;
  try {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.dispatchEvent(new SubmitEvent("submit", { bubbles: true, cancelable: true }));
  } finally {
    pendingSubmit = null;
  }
  if (pending.response) {
    return pending.response.then(function (value) { return { submitted: true, result: toJson(value, entry.name) }; }, function (err) {
      fail("handler_failed", "the page's response to " + entry.name + " failed: " + String((err && err.message) || err), { tool: entry.name });
    });
  }
  if (pending.deferred) return { submitted: true, navigating: true, document: DOC_ID };
  // The page handled the submit itself and gave no response: what it shows now.
  return new Promise(function (resolve) { setTimeout(resolve, 50); }).then(function () {
    return { submitted: true, result: pageResult({}) };
  });
}

/**
 * A form without toolautosubmit is the user's to send: it is filled, its submit button focused (as
 * Chrome's own WebMCP does), and the call answers at once that it waits for the user (issue 44: it
 * waited for the submit instead, until the call's time ran out as handler_timeout).
 */
function awaitingUserSubmit(entry) {
  var submitter = entry.form.querySelector("[type=submit], button:not([type])");
  if (submitter && submitter.focus) submitter.focus();
  var out = { filled: true, awaiting_user: true };
  var label = submitter ? normalize(submitter.value || submitter.textContent || submitter.getAttribute("aria-label") || "") : "";
  if (label) out.submit = cap(label, 60);
  return out;
}

/** Fill the form of `entry` with `input` and submit it (or wait for the user): the call's output. */
function run(entry, input) {
  fill(entry.form, input);
  if (!entry.form.hasAttribute("toolautosubmit")) return awaitingUserSubmit(entry);
  return submit(entry);
}

// -- the document after a submission -------------------------------------------------------

function jsonLd() {
  var out = [];
  Array.prototype.forEach.call(document.querySelectorAll('script[type="application/ld+json"]'), function (s) {
    try { out.push(JSON.parse(s.textContent)); } catch (_ignored) { /* not JSON: skipped */ }
  });
  return out;
}

function pageResult(args) {
  if (args.after_document && args.after_document === DOC_ID) fail("state_mismatch", "the submission has not produced a new document yet", { document: DOC_ID });
  if (document.readyState === "loading") fail("state_mismatch", "the next document is still loading", { document: DOC_ID });
  var out = { url: String(root.location.href), title: String(document.title || ""), document: DOC_ID };
  var ld = jsonLd();
  if (ld.length) {
    out.json_ld = ld;
    return out;
  }
  var main = document.querySelector("main, [role=main]") || document.body;
  var heading = document.querySelector("h1");
  if (heading) out.heading = normalize(heading.textContent);
  out.summary = cap(normalize(main ? main.innerText || main.textContent : ""), SUMMARY_CHARS);
  return out;
}

M.webmcpForms = {
  docId: DOC_ID,
  toJson: toJson,
  scan: scan,
  list: function () { return forms.slice(); },
  find: find,
  watch: watch,
  run: run,
  pageResult: pageResult,
  installSubmitEvent: installSubmitEvent,
  listenToSubmits: listenToSubmits,
};
