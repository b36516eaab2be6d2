/*
 * editors.js — Code editors as the textboxes a person sees (docs/mcp-surface.md, "Rich text and code editors").
 *
 * CodeMirror 5 and 6, Monaco and Ace draw their text in divs and take keys in an input of their own:
 * CodeMirror 5 a hidden <textarea> (or a contenteditable .CodeMirror-code) inside its `.CodeMirror`,
 * CodeMirror 6 its `.cm-content[contenteditable]` (role textbox), Monaco `textarea.inputarea` inside
 * `.monaco-editor`, Ace `textarea.ace_text-input` inside `.ace_editor`. That input is invisible (0 to 3
 * px, transparent), so the tools would see no field at all. Here each editor is one field:
 *
 * - its `field`, the element listed, found and named (the editor's box; CodeMirror 6's content);
 * - its `input`, which takes focus and keys (page_fill types there, as a person's keys go there);
 * - its text, read from the lines it draws (what a person reads), so a fill is read back.
 *
 * Only what the editor draws is read: a long document an editor draws in part (its visible lines and a
 * margin) reads as those lines. Contenteditable rich-text editors (ProseMirror, Quill, TinyMCE inline)
 * need nothing here: they are contenteditable elements, textboxes already (names.js).
 */
var ROOTS = ".CodeMirror, .cm-editor, .monaco-editor, .ace_editor";
// Each kind's input: Monaco's own (not its find widget's textarea), Ace's, CodeMirror 5's textarea or
// its contenteditable input style, CodeMirror 6's content.
var INPUTS = {
  codemirror5: ":scope > div > textarea, .CodeMirror-code[contenteditable=true]",
  codemirror6: ".cm-content",
  monaco: "textarea.inputarea, .native-edit-context",
  ace: "textarea.ace_text-input",
};
// Inputs an editor keeps for itself besides the one keys go to: Monaco's IME textarea beside its EditContext
// input (0.5x), read-only and hidden from assistive technology.
var OWN_PARTS = "textarea.ime-text-area, textarea[aria-hidden=true]";
// The drawn lines of each kind.
var LINES = {
  codemirror5: ".CodeMirror-code .CodeMirror-line",
  codemirror6: ".cm-content > .cm-line",
  monaco: ".view-lines > .view-line",
  ace: ".ace_text-layer .ace_line",
};

function kindOf(root) {
  var cls = root.classList;
  if (cls.contains("CodeMirror")) return "codemirror5";
  if (cls.contains("cm-editor")) return "codemirror6";
  if (cls.contains("monaco-editor")) return "monaco";
  return "ace";
}

/**
 * The code editor el is part of, {kind, root, field, input}, or null: el is the editor's box, its input,
 * its field or a line in it; never another control inside it (Monaco's find widget keeps its own fields).
 */
function editorOf(el) {
  if (!el || el.nodeType !== 1 || typeof el.closest !== "function") return null;
  var root = el.closest(ROOTS);
  if (!root) return null;
  var kind = kindOf(root);
  var input = root.querySelector(INPUTS[kind]);
  if (!input) return null;
  if (el !== input && el.matches("input, textarea, select, button, [contenteditable=true]") && !input.contains(el) && !el.matches(OWN_PARTS)) return null;
  return { kind: kind, root: root, field: kind === "codemirror6" ? input : root, input: input };
}

// What an editor's field or hidden input can be, tested before looking up the tree: the tools ask of every
// element they list or read, and nearly none is part of an editor.
var FIELD_CLASSES = /(^|\s)(CodeMirror|cm-content|monaco-editor|ace_editor)(\s|$)/;
var INPUT_CLASSES = /(^|\s)(CodeMirror-code|native-edit-context)(\s|$)/;

/** Whether el is an editor's own hidden input, which the editor's field stands for (never listed itself). */
function isEditorInput(el) {
  if (el.localName !== "textarea" && !INPUT_CLASSES.test(typeof el.className === "string" ? el.className : "")) return false;
  var editor = editorOf(el);
  return !!editor && el !== editor.field && (el === editor.input || el.matches(OWN_PARTS));
}

/** Whether el is the field that stands for a code editor (listed as a textbox, filled by page_fill). */
function isEditorField(el) {
  if (!el || !FIELD_CLASSES.test(typeof el.className === "string" ? el.className : "")) return false;
  var editor = editorOf(el);
  return !!editor && el === editor.field;
}

/** A drawn line's text: no zero-width placeholder (CodeMirror 5's empty line), non-breaking spaces as spaces (Monaco). */
function lineText(line) {
  var parts = [];
  (function walk(n) {
    for (var child = n.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue);
      // A placeholder, a widget or a fold marker the editor drew is not the text.
      else if (child.nodeType === 1 && child.getAttribute("contenteditable") !== "false" && !/(^|\s)(cm-placeholder|CodeMirror-widget)(\s|$)/.test(child.className || "")) walk(child);
    }
  })(line);
  return parts.join("").replace(/\u200b/g, "").replace(/\u00a0/g, " ");
}

/** The editor's text as it draws it, its lines top to bottom (Monaco and Ace place theirs by position, not in DOM order). */
function editorText(editor) {
  var lines = Array.prototype.slice.call(editor.root.querySelectorAll(LINES[editor.kind]));
  if (editor.kind === "monaco" || editor.kind === "ace") {
    var tops = typeof Map === "function" ? new Map() : null;
    if (tops) {
      lines.forEach(function (line) { tops.set(line, M.rectOf(line).top); });
      lines.sort(function (a, b) { return tops.get(a) - tops.get(b); });
    }
  }
  return lines.map(lineText).join("\n");
}

/**
 * Put `text` into the editor without trusted keys (the page runtime's synthetic path): the keys a person
 * presses (select all, then type) reach an editor only from the browser, so this asks the editor's own
 * object where it keeps one on its box (CodeMirror 5's `.CodeMirror`, Ace's `env.editor`), else inserts
 * into its contenteditable content (CodeMirror 6). Answers what the editor then holds (from the object it
 * asked: Ace draws at its next frame), or null when it could not.
 */
function editorInsert(editor, text, mode) {
  var cm = editor.kind === "codemirror5" ? editor.root.CodeMirror : null;
  if (cm && typeof cm.replaceSelection === "function") {
    cm.focus();
    cm.execCommand(mode === "replace" ? "selectAll" : "goDocEnd");
    cm.replaceSelection(text);
    return cm.getValue();
  }
  var ace = editor.kind === "ace" && editor.root.env ? editor.root.env.editor : null;
  if (ace && typeof ace.insert === "function") {
    ace.focus();
    if (mode === "replace") ace.selectAll();
    else ace.navigateFileEnd();
    ace.insert(text);
    return ace.getValue();
  }
  if (editor.kind === "codemirror6") {
    var content = editor.input;
    content.focus();
    var range = document.createRange();
    range.selectNodeContents(content);
    if (mode !== "replace") range.collapse(false);
    var sel = root.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    var done = false;
    try {
      done = document.execCommand("insertText", false, text);
    } catch (_unavailable) {
      done = false;
    }
    return done ? editorText(editor) : null;
  }
  return null;
}

M.EDITOR_ROOTS = ROOTS;
M.editorOf = editorOf;
M.isEditorInput = isEditorInput;
M.isEditorField = isEditorField;
M.editorText = editorText;
M.editorInsert = editorInsert;
