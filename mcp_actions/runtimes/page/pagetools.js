/*
 * pagetools.js — The registry of tools a page declares through a neighbouring
 * protocol (WebMCP, ABP, WAB), shared by those adapters: each adapter
 * publishes its current list with M.setPageTools(protocol, tools); hosts
 * subscribe with engine.onPageTools(fn) and receive the whole snapshot
 * {protocol: [tool, ...]} (coalesced to one report per task) whenever a
 * list changes, and once after the document has loaded.
 */
var isObject = M.isObject;

var pageTools = {}; // protocol -> [tool descriptors] (JSON-ready)
var listeners = [];
var scheduled = false;
var lastSent = null;

function snapshot() {
  var out = {};
  Object.keys(pageTools).forEach(function (protocol) {
    out[protocol] = pageTools[protocol].slice();
  });
  return out;
}

function flush() {
  scheduled = false;
  var snap = snapshot();
  var text = JSON.stringify(snap);
  if (text === lastSent) return; // nothing new since the last report
  lastSent = text;
  listeners.forEach(function (fn) {
    try {
      fn(JSON.parse(text));
    } catch (_ignored) { /* a failing host callback must not break the page */ }
  });
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  // One report per burst of registrations (a page registering ten tools in a loop).
  setTimeout(flush, 0);
}

/** Replace one protocol's tools (descriptors are plain JSON: name, description, inputSchema, ...). */
function setPageTools(protocol, tools) {
  var list = Array.isArray(tools) ? tools.filter(isObject) : [];
  if (list.length) pageTools[protocol] = list;
  else delete pageTools[protocol];
  schedule();
}

/**
 * Hear every change of the page's tools. The callback gets the full
 * snapshot; it is called at once with the current one (even when empty, so
 * a host learns that a new document has none).
 */
function onPageTools(fn) {
  if (typeof fn !== "function") return 0;
  listeners.push(fn);
  try {
    fn(snapshot());
  } catch (_ignored) { /* see flush */ }
  return listeners.length;
}

M.setPageTools = setPageTools;
M.onPageTools = onPageTools;
M.pageToolsSnapshot = snapshot;
