/*
 * sw.js — The extension's service worker: keeps what the user shared, injects
 * our page engine into shared tabs, and runs calls for the offscreen document.
 *
 * An MV3 service worker sleeps after ~30 s idle, so it holds no state of its
 * own: the pairing and the shared tabs live in chrome.storage.local, and the
 * WebSockets (one per shared tab) live in offscreen.js. The offscreen document
 * asks this worker (chrome.runtime messages wake it) to describe a tab or to
 * run an action_call in it; only tabs the user shared are ever touched, and
 * nothing about the other tabs leaves the extension.
 *
 * Each same-origin child frame of a shared tab is a runtime too (frames.js says
 * which): the engine goes into its document, its calls run there, and the offscreen
 * document holds its connection. Every request about a frame is checked again here
 * against Chrome's frame tree before anything runs in it.
 *
 * relay.js brings what a page reports (events, page tools, call messages) to the
 * offscreen document; trusted_input.js runs pointer and keyboard input through
 * chrome.debugger when the user allowed it (keys.js: key chords).
 */
"use strict";

importScripts("keys.js", "frames.js", "relay.js", "trusted_input.js");

const OFFSCREEN_URL = "offscreen.html";
const ENGINE_FILE = "engine.js";
const VERSION = chrome.runtime.getManifest().version;
const KEEPALIVE_ALARM = "mcp-actions-keepalive";
// Primitives that need browser authority, run here through extension APIs (shared tabs only).
const PRIVILEGED = [
  "browser.navigate",
  "browser.screenshot",
  "browser.open_tab",
  "browser.close_tab",
  "browser.claimed_tabs.list",
  "browser.claimed_tabs.activate",
];
// Capability classes of the dictionary this host provides; input.trusted is added only while the
// user allows trusted input (trusted_input.js): otherwise the engine's input is synthetic.
const CAPABILITY_CLASSES = ["browser.tabs", "browser.claimed_tabs", "browser.screenshot"];
const NAVIGATION_TIMEOUT_MS = 20000;

// ---- state --------------------------------------------------------------

async function loadState() {
  const stored = await chrome.storage.local.get(["pairing", "shared"]);
  return { pairing: stored.pairing || null, shared: stored.shared || {}, version: VERSION };
}

async function saveShared(shared) {
  await chrome.storage.local.set({ shared: shared });
}

