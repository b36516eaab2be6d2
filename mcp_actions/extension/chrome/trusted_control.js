/*
 * trusted_control.js — The "Allow trusted input" control of the connect page and
 * the popup. Trusted input (real pointer and keyboard events through
 * chrome.debugger, trusted_input.js) needs the optional "debugger" permission,
 * which only a click of the user may request. Granting or revoking it makes
 * every shared tab announce its input honestly again (sw.js: input.trusted).
 */
"use strict";

const TRUSTED_PERMISSION = { permissions: ["debugger"] };

/** Fill `container` with the control and a line saying what the agent's input is now; kept current. */
function renderTrustedControl(container) {
  const line = document.createElement("p");
  line.className = "hint";
  line.id = "trusted-state";
  const button = document.createElement("button");
  button.type = "button";
  button.id = "trusted-input";
  container.replaceChildren(line, button);
  let allowed = false;

  async function refresh() {
    allowed = await chrome.permissions.contains(TRUSTED_PERMISSION).catch(() => false);
    line.textContent = allowed
      ? "Trusted input is on: the agent's clicks and keys in shared tabs are real input events (Chrome shows that the extension is debugging those tabs)."
      : "Trusted input is off: the agent's clicks and keys in shared tabs are synthetic page events, which some sites ignore.";
    button.textContent = allowed ? "Turn off trusted input" : "Allow trusted input";
  }

  button.addEventListener("click", async () => {
    try {
      // Chrome asks the user itself; a permission the manifest requires cannot be removed (and says so).
      if (allowed) await chrome.permissions.remove(TRUSTED_PERMISSION);
      else await chrome.permissions.request(TRUSTED_PERMISSION);
    } catch (err) {
      line.textContent = "Could not change trusted input: " + String((err && err.message) || err);
      return;
    }
    await refresh();
  });
  chrome.permissions.onAdded.addListener(refresh);
  chrome.permissions.onRemoved.addListener(refresh);
  return refresh();
}
