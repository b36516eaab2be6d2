/*
 * relay.js — How a shared tab's page talks back to the extension (loaded by sw.js).
 *
 * The engine runs in the page's MAIN world, which has no chrome.* APIs. What it
 * reports on its own (declared DOM events, page tools, call messages, attachment
 * states and launcher clicks) travels like this:
 *
 *   MAIN world  --CustomEvent "mcp-actions-relay-<nonce>" (detail: JSON text)-->
 *   ISOLATED world content script  --chrome.runtime.sendMessage-->  offscreen.js
 *
 * The nonce is random per document (made by the isolated script the first time it
 * is injected there, kept in that world, invisible to the page) and handed only to
 * our MAIN-world functions as an argument. A page script that does not know it hears
 * nothing and cannot speak on the channel; one that hooks dispatchEvent before us can
 * learn it. That is acceptable because the relay carries page data, which is
 * untrusted whatever its path: the engine itself runs in the page's world, so a page
 * could lie through it anyway. What keeps that harmless is on our side: the content
 * script forwards only JSON text of bounded size, offscreen.js accepts only the kinds
 * below from a runtime of a shared tab (its top document or a same-origin frame:
 * tab id, frame id and origin from Chrome's sender, not from the message), stamps
 * runtime_id itself, and the bridge validates every item.
 *
 * The other direction (runtime_config, input_response, action_cancel) needs no
 * channel: the service worker calls the engine in the MAIN world (pageConfigure,
 * pageDeliver). Every function here that runs in a page is serialised by
 * chrome.scripting, so each is self-contained.
 */
"use strict";

const RELAY_EVENT_PREFIX = "mcp-actions-relay-";
//: Page → extension messages larger than this are dropped in the page (the bridge's page_tools limit is 256 KiB).
const RELAY_MAX_CHARS = 300000;

// ---- ISOLATED world ------------------------------------------------------

/** Install the content-script end of the relay once per document; returns this document's nonce. */
function relayInstall(prefix, maxChars) {
  // Globals of the isolated world are not the page's: the page cannot see or set this.
  const existing = globalThis.__mcpActionsRelayNonce;
  if (typeof existing === "string") return existing;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const nonce = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  document.addEventListener(prefix + nonce, (ev) => {
    // Strings cross worlds intact; page objects would not (and would not be ours to trust).
    if (typeof ev.detail !== "string" || ev.detail.length > maxChars) return;
    ev.stopImmediatePropagation();
    chrome.runtime.sendMessage({ target: "offscreen", type: "page", text: ev.detail }).catch(() => undefined);
  }, true);
  // This document goes (a navigation, or its iframe was removed): the offscreen document checks
  // which frames of the tab are still runtimes. Chrome names the frame (sender), not this message.
  addEventListener("pagehide", () => {
    try {
      chrome.runtime.sendMessage({ target: "offscreen", type: "left" }).catch(() => undefined);
    } catch (_ignored) { /* the extension context is gone */ }
  });
  globalThis.__mcpActionsRelayNonce = nonce;
  return nonce;
}

// ---- MAIN world ----------------------------------------------------------

/**
 * Once per document, after the engine: report the page's tools (now, and on every
 * change) and the messages of running calls. "new" when this call hooked them,
 * "existing" when an earlier one had, false when the engine is missing.
 */
function pageHook(nonce, prefix) {
  var engine = window.__mcpActions;
  if (!engine || typeof engine.run !== "function") return false;
  if (window.__mcpActionsRelayHooked) return "existing"; // the engine's listeners cannot be removed: hook once
  try {
    Object.defineProperty(window, "__mcpActionsRelayHooked", { value: true, enumerable: false });
  } catch (_ignored) {
    return "existing";
  }
  var dispatch = EventTarget.prototype.dispatchEvent;
  function emit(item) {
    try {
      dispatch.call(document, new CustomEvent(prefix + nonce, { detail: JSON.stringify(item) }));
    } catch (_ignored) { /* not serialisable: nothing to relay */ }
  }
  if (typeof engine.onPageTools === "function") engine.onPageTools(function (snapshot) { emit({ kind: "page_tools", page_tools: snapshot }); });
  if (typeof engine.onCallMessage === "function") engine.onCallMessage(function (message) { emit({ kind: "call", message: message }); });
  return "new";
}

