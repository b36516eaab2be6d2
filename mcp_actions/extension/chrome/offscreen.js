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
 */
"use strict";

const HEARTBEAT_MS = 15000;
const BACKOFF_MIN_MS = 300;
const BACKOFF_MAX_MS = 3000; // a restarted server sees its tabs again within a few seconds
const REFUSED_AFTER_FAILURES = 3;
const NAVIGATING = ["browser.navigate"];

const connections = new Map(); // tab id (string) -> Connection

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
  constructor(tabId, entry, pairing, version) {
    this.tabId = tabId;
    this.runtimeId = entry.runtime_id;
    this.pairing = pairing;
    this.version = version;
    this.socket = null;
    this.closed = false;
    this.backoff = BACKOFF_MIN_MS;
    this.failures = 0;
    this.timer = null;
    this.heartbeat = null;
  }

  sameAs(entry, pairing) {
    return this.runtimeId === entry.runtime_id && this.pairing.secret === pairing.secret && this.pairing.bridge === pairing.bridge;
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
    ws.onopen = () => this.opened(ws);
    ws.onmessage = (ev) => { if (this.socket === ws) this.received(ev.data); };
    ws.onclose = (ev) => { if (this.socket === ws) this.lost(ev); };
    ws.onerror = () => { /* onclose follows */ };
  }

  async opened(ws) {
    if (this.socket !== ws) return;
    this.failures = 0;
    this.backoff = BACKOFF_MIN_MS;
    let page;
    try {
      page = await ask({ type: "describe", tabId: this.tabId });
    } catch (err) {
      page = null;
    }
    if (!page || page.ok === false) {
      report(this.tabId, "error", "cannot reach the page: " + JSON.stringify(page && page.error));
      ws.close(4000, "page not scriptable");
      return;
    }
    const ready = {
      type: "runtime_ready",
      runtime_id: this.runtimeId,
      runtime_key: "chrome-tab:" + this.tabId,
      url: page.url,
      title: page.title,
      capabilities: page.capabilities,
      authorization_id: this.pairing.authorization_id,
      extension_version: this.version,
    };
    if (page.page_tools && Object.keys(page.page_tools).length) ready.page_tools = page.page_tools;
    this.send(ready);
    report(this.tabId, "connected", this.pairing.bridge);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.pageChanged(), HEARTBEAT_MS);
  }

  async pageChanged() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    let page;
    try {
      page = await ask({ type: "describe", tabId: this.tabId });
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
    if (item && item.type === "action_call") this.run(item);
    // runtime_config (page events), input_response, action_cancel: not carried by this host yet.
  }

  run(item) {
    const callId = item.call_id;
    if (typeof callId !== "string" || !callId) return;
    let settled = false;
    const reply = (envelope) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
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
    const timer = limit === null ? null : setTimeout(() => reply({
      ok: false,
      error: { code: "handler_timeout", message: (item.handler || item.name) + " did not finish within " + limit + " ms", evidence: { timeout_ms: limit, name: item.name } },
    }), limit);
    ask({ type: "call", tabId: this.tabId, item: item }).then(async (envelope) => {
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
      report(this.tabId, "replaced", "another connection of this tab took over");
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
    report(this.tabId, state, detail);
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
    if (ws) ws.close(1000, "tab no longer shared");
    report(this.tabId, "stopped", "");
  }
}

// As the page client does (client.js): a value that merely looks like an {ok, result} envelope is wrapped to arrive unchanged.
function wireOutput(output) {
  if (output === undefined) return null;
  if (output && typeof output === "object" && typeof output.ok === "boolean" && (output.ok ? "result" in output : "error" in output)) {
    return { ok: true, result: output };
  }
  return output;
}

/** Open and close connections to match what the user shares now. */
function apply(state) {
  const shared = state && state.pairing ? state.shared || {} : {};
  for (const [key, connection] of connections) {
    if (!shared[key] || !connection.sameAs(shared[key], state.pairing)) {
      connection.close();
      connections.delete(key);
    }
  }
  for (const key of Object.keys(shared)) {
    if (connections.has(key)) continue;
    const connection = new Connection(Number(key), shared[key], state.pairing, state.version);
    connections.set(key, connection);
    connection.connect();
  }
}

chrome.runtime.onMessage.addListener((msg) => {
  if (!msg || msg.target !== "offscreen") return false;
  if (msg.type === "sync") apply(msg.state);
  else if (msg.type === "changed") {
    const connection = connections.get(String(msg.tabId));
    if (connection) connection.pageChanged();
  }
  return false;
});

ask({ type: "get_state" }).then(apply, () => undefined);
