/*
 * offscreen.js — The bridge connections of shared tabs: one WebSocket per tab,
 * each one runtime of the Actions Bridge Protocol (docs/bridge-protocol.md).
 *
 * It lives in an offscreen document because the service worker sleeps and a
 * sleeping worker drops its sockets. It connects with the pairing's secret
 * (which survives server restarts, unlike the per-start token), announces
 * runtime_ready with runtime_key "chrome-tab:<tab id>", the pairing's
 * authorization_id and the extension's version, asks the service worker to run
 * each action_call in its tab, and reconnects with backoff when the server goes
 * away. An offscreen document only has chrome.runtime: everything else goes
 * through the service worker.
 *
 * Both directions of a runtime's other traffic pass here too. From the page
 * (relay.js's content script, one message per report): declared DOM events as
 * dom_event, page tools and attachment states as runtime_status, launcher
 * clicks as attachment_open, call messages (call_progress, input_request). To
 * the page (through the service worker): runtime_config (kept, and applied
 * again in every new document of the tab), input_response and action_cancel.
 *
 * Each same-origin child frame of a shared tab is a runtime of its own, with its
 * own connection: runtime_key "chrome-tab:<tab id>/frame-<frame id>" and
 * frame: true. Which frames those are is the service worker's answer (frames.js,
 * from Chrome's frame tree); it is asked again whenever a frame of the tab
 * commits or a document of it goes, and with every heartbeat, and the frames'
 * connections are opened and closed to match. Unsharing a tab closes its frames'
 * connections with its own.
 */
"use strict";

const HEARTBEAT_MS = 15000;
const BACKOFF_MIN_MS = 300;
const BACKOFF_MAX_MS = 3000; // a restarted server sees its tabs again within a few seconds
const REFUSED_AFTER_FAILURES = 3;
const NAVIGATING = ["browser.navigate"];
// A dom_event names the call that may have caused it when it follows within this window (as client.js).
const PREVIOUS_CALL_WINDOW_MS = 5000;
const MAX_EVENT_CHARS = 16000;
// Call messages a page may send for a running call (docs/bridge-protocol.md, "Call messages").
const CALL_MESSAGES = ["call_progress", "input_request"];

// A frame's relay says its document went (pagehide): ask for the tab's frames once it is gone from Chrome's tree.
const FRAMES_AFTER_LEAVE_MS = [250, 1500];

const connections = new Map(); // runtime key: tab id (string) for a tab, "<tab id>/<frame id>" for a frame -> Connection

function connectionKey(tabId, frameId) {
  return frameId ? tabId + "/" + frameId : String(tabId);
}

function ask(message) {
  return chrome.runtime.sendMessage(message);
}

function report(tabId, state, detail) {
  // What the connect page and the popup show next to a shared tab (kept by the worker: no chrome.storage here).
  return ask({ type: "conn", tabId: tabId, state: state, detail: detail || "" }).catch(() => undefined);
}

function wsUrl(pairing) {
  const url = new URL(pairing.bridge);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = url.pathname.replace(/\/?$/, "/bridge");
  url.search = "?token=" + encodeURIComponent(pairing.secret);
  return url.toString();
}

class Connection {
  /** The runtime of a shared tab's top document (frame null) or of one of its frames ({frameId, origin}). */
  constructor(tabId, entry, pairing, version, frame) {
    this.tabId = tabId;
    this.frameId = frame ? frame.frameId : 0;
    this.origin = frame ? frame.origin : null; // a frame's relay is heard only from this origin
    this.runtimeId = frame ? entry.runtime_id + ".frame-" + frame.frameId : entry.runtime_id;
    this.runtimeKey = "chrome-tab:" + tabId + (frame ? "/frame-" + frame.frameId : "");
    this.entryRuntimeId = entry.runtime_id;
    this.pairing = pairing;
    this.version = version;
    this.socket = null;
    this.closed = false;
    this.backoff = BACKOFF_MIN_MS;
    this.failures = 0;
    this.timer = null;
    this.heartbeat = null;
    this.listen = []; // runtime_config.listen, as the bridge last sent it
    this.attachments = []; // runtime_config.attachments
    this.lastCall = null; // {call_id, at}: the call a DOM event may have been caused by
    this.configured = false; // true once a runtime_config was applied (an empty one must then clear it)
    this.announced = false; // runtime_ready went out on the current socket
    this.missed = false; // the page reported something before that: describe it again once announced
  }

  /** What the connect page and the popup show is the tab's connection, not its frames'. */
  report(state, detail) {
    if (!this.frameId) report(this.tabId, state, detail);
  }

