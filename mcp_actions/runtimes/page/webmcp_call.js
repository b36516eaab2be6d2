/*
 * webmcp_call.js — Calling WebMCP tools: webmcp.list_tools, webmcp.call and
 * webmcp.page_result.
 *
 * An imperative tool runs the page's own execute(input, client). A
 * declarative one fills its form's controls and submits it as an
 * agent-invoked submit (SubmitEvent.agentInvoked true): when the page
 * answers with event.respondWith(promise) the call's output is what the
 * promise resolves to; when the submission navigates, the call answers
 * {navigating: true, document} at once and the host reads the next
 * document with webmcp.page_result (its JSON-LD, or a short summary).
 * A form without toolautosubmit is filled and waits for the user to submit.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  normalize = M.normalize,
  cap = M.cap,
  webmcp = M.webmcp;

var pendingSubmit = null; // {form, respond(promise), response}
var SUMMARY_CHARS = 1500;

function toJson(value, tool) {
  if (value === undefined) return null;
  try {
    return jsonClone(value);
  } catch (err) {
    fail("invalid_result", "the result of " + tool + " is not JSON: " + String((err && err.message) || err), { tool: tool });
  }
}

function setValue(el, value) {
  // The prototype's setter, so pages that track values (frameworks) see the change.
  var proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : el.tagName === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  var setter = Object.getOwnPropertyDescriptor(proto, "value").set;
  setter.call(el, value);
}

function fire(el) {
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function fillForm(form, args) {
  webmcp.controlsOf(form).forEach(function (c) {
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

(M.installers = M.installers || []).push(function () {
  root.addEventListener("submit", markAgentSubmit, true);
  root.addEventListener("submit", deferNavigation, false);
});

function submitForm(entry) {
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
  if (pending.deferred) return { submitted: true, navigating: true, document: webmcp.docId };
  // The page handled the submit itself and gave no response: what it shows now.
  return new Promise(function (resolve) { setTimeout(resolve, 50); }).then(function () {
    return { submitted: true, result: pageResult({}) };
  });
}

function waitForUserSubmit(entry) {
  return new Promise(function (resolve) {
    var submitter = entry.form.querySelector("[type=submit], button:not([type])");
    if (submitter && submitter.focus) submitter.focus();
    var done = function () { entry.form.removeEventListener("submit", done, true); resolve({ submitted: true, by: "user" }); };
    entry.form.addEventListener("submit", done, true);
  });
}

function callTool(args) {
  var name = args.tool;
  if (typeof name !== "string" || !name) fail("invalid_input", "webmcp.call needs the tool's name", { field: "tool" });
  var input = args.arguments === undefined ? {} : args.arguments;
  if (!isObject(input)) fail("invalid_input", "arguments must be an object", { field: "arguments" });
  var testing = webmcp.nativeTesting();
  if (testing) {
    return Promise.resolve(testing.executeTool(name, JSON.stringify(input))).then(function (out) {
      if (typeof out === "string") {
        try { return { result: JSON.parse(out) }; } catch (_e) { return { result: out }; }
      }
      return { result: toJson(out, name) };
    });
  }
  var tool = webmcp.findImperative(name);
  if (tool) {
    var client = { requestUserInteraction: function (cb) { return Promise.resolve().then(cb); } };
    var value;
    try {
      value = tool.execute(jsonClone(input), client);
    } catch (err) {
      fail("handler_failed", String((err && err.message) || err), { tool: name, name: err && err.name ? String(err.name) : "Error" });
    }
    return Promise.resolve(value).then(function (out) { return { result: toJson(out, name) }; }, function (err) {
      fail("handler_failed", String((err && err.message) || err), { tool: name, name: err && err.name ? String(err.name) : "Error" });
    });
  }
  var entry = webmcp.findForm(name);
  if (!entry) fail("missing_handler", "the page has no WebMCP tool named " + name, { tool: name });
  fillForm(entry.form, input);
  if (!entry.form.hasAttribute("toolautosubmit")) return waitForUserSubmit(entry);
  return submitForm(entry);
}

function jsonLd() {
  var out = [];
  Array.prototype.forEach.call(document.querySelectorAll('script[type="application/ld+json"]'), function (s) {
    try { out.push(JSON.parse(s.textContent)); } catch (_ignored) { /* not JSON: skipped */ }
  });
  return out;
}

function pageResult(args) {
  if (args.after_document && args.after_document === webmcp.docId) fail("state_mismatch", "the submission has not produced a new document yet", { document: webmcp.docId });
  if (document.readyState === "loading") fail("state_mismatch", "the next document is still loading", { document: webmcp.docId });
  var out = { url: String(root.location.href), title: String(document.title || ""), document: webmcp.docId };
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

definePrimitive("webmcp.list_tools", function () { return { tools: webmcp.list(), native: !!webmcp.nativeTesting(), document: webmcp.docId }; });
definePrimitive("webmcp.call", callTool, ["tool"]);
definePrimitive("webmcp.page_result", pageResult);
