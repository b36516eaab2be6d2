/*
 * keyboard.js — Keyboard emulation (keyboard.press): chord parsing, synthetic key events
 * and the few default actions flows rely on.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf,
  TEXT_INPUT_TYPES = M.TEXT_INPUT_TYPES,
  focusedElement = M.focusedElement;

// -- keyboard -------------------------------------------------------------

var NAMED_KEYS = {
  enter: ["Enter", "Enter", 13], tab: ["Tab", "Tab", 9], escape: ["Escape", "Escape", 27],
  backspace: ["Backspace", "Backspace", 8], delete: ["Delete", "Delete", 46], space: [" ", "Space", 32],
  arrowup: ["ArrowUp", "ArrowUp", 38], arrowdown: ["ArrowDown", "ArrowDown", 40],
  arrowleft: ["ArrowLeft", "ArrowLeft", 37], arrowright: ["ArrowRight", "ArrowRight", 39],
  home: ["Home", "Home", 36], end: ["End", "End", 35], pageup: ["PageUp", "PageUp", 33],
  pagedown: ["PageDown", "PageDown", 34], insert: ["Insert", "Insert", 45],
  capslock: ["CapsLock", "CapsLock", 20], contextmenu: ["ContextMenu", "ContextMenu", 93],
  shift: ["Shift", "ShiftLeft", 16], control: ["Control", "ControlLeft", 17],
  alt: ["Alt", "AltLeft", 18], meta: ["Meta", "MetaLeft", 91],
};
var KEY_ALIASES = {
  esc: "escape", return: "enter", up: "arrowup", down: "arrowdown", left: "arrowleft",
  right: "arrowright", del: "delete", spacebar: "space", ctrl: "control", cmd: "meta",
  command: "meta", option: "alt",
};
var MODIFIER_ALIASES = { alt: "Alt", option: "Alt", control: "Control", ctrl: "Control", meta: "Meta", cmd: "Meta", command: "Meta", shift: "Shift" };
for (var f = 1; f <= 12; f++) NAMED_KEYS["f" + f] = ["F" + f, "F" + f, 111 + f];

function parseChord(keyArg, extraModifiers) {
  if (typeof keyArg !== "string" || !keyArg) fail("invalid_key", "key must be a non-empty string", { key: keyArg === undefined ? null : keyArg });
  var parts;
  if (keyArg === "+") parts = ["+"];
  else if (/\+\+$/.test(keyArg)) parts = keyArg.slice(0, -2).split("+").concat(["+"]);
  else parts = keyArg.split("+");
  var keyName = parts.pop();
  var modifiers = [];
  function addModifier(m) {
    var canonical = MODIFIER_ALIASES[String(m).toLowerCase()];
    if (!canonical) fail("invalid_key", "unknown modifier: " + m, { key: keyArg, modifier: m });
    if (modifiers.indexOf(canonical) < 0) modifiers.push(canonical);
  }
  parts.forEach(addModifier);
  if (extraModifiers !== undefined) {
    if (!Array.isArray(extraModifiers)) fail("invalid_input", "modifiers must be an array", { field: "modifiers" });
    extraModifiers.forEach(addModifier);
  }
  var lower = keyName.toLowerCase();
  lower = KEY_ALIASES[lower] || lower;
  var spec;
  if (keyName === " ") spec = NAMED_KEYS.space;
  else if (NAMED_KEYS[lower]) spec = NAMED_KEYS[lower];
  else if (Array.from(keyName).length === 1) {
    var ch = keyName;
    var upper = ch.toUpperCase();
    var code = /^[a-z]$/i.test(ch) ? "Key" + upper : /^[0-9]$/.test(ch) ? "Digit" + ch : "";
    var keyCode = /^[a-z0-9]$/i.test(ch) ? upper.charCodeAt(0) : 0;
    if (modifiers.indexOf("Shift") >= 0 && /^[a-z]$/.test(ch)) ch = upper;
    spec = [ch, code, keyCode];
  } else {
    fail("invalid_key", "unknown key: " + keyName, { key: keyArg });
  }
  return { key: spec[0], code: spec[1], keyCode: spec[2], modifiers: modifiers };
}

function keyEvent(type, chord) {
  var mods = chord.modifiers;
  var init = {
    key: chord.key, code: chord.code, bubbles: true, cancelable: true, composed: true,
    ctrlKey: mods.indexOf("Control") >= 0, shiftKey: mods.indexOf("Shift") >= 0,
    altKey: mods.indexOf("Alt") >= 0, metaKey: mods.indexOf("Meta") >= 0,
  };
  var ev = new KeyboardEvent(type, init);
  // keyCode/which are read-only on KeyboardEvent yet still read by older code.
  var code = type === "keypress" ? (chord.key.length === 1 ? chord.key.charCodeAt(0) : chord.keyCode) : chord.keyCode;
  try {
    Object.defineProperty(ev, "keyCode", { get: function () { return code; } });
    Object.defineProperty(ev, "which", { get: function () { return code; } });
  } catch (_ignored) { /* keep the defaults */ }
  return ev;
}