function randomHex(bytes) {
  const arr = new Uint8Array(bytes);
  crypto.getRandomValues(arr);
  return Array.from(arr, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- offscreen document (where the sockets live) -------------------------

async function ensureOffscreen() {
  if (await chrome.offscreen.hasDocument()) return;
  try {
    await chrome.offscreen.createDocument({
      url: OFFSCREEN_URL,
      reasons: ["WORKERS"],
      justification: "Holds the WebSocket connections of the tabs you shared with mcp-actions while the service worker sleeps.",
    });
  } catch (err) {
    // Two wake-ups racing: the other one created it.
    if (!/single offscreen|already/i.test(String(err && err.message))) throw err;
  }
}

/** Tell the offscreen document what should be connected now (it opens and closes sockets to match). */
async function sync() {
  const state = await loadState();
  const wanted = state.pairing && Object.keys(state.shared).length > 0;
  if (wanted) await ensureOffscreen();
  else if (!(await chrome.offscreen.hasDocument())) return;
  try {
    await chrome.runtime.sendMessage({ target: "offscreen", type: "sync", state: state });
  } catch (_ignored) {
    // The document is still loading: it asks for the state itself when it starts.
  }
}

// ---- shared tabs ---------------------------------------------------------

async function setBadge(tabId, shared) {
  try {
    await chrome.action.setBadgeText({ tabId: tabId, text: shared ? "ON" : "" });
    if (shared) await chrome.action.setBadgeBackgroundColor({ tabId: tabId, color: "#2458d6" });
    await chrome.action.setTitle({ tabId: tabId, title: shared ? "mcp-actions: this tab is shared" : "mcp-actions: shared tabs" });
  } catch (_ignored) { /* the tab is gone */ }
}

/**
 * The engine goes into the MAIN world (handlers of a map resolve on the page's own window:
 * window.contactForm.submit...), with the relay that carries its reports back (relay.js).
 * Whoever injects first into a new document (a commit, the load, a call, a navigation)
 * tells the offscreen document, which applies the runtime's runtime_config there again.
 */
async function injectEngine(tabId, early, frameId) {
  const fresh = (await injectRuntime(tabId, ENGINE_FILE, !!early, frameId || 0)) === "new";
  if (fresh) await tellOffscreen({ type: "injected", tabId: tabId, frameId: frameId || 0 });
  return fresh;
}

const EARLY_SCRIPT_ID = "mcp-actions-engine-early";

/**
 * The engine at document_start, before any script of the page, for the sites of shared tabs.
 *
 * A page that registers WebMCP tools while it parses needs our document.modelContext before its
 * scripts run, and no injection after a commit can promise that. Chrome runs a registered content
 * script that early, but registrations go by URL pattern, not by tab: so the engine is registered
 * for the sites (scheme and host) shared tabs show now. Another, unshared tab of such a site gets
 * the engine too, inert: it has no relay and no connection, and nothing of it leaves the extension.
 * A shared tab that moves to a new site gets the engine at its commit and load as before, and at
 * document_start from that site's next page on. In all frames: a same-origin frame's WebMCP
 * registrations need the context as much as the top page's (frames of other sites do not match,
 * and those of the same site that are no runtime hold the engine inert, like unshared tabs).
 */
async function syncEarlyEngine() {
  const state = await loadState();
  const sites = new Set();
  for (const key of Object.keys(state.pairing ? state.shared : {})) {
    try {
      const url = new URL((await chrome.tabs.get(Number(key))).url || "");
      if (url.protocol === "http:" || url.protocol === "https:") sites.add(url.protocol + "//" + url.hostname + "/*");
    } catch (_ignored) { /* closed, or no URL yet */ }
  }
  const matches = Array.from(sites).sort();
  const [current] = await chrome.scripting.getRegisteredContentScripts({ ids: [EARLY_SCRIPT_ID] });
  if (current && JSON.stringify((current.matches || []).slice().sort()) === JSON.stringify(matches)) return;
  if (current) await chrome.scripting.unregisterContentScripts({ ids: [EARLY_SCRIPT_ID] });
  if (!matches.length) return;
  await chrome.scripting.registerContentScripts([{
    id: EARLY_SCRIPT_ID, js: [ENGINE_FILE], matches: matches, runAt: "document_start", world: "MAIN", allFrames: true, persistAcrossSessions: true,
  }]);
}

async function tellOffscreen(message) {
  try {
    await chrome.runtime.sendMessage(Object.assign({ target: "offscreen" }, message));
  } catch (_ignored) { /* no offscreen document yet */ }
}

// Every change of the shared set reads it, changes it and writes it back (chrome.storage.local): one
// at a time, or two boxes ticked in quick succession on the connect page would each write the set
// they read, and the first tab's share would be lost (its runtime never connected).
let sharedSetTurn = Promise.resolve();

function oneAtATime(work) {
  const run = sharedSetTurn.then(work, work);
  sharedSetTurn = run.catch(() => undefined);
  return run;
}

function share(tabId, on) {
  return oneAtATime(() => shareNow(tabId, on));
}

async function shareNow(tabId, on) {
  const state = await loadState();
  const key = String(tabId);
  if (on) {
    if (!state.pairing) throw new Error("not paired: open the connect link mcp-actions printed first");
    await injectEngine(tabId); // fails on pages no extension may script (chrome://, the Web Store)
    if (!state.shared[key]) state.shared[key] = { runtime_id: "chrome-tab-" + tabId + "-" + randomHex(4), since: new Date().toISOString() };
  } else {
    delete state.shared[key];
    await releaseTab(tabId); // stop debugging a tab that is no longer shared
  }
  await saveShared(state.shared);
  await setBadge(tabId, on);
  await syncEarlyEngine().catch(() => undefined);
  await sync();
  return state.shared[key] || null;
}

async function isShared(tabId) {
  const state = await loadState();
  return Object.prototype.hasOwnProperty.call(state.shared, String(tabId));
}

// ---- running things in a shared tab --------------------------------------

// These two functions run in the page (MAIN world); they see only what they are given.
function pageDescribe() {
  var engine = window.__mcpActions;
  return {
    url: String(location.href),
    title: String(document.title || ""),
    capabilities: engine ? engine.capabilities() : [],
    page_tools: engine && typeof engine.pageTools === "function" ? engine.pageTools() : {},
    engine: !!engine,
  };
}

// `item` is pageCallItem's: every field read here is its own property, so a page's getter on
// Object.prototype (a "handler" one, say) never runs with the call in hand (docs/overlays.md).
function pageCall(item) {
  var engine = window.__mcpActions;
  if (!engine || typeof engine.run !== "function") return { missing: true };
  var args = item.arguments;
  // The call's id and time: the engine ends its waits at the deadline or on its action_cancel (callcontext.js).
  var call = { call_id: item.call_id, timeout_ms: item.timeout_ms };
  var pending = item.handler ? engine.callHandler(item.handler, args, call) : engine.run(item.name, args, call);
  return Promise.resolve(pending).then(
    function (envelope) { return { envelope: envelope }; },
    function (err) { return { envelope: { ok: false, error: { code: "handler_failed", message: String((err && err.message) || err) } } }; }
  );
}

/** The call item as pageCall reads it in the page: name, handler ("" for none), arguments, call_id and timeout_ms, all own properties. */
function pageCallItem(item) {
  const args = item.arguments;
  return {
    name: typeof item.name === "string" ? item.name : "",
    handler: typeof item.handler === "string" ? item.handler : "",
    arguments: args && typeof args === "object" && !Array.isArray(args) ? args : {},
    call_id: typeof item.call_id === "string" ? item.call_id : null,
    timeout_ms: typeof item.timeout_ms === "number" ? item.timeout_ms : null,
  };
}

async function inMainWorld(tabId, func, args, frameId) {
  const results = await chrome.scripting.executeScript({ target: scriptTarget(tabId, frameId), world: "MAIN", func: func, args: args || [] });
  return results && results[0] ? results[0].result : undefined;
}

function pageEngine(method, a, b) {
  var engine = window.__mcpActions;
  if (!engine || typeof engine.run !== "function") return null;
  if (method === "run") return engine.run(a, b);
  return engine.focusEditable(a, b);
}

/** One engine entry point (run a primitive, focusEditable) in the tab: its output, or an InputFailure. */
async function engineCall(tabId, method, a, b) {
  let envelope = await inMainWorld(tabId, pageEngine, [method, a === undefined ? null : a, b === undefined ? null : b]);
  if (envelope === null || envelope === undefined) {
    await injectEngine(tabId);
    envelope = await inMainWorld(tabId, pageEngine, [method, a === undefined ? null : a, b === undefined ? null : b]);
  }
  if (!envelope || typeof envelope.ok !== "boolean") throw new InputFailure("runtime_not_ready", "the page engine is not available", { tab_id: tabId });
  if (envelope.ok) return envelope.output;
  const error = envelope.error || {};
  throw new InputFailure(String(error.code || "handler_failed"), String(error.message || error.code), error.evidence);
}

/**
 * What a runtime announces: its document's URL, title, page tools and capabilities. A frame
 * offers the engine's primitives only: browser.* act on tabs, and trusted input would need the
 * frame's points moved into the tab's viewport, which the extension does not do (synthetic there).
 */
async function describe(tabId, frameId) {
  let page = await inMainWorld(tabId, pageDescribe, [], frameId);
  if (!page || !page.engine) {
    await injectEngine(tabId, false, frameId);
    page = await inMainWorld(tabId, pageDescribe, [], frameId);
  }
  if (!frameId) {
    page.capabilities = [].concat(page.capabilities || [], PRIVILEGED, CAPABILITY_CLASSES);
    if (await trustedInputAllowed()) page.capabilities.push("input.trusted");
  }
  delete page.engine;
  return page;
}

function failure(code, message, evidence) {
  const error = { code: code, message: message };
  if (evidence !== undefined) error.evidence = evidence;
  return { ok: false, error: error };
}

/** The origin of a shared tab's (or one of its frames') document now, as Chrome has it: null when it has none. */
async function currentOrigin(tabId, frameId) {
  try {
    const url = frameId ? ((await chrome.webNavigation.getFrame({ tabId: tabId, frameId: frameId })) || {}).url : (await chrome.tabs.get(tabId)).url;
    const origin = new URL(url || "").origin;
    return origin && origin !== "null" ? origin : null;
  } catch (err) {
    return null;
  }
}

async function call(tabId, frameId, item) {
  if (!(await isShared(tabId))) return failure("permission_denied", "this tab is no longer shared");
  if (frameId && !(await isRuntimeFrame(tabId, frameId))) return frameGone(tabId, frameId);
  // A call the policy judged by the page's origin carries that origin (docs/bridge-protocol.md,
  // "Bridge → runtime"): a tab that moved since its last report (a link, a redirect) is not acted on.
  const judged = Object.prototype.hasOwnProperty.call(item, "origin") && typeof item.origin === "string" ? item.origin : null;
  if (judged) {
    const now = await currentOrigin(tabId, frameId);
    if (now !== judged) {
      return failure("permission_denied", "tab " + tabId + " shows a page of " + (now || "no origin") + ", not " + judged + " that the call was judged for", {
        reason: "origin_changed", judged_origin: judged, origin: now, tab_id: tabId,
      });
    }
  }
  try {
    if (PRIVILEGED.indexOf(item.name) >= 0 && !item.handler) {
      if (frameId) return failure("capability_unavailable", item.name + " acts on tabs: call it on the tab's runtime, not a frame's", { tab_id: tabId, frame_id: frameId });
      return await privileged(tabId, item.name, item.arguments || {});
    }
    if (!frameId && TRUSTED_PRIMITIVES.indexOf(item.name) >= 0 && !item.handler && (await trustedInputAllowed())) {
      return await runTrusted(tabId, item.name, item.arguments || {});
    }
    const wire = pageCallItem(item);
    let answer = await inMainWorld(tabId, pageCall, [wire], frameId);
    if (answer && answer.missing) {
      // Navigated since the last injection and the load event has not come yet: inject now.
      await injectEngine(tabId, false, frameId);
      answer = await inMainWorld(tabId, pageCall, [wire], frameId);
    }
    if (!answer || !answer.envelope) return failure("transport_failed", "the page gave no answer (it navigated away during the call?)");
    return answer.envelope;
  } catch (err) {
    return failure("transport_failed", "could not run in the tab: " + String((err && err.message) || err), { tab_id: tabId });
  }
}

// ---- privileged primitives (extension APIs, shared tabs only) ------------

function waitForLoad(tabId, timeoutMs) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      resolve();
    }
    function listener(id, info) {
      if (id === tabId && info.status === "complete") done();
    }
    chrome.tabs.onUpdated.addListener(listener);
  });
}

