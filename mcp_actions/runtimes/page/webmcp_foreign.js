/*
 * webmcp_foreign.js — Tools held by a WebMCP implementation that is not ours:
 * the browser's own (document.modelContext natively, or Chrome's testing API
 * navigator.modelContextTesting), a page polyfill that ran before the engine
 * (a /runtime.js embedded after it, a bookmarklet), or one that replaced
 * document.modelContext after ours without passing its registrations on.
 *
 * Such a context is read through its consumer side, never patched:
 *   - getTools() → [{name, title?, description, inputSchema (an object, as
 *     Chromium 156 answers, or a JSON string, as earlier builds and the MCP-B
 *     polyfills do), annotations?, window, origin}] and executeTool(tool,
 *     input, {signal}) → a JSON string, null, or a value (Chromium's
 *     extension, the MCP-B runtimes, Chrome Labs' demo polyfill). Chromium
 *     takes the input as an object and MCP-B as a JSON string: it is given an
 *     object whose toString() is its JSON text, which both read;
 *   - older MCP-B runtimes: listTools() and executeTool(name, args);
 *   - navigator.modelContextTesting (Chrome's earlier testing API, or MCP-B's
 *     shim of it): listTools() and executeTool(name, inputJson, {signal}).
 * Its toolchange events (or registerToolsChangedCallback) list it again. A
 * malformed input schema leaves that tool out.
 */
var isObject = M.isObject,
  jsonClone = M.jsonClone;

var LIST_WAIT_MS = 1500;
var RECHECK_MS = [500, 2000, 5000];
var ours = null; // our ModelContext: never read as foreign
var changed = function () {};
var sources = []; // [{api, label, kind, list(), call(item, input, signal)}]
var owners = {}; // tool name -> {source, item}: who answers a call, from the last listing
var subscribed = [];

function read(getter) {
  try {
    return getter();
  } catch (_ignored) {
    return null;
  }
}

function isNative(fn) {
  try {
    return typeof fn === "function" && /\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));
  } catch (_ignored) {
    return false;
  }
}

function parseSchema(schema) {
  if (schema === undefined || schema === null || schema === "") return { type: "object", properties: {} };
  if (typeof schema === "string") {
    try {
      schema = JSON.parse(schema);
    } catch (_ignored) {
      return null;
    }
  }
  return isObject(schema) ? jsonClone(schema) : null;
}

function descriptorOf(item, kind) {
  if (!item || typeof item.name !== "string" || !item.name) return null;
  var schema = parseSchema(item.inputSchema);
  if (!schema) return null;
  var d = { name: item.name, description: typeof item.description === "string" ? item.description : "", inputSchema: schema, kind: kind };
  if (typeof item.title === "string" && item.title) d.title = item.title;
  if (isObject(item.annotations) && typeof item.annotations.readOnlyHint === "boolean") d.annotations = { readOnlyHint: item.annotations.readOnlyHint };
  return d;
}

/** `input` as an object whose string form is its JSON text (see the header). */
function dual(input) {
  var copy = jsonClone(input);
  var text = JSON.stringify(copy);
  Object.defineProperty(copy, "toString", { value: function () { return text; }, enumerable: false });
  return copy;
}

function options(signal) {
  return signal ? { signal: signal } : undefined;
}

function contextSource(api, label) {
  var kind = isNative(api.registerTool) || isNative(api.getTools) ? "native" : "page";
  if (typeof api.getTools === "function") {
    return {
      api: api, label: label, kind: kind,
      list: function () { return api.getTools(); },
      call: function (item, input, signal) {
        if (typeof api.executeTool !== "function") throw new Error(label + " has no executeTool");
        return api.executeTool(item, dual(input), options(signal));
      },
    };
  }
  if (typeof api.listTools === "function" && typeof api.executeTool === "function") {
    return {
      api: api, label: label, kind: kind,
      list: function () { return api.listTools(); },
      call: function (item, input) { return api.executeTool(item.name, jsonClone(input)); },
    };
  }
  return null;
}

