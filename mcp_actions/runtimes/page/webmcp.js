/*
 * webmcp.js — WebMCP (the W3C Web Machine Learning community group's draft)
 * for pages written to it: a ModelContext installed as document.modelContext
 * before any page script when the browser has none, so pages that
 * feature-detect it (`if (document.modelContext)`) register their tools, and
 * page polyfills that fill the slot only when it is empty (Chrome Labs' demo
 * polyfill, @mcp-b/webmcp-polyfill, @mcp-b/global's) defer to it.
 *
 * Today's API: registerTool(tool, {signal, exposedTo}) → Promise<undefined>
 * (aborting the signal withdraws the tool; exposedTo origins are checked as
 * the draft says and only widen who may see a tool: the document's own
 * agent, which we are, always does), toolchange events and ontoolchange, a
 * tool's title and readOnlyHint, and the consumer side in-page agents and
 * page runtimes use: getTools() (this document's tools, shaped as Chromium
 * answers) and executeTool(tool | name, input | inputJson, {signal}) → the
 * result as a JSON string (null when a form's submission leaves the page).
 *
 * The same object is navigator.modelContext for pages written to the first
 * drafts, with their provideContext / clearContext / unregisterTool, and
 * registerTool's promise carries the old handle's unregister(). Where the
 * slot was already taken (a native implementation, a polyfill that ran
 * earlier) ours is not installed, and the tools are read through what is
 * there (webmcp_foreign.js). Every change is published through
 * M.setPageTools("webmcp", ...): this document's registrations, its toolname
 * forms (webmcp_forms.js, unless the browser or an earlier polyfill runs
 * declarative forms), then a foreign context's tools of other names.
 */
var isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools,
  forms = M.webmcpForms,
  foreign = M.webmcpForeign;

var NAME = /^[A-Za-z0-9_.-]{1,128}$/;
var tools = {}; // name -> {tool, descriptor, from: "register" | "provide", signal?, abort?}
var installed = { document: false, navigator: false, forms: false };
var refreshing = 0;

function domError(message, name) {
  var Err = root.DOMException;
  return Err ? new Err(message, name) : new Error(message);
}

// -- tools -------------------------------------------------------------------------

function trustworthy(text) {
  var url;
  try {
    url = new URL(String(text));
  } catch (_ignored) {
    return false;
  }
  var host = url.hostname.replace(/^\[|\]$/g, "");
  return url.protocol === "https:" || url.protocol === "wss:" || url.protocol === "file:" || host === "localhost" || /\.localhost$/.test(host) || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1";
}

function checkOrigins(list, what) {
  if (list === undefined || list === null) return [];
  if (typeof list !== "object" || typeof list.length !== "number") throw new TypeError(what + " must be a list of origins");
  return Array.prototype.map.call(list, function (origin) {
    if (!trustworthy(origin)) throw domError(what + " names " + String(origin) + ", which is not a potentially trustworthy origin", "SecurityError");
    return new URL(String(origin)).origin;
  });
}

/** The checked descriptor of a page's tool; throws as the draft's registerTool rejects. */
function describe(tool) {
  if (!isObject(tool) && typeof tool !== "function") throw new TypeError("registerTool expects a tool object");
  var name = tool.name, description = tool.description;
  // As Chromium answers: a missing member is a TypeError, an empty or malformed one InvalidStateError.
  if (name === undefined || description === undefined) throw new TypeError("a tool needs a name and a description");
  if (!NAME.test(String(name))) throw domError("a tool's name must be 1 to 128 characters of A-Z, a-z, 0-9, _, - and .", "InvalidStateError");
  name = String(name);
  description = String(description);
  if (!description) throw domError("tool " + name + " needs a description", "InvalidStateError");
  if (typeof tool.execute !== "function") throw new TypeError("tool " + name + " needs an execute function");
  var schema = { type: "object", properties: {} };
  if (tool.inputSchema !== undefined) {
    var text = JSON.stringify(tool.inputSchema); // throws as the draft's serialization does
    if (text === undefined) throw new TypeError("tool " + name + ": inputSchema is not JSON");
    schema = JSON.parse(text);
    if (!isObject(schema)) throw new TypeError("tool " + name + ": inputSchema must be a JSON Schema object");
  }
  var d = { name: name, description: description, inputSchema: schema, kind: "imperative" };
  if (typeof tool.title === "string" && tool.title) d.title = tool.title;
  var ann = isObject(tool.annotations) ? tool.annotations : {};
  if (typeof ann.readOnlyHint === "boolean") d.annotations = { readOnlyHint: ann.readOnlyHint };
  return d;
}

