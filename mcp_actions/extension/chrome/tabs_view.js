/*
 * tabs_view.js — The list of tabs with a share control each, used by the
 * connect page (every tab, a checkbox) and the popup (shared tabs, a button).
 * Each control's accessible name carries the tab's title, so a person (or a
 * screen reader) knows exactly which tab a click shares. Nothing here leaves
 * the extension: only the service worker, on a share, tells the server about
 * that one tab.
 */
"use strict";

const OWN_ORIGIN = location.origin;
const STATE_LABELS = { connected: "connected", connecting: "connecting…", refused: "refused", replaced: "taken over elsewhere", revoked: "pairing revoked", error: "not scriptable", stopped: "" };

async function loadView() {
  const state = await chrome.runtime.sendMessage({ type: "get_state" });
  const tabs = (await chrome.tabs.query({})).filter((tab) => !(tab.url || "").startsWith(OWN_ORIGIN));
  const session = await chrome.storage.session.get(null);
  return { state: state, tabs: tabs, conn: (id) => session["conn:" + id] || null };
}

function setShare(tabId, on) {
  return chrome.runtime.sendMessage({ type: "share", tabId: tabId, on: on });
}

function tabTitle(tab) {
  return tab.title || tab.url || "untitled tab";
}

function connLabel(view, tab) {
  const conn = view.conn(tab.id);
  const span = document.createElement("span");
  span.className = "conn " + (conn ? conn.state : "");
  span.textContent = conn ? STATE_LABELS[conn.state] || conn.state : "";
  if (conn && conn.detail) span.title = conn.detail;
  return span;
}

/** Every tab with a "Share …" checkbox (the connect page); disabled until paired. */
function renderCheckboxes(list, view, onError) {
  const shared = view.state.shared || {};
  list.replaceChildren();
  for (const tab of view.tabs) {
    const item = document.createElement("li");
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = Object.prototype.hasOwnProperty.call(shared, String(tab.id));
    box.disabled = !view.state.pairing;
    box.dataset.tabId = String(tab.id);
    box.setAttribute("aria-label", "Share " + tabTitle(tab));
    box.addEventListener("change", async () => {
      box.disabled = true;
      const answer = await setShare(tab.id, box.checked).catch((err) => ({ ok: false, error: { message: String(err) } }));
      if (!answer || answer.ok === false) {
        box.checked = !box.checked;
        onError("Could not share “" + tabTitle(tab) + "”: " + ((answer && answer.error && answer.error.message) || "unknown error"));
      }
      box.disabled = false;
    });
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = tabTitle(tab);
    const url = document.createElement("span");
    url.className = "url";
    url.textContent = tab.url || "";
    label.append(box, title, url);
    item.append(label, connLabel(view, tab));
    list.append(item);
  }
}

/** Shared tabs only, each with a "Stop sharing …" button (the popup). */
function renderSharedButtons(list, view) {
  const shared = view.state.shared || {};
  list.replaceChildren();
  const tabs = view.tabs.filter((tab) => Object.prototype.hasOwnProperty.call(shared, String(tab.id)));
  if (!tabs.length) {
    const none = document.createElement("li");
    none.textContent = "No tab is shared.";
    list.append(none);
  }
  for (const tab of tabs) {
    const item = document.createElement("li");
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = tabTitle(tab);
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Stop sharing";
    button.setAttribute("aria-label", "Stop sharing " + tabTitle(tab));
    button.addEventListener("click", () => setShare(tab.id, false));
    item.append(title, connLabel(view, tab), button);
    list.append(item);
  }
}

/** Render now and again whenever tabs, shares or connection states change. */
function keepRendered(render) {
  let queued = false;
  const again = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      loadView().then(render);
    }, 50);
  };
  chrome.tabs.onUpdated.addListener(again);
  chrome.tabs.onCreated.addListener(again);
  chrome.tabs.onRemoved.addListener(again);
  chrome.storage.onChanged.addListener(again);
  again();
}