function tabSummary(tab, shared) {
  const entry = shared[String(tab.id)] || {};
  return { tab_id: tab.id, url: tab.url || "", title: tab.title || "", active: !!tab.active, claimed_at: entry.since, runtime_id: entry.runtime_id };
}

function frameGone(tabId, frameId) {
  return failure("transport_failed", "frame " + frameId + " of tab " + tabId + " is no longer a runtime (removed, or now another origin)", { tab_id: tabId, frame_id: frameId });
}

async function privileged(callerTab, name, args) {
  const state = await loadState();
  const target = typeof args.tab_id === "number" ? args.tab_id : callerTab;
  const needsShared = name !== "browser.open_tab" && name !== "browser.claimed_tabs.list";
  if (needsShared && !Object.prototype.hasOwnProperty.call(state.shared, String(target))) {
    return failure("permission_denied", "tab " + target + " is not shared with this server", { tab_id: target });
  }
  if (name === "browser.navigate") {
    if (!args.reload && (typeof args.url !== "string" || !args.url)) return failure("invalid_input", "url is required unless reload is true");
    const loaded = waitForLoad(target, NAVIGATION_TIMEOUT_MS);
    if (args.reload) await chrome.tabs.reload(target);
    else await chrome.tabs.update(target, { url: args.url });
    await loaded;
    await injectEngine(target).catch(() => undefined);
    const tab = await chrome.tabs.get(target);
    return { ok: true, output: { ok: true, navigated: true, tab: tabSummary(tab, state.shared) } };
  }
  if (name === "browser.open_tab") {
    // A tab the agent opens is the agent's own: it is shared from the start (the badge shows it).
    const tab = await chrome.tabs.create({ url: args.url || "about:blank", active: args.active !== false });
    if (args.url) await waitForLoad(tab.id, NAVIGATION_TIMEOUT_MS);
    const entry = await share(tab.id, true);
    const fresh = await chrome.tabs.get(tab.id);
    return { ok: true, output: { ok: true, tab_id: tab.id, runtime_id: entry && entry.runtime_id, url: fresh.url || "" } };
  }
  if (name === "browser.close_tab") {
    await share(target, false);
    await chrome.tabs.remove(target);
    return { ok: true, output: { ok: true, closed_tab_id: target, active_tab_id: null } };
  }
  if (name === "browser.claimed_tabs.list") {
    const tabs = [];
    for (const key of Object.keys(state.shared)) {
      try {
        tabs.push(tabSummary(await chrome.tabs.get(Number(key)), state.shared));
      } catch (_ignored) { /* closed meanwhile */ }
    }
    return { ok: true, output: { tabs: tabs } };
  }
  if (name === "browser.claimed_tabs.activate") {
    const tab = await chrome.tabs.update(target, { active: true });
    await chrome.windows.update(tab.windowId, { focused: true }).catch(() => undefined);
    return { ok: true, output: { ok: true, tab_id: target, url: tab.url || "" } };
  }
  if (name === "browser.screenshot") return screenshot(target, args);
  return failure("capability_unavailable", name + " is not provided by the extension host");
}

