/*
 * editing.js — Editable targets and text insertion (text.insert), and focusEditable for
 * hosts that type trusted text themselves.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  guard = M.guard,
  tagOf = M.tagOf,
  requireString = M.requireString,
  describe = M.describe,
  resolveOne = M.resolveOne;

// -- editing helpers ------------------------------------------------------

var TEXT_INPUT_TYPES = { "": true, text: true, search: true, email: true, tel: true, url: true, password: true, number: true };

/** The element that takes typed text for el (a code editor's own input for any part of it: editors.js), or null. */
function editableOf(el) {
  if (!el) return null;
  if (el instanceof HTMLLabelElement && el.control) el = el.control;
  var editor = M.editorOf(el);
  if (editor) return editor.input;
  if (el instanceof HTMLTextAreaElement) return el.disabled || el.readOnly ? null : el;
  if (el instanceof HTMLInputElement) {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (!TEXT_INPUT_TYPES[type] || el.disabled || el.readOnly) return null;
    return el;
  }
  if (el.isContentEditable) return el;
  return null;
}

function supportsSelection(el) {
  try {
    return typeof el.selectionStart === "number";
  } catch (_ignored) {
    return false;
  }
}

function focusedElement() {
  var el = document.activeElement;
  // Descend into open shadow roots, where custom editors keep their focus, and into a focused
  // same-origin iframe's document (a key pressed on a frame's field goes there, observe_frames.js).
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    else if (el && (el.localName === "iframe" || el.localName === "frame") && M.frameDocument && M.frameDocument(el) && M.frameDocument(el).activeElement) el = M.frameDocument(el).activeElement;
    else return el;
  }
}

/**
 * The one text field in or around el a person would type into instead (a code editor inside the box
 * named, the field a label names), said as "@e7 textbox \"SQL\"", or "" when there is none or several.
 */
function realFieldOf(el) {
  var inside = [];
  if (el.querySelectorAll) {
    Array.prototype.forEach.call(el.querySelectorAll(M.EDITOR_ROOTS + ", input, textarea, [contenteditable=''], [contenteditable=true]"), function (c) {
      var field = M.editorOf(c) ? M.editorOf(c).field : editableOf(c) === c ? c : null;
      if (field && inside.indexOf(field) < 0 && M.isVisible(field)) inside.push(field);
    });
  }
  if (inside.length !== 1 || !M.refFor) return "";
  var field = inside[0], role = M.roleOf(field) || "textbox", name = M.accessibleName(field, role);
  return M.refFor(field) + " " + role + (name ? " " + M.quote(name) : "");
}

function editableTarget(target) {
  var el;
  if (target !== undefined && target !== null) {
    var resolved = resolveOne(target, true);
    el = editableOf(resolved.element);
    if (!el) {
      // Name the field a person would type into, so the next call is right (a code editor's box around it).
      var real = realFieldOf(resolved.element);
      fail("target_not_editable", "the target is not an editable text field" + (real ? "; the field there is " + real : ""), { target: describe(resolved.element), matched_by: resolved.matched_by, field: real || undefined });
    }
    return { element: el, matched_by: resolved.matched_by };
  }
  var focused = focusedElement();
  el = editableOf(focused);
  if (!el) fail("target_not_editable", "no target given and the focused element is not editable", { focused: focused && focused !== document.body ? describe(focused) : null });
  return { element: el, matched_by: "focused" };
}

function placeCaret(el, mode) {
  // Prepare the selection so that typed/inserted text replaces everything
  // (mode replace) or lands at the end (mode append).
  if (el.isContentEditable && !(el instanceof HTMLInputElement) && !(el instanceof HTMLTextAreaElement)) {
    var range = document.createRange();
    range.selectNodeContents(el);
    if (mode !== "replace") range.collapse(false);
    var sel = root.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return true;
  }
  if (mode === "replace") {
    el.select();
    return true;
  }
  if (supportsSelection(el)) {
    var end = el.value.length;
    el.setSelectionRange(end, end);
    return true;
  }
  return false;
}

function nativeValueSetter(el) {
  var proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  var descriptor = Object.getOwnPropertyDescriptor(proto, "value");
  return descriptor && descriptor.set;
}

function setFieldValue(el, value, insertedText) {
  // The prototype's setter bypasses frameworks' instance-level value
  // trackers (React), so their onChange sees the input event.
  var setter = nativeValueSetter(el);
  if (setter) setter.call(el, value);
  else el.value = value;
  var inputEvent;
  try {
    inputEvent = new InputEvent("input", { bubbles: true, cancelable: false, composed: true, inputType: "insertText", data: insertedText });
  } catch (_ignored) {
    inputEvent = new Event("input", { bubbles: true });
  }
  el.dispatchEvent(inputEvent);
  el.dispatchEvent(new Event("change", { bubbles: true }));
}