  sameAs(entry, pairing) {
    return this.entryRuntimeId === entry.runtime_id && this.pairing.secret === pairing.secret && this.pairing.bridge === pairing.bridge;
  }

  send(item) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(item));
  }

  connect() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(wsUrl(this.pairing));
    } catch (err) {
      this.retry(String(err && err.message));
      return;
    }
    this.socket = ws;
    this.announced = false;
    ws.onopen = () => this.opened(ws);
    ws.onmessage = (ev) => { if (this.socket === ws) this.received(ev.data); };
    ws.onclose = (ev) => { if (this.socket === ws) this.lost(ev); };
    ws.onerror = () => { /* onclose follows */ };
  }

  async opened(ws) {
    if (this.socket !== ws) return;
    this.failures = 0;
    this.backoff = BACKOFF_MIN_MS;
    if (!(await this.announce(ws))) return;
    this.report("connected", this.pairing.bridge);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      this.pageChanged();
      if (!this.frameId) syncFrames(this.tabId); // catches frames that went without a word
    }, HEARTBEAT_MS);
  }

  /** runtime_ready: on connecting, and again on this connection when the capabilities change (trusted input). */
  async announce(ws) {
    let page;
    try {
      page = await ask({ type: "describe", tabId: this.tabId, frameId: this.frameId });
    } catch (err) {
      page = null;
    }
    if (!page || page.ok === false) {
      this.report("error", "cannot reach the page: " + JSON.stringify(page && page.error));
      ws.close(4000, "page not scriptable");
      if (this.frameId) syncFrames(this.tabId); // most likely the frame went meanwhile
      return false;
    }
    const ready = {
      type: "runtime_ready",
      runtime_id: this.runtimeId,
      runtime_key: this.runtimeKey,
      url: page.url,
      title: page.title,
      capabilities: page.capabilities,
      authorization_id: this.pairing.authorization_id,
      extension_version: this.version,
    };
    if (this.frameId) ready.frame = true;
    if (page.page_tools && Object.keys(page.page_tools).length) ready.page_tools = page.page_tools;
    if (this.socket !== ws) return false;
    this.send(ready);
    this.announced = true;
    if (this.missed) {
      // The page spoke while we were asking it (a tool registered): its reports were dropped, so ask again.
      this.missed = false;
      this.pageChanged();
    }
    return true;
  }

  async pageChanged() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    let page;
    try {
      page = await ask({ type: "describe", tabId: this.tabId, frameId: this.frameId });
    } catch (_ignored) {
      return;
    }
    if (!page || page.ok === false) return;
    const status = { type: "runtime_status", runtime_id: this.runtimeId, url: page.url, title: page.title, observed_at: new Date().toISOString() };
    status.page_tools = page.page_tools || {};
    this.send(status);
  }

  received(data) {
    let item;
    try {
      item = JSON.parse(data);
    } catch (_ignored) {
      return;
    }
    if (!item || typeof item !== "object") return;
    if (item.type === "action_call") this.run(item);
    else if (item.type === "runtime_config") {
      this.listen = Array.isArray(item.listen) ? item.listen.filter((e) => e && typeof e === "object") : [];
      this.attachments = Array.isArray(item.attachments) ? item.attachments.filter((a) => a && typeof a === "object") : [];
      this.configure();
    } else if (item.type === "input_response" || item.type === "action_cancel") {
      ask({ type: "deliver", tabId: this.tabId, frameId: this.frameId, item: item }).catch(() => undefined);
    }
  }

  /** Apply runtime_config to the tab's current document (after the config changed, or a new document got the engine). */
  configure() {
    if (!this.listen.length && !this.attachments.length && !this.configured) return;
    this.configured = true; // once something was configured, an empty config must clear it too
    ask({ type: "configure", tabId: this.tabId, frameId: this.frameId, listen: this.listen, attachments: this.attachments }).catch(() => undefined);
  }

  /** One report of the page's engine, relayed by the tab's content script (relay.js); page data, checked here. */
  fromPage(message, url) {
    if (!message || typeof message !== "object") return;
    if (!this.announced) {
      this.missed = true; // the bridge takes nothing before runtime_ready
      return;
    }
    const observedAt = new Date().toISOString();
    if (message.kind === "event" && typeof message.name === "string" && message.name) {
      const item = {
        type: "dom_event",
        event_id: "evt-" + randomHex(8),
        runtime_id: this.runtimeId,
        name: message.name,
        event: typeof message.event === "string" ? message.event : "",
        url: url,
        payload: message.payload !== undefined && message.payload !== null ? message.payload : {},
        observed_at: observedAt,
      };
      if (this.lastCall && Date.now() - this.lastCall.at <= PREVIOUS_CALL_WINDOW_MS) item.previous_call_id = this.lastCall.call_id;
      if (JSON.stringify(item).length <= MAX_EVENT_CHARS) this.send(item);
    } else if (message.kind === "page_tools" && message.page_tools && typeof message.page_tools === "object") {
      this.send({ type: "runtime_status", runtime_id: this.runtimeId, url: url, page_tools: message.page_tools, observed_at: observedAt });
    } else if (message.kind === "attachments" && Array.isArray(message.attachments)) {
      this.send({ type: "runtime_status", runtime_id: this.runtimeId, url: url, attachments: message.attachments, observed_at: observedAt });
    } else if (message.kind === "attachment_open" && typeof message.attachment_id === "string" && message.attachment_id) {
      const item = { type: "attachment_open", runtime_id: this.runtimeId, attachment_id: message.attachment_id };
      if (typeof message.launcher_id === "string") item.launcher_id = message.launcher_id;
      this.send(item);
    } else if (message.kind === "call" && message.message && CALL_MESSAGES.indexOf(message.message.type) >= 0) {
      this.send(Object.assign({}, message.message, { runtime_id: this.runtimeId }));
    }
  }

  run(item) {
    const callId = item.call_id;
    if (typeof callId !== "string" || !callId) return;
    this.lastCall = { call_id: callId, at: Date.now() };
    let settled = false;
    const reply = (envelope) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.lastCall = { call_id: callId, at: Date.now() };
      if (envelope && envelope.ok) {
        this.send({ type: "action_call_output", call_id: callId, runtime_id: this.runtimeId, output: wireOutput(envelope.output) });
      } else {
        const error = (envelope && envelope.error) || { code: "handler_failed", message: "no answer" };
        const body = { code: String(error.code || "handler_failed"), message: String(error.message || error.code), severity: "major", recoverable: true };
        if (error.evidence !== undefined) body.evidence = error.evidence;
        this.send({ type: "action_error", call_id: callId, runtime_id: this.runtimeId, error: body });
      }
    };
    const limit = typeof item.timeout_ms === "number" && item.timeout_ms >= 0 ? item.timeout_ms : null;
    const timer = limit === null ? null : setTimeout(() => {
      // The call's work in the page stops too (docs/bridge-protocol.md, "Deadlines and cancellation").
      const cancel = { type: "action_cancel", call_id: callId, runtime_id: this.runtimeId, reason: "timed out" };
      ask({ type: "deliver", tabId: this.tabId, frameId: this.frameId, item: cancel }).catch(() => undefined);
      reply({
        ok: false,
        error: { code: "handler_timeout", message: (item.handler || item.name) + " did not finish within " + limit + " ms", evidence: { timeout_ms: limit, name: item.name } },
      });
    }, limit);
    ask({ type: "call", tabId: this.tabId, frameId: this.frameId, item: item }).then(async (envelope) => {
      // A navigation changed the page: the bridge hears the new URL before the call's end, so what it
      // decides next (which page a map covers, attempts per page) is about the page the tab shows now.
      if (NAVIGATING.indexOf(item.name) >= 0) await this.pageChanged();
      reply(envelope);
    }, (err) => reply({
      ok: false, error: { code: "transport_failed", message: "the extension could not run the call: " + String((err && err.message) || err) },
    }));
  }

  lost(ev) {
    this.socket = null;
    clearInterval(this.heartbeat);
    if (this.closed) return;
    if (ev && ev.code === 4001) {
      // Replaced by a newer connection of the same tab: reconnecting would replace that one in turn, forever.
      this.report("replaced", "another connection of this tab took over");
      return;
    }
    if (ev && ev.code === 4003) {
      // The user revoked this browser's pairing (mcp-actions extension --forget): its secret opens nothing now.
      this.report("revoked", "this browser's pairing was revoked: open the connect link mcp-actions prints to pair again");
      return;
    }
    this.failures += 1;
    this.retry(ev && ev.code === 1001 ? "the server stopped" : "");
  }

  async retry(detail) {
    if (this.closed || this.timer) return;
    let state = "connecting";
    if (this.failures >= REFUSED_AFTER_FAILURES) {
      // A browser WebSocket cannot see the HTTP 401 of a refused upgrade: ask whether the bridge is up at all.
      const up = await fetch(new URL("/healthz", this.pairing.bridge).toString(), { cache: "no-store" }).then((r) => r.ok, () => false);
      state = up ? "refused" : "connecting";
      detail = up ? "the bridge is running but refused this pairing: open the connect link mcp-actions printed at its latest start" : "waiting for mcp-actions at " + this.pairing.bridge;
    }
    this.report(state, detail);
    const delay = Math.min(this.backoff, BACKOFF_MAX_MS) * (0.8 + Math.random() * 0.4); // jitter: tabs do not reconnect in lockstep
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    const ws = this.socket;
    this.socket = null;
    if (ws) ws.close(1000, this.frameId ? "frame no longer a runtime" : "tab no longer shared");
    this.report("stopped", "");
  }
}