function testingSource(api) {
  if (typeof api.listTools !== "function" || typeof api.executeTool !== "function") return null;
  return {
    api: api, label: "navigator.modelContextTesting", kind: isNative(api.listTools) ? "native" : "page",
    list: function () { return api.listTools(); },
    call: function (item, input, signal) { return api.executeTool(item.name, JSON.stringify(input), options(signal)); },
  };
}

function subscribe(api) {
  if (subscribed.indexOf(api) >= 0) return;
  subscribed.push(api);
  var hear = function () { changed(); };
  try {
    if (typeof api.addEventListener === "function") api.addEventListener("toolchange", hear);
    else if (typeof api.registerToolsChangedCallback === "function") api.registerToolsChangedCallback(hear);
  } catch (_ignored) { /* a context that cannot be listened to is still listed on every change of ours */ }
}

/** Find the contexts that are not ours; true when they differ from the last look. */
function detect() {
  var found = [];
  var doc = read(function () { return document.modelContext; });
  if (doc && typeof doc === "object" && doc !== ours) {
    found.push(contextSource(doc, "document.modelContext"));
  } else {
    // Only a page that kept our document slot may hold an older registry on navigator
    // (reading navigator.modelContext where it is an alias makes some polyfills warn).
    var nav = read(function () { return root.navigator.modelContext; });
    if (nav && typeof nav === "object" && nav !== ours) found.push(contextSource(nav, "navigator.modelContext"));
  }
  var testing = read(function () { return root.navigator.modelContextTesting; });
  if (testing && typeof testing === "object") found.push(testingSource(testing));
  found = found.filter(Boolean);
  var before = sources.map(function (s) { return s.api; });
  var differs = found.length !== before.length || found.some(function (s, i) { return s.api !== before[i]; });
  sources = found;
  sources.forEach(function (s) { subscribe(s.api); });
  return differs;
}

function settle(promise) {
  return new Promise(function (resolve) {
    var timer = setTimeout(function () { resolve([]); }, LIST_WAIT_MS);
    Promise.resolve(promise).then(function (items) {
      clearTimeout(timer);
      resolve(items && typeof items.length === "number" ? Array.prototype.slice.call(items) : []);
    }, function (err) {
      clearTimeout(timer);
      console.warn("[mcp-actions] reading WebMCP tools failed:", String((err && err.message) || err));
      resolve([]);
    });
  });
}

/** The foreign contexts' tools as descriptors (the first context naming a tool keeps it). */
function list() {
  detect();
  var current = sources.slice();
  return Promise.all(current.map(function (s) { return settle(read(function () { return s.list(); })); })).then(function (lists) {
    var next = {};
    var out = [];
    lists.forEach(function (items, i) {
      items.forEach(function (item) {
        var d = descriptorOf(item, current[i].kind);
        if (!d || next[d.name]) return;
        next[d.name] = { source: current[i], item: item };
        out.push(d);
      });
    });
    owners = next;
    return out;
  });
}

function parseResult(out) {
  if (out === undefined) return null;
  if (typeof out !== "string") return out;
  try {
    return JSON.parse(out);
  } catch (_ignored) {
    return out;
  }
}

/** Run the foreign tool `name` (a promise of its result), or null when no foreign context lists it. */
function call(name, input, signal) {
  var owner = owners[name];
  if (!owner) return null;
  return Promise.resolve()
    .then(function () { return owner.source.call(owner.item, input, signal); })
    .then(parseResult);
}

/** Start watching for foreign contexts; onChange() is called when they or their tools change. */
function start(ourContext, onChange) {
  ours = ourContext;
  changed = onChange;
  var recheck = function () { if (detect()) changed(); };
  detect();
  document.addEventListener("DOMContentLoaded", recheck);
  root.addEventListener("load", function () {
    recheck();
    RECHECK_MS.forEach(function (ms) { setTimeout(recheck, ms); });
  });
}

M.webmcpForeign = {
  start: start,
  present: function () { return sources.length > 0; },
  labels: function () { return sources.map(function (s) { return s.label + " (" + s.kind + ")"; }); },
  list: list,
  call: call,
};