function remove(name, entry) {
  var current = tools[name];
  if (!current || (entry && current !== entry)) return false;
  if (current.signal && current.abort) current.signal.removeEventListener("abort", current.abort);
  delete tools[name];
  return true;
}

function toolchange() {
  setTimeout(function () {
    try { context.dispatchEvent(new Event("toolchange")); } catch (_ignored) { /* a page handler threw */ }
  }, 0);
}

function changed() {
  refresh();
  toolchange();
}

function registerTool(tool, options) {
  var entry;
  var promise = new Promise(function (resolve, reject) {
    options = options === undefined || options === null ? {} : options;
    var d = describe(tool);
    var signal = options.signal;
    var exposedTo = checkOrigins(options.exposedTo, "exposedTo");
    if (signal && signal.aborted) throw signal.reason;
    if (tools[d.name]) throw domError("a tool named " + d.name + " is already registered", "InvalidStateError");
    entry = { tool: tool, descriptor: d, from: "register", exposedTo: exposedTo };
    if (signal && typeof signal.addEventListener === "function") {
      entry.signal = signal;
      entry.abort = function () {
        if (remove(d.name, entry)) changed();
        reject(signal.reason);
      };
      signal.addEventListener("abort", entry.abort);
    }
    tools[d.name] = entry;
    changed();
    setTimeout(resolve, 0); // after the toolchange event, as the draft orders them
  });
  // Pages written to the first drafts kept registerTool's {unregister()} handle.
  promise.unregister = function () {
    if (entry && remove(entry.descriptor.name, entry)) changed();
  };
  return promise;
}

function provideContext(context_) {
  var list = context_ && Array.isArray(context_.tools) ? context_.tools : [];
  var described = list.map(describe);
  var seen = {};
  described.forEach(function (d) {
    if (seen[d.name] || (tools[d.name] && tools[d.name].from === "register")) throw domError("a tool named " + d.name + " is already registered", "InvalidStateError");
    seen[d.name] = true;
  });
  Object.keys(tools).forEach(function (n) { if (tools[n].from === "provide") remove(n); });
  described.forEach(function (d, i) { tools[d.name] = { tool: list[i], descriptor: d, from: "provide", exposedTo: [] }; });
  changed();
}

// -- the consumer side: getTools and executeTool --------------------------------------------

function ownForms() {
  return installed.forms ? forms.scan() : [];
}

// A tool as getTools answers it. inputSchema is an object, as Chromium 156 answers; its
// toString() is its JSON text, so consumers written to the earlier string form
// (JSON.parse(tool.inputSchema): Chrome Labs' bistro demo, MCP-B's runtime) read it too.
function registered(d, tool) {
  var schema = jsonClone(d.inputSchema);
  var text = JSON.stringify(schema);
  Object.defineProperty(schema, "toString", { value: function () { return text; }, enumerable: false });
  var out = { name: d.name, title: d.title || "", description: d.description, inputSchema: schema, window: root, origin: String(root.location.origin) };
  var ann = tool && isObject(tool.annotations) ? tool.annotations : {};
  out.annotations = { readOnlyHint: ann.readOnlyHint === true, untrustedContentHint: ann.untrustedContentHint === true };
  return out;
}

function getTools(options) {
  return new Promise(function (resolve) {
    // Other origins' tools (fromOrigins) would live in other documents: this registry holds only this one's.
    checkOrigins(options && options.fromOrigins, "fromOrigins");
    var out = Object.keys(tools).map(function (n) { return registered(tools[n].descriptor, tools[n].tool); });
    ownForms().forEach(function (f) { if (!tools[f.name]) out.push(registered(f.descriptor)); });
    out.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
    setTimeout(function () { resolve(out); }, 0);
  });
}

/**
 * Run one of this document's tools: {kind: "imperative", value} with what its
 * execute answered, or {kind: "declarative", output} from its form; null when
 * this document has no tool of that name.
 */
function runOwn(name, input, client) {
  var entry = tools[name];
  if (entry) return Promise.resolve().then(function () { return entry.tool.execute(input, client); }).then(function (value) { return { kind: "imperative", value: value }; });
  var form = installed.forms ? forms.find(name) : null;
  if (form) return Promise.resolve().then(function () { return forms.run(form, input); }).then(function (output) { return { kind: "declarative", output: output }; });
  return null;
}

var localClient = {
  // An in-page agent's user is the one at this page: the page asks them itself.
  requestUserInteraction: function (callback) {
    if (typeof callback !== "function") return Promise.reject(new TypeError("requestUserInteraction expects a function"));
    return Promise.resolve().then(function () { return callback(); });
  },
};

