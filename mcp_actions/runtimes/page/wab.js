/*
 * wab.js — Web Agent Bridge commands, run from inside the page.
 *
 * wab.execute {command, params, http?, bridge?} (or {command, ...params} as a
 * converted map binds it) runs one command one of two ways:
 * - http {url, body}: the site's HTTP execute endpoint (a discovery
 *   document's endpoints.execute, or the 1.0 text's {base_url}/execute),
 *   POSTed with the page's own fetch: same origin only, with the user's
 *   cookies and session. body "action" sends {action, params} (WAB 1.2+),
 *   "name" sends {name, data} (WAB 1.0). The answer {success, result, error}
 *   gives result, or fails;
 * - otherwise the page's JS bridge: window.AICommands.execute (WAB 1.0 and
 *   the ai-agent-bridge script) or window.__wab_protocol.execute (the WAB
 *   browser client 2.x), waiting up to 5 s for it (wab:ready on window or
 *   document, or polling); bridge names which one.
 * A failure (a thrown error with a code, an answer with success: false or
 * type: "error", an error-only answer, an HTTP error status) fails with
 * handler_failed and the WAB code in evidence.wab_code (the site's own, else
 * one read from the HTTP status or the answer's shape: 401
 * AUTHENTICATION_REQUIRED, 403 PERMISSION_DENIED, 404 or an "available" list
 * without the command ACTION_NOT_FOUND, 429 or a retryAfter RATE_LIMITED,
 * other 4xx INVALID_PARAMS, 408/504 TIMEOUT, 5xx BRIDGE_ERROR, otherwise
 * EXECUTION_FAILED; a request that never got an answer TRANSPORT_ERROR), plus
 * retry_after_s and http_status where known; the host maps it onto its stable
 * codes. Permissions and the rate limit are enforced by the host before a
 * command reaches this primitive.
 *
 * The actions a page's own bridge lists (window.__wab_protocol.actions, or
 * AICommands.getActions()) are published as page tools ("wab": {name,
 * description, params, trigger?, bridge}); the host turns their params into
 * input schemas.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools;

var READY_WAIT_MS = 5000;
var WATCH_MS = 5000; // how long after install the page is watched for a bridge that lists actions
var MAX_ACTIONS = 200;
var BRIDGES = ["AICommands", "__wab_protocol"]; // the order tried when a command names none
var OWN_ARGS = ["command", "params", "http", "bridge"];
var ENVELOPE = ["success", "type", "action", "wab_version", "duration_ms", "id"];

function bridgeObject(which) {
  var names = which ? [which] : BRIDGES;
  for (var i = 0; i < names.length; i++) {
    var candidate = root[names[i]];
    if (candidate && (typeof candidate === "object" || typeof candidate === "function") && typeof candidate.execute === "function") {
      return { name: names[i], object: candidate };
    }
  }
  return null;
}

function whenReady(which, timeoutMs) {
  var ready = bridgeObject(which);
  if (ready) return Promise.resolve(ready);
  return new Promise(function (resolve) {
    var done = false;
    function finish() {
      if (done) return;
      done = true;
      root.removeEventListener("wab:ready", check);
      document.removeEventListener("wab:ready", check);
      clearInterval(timer);
      clearTimeout(limit);
      resolve(bridgeObject(which));
    }
    function check() { if (bridgeObject(which)) finish(); }
    // The 1.0 text fires wab:ready on window, the ai-agent-bridge script on document.
    root.addEventListener("wab:ready", check);
    document.addEventListener("wab:ready", check);
    var timer = setInterval(check, 100);
    var limit = setTimeout(finish, timeoutMs);
  });
}

// -- answers -----------------------------------------------------------------------

function text(value) {
  if (typeof value === "string") return value;
  if (isObject(value) && typeof value.message === "string") return value.message;
  return "";
}

function retryAfterOf(body, header) {
  var candidates = [body && body.retryAfter, body && isObject(body.error) && body.error.retryAfter, body && isObject(body.error) && isObject(body.error.details) && body.error.details.retryAfter];
  for (var i = 0; i < candidates.length; i++) if (typeof candidates[i] === "number" && isFinite(candidates[i])) return candidates[i];
  var seconds = header ? Number(header) : NaN;
  return isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** The failure an answer reports, or null when it is a success. */