/** Apply the bridge's runtime_config (declared events, attachments) to this document; replaces what it had. */
function pageConfigure(nonce, prefix, listen, attachments) {
  var engine = window.__mcpActions;
  if (!engine || typeof engine.watchEvents !== "function") return false;
  var dispatch = EventTarget.prototype.dispatchEvent;
  function emit(item) {
    try {
      dispatch.call(document, new CustomEvent(prefix + nonce, { detail: JSON.stringify(item) }));
    } catch (_ignored) { /* not serialisable: nothing to relay */ }
  }
  engine.watchEvents(listen, function (signal) { emit({ kind: "event", name: signal.name, event: signal.event, payload: signal.payload }); });
  if (typeof engine.applyAttachments === "function") {
    engine.applyAttachments(attachments, {
      status: function (states) { emit({ kind: "attachments", attachments: states }); },
      open: function (attachmentId, launcherId) { emit({ kind: "attachment_open", attachment_id: attachmentId, launcher_id: launcherId }); },
    });
  }
  return true;
}

/** Hand an input_response or action_cancel to the running call it names (callchannel.js); true when someone took it. */
function pageDeliver(item) {
  var engine = window.__mcpActions;
  return !!engine && typeof engine.deliver === "function" && !!engine.deliver(item);
}

// ---- service worker side -------------------------------------------------

/**
 * Put the runtime into the current document of the tab (frameId 0 or absent) or of
 * one of its frames (frames.js's scriptTarget): the relay's content script,
 * the engine, and the hooks. Safe to repeat (each part installs once per document):
 * "new" when this document had no runtime before, "existing" when it had.
 * `early` injects without waiting for the document to be idle (right after a commit,
 * so the engine's WebMCP context exists before most of the page's scripts run).
 */
async function injectRuntime(tabId, engineFile, early, frameId) {
  const target = scriptTarget(tabId, frameId);
  const timing = early ? { injectImmediately: true } : {};
  const [isolated] = await chrome.scripting.executeScript({ target, world: "ISOLATED", func: relayInstall, args: [RELAY_EVENT_PREFIX, RELAY_MAX_CHARS], ...timing });
  await chrome.scripting.executeScript({ target, world: "MAIN", files: [engineFile], ...timing });
  const nonce = isolated && isolated.result;
  if (typeof nonce !== "string") return false;
  const [hooked] = await chrome.scripting.executeScript({ target, world: "MAIN", func: pageHook, args: [nonce, RELAY_EVENT_PREFIX], ...timing });
  return hooked && hooked.result;
}

/** runtime_config in the runtime's current document (the nonce comes from its isolated world, where it lives). */
async function configureTab(tabId, frameId, listen, attachments) {
  const target = scriptTarget(tabId, frameId);
  const [isolated] = await chrome.scripting.executeScript({ target, world: "ISOLATED", func: relayInstall, args: [RELAY_EVENT_PREFIX, RELAY_MAX_CHARS] });
  const nonce = isolated && isolated.result;
  if (typeof nonce !== "string") return false;
  const [applied] = await chrome.scripting.executeScript({ target, world: "MAIN", func: pageConfigure, args: [nonce, RELAY_EVENT_PREFIX, listen, attachments] });
  return !!(applied && applied.result);
}

async function deliverToTab(tabId, frameId, item) {
  const [delivered] = await chrome.scripting.executeScript({ target: scriptTarget(tabId, frameId), world: "MAIN", func: pageDeliver, args: [item] });
  return !!(delivered && delivered.result);
}