function defaultButtonOf(form) {
  var elements = form.elements;
  for (var i = 0; i < elements.length; i++) {
    var el = elements[i];
    var type = (el.getAttribute("type") || (tagOf(el) === "button" ? "submit" : "")).toLowerCase();
    if ((tagOf(el) === "button" || tagOf(el) === "input") && (type === "submit" || type === "image")) return el;
  }
  return null;
}

function emulateKeyDefault(target, chord) {
  // Synthetic key events have no default action; emulate the few that
  // flows rely on, only when no listener cancelled the keydown.
  var plain = chord.modifiers.every(function (m) { return m === "Shift"; });
  if (!plain || !target) return null;
  var tag = tagOf(target); // by tag, not instanceof: a same-origin frame's input belongs to its own realm
  if (chord.key === "Enter") {
    if (tag === "input" && target.form && TEXT_INPUT_TYPES[(target.getAttribute("type") || "").toLowerCase()]) {
      // HTML implicit submission: click the default button, else submit.
      var button = defaultButtonOf(target.form);
      if (button) {
        if (!button.disabled) button.click();
        return "implicit_submission";
      }
      if (typeof target.form.requestSubmit === "function") target.form.requestSubmit();
      else target.form.submit();
      return "implicit_submission";
    }
    if (tag === "button" || (tag === "a" && target.hasAttribute("href")) || (tag === "input" && /^(submit|button|reset|image)$/.test(target.type))) {
      M.intrinsics.clickForAgent(target); // the engine's own click: a launcher takes it (docs/overlays.md)
      return "click";
    }
  }
  if (chord.key === " " && (tag === "button" || (tag === "input" && /^(checkbox|radio|submit|button|reset)$/.test(target.type)))) {
    M.intrinsics.clickForAgent(target);
    return "click";
  }
  return null;
}


function keyboardPress(args) {
  var chord = parseChord(args.key, args.modifiers);
  var target = focusedElement() || document.body || document.documentElement;
  var allowed = target.dispatchEvent(keyEvent("keydown", chord));
  var printable = chord.key.length === 1 || chord.key === "Enter";
  var noCommand = chord.modifiers.indexOf("Control") < 0 && chord.modifiers.indexOf("Meta") < 0 && chord.modifiers.indexOf("Alt") < 0;
  if (allowed && printable && noCommand) target.dispatchEvent(keyEvent("keypress", chord));
  var defaultAction = allowed ? emulateKeyDefault(target, chord) : null;
  var keyupTarget = target.isConnected ? target : document.body || document.documentElement;
  keyupTarget.dispatchEvent(keyEvent("keyup", chord));
  var out = { pressed: true, key: chord.key, modifiers: chord.modifiers, fidelity: "synthetic" };
  if (defaultAction) out.default_action = defaultAction;
  if (!allowed) out.default_prevented = true;
  return out;
}

definePrimitive("keyboard.press", keyboardPress);
