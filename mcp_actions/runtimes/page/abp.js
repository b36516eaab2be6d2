/*
 * abp.js — Agentic Browser Protocol apps (window.abp, announced or not by
 * <link rel="abp-manifest">) as page tools.
 *
 * When window.abp appears, a session is initialised with our agent info and
 * the features we support (notifications, progress, elicitation); the app's
 * available capabilities are published through M.setPageTools("abp", ...)
 * and listed again whenever the app says they changed (onCapabilitiesChanged,
 * window.__abp_capabilities_changed, or a notification of that name).
 * The agent callbacks of the spec are installed as window.__abp_notification,
 * __abp_progress, __abp_elicitation and __abp_capabilities_changed (and as
 * the abp.on* handlers: assigned where the app leaves them empty, handed to
 * the app's own onNotification(fn)-style registration methods where it has
 * them): progress of a call becomes a call_progress message, an elicitation
 * an input_request whose answer goes back to the app as an
 * ElicitationResponse (callchannel.js). abp.call {capability, params,
 * call_id, abp_call_id} runs abp.call(capability, params, {callId,
 * progressToken, signal}); a failed ABPResponse fails with handler_failed and
 * the ABP code in evidence.abp_code. A call the app refuses because the
 * session is gone (NOT_INITIALIZED, SESSION_EXPIRED, SESSION_INVALID) is run
 * once more on a new session. The caller's cancel aborts the call's
 * AbortSignal and reaches abp.cancel(callId, reason); leaving the page ends
 * the session with abp.shutdown.
 *
 * Only an object with initialize() and call() functions is an ABP app: a
 * window.abp of another framework (ASP.NET Boilerplate's abp.js defines one)
 * is left untouched.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  setPageTools = M.setPageTools,
  sendProgress = M.sendProgress,
  requestInput = M.requestInput,
  onCancel = M.onCancel;

var AGENT = { name: "mcp-actions", version: M.VERSION };
var PROTOCOL_VERSION = "0.1";
var FEATURES = { notifications: true, progress: true, elicitation: true };
var ALLOWED_REQUESTS = ["elicitation/input", "elicitation/preference", "elicitation/confirm", "elicitation/select"];
var WAIT_MS = 10000; // how long a page with an abp-manifest link is watched for window.abp

var state = { abp: null, session: null, starting: null, listing: 0, ended: false, wired: null };
// Codes under which the app has no session for the call: initialise again and call once more.
var SESSION_GONE = ["NOT_INITIALIZED", "SESSION_EXPIRED", "SESSION_INVALID"];
var running = []; // calls in flight, oldest first: {bridgeId, callId}

function appObject() {
  var abp = root.abp;
  return abp && typeof abp === "object" && typeof abp.initialize === "function" && typeof abp.call === "function" ? abp : null;
}

function errorText(err) {
  return String((err && err.message) || err || "failed");
}

// -- capabilities ---------------------------------------------------------------

function descriptor(cap) {
  var d = { name: String(cap.name), description: typeof cap.description === "string" ? cap.description : "" };
  d.inputSchema = isObject(cap.inputSchema) ? jsonClone(cap.inputSchema) : { type: "object", properties: {} };
  if (isObject(cap.outputSchema)) d.outputSchema = jsonClone(cap.outputSchema);
  if (cap.experimental === true) d.experimental = true;
  return d;
}

function usable(cap) {
  return isObject(cap) && typeof cap.name === "string" && cap.name && cap.available !== false && cap.deprecated !== true;
}

function listCapabilities(abp) {
  if (typeof abp.listCapabilities === "function") return Promise.resolve(abp.listCapabilities());
  // No listing: describe what initialize summarised.
  var summary = state.session && Array.isArray(state.session.capabilities) ? state.session.capabilities : [];
  if (typeof abp.describeCapability !== "function") return Promise.resolve(summary);
  return Promise.all(summary.map(function (s) {
    return Promise.resolve(abp.describeCapability(s.name)).then(function (full) { return full ? Object.assign({}, full, { available: s.available }) : s; });
  }));
}

function relist() {
  var abp = state.abp;
  if (!abp || state.ended) return Promise.resolve();
  var mine = ++state.listing; // a slower earlier listing must not overwrite a newer one
  return listCapabilities(abp).then(function (caps) {
    if (mine !== state.listing || state.abp !== abp) return;
    setPageTools("abp", (Array.isArray(caps) ? caps : []).filter(usable).map(descriptor));
  }, function (err) {
    console.warn("[mcp-actions] ABP listCapabilities failed:", errorText(err));
  });
}

// -- agent callbacks (app → agent) --------------------------------------------------

function callFor(operationId) {
  for (var i = running.length - 1; i >= 0; i--) if (running[i].callId === operationId) return running[i];
  // An app that names its operation otherwise: the only call in flight is the one.
  return running.length === 1 ? running[0] : null;
}

function onProgress(info) {
  if (!isObject(info)) return;
  var call = callFor(info.operationId);
  if (!call) return;
  var progress = typeof info.progress === "number" ? info.progress : info.percentage;
  var total = info.total;
  if (typeof total !== "number" && typeof info.percentage === "number" && typeof info.progress !== "number") total = 100;
  if (typeof progress !== "number" || !isFinite(progress)) return;
  sendProgress(call.bridgeId, progress, total, info.status || info.stage || "");
}

function refusal(code, message) {
  return { success: false, error: { code: code, message: message, retryable: false } };
}

function onElicitation(request) {
  if (!isObject(request) || typeof request.method !== "string") return Promise.resolve(refusal("INVALID_PARAMS", "an elicitation request needs a method"));
  var params = isObject(request.params) ? request.params : {};
  var call = (typeof params.callId === "string" && callFor(params.callId)) || running[running.length - 1];
  if (!call) return Promise.resolve(refusal("NOT_SUPPORTED", "elicitation is only possible while the agent's call is running"));
  var asked = { protocol: "abp", method: request.method, params: jsonClone(params), capability: call.capability };
  return requestInput(call.bridgeId, asked, typeof request.timeout === "number" ? request.timeout : 0).then(function (answer) {
    if (answer.error) return refusal(answer.error.code === "handler_timeout" ? "TIMEOUT" : "NOT_SUPPORTED", String(answer.error.message || "the agent cannot ask"));
    return isObject(answer.response) ? answer.response : refusal("OPERATION_FAILED", "the agent's answer is not an ElicitationResponse");
  });
}

function onNotification(event, data) {
  var name = isObject(event) ? event.event || event.type || event.method : event;
  if (name === "__abp_capabilities_changed" || name === "notifications/capabilities/changed" || name === "capabilities/changed") relist();
  else if (isObject(event) && event.type === "progress") onProgress(event.payload || data);
}

function onCapabilitiesChanged() {
  relist();
}

function installCallbacks() {
  var callbacks = {
    __abp_notification: onNotification,
    __abp_progress: onProgress,
    __abp_elicitation: onElicitation,
    __abp_capabilities_changed: onCapabilitiesChanged,
  };
  Object.keys(callbacks).forEach(function (name) {
    if (root[name] !== undefined) return;
    try {
      Object.defineProperty(root, name, { value: callbacks[name], enumerable: false, configurable: true, writable: true });
    } catch (_ignored) { /* a frozen window: the on* handlers still work */ }
  });
}