function failureOf(body) {
  if (!isObject(body)) return null;
  if (body.success === false || body.type === "error") return body;
  // An answer that is only an error (the WAB server's rule: a result with error is a failure).
  if (body.success !== true && body.type !== "success" && (text(body.error) || (isObject(body.error) && typeof body.error.code === "string"))) return body;
  return null;
}

function wabCode(body, status, command, retryAfter) {
  var err = body && body.error;
  if (isObject(err) && typeof err.code === "string" && err.code) return err.code;
  if (body && typeof body.code === "string" && body.code) return body.code;
  if (body && isObject(body.result) && typeof body.result.code === "string" && body.result.code) return body.result.code;
  if (status === 401) return "AUTHENTICATION_REQUIRED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "ACTION_NOT_FOUND";
  if (status === 429 || retryAfter !== null) return "RATE_LIMITED";
  if (body && Array.isArray(body.available) && body.available.indexOf(command) < 0) return "ACTION_NOT_FOUND";
  if (status === 408 || status === 504) return "TIMEOUT";
  if (status >= 500) return "BRIDGE_ERROR";
  if (status >= 400) return "INVALID_PARAMS";
  return "EXECUTION_FAILED";
}

function failWith(command, body, status, transport, retryHeader) {
  var retry = retryAfterOf(body, retryHeader);
  var evidence = { command: command, transport: transport, wab_code: wabCode(body, status, command, retry) };
  if (status) evidence.http_status = status;
  if (retry !== null) evidence.retry_after_s = retry;
  if (body && Array.isArray(body.available)) evidence.available = body.available.slice(0, 50).map(String);
  if (body && isObject(body.error) && body.error.details !== undefined) {
    try { evidence.details = jsonClone(body.error.details); } catch (_ignored) { /* not JSON: left out */ }
  }
  var message = text(body && body.error) || text(body && body.result && body.result.error) || text(body && body.message);
  if (!message) message = "WAB command " + command + " failed" + (status ? " (HTTP " + status + ")" : "");
  fail("handler_failed", message, evidence);
}

function valueOf(result) {
  return result === undefined ? null : jsonClone(result);
}

// -- the JS bridge ---------------------------------------------------------------------

function viaBridge(command, params, which, call) {
  return whenReady(which, READY_WAIT_MS).then(function (bridge) {
    // The wait for the page's bridge may outlast the call: a cancelled call runs no command (callcontext.js).
    if (call) call.check();
    if (!bridge) {
      var where = which ? "window." + which : "window.AICommands or window.__wab_protocol";
      fail("missing_handler", "the page has no WAB bridge (" + where + ") after " + READY_WAIT_MS + " ms", { handler: where, command: command });
    }
    var value;
    try {
      value = bridge.object.execute(command, jsonClone(params));
    } catch (err) {
      value = Promise.reject(err);
    }
    return Promise.resolve(value).then(
      function (result) {
        var failed = failureOf(result);
        if (failed) failWith(command, failed, 0, "js_global");
        // The 1.0 text's response envelope {type: "success", result} gives its result.
        if (isObject(result) && result.type === "success" && "result" in result) return valueOf(result.result);
        return valueOf(result);
      },
      function (err) {
        var evidence = { command: command, transport: "js_global" };
        if (err && typeof err.code === "string") evidence.wab_code = err.code;
        var retry = err && (err.retryAfter !== undefined ? err.retryAfter : err.details && err.details.retryAfter);
        if (typeof retry === "number") evidence.retry_after_s = retry;
        fail("handler_failed", String((err && err.message) || err), evidence);
      }
    );
  });
}

// -- the HTTP endpoint -------------------------------------------------------------------