function textInsert(args) {
  var text = requireString(args, "text");
  var mode = args.mode === undefined ? "append" : args.mode;
  if (mode !== "append" && mode !== "replace") fail("invalid_input", "mode must be append or replace", { field: "mode" });
  var target = editableTarget(args.target);
  var el = target.element;
  var editor = M.editorOf(el);
  if (editor) {
    // A code editor: its own object or its content takes the text (editors.js), then it is read back.
    var holds = M.editorInsert(editor, text, mode);
    if (holds === null) fail("insert_failed", "this " + editor.kind + " editor takes text only from real keys (a browser tab's input)", { target: describe(editor.field), editor: editor.kind });
    return { inserted: true, inserted_length: text.length, matched_by: target.matched_by, editor: editor.kind, value: holds };
  }
  if (document.activeElement !== el && typeof el.focus === "function") el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    var before = el.value;
    var expected = mode === "replace" ? text : before + text;
    // A person's typing stops at the field's maxlength (a browser tab's inserted text does too); a value set
    // as a script sets it would not be cut, and the field would hold what no person could type.
    if (el.maxLength >= 0 && expected.length > el.maxLength) expected = expected.slice(0, Math.max(el.maxLength, mode === "replace" ? 0 : before.length));
    setFieldValue(el, expected, text);
    // Input masks may reformat the value, so only "nothing went in" fails
    // (a number field refusing letters, a script resetting the field).
    if (text !== "" && (mode === "append" ? el.value === before : el.value === "")) {
      fail("insert_failed", "the field did not accept the text (its type or a page script refused it)", {
        target: describe(el), expected_length: expected.length, actual_length: el.value.length,
      });
    }
    if (supportsSelection(el)) el.setSelectionRange(el.value.length, el.value.length);
  } else {
    placeCaret(el, mode);
    var done = false;
    try {
      done = document.execCommand("insertText", false, text);
    } catch (_ignored) {
      done = false;
    }
    if (!done) {
      // execCommand is unavailable in some editors: edit the range directly.
      var sel = root.getSelection();
      var range = sel.rangeCount ? sel.getRangeAt(0) : document.createRange();
      range.deleteContents();
      var node = document.createTextNode(text);
      range.insertNode(node);
      range.setStartAfter(node);
      range.collapse(true);
      sel.removeAllRanges();
      sel.addRange(range);
      el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
    }
  }
  return { inserted: true, inserted_length: text.length, matched_by: target.matched_by };
}

// -- helpers for hosts (the Playwright browser host, the client) ---------

/**
 * Resolve and focus an editable target (or the focused editable element)
 * and place the caret for mode "append" or "replace", so a host can type
 * trusted text next; mode "read" only reads the field's text back.
 * Output: {tag, matched_by, caret_placed, value?, editor?} (editor: a code
 * editor's kind, whose text the host selects with keys: editors.js).
 */
function focusEditable(target, mode, call) {
  // `call`: the host's {call_id, timeout_ms}; a cancelled call focuses nothing (callcontext.js).
  return guard(function () { return M.withCall(call, function () { return focusNow(target, mode); }); });
}

function focusNow(target, mode) {
  var m = mode === undefined ? "append" : mode;
  if (m !== "append" && m !== "replace" && m !== "read") fail("invalid_input", "mode must be append, replace or read", { field: "mode" });
  var t = editableTarget(target);
  var el = t.element;
  var editor = M.editorOf(el);
  // A code editor: focused only; the host selects its text with the keys a person uses (select all, or
  // the end of the document), since no engine selection reaches the editor's own model. Mode "read"
  // reads it back after typing, without touching it.
  if (editor) {
    if (m !== "read" && document.activeElement !== el && typeof el.focus === "function") el.focus();
    return { tag: tagOf(el), matched_by: t.matched_by, caret_placed: false, editor: editor.kind, value: M.editorText(editor) };
  }
  if (m === "read") return { tag: tagOf(el), matched_by: t.matched_by, value: el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? String(el.value) : M.normalize(el.innerText) };
  if (document.activeElement !== el && typeof el.focus === "function") el.focus();
  var placed = placeCaret(el, m);
  var out = { tag: tagOf(el), matched_by: t.matched_by, caret_placed: placed };
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) out.value = String(el.value);
  return out;
}

M.TEXT_INPUT_TYPES = TEXT_INPUT_TYPES;
M.editableOf = editableOf;
M.focusEditable = focusEditable;
M.focusedElement = focusedElement;

definePrimitive("text.insert", textInsert);