async function screenshot(tabId, args) {
  const tab = await chrome.tabs.get(tabId);
  if (!tab.active) {
    return failure("capture_failed", "only the visible tab of a window can be captured: call browser.claimed_tabs.activate first", { tab_id: tabId });
  }
  const format = args.format === "jpeg" ? "jpeg" : "png";
  const options = { format: format };
  if (format === "jpeg" && typeof args.quality === "number") options.quality = args.quality;
  const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, options);
  const bitmap = await createImageBitmap(await (await fetch(dataUrl)).blob());
  return { ok: true, output: { image: dataUrl.slice(dataUrl.indexOf(",") + 1), mime_type: "image/" + format, width: bitmap.width, height: bitmap.height } };
}

// ---- events --------------------------------------------------------------

async function tabChanged(tabId, info) {
  if (!(await isShared(tabId))) return;
  if (info.status === "complete") {
    // Every navigation loads a fresh page: the engine goes in again (unless the commit put it there
    // already), and the badge (reset by Chrome) too.
    await injectEngine(tabId).catch(() => false);
    await setBadge(tabId, true);
  }
  if (info.status === "complete" || info.title !== undefined) await tellOffscreen({ type: "changed", tabId: tabId, frameId: 0 });
  if (info.status === "complete") await tellOffscreen({ type: "frames", tabId: tabId });
}

