/*
 * keys.js — Key chords as Chrome DevTools Protocol key events (loaded by sw.js).
 *
 * keyboard.press takes the chords the page engine's keyboard.js takes ("Enter",
 * "Ctrl+a", "Shift+Tab", modifiers: ["Meta"]) with the same aliases and the same
 * invalid_key errors, so a map behaves alike whether its input is synthetic or
 * trusted. parseChord gives what Input.dispatchKeyEvent needs: key, code,
 * windowsVirtualKeyCode, the text a key types, and the modifier bitmask.
 */
"use strict";

// name -> [key, code, windows virtual key code, text typed]
const NAMED_KEYS = {
  enter: ["Enter", "Enter", 13, "\r"], tab: ["Tab", "Tab", 9, ""], escape: ["Escape", "Escape", 27, ""],
  backspace: ["Backspace", "Backspace", 8, ""], delete: ["Delete", "Delete", 46, ""], space: [" ", "Space", 32, " "],
  arrowup: ["ArrowUp", "ArrowUp", 38, ""], arrowdown: ["ArrowDown", "ArrowDown", 40, ""],
  arrowleft: ["ArrowLeft", "ArrowLeft", 37, ""], arrowright: ["ArrowRight", "ArrowRight", 39, ""],
  home: ["Home", "Home", 36, ""], end: ["End", "End", 35, ""], pageup: ["PageUp", "PageUp", 33, ""],
  pagedown: ["PageDown", "PageDown", 34, ""], insert: ["Insert", "Insert", 45, ""],
  capslock: ["CapsLock", "CapsLock", 20, ""], contextmenu: ["ContextMenu", "ContextMenu", 93, ""],
  shift: ["Shift", "ShiftLeft", 16, ""], control: ["Control", "ControlLeft", 17, ""],
  alt: ["Alt", "AltLeft", 18, ""], meta: ["Meta", "MetaLeft", 91, ""],
};
for (let f = 1; f <= 12; f++) NAMED_KEYS["f" + f] = ["F" + f, "F" + f, 111 + f, ""];
const KEY_ALIASES = {
  esc: "escape", return: "enter", up: "arrowup", down: "arrowdown", left: "arrowleft",
  right: "arrowright", del: "delete", spacebar: "space", ctrl: "control", cmd: "meta",
  command: "meta", option: "alt",
};
const MODIFIER_ALIASES = { alt: "Alt", option: "Alt", control: "Control", ctrl: "Control", meta: "Meta", cmd: "Meta", command: "Meta", shift: "Shift" };
// CDP's modifier bits, and each modifier's own key (pressed before the chord's key, released after).
const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const MODIFIER_KEYS = { Alt: ["Alt", "AltLeft", 18], Control: ["Control", "ControlLeft", 17], Meta: ["Meta", "MetaLeft", 91], Shift: ["Shift", "ShiftLeft", 16] };

/** A refused input, with the stable error code and evidence the call's action_error carries. */
class InputFailure extends Error {
  constructor(code, message, evidence) {
    super(message);
    this.code = code;
    this.evidence = evidence;
  }
}

/** "Ctrl+Shift+a" (+ extra modifiers) -> {key, code, keyCode, text, modifiers: ["Control", "Shift"], bits}; throws InputFailure. */
function parseChord(keyArg, extraModifiers) {
  if (typeof keyArg !== "string" || !keyArg) throw new InputFailure("invalid_key", "key must be a non-empty string", { key: keyArg === undefined ? null : keyArg });
  let parts;
  if (keyArg === "+") parts = ["+"];
  else if (/\+\+$/.test(keyArg)) parts = keyArg.slice(0, -2).split("+").concat(["+"]);
  else parts = keyArg.split("+");
  const keyName = parts.pop();
  const modifiers = [];
  const addModifier = (m) => {
    const canonical = MODIFIER_ALIASES[String(m).toLowerCase()];
    if (!canonical) throw new InputFailure("invalid_key", "unknown modifier: " + m, { key: keyArg, modifier: m });
    if (modifiers.indexOf(canonical) < 0) modifiers.push(canonical);
  };
  parts.forEach(addModifier);
  if (extraModifiers !== undefined && extraModifiers !== null) {
    if (!Array.isArray(extraModifiers)) throw new InputFailure("invalid_input", "modifiers must be an array", { field: "modifiers" });
    extraModifiers.forEach(addModifier);
  }
  let lower = keyName.toLowerCase();
  lower = KEY_ALIASES[lower] || lower;
  let spec;
  if (keyName === " ") spec = NAMED_KEYS.space;
  else if (NAMED_KEYS[lower]) spec = NAMED_KEYS[lower];
  else if (Array.from(keyName).length === 1) {
    let ch = keyName;
    const upper = ch.toUpperCase();
    const code = /^[a-z]$/i.test(ch) ? "Key" + upper : /^[0-9]$/.test(ch) ? "Digit" + ch : "";
    const keyCode = /^[a-z0-9]$/i.test(ch) ? upper.charCodeAt(0) : 0;
    if (modifiers.indexOf("Shift") >= 0 && /^[a-z]$/.test(ch)) ch = upper; // a user's Shift+a types "A"
    spec = [ch, code, keyCode, ch];
  } else {
    throw new InputFailure("invalid_key", "unknown key: " + keyName, { key: keyArg });
  }
  const bits = modifiers.reduce((sum, m) => sum | MODIFIER_BITS[m], 0);
  // A chord with Control, Alt or Meta is a command, not typing: no text (as a real keyboard).
  const typing = !modifiers.some((m) => m !== "Shift");
  return { key: spec[0], code: spec[1], keyCode: spec[2], text: typing ? spec[3] : "", modifiers: modifiers, bits: bits };
}