function setHandlers(abp) {
  if (state.wired === abp) return; // once per app object: a registration method must not hear us twice
  state.wired = abp;
  var handlers = { onNotification: onNotification, onProgress: onProgress, onElicitation: onElicitation, onCapabilitiesChanged: onCapabilitiesChanged };
  Object.keys(handlers).forEach(function (key) {
    try {
      // The API reference has the agent set these handlers; apps following the MCP bridge's
      // wiring offer them as methods that take the agent's callback.
      if (typeof abp[key] === "function") abp[key](handlers[key]);
      else abp[key] = handlers[key];
    } catch (_ignored) { /* read-only or refused: the window callbacks remain */ }
  });
}

// -- the session -------------------------------------------------------------------

function start() {
  var abp = appObject();
  if (!abp) return Promise.resolve(null);
  if (state.abp === abp && state.starting) return state.starting;
  state.abp = abp;
  state.session = null;
  state.ended = false;
  setHandlers(abp);
  state.starting = Promise.resolve()
    .then(function () {
      return abp.initialize({
        agent: jsonClone(AGENT),
        protocolVersion: typeof abp.protocolVersion === "string" ? abp.protocolVersion : PROTOCOL_VERSION,
        features: jsonClone(FEATURES),
        agentCapabilities: { allowedRequests: ALLOWED_REQUESTS.slice() },
      });
    })
    .then(function (result) {
      state.session = isObject(result) ? result : {};
      return relist();
    })
    .then(function () { return abp; }, function (err) {
      console.warn("[mcp-actions] ABP initialize failed:", errorText(err));
      state.starting = null;
      return null;
    });
  return state.starting;
}

function shutdown(reason) {
  var abp = state.abp;
  if (!abp || state.ended || !state.session) return Promise.resolve(false);
  state.ended = true;
  running.slice().forEach(function (call) { cancelCall(call, reason); });
  return Promise.resolve()
    .then(function () { return typeof abp.shutdown === "function" ? abp.shutdown({ reason: reason }) : null; })
    .then(function () { return true; }, function () { return false; });
}

function watchForApp() {
  var started = Date.now();
  // Looked for once the short watch is over, not at every tick: on a page of thousands of
  // elements each query walks them all, ten times a second, while the agent acts there.
  var linked = null;
  var timer = setInterval(function () {
    if (appObject()) {
      if (state.abp !== appObject()) start();
      clearInterval(timer);
      return;
    }
    var waited = Date.now() - started;
    if (waited <= WAIT_MS / 4) return;
    if (linked === null) linked = !!(document.querySelector && document.querySelector('link[rel~="abp-manifest"]'));
    if (!linked || waited > WAIT_MS) clearInterval(timer);
  }, 100);
  var check = function () { if (appObject() && state.abp !== appObject()) start(); };
  document.addEventListener("DOMContentLoaded", check);
  root.addEventListener("load", check);
  root.addEventListener("pagehide", function () { shutdown("page unloading"); });
}