/**
 * A shared tab committed a new document: inject at once, so the engine's WebMCP context
 * (document.modelContext) exists before most of the page's own scripts run, and events fired
 * while it loads are heard. Best effort: a page whose inline scripts ran already gets the
 * engine at "complete" all the same.
 */
async function committed(details) {
  if (!(await isShared(details.tabId))) return;
  if (details.frameId === 0) {
    await injectEngine(details.tabId, true).catch(() => false);
    await syncEarlyEngine().catch(() => undefined); // a new site: its next pages get the engine at document_start
  } else if (await isRuntimeFrame(details.tabId, details.frameId)) {
    await injectEngine(details.tabId, true, details.frameId).catch(() => false);
  }
  // A frame came, navigated (maybe to another origin), or the top page's frames went with it.
  await tellOffscreen({ type: "frames", tabId: details.tabId });
}

/** A frame of a shared tab finished loading: the engine again (as the top page's "complete"), the new URL and title. */
async function frameLoaded(details) {
  if (details.frameId === 0 || !(await isShared(details.tabId)) || !(await isRuntimeFrame(details.tabId, details.frameId))) return;
  await injectEngine(details.tabId, false, details.frameId).catch(() => false);
  await tellOffscreen({ type: "changed", tabId: details.tabId, frameId: details.frameId });
}

function tabClosed(tabId) {
  return oneAtATime(() => forgetClosedTab(tabId));
}

async function forgetClosedTab(tabId) {
  const state = await loadState();
  if (!state.shared[String(tabId)]) return;
  await releaseTab(tabId);
  delete state.shared[String(tabId)];
  await saveShared(state.shared);
  await syncEarlyEngine().catch(() => undefined);
  await sync();
}

