/*
 * client.js — The WebSocket client of the Actions Bridge Protocol: finds the bridge,
 * announces the page, executes action_call items, forwards DOM events, and
 * reconnects with backoff.
 *
 * A frame from the bridge is read with the JSON.parse and MessageEvent data getter captured
 * when the engine installed (intrinsics.js), and every field of an item by own property: a
 * page that patches JSON, MessageEvent or Object.prototype (a "handler" getter, say) after
 * the runtime loaded sees no call. The page owns this WebSocket, so a page that patched
 * before the runtime loaded still sees its frames (docs/overlays.md, "What a page can reach").
 */
var VERSION = M.VERSION,
  randomId = M.randomId,
  sessionValue = M.sessionValue,
  storedValue = M.storedValue,
  framePath = M.framePath,
  I = M.intrinsics;

var own = I.own;
var messageData = typeof MessageEvent === "function" ? I.nativeGetter(MessageEvent.prototype, "data", "get MessageEvent.prototype.data") : null;

function startClient(engine, config) {
  var HEARTBEAT_MS = 15000;
  var BACKOFF_MIN_MS = 500;
  var BACKOFF_MAX_MS = 10000;
  var PREVIOUS_CALL_WINDOW_MS = 5000;
  var MAX_EVENT_CHARS = 16000;

  // A same-origin frame shares its tab's sessionStorage: its path among the
  // frames keeps its identity apart from the page's (and stable across reloads).
  var frame = framePath();
  var runtimeId = sessionValue("__mcp_actions_runtime_id" + frame, function () { return "page-" + randomId(8); });
  var runtimeKey = "page:" + sessionValue("__mcp_actions_tab_id", function () { return randomId(8); }) + frame;
  // The secret the bridge gave this runtime (runtime_config.runtime_secret): only it takes this
  // runtime's id back when the socket drops (docs/bridge-protocol.md, "Credentials and trust").
  // Kept in sessionStorage too, so a reload of this tab stays the same runtime: only this origin's
  // scripts in this tab can read it, and they are this page already.
  var secretKey = "__mcp_actions_runtime_secret" + frame;
  var runtimeSecret = storedValue(secretKey);
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
    var ready = {
      type: "runtime_ready",
      runtime_id: runtimeId,
      runtime_key: runtimeKey,
      url: page.url,
      title: page.title,
      capabilities: engine.capabilities(),
      extension_version: "page-runtime/" + VERSION,
    };
    if (frame) ready.frame = true; // surface routing prefers the top-level page over its frames
    // After a server restart the bridge knows no secret: it gives a new one, and a free id stays ours.
    if (runtimeSecret) ready.runtime_secret = runtimeSecret;
    var tools = engine.pageTools ? engine.pageTools() : {};
    if (Object.keys(tools).length) ready.page_tools = tools;
    send(ready);
  }

  // Tools the page declares (WebMCP, ABP): the whole list after every change (docs/bridge-protocol.md: page_tools).
  if (typeof engine.onPageTools === "function") {
    engine.onPageTools(function (snapshot) {
      var page = pageState();
      send({ type: "runtime_status", runtime_id: runtimeId, url: page.url, page_tools: snapshot, observed_at: now() });
    });
  }

  // Messages of running calls (progress, input requests): docs/bridge-protocol.md, "Call messages".
  if (typeof engine.onCallMessage === "function") {
    engine.onCallMessage(function (message) {
      message.runtime_id = runtimeId;
      send(message);
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

  function execute(item, call) {
    var name = own(item, "name");
    var args = own(item, "arguments");
    if (!M.isObject(args)) args = {};
    var handler = own(item, "handler");
    if (typeof handler === "string" && handler) return engine.callHandler(handler, args, call);
    // The engine answers privileged names with capability_unavailable and
    // anything else it does not know with unknown_action.
    return engine.run(name, args, call);
  }

  // The bridge reads an output shaped like the protocol's {ok, result} / {ok, error} envelope
  // as that envelope (docs/bridge-protocol.md, action_call_output). A value that merely looks like one (a handler returning
  // {ok: true, result: ...}) is wrapped in a real envelope so it arrives unchanged.
  function wireOutput(output) {
    if (output === undefined) return null;
    if (output && typeof output === "object" && typeof output.ok === "boolean" && (output.ok ? "result" in output : "error" in output)) {
      return { ok: true, result: output };
    }
    return output;
  }

  function handleCall(item) {
    var callId = own(item, "call_id");
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
    var timeoutMs = own(item, "timeout_ms");
    if (typeof timeoutMs === "number" && timeoutMs >= 0 && isFinite(timeoutMs)) {
      var started = Date.now();
      timer = setTimeout(function () {
        // The call's work stops too: its waits end and its steps no longer act (callcontext.js).
        if (typeof engine.abortCall === "function") engine.abortCall(callId, "handler_timeout", "timed out");
        reply({ ok: false, error: {
          code: "handler_timeout",
          message: (own(item, "handler") || own(item, "name")) + " did not finish within " + timeoutMs + " ms",
          evidence: { elapsed_ms: Date.now() - started, timeout_ms: timeoutMs, name: own(item, "name") },
        } });
      }, timeoutMs);
    }
    // The engine keeps the call's deadline and hears its action_cancel by call_id (docs/bridge-protocol.md).
    execute(item, { call_id: callId, timeout_ms: timeoutMs }).then(reply, function (err) {
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
    var secret = own(item, "runtime_secret"),
      id = own(item, "runtime_id"),
      listen = own(item, "listen"),
      attachments = own(item, "attachments");
    if (typeof secret === "string" && secret) runtimeSecret = storedValue(secretKey, secret) || secret;
    // The bridge decides who this runtime is: another credential's id or key is never ours (item.renamed says why).
    if (typeof id === "string" && id && id !== runtimeId) {
      if (own(item, "renamed")) log("warn", "the bridge gave this runtime another id", own(item, "renamed"));
      runtimeId = id;
    }
    listenConfig = I.isArray(listen) ? listen : [];
    engine.watchEvents(listenConfig, forwardEvent);
    // Attachments (docs/bridge-protocol.md "Runtime configuration"): states as runtime_status, map tools via attachment_open.
    // The list as parsed, own properties only; attachments.js reads it without the page's built-ins.
    if (typeof engine.applyAttachments === "function") engine.applyAttachments(I.isArray(attachments) ? attachments : [], {
      status: function (states) { send({ type: "runtime_status", runtime_id: runtimeId, url: String(root.location.href), attachments: states, observed_at: now() }); },
      open: function (a, l) { send({ type: "attachment_open", runtime_id: runtimeId, attachment_id: a, launcher_id: l }); },
    });
  }

  function onMessage(ev) {
    var item;
    try {
      item = I.parseJSON(messageData ? messageData(ev) : ev.data);
    } catch (_ignored) {
      log("warn", "ignored a frame that is not JSON");
      return;
    }
    if (!M.isObject(item)) return;
    var type = own(item, "type");
    if (type === "action_call") handleCall(item);
    else if (type === "runtime_config") applyConfig(item);
    else if (type === "input_response" || type === "action_cancel") engine.deliver(item);
    else if (type === "action_error") log("warn", "bridge reported an error", own(item, "error"));
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
    if (M.ownSocket) M.ownSocket(ws); // the settle never waits on the engine's own answers (observe_settle.js)
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

M.startClient = startClient;