function executeTool(tool, input, options) {
  return Promise.resolve().then(function () {
    var name = typeof tool === "string" ? tool : tool && tool.name;
    var signal = options && options.signal;
    if (signal && signal.aborted) throw signal.reason;
    var args = input === undefined || input === null || input === "" ? {} : typeof input === "string" ? JSON.parse(input) : input;
    if (!isObject(args)) throw new TypeError("a tool's input must be a JSON object");
    var running = runOwn(String(name), jsonClone(args), localClient);
    if (!running) throw domError("this document has no tool named " + name, "UnknownError");
    return running.then(function (done) {
      if (done.kind === "imperative") return done.value === undefined ? "null" : JSON.stringify(done.value);
      if (done.output.navigating) return null; // the answer is the next document's, as in Chromium
      return JSON.stringify(done.output.result === undefined ? done.output : done.output.result);
    });
  });
}

// -- the object pages see ------------------------------------------------------------------

var context = new EventTarget();
var proto = Object.create(EventTarget.prototype);
var ontoolchange = null;
Object.defineProperties(proto, {
  registerTool: { value: registerTool, writable: true, configurable: true },
  getTools: { value: getTools, writable: true, configurable: true },
  executeTool: { value: executeTool, writable: true, configurable: true },
  // The first drafts' calls, for pages written to them.
  unregisterTool: { value: function (name) { if (remove(String(name))) changed(); }, writable: true, configurable: true },
  provideContext: { value: provideContext, writable: true, configurable: true },
  clearContext: { value: function () { Object.keys(tools).forEach(function (n) { remove(n); }); changed(); }, writable: true, configurable: true },
  ontoolchange: {
    configurable: true,
    get: function () { return ontoolchange; },
    set: function (fn) {
      if (ontoolchange) context.removeEventListener("toolchange", ontoolchange);
      ontoolchange = typeof fn === "function" ? fn : null;
      if (ontoolchange) context.addEventListener("toolchange", ontoolchange);
    },
  },
});
if (typeof Symbol === "function" && Symbol.toStringTag) Object.defineProperty(proto, Symbol.toStringTag, { value: "ModelContext", configurable: true });
Object.setPrototypeOf(context, proto);

function present(getter) {
  try {
    return !!getter();
  } catch (_ignored) {
    return true; // a getter that throws belongs to someone: leave it alone
  }
}

function define(target, key, getter) {
  try {
    Object.defineProperty(target, key, { configurable: true, enumerable: true, get: getter });
    return true;
  } catch (_ignored) {
    return false;
  }
}

function install() {
  var doc = root.document, nav = root.navigator;
  if (root.Document && !present(function () { return doc.modelContext; })) {
    installed.document = define(root.Document.prototype, "modelContext", function () { return this === doc ? context : undefined; });
  }
  if (nav && !present(function () { return nav.modelContext; })) {
    installed.navigator = define(Object.getPrototypeOf(nav), "modelContext", function () { return context; });
  }
  // Declarative forms are ours unless the browser (or a polyfill before us) already runs them.
  installed.forms = forms.installSubmitEvent();
  if (installed.forms) {
    forms.listenToSubmits();
    forms.watch(refresh);
  }
  foreign.start(context, refresh);
  refresh();
}

// -- publishing ----------------------------------------------------------------------------

function ownList() {
  var list = Object.keys(tools).map(function (n) { return tools[n].descriptor; });
  ownForms().forEach(function (f) { if (!tools[f.name]) list.push(f.descriptor); });
  return list;
}

/** Publish the current list (ours, then foreign tools of other names); resolves with it. */
function refresh() {
  var mine = ++refreshing;
  if (!foreign.present()) {
    var list = ownList();
    setPageTools("webmcp", list);
    return Promise.resolve(list);
  }
  return foreign.list().then(function (theirs) {
    var list = ownList();
    var names = {};
    list.forEach(function (d) { names[d.name] = true; });
    theirs.forEach(function (d) { if (!names[d.name]) { names[d.name] = true; list.push(d); } });
    if (mine === refreshing) setPageTools("webmcp", list); // a slower earlier listing never overwrites a newer one
    return list;
  });
}

M.webmcp = {
  docId: forms.docId,
  context: context,
  installed: installed,
  runOwn: runOwn,
  has: function (name) { return !!tools[name] || !!(installed.forms && forms.find(name)); },
  refresh: refresh,
};

// Installed once per window by createEngine (engine.js), before page scripts
// when the host injects the engine early: a second copy of this script only
// finds the first one's context.
(M.installers = M.installers || []).push(install);