function randomHex(bytes) {
  const arr = new Uint8Array(bytes);
  crypto.getRandomValues(arr);
  return Array.from(arr, (b) => b.toString(16).padStart(2, "0")).join("");
}

// As the page client does (client.js): a value that merely looks like an {ok, result} envelope is wrapped to arrive unchanged.
function wireOutput(output) {
  if (output === undefined) return null;
  if (output && typeof output === "object" && typeof output.ok === "boolean" && (output.ok ? "result" in output : "error" in output)) {
    return { ok: true, result: output };
  }
  return output;
}

let current = null; // the last state the service worker sent: {pairing, shared, version}

/** Open and close connections to match what the user shares now (a tab's frames go with the tab). */
function apply(state) {
  current = state;
  const shared = state && state.pairing ? state.shared || {} : {};
  for (const [key, connection] of connections) {
    const entry = shared[String(connection.tabId)];
    if (!entry || !connection.sameAs(entry, state.pairing)) {
      connection.close();
      connections.delete(key);
    }
  }
  for (const key of Object.keys(shared)) {
    if (!connections.has(key)) {
      const connection = new Connection(Number(key), shared[key], state.pairing, state.version, null);
      connections.set(key, connection);
      connection.connect();
    }
    syncFrames(Number(key));
  }
}

