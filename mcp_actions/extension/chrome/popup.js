/*
 * popup.js — The toolbar popup: the tabs shared now, each with a "Stop
 * sharing" button, and the way to the connect page to share more.
 */
"use strict";

renderTrustedControl(document.getElementById("trusted"));
keepRendered((view) => {
  const pairing = view.state.pairing;
  document.getElementById("asker").textContent = pairing ? (pairing.server || "mcp-actions") + " at " + pairing.bridge : "Not paired yet.";
  renderSharedButtons(document.getElementById("tabs"), view);
});