function viaHttp(command, params, http) {
  var target;
  try {
    target = new URL(String(http.url), root.location.href);
  } catch (_bad) {
    fail("invalid_input", "the WAB execute endpoint is not a URL: " + String(http.url), { command: command, field: "http.url" });
  }
  if (target.origin !== root.location.origin) {
    // Only the page's own site gets the user's session: never another origin.
    fail("permission_denied", "the WAB execute endpoint " + target.href + " is not on this page's origin " + root.location.origin,
      { command: command, transport: "http", url: target.href, wab_code: "ORIGIN_MISMATCH" });
  }
  if (typeof root.fetch !== "function") fail("capability_unavailable", "this page has no fetch", { command: command, capability: "fetch" });
  var payload = http.body === "name" ? { name: command, data: params } : { action: command, params: params };
  return root.fetch(target.href, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-WAB-Version": "1.0" },
    body: JSON.stringify(payload),
  }).then(
    function (response) {
      return response.text().then(function (raw) {
        var body = null;
        try { body = raw ? JSON.parse(raw) : null; } catch (_notJson) { body = null; }
        var status = response.status;
        var retryHeader = response.headers.get("Retry-After");
        if (!isObject(body)) {
          if (response.ok) failWith(command, { error: "the site's WAB endpoint answered something other than a JSON object", code: "BRIDGE_ERROR" }, status, "http", retryHeader);
          failWith(command, null, status, "http", retryHeader);
        }
        if (!response.ok || failureOf(body)) failWith(command, body, status, "http", retryHeader);
        if ("result" in body) return valueOf(body.result);
        var rest = {};
        Object.keys(body).forEach(function (k) { if (ENVELOPE.indexOf(k) < 0) rest[k] = body[k]; });
        return valueOf(rest);
      });
    },
    function (err) {
      fail("handler_failed", "the WAB execute endpoint could not be reached: " + String((err && err.message) || err),
        { command: command, transport: "http", url: target.href, wab_code: "TRANSPORT_ERROR" });
    }
  );
}

function execute(args, call) {
  var command = args.command;
  if (typeof command !== "string" || !command) fail("invalid_input", "wab.execute needs the command's name", { field: "command" });
  // {command, params} from the host; {command, ...params} from a converted map's binding.
  var params = {};
  if (isObject(args.params)) params = args.params;
  else Object.keys(args).forEach(function (k) { if (OWN_ARGS.indexOf(k) < 0) params[k] = args[k]; });
  params = jsonClone(params);
  if (isObject(args.http) && typeof args.http.url === "string" && args.http.url) return viaHttp(command, params, args.http);
  var which = BRIDGES.indexOf(args.bridge) >= 0 ? args.bridge : null;
  return viaBridge(command, params, which, call);
}

// -- the actions a page's bridge lists ------------------------------------------------------

function describe(action, bridge) {
  if (!isObject(action) || typeof action.name !== "string" || !action.name) return null;
  var d = { name: action.name, description: typeof action.description === "string" ? action.description : "", bridge: bridge };
  ["params", "trigger", "category"].forEach(function (key) {
    if (action[key] === undefined || typeof action[key] === "function") return;
    try { d[key] = jsonClone(action[key]); } catch (_ignored) { /* not JSON: left out */ }
  });
  return d;
}

function listed() {
  var lists = [];
  var proto = root.__wab_protocol;
  if (proto && typeof proto.execute === "function" && Array.isArray(proto.actions)) {
    lists.push(Promise.resolve({ bridge: "__wab_protocol", actions: proto.actions }));
  }
  var commands = root.AICommands;
  if (commands && typeof commands.execute === "function" && typeof commands.getActions === "function") {
    var got;
    try { got = commands.getActions(); } catch (_ignored) { got = []; }
    lists.push(Promise.resolve(got).then(function (actions) { return { bridge: "AICommands", actions: actions }; }, function () { return { bridge: "AICommands", actions: [] }; }));
  }
  return Promise.all(lists).then(function (found) {
    var seen = {};
    var out = [];
    found.forEach(function (entry) {
      (Array.isArray(entry.actions) ? entry.actions : []).forEach(function (action) {
        var d = describe(action, entry.bridge);
        if (d && !seen[d.name] && out.length < MAX_ACTIONS) {
          seen[d.name] = true;
          out.push(d);
        }
      });
    });
    return out;
  });
}

var publishing = 0;
var published = "[]"; // what was last handed to setPageTools (a page without a bridge never reports)
function publish() {
  var mine = ++publishing; // a slower earlier listing must not overwrite a newer one
  return listed().then(function (tools) {
    var text = JSON.stringify(tools);
    if (mine !== publishing || text === published) return;
    published = text;
    setPageTools("wab", tools);
  }, function (err) {
    console.warn("[mcp-actions] listing the page's WAB actions failed:", String((err && err.message) || err));
  });
}

function watchForBridge() {
  var started = Date.now();
  var timer = setInterval(function () {
    publish();
    if (Date.now() - started > WATCH_MS) clearInterval(timer);
  }, 250);
  var again = function () { publish(); };
  root.addEventListener("wab:ready", again);
  document.addEventListener("wab:ready", again);
  document.addEventListener("DOMContentLoaded", again);
  root.addEventListener("load", again);
}

definePrimitive("wab.execute", execute, ["command"]);

(M.installers = M.installers || []).push(function () {
  watchForBridge();
});
