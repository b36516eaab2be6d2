/*
 * frames.js — Which frames of a shared tab are runtimes (loaded by sw.js).
 *
 * As on the Playwright browser host (runtimes/frame.py), every child frame whose
 * document has the same origin as the tab's top document is a runtime of its
 * own while the tab is shared: a widget or an editor a site embeds from itself
 * has its own tools. Frames of another origin are a third party's and never are;
 * neither are about:blank/srcdoc frames, fenced frames, nor documents that are
 * being unloaded or sit in the back/forward cache.
 *
 * Everything here asks Chrome (webNavigation), never the page: a frame id and
 * an origin are Chrome's word.
 */
"use strict";

/** The origin of an http(s) or file URL ("file:" for every file URL), or null for anything else. */
function runtimeOrigin(url) {
  try {
    const parsed = new URL(url || "");
    if (parsed.protocol === "file:") return "file:";
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return parsed.origin;
  } catch (_ignored) { /* not a URL */ }
  return null;
}

function frameIsLive(frame) {
  // Older Chrome lacks these fields: then every listed frame counts.
  if (frame.documentLifecycle && frame.documentLifecycle !== "active") return false;
  if (frame.frameType && frame.frameType !== "sub_frame") return false;
  return !frame.errorOccurred;
}

/**
 * The runtime frames of a tab now: [{frameId, url, origin}] (no top frame; [] when the top
 * document is not a web page). The caller checks that the tab is shared.
 */
async function runtimeFrames(tabId) {
  let frames;
  try {
    frames = (await chrome.webNavigation.getAllFrames({ tabId: tabId })) || [];
  } catch (_ignored) {
    return []; // the tab is gone
  }
  const top = frames.find((f) => f.frameId === 0);
  const origin = top && runtimeOrigin(top.url);
  if (!origin) return [];
  return frames
    .filter((f) => f.frameId !== 0 && frameIsLive(f) && runtimeOrigin(f.url) === origin)
    .map((f) => ({ frameId: f.frameId, url: f.url, origin: origin }));
}

/** Is frame `frameId` of the tab a runtime frame right now (asked before anything runs in it)? */
async function isRuntimeFrame(tabId, frameId) {
  return (await runtimeFrames(tabId)).some((f) => f.frameId === frameId);
}

/** chrome.scripting's target for a runtime: the tab's top document, or one of its frames. */
function scriptTarget(tabId, frameId) {
  return frameId ? { tabId: tabId, frameIds: [frameId] } : { tabId: tabId };
}
