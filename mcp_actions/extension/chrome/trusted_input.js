/*
 * trusted_input.js — Real input events in a shared tab through chrome.debugger,
 * when the user allowed it (loaded by sw.js; uses keys.js and sw.js's engineCall).
 *
 * The "debugger" permission is optional: the user grants it with the "Allow
 * trusted input" control of the connect page or the popup. Until then the engine's
 * synthetic input runs and the runtime does not announce input.trusted. Once granted,
 * these primitives go through the DevTools protocol (Input.dispatchMouseEvent,
 * Input.insertText, Input.dispatchKeyEvent), as runtimes/tab.py does with
 * Playwright: the engine resolves a target to a point (locator.element_info, which
 * scrolls it into view) or focuses a field (focusEditable); the debugger makes the
 * event. Chrome shows its "started debugging this browser" bar while attached; we
 * attach on the first trusted input of a tab and detach when its share ends.
 */
"use strict";

const TRUSTED_PRIMITIVES = ["pointer.click", "pointer.double_click", "pointer.move", "text.insert", "keyboard.press"];
const DEBUGGER_PERMISSION = { permissions: ["debugger"] };
const CDP_VERSION = "1.3";
const BUTTONS = ["left", "middle", "right"];

/** Whether the user granted the debugger permission (read each time: they may revoke it in chrome://extensions). */
function trustedInputAllowed() {
  return chrome.permissions.contains(DEBUGGER_PERMISSION).catch(() => false);
}

async function cdp(tabId, method, params) {
  const target = { tabId: tabId };
  try {
    return await chrome.debugger.sendCommand(target, method, params || {});
  } catch (err) {
    if (!/not attached/i.test(String(err && err.message))) throw err;
  }
  try {
    await chrome.debugger.attach(target, CDP_VERSION);
  } catch (err) {
    // Another wake-up of this worker attached first: fine. Anything else (DevTools of a page Chrome protects) is not.
    if (!/already attached/i.test(String(err && err.message))) {
      throw new InputFailure("capability_unavailable", "trusted input cannot attach to this tab: " + String((err && err.message) || err), { tab_id: tabId });
    }
  }
  return chrome.debugger.sendCommand(target, method, params || {});
}

/** Stop debugging a tab (its share ended); nothing when we were not attached. */
function releaseTab(tabId) {
  // Without the permission there is no chrome.debugger at all (and nothing to detach).
  if (!chrome.debugger) return Promise.resolve();
  return chrome.debugger.detach({ tabId: tabId }).catch(() => undefined);
}

// ---- the page's side (MAIN world, self-contained) --------------------------

function pageProbePoint(x, y) {
  return { width: innerWidth, height: innerHeight, hit: !!document.elementFromPoint(x, y) };
}

function pageFocusedValue() {
  var el = document.activeElement;
  return el && typeof el.value === "string" ? el.value : null;
}

function pagePassThrough(on) {
  // Our own overlay floats above the page, but primitives act on the page below it (overlay.js).
  var engine = window.__mcpActions;
  return !!engine && typeof engine.overlayPassThrough === "function" && engine.overlayPassThrough(on);
}

// ---- primitives -------------------------------------------------------------

function numberArg(args, key) {
  const value = args[key];
  if (typeof value !== "number" || !isFinite(value)) throw new InputFailure("invalid_input", key + " must be a number", { field: key });
  return value;
}

async function checkedPoint(tabId, args) {
  const x = numberArg(args, "x");
  const y = numberArg(args, "y");
  const probe = await inMainWorld(tabId, pageProbePoint, [x, y]);
  if (!(x >= 0 && x < probe.width && y >= 0 && y < probe.height)) {
    throw new InputFailure("point_out_of_viewport", "(" + x + ", " + y + ") is outside the " + probe.width + "x" + probe.height + " viewport", { x: x, y: y, viewport: { width: probe.width, height: probe.height } });
  }
  if (!probe.hit) throw new InputFailure("target_not_found", "no element at (" + x + ", " + y + ")", { x: x, y: y });
  return { x: x, y: y };
}

async function centerOf(tabId, locator) {
  const info = await engineCall(tabId, "run", "locator.element_info", { locator: locator });
  return { x: info.clickable_center.x, y: info.clickable_center.y, matched_by: info.matched_by };
}

async function pastOverlay(tabId, act) {
  const covered = await inMainWorld(tabId, pagePassThrough, [true]);
  try {
    return await act();
  } finally {
    if (covered) await inMainWorld(tabId, pagePassThrough, [false]).catch(() => undefined);
  }
}

async function mouse(tabId, type, point, extra) {
  await cdp(tabId, "Input.dispatchMouseEvent", Object.assign({ type: type, x: point.x, y: point.y }, extra || {}));
}

async function clicks(tabId, point, button, count) {
  await mouse(tabId, "mouseMoved", point);
  for (let n = 1; n <= count; n++) {
    await mouse(tabId, "mousePressed", point, { button: button, clickCount: n });
    await mouse(tabId, "mouseReleased", point, { button: button, clickCount: n });
  }
}