/** After a browser restart tab ids are new: shares of tabs that no longer exist are dropped. */
function prune() {
  return oneAtATime(pruneNow);
}

async function pruneNow() {
  const state = await loadState();
  const open = new Set((await chrome.tabs.query({})).map((t) => String(t.id)));
  let changed = false;
  for (const key of Object.keys(state.shared)) {
    if (!open.has(key)) {
      delete state.shared[key];
      changed = true;
    }
  }
  if (changed) await saveShared(state.shared);
  for (const key of Object.keys(state.shared)) await setBadge(Number(key), true);
  await syncEarlyEngine().catch(() => undefined);
  await sync();
}

chrome.tabs.onUpdated.addListener((tabId, info) => { tabChanged(tabId, info); });
chrome.tabs.onRemoved.addListener((tabId) => { tabClosed(tabId); });
chrome.webNavigation.onCommitted.addListener((details) => { committed(details); });
chrome.webNavigation.onCompleted.addListener((details) => { frameLoaded(details); });
// Allowing or revoking trusted input changes what every shared tab announces (input.trusted).
chrome.permissions.onAdded.addListener(() => { tellOffscreen({ type: "reannounce" }); });
chrome.permissions.onRemoved.addListener(() => { tellOffscreen({ type: "reannounce" }); });
chrome.runtime.onStartup.addListener(() => { prune(); });
chrome.runtime.onInstalled.addListener(() => {
  chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 });
  prune();
});
// Chrome may close an offscreen document; this brings it back with the sockets it should hold.
chrome.alarms.onAlarm.addListener((alarm) => { if (alarm.name === KEEPALIVE_ALARM) sync(); });

/** Run `act` only while the tab is shared and the frame (if any) a runtime (a late message about either touches nothing). */
async function sharedOnly(tabId, frameId, act) {
  if (!(await isShared(tabId))) return { ok: false, error: { code: "permission_denied", message: "tab " + tabId + " is not shared" } };
  if (frameId && !(await isRuntimeFrame(tabId, frameId))) return frameGone(tabId, frameId);
  try {
    return { ok: true, result: await act() };
  } catch (err) {
    return { ok: false, error: { code: "transport_failed", message: String((err && err.message) || err) } };
  }
}

const HANDLERS = {
  get_state: () => loadState(),
  pair: async (msg) => {
    await chrome.storage.local.set({ pairing: msg.pairing });
    await sync();
    return { ok: true };
  },
  unpair: async () => {
    await chrome.storage.local.remove("pairing");
    await sync();
    return { ok: true };
  },
  share: async (msg) => ({ ok: true, entry: await share(msg.tabId, !!msg.on) }),
  conn: async (msg) => {
    const update = {};
    update["conn:" + msg.tabId] = { state: msg.state, detail: msg.detail, at: Date.now() };
    await chrome.storage.session.set(update);
    return { ok: true };
  },
  describe: async (msg) => {
    if (msg.frameId && !(await isRuntimeFrame(msg.tabId, msg.frameId))) return frameGone(msg.tabId, msg.frameId);
    return describe(msg.tabId, msg.frameId || 0);
  },
  call: (msg) => call(msg.tabId, msg.frameId || 0, msg.item),
  configure: (msg) => sharedOnly(msg.tabId, msg.frameId || 0, () => configureTab(msg.tabId, msg.frameId || 0, msg.listen || [], msg.attachments || [])),
  deliver: (msg) => sharedOnly(msg.tabId, msg.frameId || 0, () => deliverToTab(msg.tabId, msg.frameId || 0, msg.item)),
  // The frames of a shared tab that are runtimes now (offscreen.js opens and closes their connections to match).
  frames: async (msg) => ({ ok: true, frames: (await isShared(msg.tabId)) ? await runtimeFrames(msg.tabId) : [] }),
  trusted_input: async () => ({ ok: true, allowed: await trustedInputAllowed() }),
};

chrome.runtime.onMessage.addListener((msg, _sender, sendResponse) => {
  if (!msg || msg.target === "offscreen") return false;
  const handler = HANDLERS[msg.type];
  if (!handler) return false;
  Promise.resolve()
    .then(() => handler(msg))
    .then(sendResponse, (err) => sendResponse({ ok: false, error: { code: "internal_error", message: String((err && err.message) || err) } }));
  return true; // the answer comes asynchronously
});
