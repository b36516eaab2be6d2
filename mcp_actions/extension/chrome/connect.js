/*
 * connect.js — The connect page: pairs the extension with the mcp-actions
 * server whose link opened it, then lets the user share tabs one by one.
 *
 * The link (printed by `mcp-actions serve`) carries the bridge address and
 * this start's token in its fragment. The page trades the token for a lasting
 * pairing (GET /pair on the bridge, docs/extension.md): a token that is wrong
 * or from an earlier start is refused by the bridge, and the page says so.
 */
"use strict";

const statusLine = document.getElementById("status");
const asker = document.getElementById("asker");
const list = document.getElementById("tabs");

function say(text, kind) {
  statusLine.textContent = text;
  statusLine.className = kind || "";
}

function linkParams() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const bridge = params.get("bridge");
  const token = params.get("token");
  return bridge && token ? { bridge: bridge.replace(/\/+$/, ""), token: token } : null;
}

function describeAsker(pairing) {
  asker.replaceChildren();
  if (!pairing) {
    asker.textContent = "Not paired with any mcp-actions server. Open the connect link mcp-actions prints when it starts.";
    return;
  }
  const code = document.createElement("code");
  code.textContent = pairing.bridge;
  asker.append(pairing.server || "mcp-actions", " at ", code, " asks to operate the tabs you share. Authorization ", pairing.authorization_id, ".");
}

async function pair(link, previous) {
  const url = new URL("/pair", link.bridge);
  url.searchParams.set("label", "browser extension " + chrome.runtime.getManifest().version + " (" + navigator.userAgent.replace(/^.*?(Chrome|Edg|Chromium)\//, "$1/").split(" ")[0] + ")");
  const headers = { Authorization: "Bearer " + link.token };
  if (previous && previous.bridge === link.bridge) {
    // Only the holder of the older pairing's secret may have it revoked (docs/extension.md).
    url.searchParams.set("replaces", previous.authorization_id);
    headers["X-MCP-Actions-Replaces"] = previous.secret;
  }
  let response;
  try {
    response = await fetch(url.toString(), { headers: headers, cache: "no-store" });
  } catch (_ignored) {
    say("Could not reach mcp-actions at " + link.bridge + ". Is it running? Start it, then open the link it prints.", "error");
    return null;
  }
  if (response.status === 401) {
    say("Refused: the mcp-actions bridge at " + link.bridge + " did not accept this link's token. The link is wrong or stale (from an earlier start of mcp-actions): open the connect link mcp-actions printed at its latest start.", "error");
    return null;
  }
  if (!response.ok) {
    say("The bridge at " + link.bridge + " answered " + response.status + " to the pairing request.", "error");
    return null;
  }
  const body = await response.json();
  return { bridge: link.bridge, authorization_id: body.authorization_id, secret: body.secret, server: body.server, label: body.label, paired_at: new Date().toISOString() };
}

async function main() {
  const state = await chrome.runtime.sendMessage({ type: "get_state" });
  const link = linkParams();
  if (link) {
    say("Pairing with mcp-actions at " + link.bridge + "…");
    const pairing = await pair(link, state.pairing);
    if (pairing) {
      await chrome.runtime.sendMessage({ type: "pair", pairing: pairing });
      say("Paired with mcp-actions at " + link.bridge + ". Share the tabs it may operate.", "ok");
      // The token has done its work: keep it out of the history and of a reload.
      history.replaceState(null, "", location.pathname);
    }
  }
  renderTrustedControl(document.getElementById("trusted"));
  keepRendered((view) => {
    describeAsker(view.state.pairing);
    renderCheckboxes(list, view, (message) => say(message, "error"));
  });
}

main();
