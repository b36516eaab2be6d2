/*
 * webmcp.js — WebMCP (the W3C Web Machine Learning community group's
 * proposal) for pages written to it: installs a polyfill of
 * navigator.modelContext (registerTool, unregisterTool, provideContext,
 * clearContext) when the browser has none, compiles declarative
 * <form toolname tooldescription [toolautosubmit]> into tools, and offers the
 * primitives webmcp.list_tools, webmcp.call and webmcp.page_result. Where the
 * browser implements the API natively (navigator.modelContextTesting), its
 * own registry is listed and called instead. Every change is published
 * through M.setPageTools("webmcp", ...).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  normalize = M.normalize,
  cap = M.cap,
  setPageTools = M.setPageTools;

var nav = root.navigator;
var nativeTesting = nav && nav.modelContextTesting && typeof nav.modelContextTesting.listTools === "function" ? nav.modelContextTesting : null;
var provided = {}; // name -> tool, from provideContext (replaced as a whole)
var dynamic = {}; // name -> tool, from registerTool
var forms = []; // [{name, form, descriptor}]
var DOC_ID = Math.random().toString(36).slice(2) + Date.now().toString(36);

// -- the imperative API ------------------------------------------------------

function checkTool(tool) {
  if (!isObject(tool) && typeof tool !== "object") throw new TypeError("registerTool expects a tool object");
  if (!tool || typeof tool.name !== "string" || !tool.name) throw new TypeError("a tool needs a non-empty name");
  if (typeof tool.execute !== "function") throw new TypeError("tool " + tool.name + " needs an execute function");
  if (tool.inputSchema !== undefined && !isObject(tool.inputSchema)) throw new TypeError("tool " + tool.name + ": inputSchema must be an object");
}

function duplicate(name) {
  var Err = root.DOMException || Error;
  return new Err("a tool named " + name + " is already registered", "InvalidStateError");
}

function descriptorOf(tool, kind) {
  var d = {
    name: tool.name,
    description: typeof tool.description === "string" ? tool.description : "",
    inputSchema: isObject(tool.inputSchema) ? jsonClone(tool.inputSchema) : { type: "object", properties: {} },
    kind: kind,
  };
  var ann = isObject(tool.annotations) ? tool.annotations : {};
  if (typeof ann.readOnlyHint === "boolean") d.annotations = { readOnlyHint: ann.readOnlyHint };
  return d;
}

function publish() {
  var list = [];
  if (nativeTesting) {
    list = nativeList();
  } else {
    Object.keys(provided).forEach(function (n) { list.push(descriptorOf(provided[n], "imperative")); });
    Object.keys(dynamic).forEach(function (n) { if (!provided[n]) list.push(descriptorOf(dynamic[n], "imperative")); });
    forms.forEach(function (f) { if (!provided[f.name] && !dynamic[f.name]) list.push(f.descriptor); });
  }
  setPageTools("webmcp", list);
}

var modelContext = {
  registerTool: function (tool) {
    checkTool(tool);
    if (provided[tool.name] || dynamic[tool.name]) throw duplicate(tool.name);
    dynamic[tool.name] = tool;
    publish();
    var name = tool.name;
    return { unregister: function () { modelContext.unregisterTool(name); } };
  },
  unregisterTool: function (name) {
    var had = !!(dynamic[name] || provided[name]);
    delete dynamic[name];
    delete provided[name];
    if (had) publish();
  },
  provideContext: function (context) {
    var tools = context && Array.isArray(context.tools) ? context.tools : [];
    tools.forEach(checkTool);
    provided = {};
    tools.forEach(function (t) {
      if (provided[t.name]) throw duplicate(t.name);
      provided[t.name] = t;
    });
    publish();
  },
  clearContext: function () {
    provided = {};
    dynamic = {};
    publish();
  },
};

function installPolyfill() {
  if (!nav || nav.modelContext) return false;
  try {
    Object.defineProperty(Object.getPrototypeOf(nav), "modelContext", { configurable: true, enumerable: true, get: function () { return modelContext; } });
  } catch (_ignored) {
    return false;
  }
  var SE = root.SubmitEvent;
  if (SE && !("agentInvoked" in SE.prototype)) {
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
  }
  return true;
}

// -- native registries (navigator.modelContextTesting) ------------------------

function nativeList() {
  var raw;
  try {
    raw = nativeTesting.listTools() || [];
  } catch (_ignored) {
    return [];
  }
  return Array.prototype.map.call(raw, function (t) {
    var schema = t.inputSchema;
    if (typeof schema === "string") {
      try { schema = JSON.parse(schema); } catch (_e) { schema = null; }
    }
    return { name: String(t.name), description: String(t.description || ""), inputSchema: isObject(schema) ? schema : { type: "object", properties: {} }, kind: "native" };
  });
}

// -- declarative forms ---------------------------------------------------------

var SKIPPED_TYPES = ["hidden", "submit", "button", "reset", "image", "file"];

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

function optionValues(select) {
  return Array.prototype.filter.call(select.options, function (o) { return !o.disabled && o.value !== ""; }).map(function (o) { return o.value; });
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
    s = { type: "string", enum: optionValues(el) };
    if (el.multiple) s = { type: "array", items: s };
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

function scanForms() {
  if (nativeTesting || !document.querySelectorAll) return;
  var found = [];
  Array.prototype.forEach.call(document.querySelectorAll("form[toolname]"), function (form) {
    var name = form.getAttribute("toolname");
    if (!name) return;
    found.push({ name: name, form: form, descriptor: formDescriptor(form) });
  });
  var before = JSON.stringify(forms.map(function (f) { return f.descriptor; }));
  forms = found;
  if (JSON.stringify(found.map(function (f) { return f.descriptor; })) !== before) publish();
}

function watchForms() {
  if (typeof MutationObserver !== "function") return;
  var timer = null;
  var observer = new MutationObserver(function () {
    if (timer) return;
    timer = setTimeout(function () { timer = null; scanForms(); }, 50);
  });
  var start = function () {
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["toolname", "tooldescription", "toolparamdescription", "name", "disabled", "required", "toolautosubmit"] });
    scanForms();
  };
  if (document.documentElement) start();
  else document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("DOMContentLoaded", scanForms);
}

M.webmcp = {
  docId: DOC_ID,
  nativeTesting: function () { return nativeTesting; },
  findImperative: function (name) { return provided[name] || dynamic[name] || null; },
  findForm: function (name) {
    scanForms();
    for (var i = 0; i < forms.length; i++) if (forms[i].name === name) return forms[i];
    return null;
  },
  controlsOf: controlsOf,
  publish: publish,
  list: function () {
    scanForms();
    publish();
    return M.pageToolsSnapshot().webmcp || [];
  },
};

// Installed once per window by createEngine (engine.js), before page scripts
// when the host injects the engine early: a second copy of this script only
// finds the first one's polyfill.
(M.installers = M.installers || []).push(function () {
  installPolyfill();
  watchForms();
});