// -- calls -------------------------------------------------------------------------

function cancelCall(call, reason) {
  if (call.controller && !call.controller.signal.aborted) {
    try {
      call.controller.abort(reason);
    } catch (_ignored) { /* an app's abort listener threw: cancel() below still runs */ }
  }
  var abp = state.abp;
  if (!abp || typeof abp.cancel !== "function") return;
  try {
    Promise.resolve(abp.cancel(call.callId, reason)).catch(function (err) {
      console.warn("[mcp-actions] ABP cancel failed:", errorText(err));
    });
  } catch (err) {
    console.warn("[mcp-actions] ABP cancel failed:", errorText(err));
  }
}

function abpFailure(response, capability) {
  var err = isObject(response.error) ? response.error : {};
  var evidence = { capability: capability, abp_code: typeof err.code === "string" ? err.code : response.cancelled ? "CANCELLED" : "OPERATION_FAILED" };
  if (typeof err.retryable === "boolean") evidence.retryable = err.retryable;
  if (typeof err.retryAfter === "number") evidence.retry_after_s = err.retryAfter;
  if (Array.isArray(err.alternatives)) evidence.alternatives = err.alternatives.slice(0, 10).map(String);
  if (err.details !== undefined) evidence.details = jsonClone(err.details);
  if (response.cancelled === true) evidence.cancelled = true;
  fail("handler_failed", String(err.message || (response.cancelled ? capability + " was cancelled" : capability + " failed")), evidence);
}

function callCapability(args) {
  var capability = args.capability;
  if (typeof capability !== "string" || !capability) fail("invalid_input", "abp.call needs the capability's name", { field: "capability" });
  // {capability, params} from the host; {capability, ...params} from a converted map's binding.
  var params = {};
  var own = ["capability", "call_id", "abp_call_id", "timeout_ms"];
  if (isObject(args.params)) params = args.params;
  else Object.keys(args).forEach(function (k) { if (own.indexOf(k) < 0) params[k] = args[k]; });
  var bridgeId = typeof args.call_id === "string" ? args.call_id : "local-" + Date.now().toString(36);
  var callId = typeof args.abp_call_id === "string" && args.abp_call_id ? args.abp_call_id : bridgeId;
  return (appObject() && state.abp === appObject() && state.starting ? state.starting : start()).then(function (abp) {
    if (!abp) fail("runtime_not_ready", "the page has no initialised ABP session (window.abp)", { capability: capability, abp_code: "NOT_INITIALIZED" });
    var call = { bridgeId: bridgeId, callId: callId, capability: capability, controller: typeof AbortController === "function" ? new AbortController() : null };
    running.push(call);
    var stop = onCancel(bridgeId, function (reason) { cancelCall(call, reason); });
    var done = function () {
      stop();
      var at = running.indexOf(call);
      if (at >= 0) running.splice(at, 1);
    };
    var options = { callId: callId, progressToken: callId };
    if (typeof args.timeout_ms === "number") options.timeout = args.timeout_ms;
    if (call.controller) options.signal = call.controller.signal;
    function attempt(app) {
      var pending;
      try {
        pending = app.call(capability, jsonClone(params), options);
      } catch (err) {
        pending = Promise.reject(err);
      }
      return Promise.resolve(pending);
    }
    function sessionGone(response) {
      return isObject(response) && response.success === false && isObject(response.error) && SESSION_GONE.indexOf(response.error.code) >= 0;
    }
    return attempt(abp).then(function (response) {
      if (!sessionGone(response) || (call.controller && call.controller.signal.aborted)) return response;
      // The app lost our session (expired, or it restarted): a new one, and the call once more.
      state.starting = null;
      return start().then(function (again) { return again ? attempt(again) : response; });
    }).then(function (response) {
      done();
      if (!isObject(response) || typeof response.success !== "boolean") fail("invalid_result", "abp.call answered something other than an ABPResponse", { capability: capability });
      if (!response.success) abpFailure(response, capability);
      return response.data === undefined ? null : jsonClone(response.data);
    }, function (err) {
      done();
      var evidence = { capability: capability, abp_code: err && typeof err.code === "string" ? err.code : "OPERATION_FAILED" };
      fail("handler_failed", errorText(err), evidence);
    });
  });
}

function listPrimitive() {
  return start().then(function () {
    var s = state.session;
    return {
      initialized: !!s,
      session_id: s && s.sessionId ? String(s.sessionId) : null,
      app: s && isObject(s.app) ? jsonClone(s.app) : null,
      features: s && isObject(s.features) ? jsonClone(s.features) : null,
      capabilities: (M.pageToolsSnapshot().abp || []),
    };
  });
}

definePrimitive("abp.list", listPrimitive);
definePrimitive("abp.call", callCapability, ["capability"]);
definePrimitive("abp.shutdown", function (args) {
  return shutdown(typeof args.reason === "string" ? args.reason : "agent disconnect").then(function (ended) { return { shutdown: ended }; });
});

(M.installers = M.installers || []).push(function () {
  installCallbacks();
  watchForApp();
});