async function trustedClick(tabId, args) {
  const button = args.button === undefined ? "left" : args.button;
  if (BUTTONS.indexOf(button) < 0) throw new InputFailure("invalid_input", "button must be left, middle or right", { field: "button" });
  if (args.target !== undefined) {
    if (args.x !== undefined || args.y !== undefined) throw new InputFailure("invalid_input", "give x and y, or target, not both", { field: "target" });
    const center = await centerOf(tabId, args.target);
    await pastOverlay(tabId, () => clicks(tabId, center, button, 1));
    return { clicked: true, button: button, matched_by: center.matched_by, fidelity: "trusted" };
  }
  const point = await checkedPoint(tabId, args);
  await pastOverlay(tabId, () => clicks(tabId, point, button, 1));
  return { clicked: true, button: button, fidelity: "trusted" };
}

async function trustedDoubleClick(tabId, args) {
  const point = await checkedPoint(tabId, args);
  await pastOverlay(tabId, () => clicks(tabId, point, "left", 2));
  return { double_clicked: true, fidelity: "trusted" };
}

async function trustedMove(tabId, args) {
  const point = await checkedPoint(tabId, args);
  await pastOverlay(tabId, () => mouse(tabId, "mouseMoved", point));
  return { x: point.x, y: point.y };
}

async function keyStroke(tabId, spec, bits) {
  const base = { key: spec.key, code: spec.code, windowsVirtualKeyCode: spec.keyCode, nativeVirtualKeyCode: spec.keyCode, modifiers: bits };
  // keyDown with text types it (and fires keypress); rawKeyDown does not.
  await cdp(tabId, "Input.dispatchKeyEvent", Object.assign({ type: spec.text ? "keyDown" : "rawKeyDown" }, base, spec.text ? { text: spec.text, unmodifiedText: spec.text } : {}));
  await cdp(tabId, "Input.dispatchKeyEvent", Object.assign({ type: "keyUp" }, base));
}

async function pressChord(tabId, chord) {
  let bits = 0;
  const held = [];
  try {
    for (const name of chord.modifiers) {
      const [key, code, keyCode] = MODIFIER_KEYS[name];
      bits |= MODIFIER_BITS[name];
      await cdp(tabId, "Input.dispatchKeyEvent", { type: "rawKeyDown", key: key, code: code, windowsVirtualKeyCode: keyCode, modifiers: bits });
      held.push(name);
    }
    await keyStroke(tabId, chord, chord.bits);
  } finally {
    // Never leave a modifier held down in the user's browser, even when a key event failed.
    for (const name of held.reverse()) {
      const [key, code, keyCode] = MODIFIER_KEYS[name];
      bits &= ~MODIFIER_BITS[name];
      await cdp(tabId, "Input.dispatchKeyEvent", { type: "keyUp", key: key, code: code, windowsVirtualKeyCode: keyCode, modifiers: bits }).catch(() => undefined);
    }
  }
}

async function trustedPress(tabId, args) {
  const chord = parseChord(args.key, args.modifiers);
  await pressChord(tabId, chord);
  return { pressed: true, key: chord.key, modifiers: chord.modifiers, fidelity: "trusted" };
}

async function trustedInsert(tabId, args) {
  const text = args.text;
  const mode = args.mode === undefined ? "append" : args.mode;
  if (typeof text !== "string") throw new InputFailure("invalid_input", "text must be a string", { field: "text" });
  let prepared = await engineCall(tabId, "focusEditable", args.target, mode);
  let toType = text;
  if (!prepared.caret_placed) {
    // Fields without a selection API (email, number) cannot put the caret at the end: select all, retype value + text.
    prepared = await engineCall(tabId, "focusEditable", args.target, "replace");
    toType = (prepared.value || "") + text;
  }
  if (toType) await cdp(tabId, "Input.insertText", { text: toType });
  else if (mode === "replace") await pressChord(tabId, parseChord("Delete")); // replace with "": clear the selection
  const before = prepared.value;
  if (before !== undefined && before !== null && text) {
    const after = await inMainWorld(tabId, pageFocusedValue);
    if (after === (prepared.caret_placed && mode === "append" ? before : "")) {
      throw new InputFailure("insert_failed", "the field did not accept the text (its type or a page script refused it)", { tag: prepared.tag, expected_length: toType.length });
    }
  }
  return { inserted: true, inserted_length: text.length, matched_by: prepared.matched_by, fidelity: "trusted" };
}

const TRUSTED_HANDLERS = {
  "pointer.click": trustedClick,
  "pointer.double_click": trustedDoubleClick,
  "pointer.move": trustedMove,
  "text.insert": trustedInsert,
  "keyboard.press": trustedPress,
};

/** Run one trusted primitive in a shared tab: an envelope {ok, output} | {ok: false, error}. */
async function runTrusted(tabId, name, args) {
  try {
    return { ok: true, output: await TRUSTED_HANDLERS[name](tabId, args || {}) };
  } catch (err) {
    if (err instanceof InputFailure) return failure(err.code, err.message, err.evidence);
    throw err;
  }
}