/** Open and close the connections of a shared tab's frames to match the frames that are runtimes now. */
async function syncFrames(tabId) {
  let answer;
  try {
    answer = await ask({ type: "frames", tabId: tabId });
  } catch (_ignored) {
    return;
  }
  if (!answer || !answer.ok || !Array.isArray(answer.frames)) return;
  // What was shared may have changed while we asked: only a tab still shared gets frames.
  const top = connections.get(String(tabId));
  const entry = current && current.pairing && (current.shared || {})[String(tabId)];
  const wanted = new Map(top && entry ? answer.frames.map((f) => [connectionKey(tabId, f.frameId), f]) : []);
  for (const [key, connection] of connections) {
    if (connection.tabId !== tabId || !connection.frameId) continue;
    const frame = wanted.get(key);
    if (!frame || frame.origin !== connection.origin) {
      connection.close();
      connections.delete(key);
    }
  }
  for (const [key, frame] of wanted) {
    if (connections.has(key)) continue;
    const connection = new Connection(tabId, entry, current.pairing, current.version, frame);
    connections.set(key, connection);
    connection.connect();
  }
}

/** The connection a relay's message belongs to: Chrome names its tab, frame and origin (sender), never the page. */
function senderConnection(sender) {
  if (!sender || !sender.tab || typeof sender.frameId !== "number") return null;
  const connection = connections.get(connectionKey(sender.tab.id, sender.frameId));
  if (!connection || (connection.frameId && sender.origin !== connection.origin)) return null;
  return connection;
}

chrome.runtime.onMessage.addListener((msg, sender) => {
  if (!msg || msg.target !== "offscreen") return false;
  if (msg.type === "sync") apply(msg.state);
  else if (msg.type === "page") {
    // From a page's relay: only a runtime of a shared tab (its top document, a same-origin frame) is
    // heard; other frames and every other tab are not.
    const connection = senderConnection(sender);
    if (!connection || typeof msg.text !== "string") return false;
    let message;
    try {
      message = JSON.parse(msg.text);
    } catch (_ignored) {
      return false;
    }
    connection.fromPage(message, String(sender.url || sender.tab.url || ""));
  } else if (msg.type === "left") {
    // A document of a tab went: if it was a frame's, its runtime leaves once Chrome's tree says so.
    const tabId = sender && sender.tab ? sender.tab.id : null;
    if (tabId !== null && connections.has(String(tabId))) for (const ms of FRAMES_AFTER_LEAVE_MS) setTimeout(() => syncFrames(tabId), ms);
  } else {
    const connection = connections.get(connectionKey(msg.tabId, msg.frameId));
    if (msg.type === "frames" && connections.has(String(msg.tabId))) syncFrames(msg.tabId);
    else if (msg.type === "changed" && connection) connection.pageChanged();
    else if (msg.type === "injected" && connection) connection.configure();
    else if (msg.type === "reannounce") for (const each of connections.values()) if (each.socket) each.announce(each.socket);
  }
  return false;
});

ask({ type: "get_state" }).then(apply, () => undefined);
