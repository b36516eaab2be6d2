/*
 * names.js — Text, ARIA roles and accessible names of elements, and short element
 * descriptions for evidence.
 */
var DESCRIBE_TEXT_CAP = M.DESCRIBE_TEXT_CAP,
  normalize = M.normalize,
  cap = M.cap,
  tagOf = M.tagOf,
  box = M.box;

// -- text, roles and accessible names ------------------------------------

function elementText(el) {
  if (el instanceof HTMLInputElement) {
    var type = (el.type || "").toLowerCase();
    if (type === "submit" || type === "reset" || type === "button") return normalize(el.value || (type === "reset" ? "Reset" : type === "submit" ? "Submit" : ""));
    if (type === "image") return normalize(el.alt);
    return "";
  }
  var text = typeof el.innerText === "string" ? el.innerText : el.textContent;
  return normalize(text);
}

var INPUT_ROLES = {
  button: "button", submit: "button", reset: "button", image: "button",
  checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
  search: "searchbox", email: "textbox", tel: "textbox", text: "textbox",
  url: "textbox", password: "textbox", "": "textbox",
};
var TAG_ROLES = {
  button: "button", textarea: "textbox", nav: "navigation", main: "main",
  aside: "complementary", ul: "list", ol: "list", li: "listitem", table: "table",
  tr: "row", td: "cell", th: "columnheader", dialog: "dialog", option: "option",
  progress: "progressbar", article: "article", hr: "separator", output: "status",
  h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
  fieldset: "group", details: "group", summary: "button", menu: "list", meter: "meter",
};
// Roles whose accessible name comes from their content.
var NAME_FROM_CONTENT = {
  button: true, link: true, heading: true, cell: true, columnheader: true, rowheader: true,
  option: true, tab: true, menuitem: true, menuitemcheckbox: true, menuitemradio: true,
  checkbox: true, radio: true, switch: true, treeitem: true, listitem: true, tooltip: true,
  row: true, status: true,
};

// What a role (or a tag said as one) may look like: the page tools write it unquoted ([button "Save" @e2]),
// so a role attribute such as 'x"@e2]' is no role at all (ARIA's roles are words; the first one that is counts).
var ROLE_WORD = /^[a-z][a-z0-9-]*$/;

// Roles that remove an element's own semantics; ARIA ignores them on an element that takes focus.
var PRESENTATIONAL = { presentation: 1, none: 1 };
var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";

function roleOf(el) {
  // A code editor's box is the textbox a person sees (its own input is hidden: editors.js), whatever
  // role it gives itself (Monaco's "code").
  if (tagOf(el) === "div" && M.isEditorField(el)) return "textbox";
  var explicit = normalize(el.getAttribute && el.getAttribute("role")).toLowerCase().split(" ").filter(function (w) { return ROLE_WORD.test(w); })[0];
  // jQuery UI's tabs put role=presentation on each tab's <a href tabindex=-1>: still a link (ARIA 1.2, 4.7 conflicts).
  if (explicit && !(PRESENTATIONAL[explicit] && el.matches && el.matches(FOCUSABLE))) return explicit;
  var tag = tagOf(el);
  if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : null;
  if (tag === "input") {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (type === "hidden") return null;
    if (el.hasAttribute("list") && (type === "" || type === "text" || type === "search" || type === "email" || type === "tel" || type === "url")) return "combobox";
    return Object.prototype.hasOwnProperty.call(INPUT_ROLES, type) ? INPUT_ROLES[type] : "textbox";
  }
  if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
  if (tag === "img") return el.getAttribute("alt") === "" ? "presentation" : "img";
  if (tag === "form") return accessibleName(el, "form") ? "form" : null;
  if (tag === "section") return accessibleName(el, "region") ? "region" : null;
  if (tag === "header" || tag === "footer") {
    if (el.closest("article, aside, main, nav, section")) return null;
    return tag === "header" ? "banner" : "contentinfo";
  }
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
  return Object.prototype.hasOwnProperty.call(TAG_ROLES, tag) ? TAG_ROLES[tag] : null;
}

function textWithoutControls(node) {
  // The text of a <label>, without the value/options of the control it wraps.
  var parts = [];
  (function walk(n) {
    for (var child = n.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue);
      else if (child.nodeType === 1) {
        var t = tagOf(child);
        if (t === "input" || t === "select" || t === "textarea" || t === "script" || t === "style") continue;
        walk(child);
      }
    }
  })(node);
  return normalize(parts.join(" "));
}

function accessibleName(el, knownRole) {
  var ids = normalize(el.getAttribute("aria-labelledby"));
  if (ids) {
    var byIds = ids.split(" ").map(function (id) {
      var ref = document.getElementById(id);
      // An element that names itself among others (React Aria's thumb: its aria-label, then its slider's label)
      // gives its aria-label there, as ARIA's name computation says.
      if (ref === el) return normalize(el.getAttribute("aria-label"));
      // A referenced element's own aria-label comes before its text (Streamlit's slider group: "Minimum price",
      // not the digits drawn in it).
      return ref ? normalize(ref.getAttribute("aria-label")) || normalize(ref.textContent) : "";
    }).filter(function (part, i, parts) { return part && part !== parts[i - 1]; }).join(" "); // the same words twice read once
    if (byIds) return byIds;
  }
  var aria = normalize(el.getAttribute("aria-label"));
  if (aria) return aria;
  var tag = tagOf(el);
  if (tag === "div" && M.isEditorField(el)) return editorName(M.editorOf(el));
  if (tag === "input" || tag === "select" || tag === "textarea" || tag === "meter" || tag === "progress" || tag === "output") {
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "input" && (type === "submit" || type === "reset" || type === "button" || type === "image")) {
      var own = elementText(el);
      if (own) return own;
    }
    var labels = el.labels ? Array.prototype.slice.call(el.labels) : [];
    var fromLabels = labels.map(textWithoutControls).filter(Boolean).join(" ");
    if (fromLabels) return fromLabels;
  }
  if (tag === "img" || tag === "area") {
    var alt = normalize(el.getAttribute("alt"));
    if (alt) return alt;
  }
  if (tag === "fieldset") {
    var legend = el.querySelector(":scope > legend");
    if (legend && normalize(legend.textContent)) return normalize(legend.textContent);
  }
  if (tag === "table") {
    var caption = el.querySelector(":scope > caption");
    if (caption && normalize(caption.textContent)) return normalize(caption.textContent);
  }
  var role = knownRole === undefined ? roleOf(el) : knownRole;
  if (role && NAME_FROM_CONTENT[role]) {
    var text = elementText(el);
    if (text) return text;
  }
  var title = normalize(el.getAttribute("title"));
  if (title) return title;
  var placeholder = normalize(el.getAttribute("placeholder"));
  if (placeholder) return placeholder;
  if (tag === "input" || tag === "select" || tag === "textarea") return textBeside(el);
  // A slider a page draws with no name of its own (Streamlit's Base Web thumb under its widget's label): the text before it, as a field's.
  if (role === "slider" || role === "spinbutton") return textBefore(el);
  if (el.isContentEditable) return standInLabel(el);
  return "";
}

/**
 * A rich-text editor with no name of its own that stands in for a hidden field: Wagtail's Draftail keeps
 * <input type=hidden id="id_body"> beside the editor in its field's box, and <label for="id_body">Body</label>
 * above them names what a person sees as the field. The nearest box (4 levels at most) that holds this one
 * editor and such a labelled hidden input gives that label; "" when there is none.
 */
function standInLabel(el) {
  var box = el;
  for (var level = 0; level < 4 && box.parentElement; level++) {
    box = box.parentElement;
    if (box.querySelectorAll('[contenteditable="true"], [contenteditable=""]').length > 1) return "";
    var hidden = box.querySelectorAll("input[type=hidden][id]");
    for (var i = 0; i < hidden.length; i++) {
      var label = document.querySelector('label[for="' + CSS.escape(hidden[i].id) + '"]');
      var text = label ? textWithoutControls(label) : "";
      if (text) return text;
    }
  }
  return "";
}

// Monaco's own words on its input: its hint after the page's label ("Program;Press Alt+F1 for …"), and
// its label when the page gave none ("Editor content"): not a name.
var MONACO_HINT = /;\s*Press Alt\+F1\b.*$/;
var MONACO_DEFAULT = /^Editor content$/;

/**
 * A code editor's name (editors.js): its box's aria-label, else what names the textarea it was made from
 * (kept hidden beside it, whose <label for> still names it) or its own input, else the text before it.
 */
function editorName(editor) {
  var own = normalize(editor.root.getAttribute("aria-label"));
  if (own) return own;
  var sources = [editor.root.previousElementSibling, editor.root.nextElementSibling].filter(function (s) { return s && tagOf(s) === "textarea"; });
  if (editor.input !== editor.field) sources.push(editor.input);
  for (var i = 0; i < sources.length; i++) {
    var source = sources[i];
    var byLabel = (source.labels ? Array.prototype.slice.call(source.labels) : []).map(textWithoutControls).filter(Boolean).join(" ");
    var aria = normalize(source.getAttribute("aria-label")).replace(MONACO_HINT, "");
    if (byLabel) return byLabel;
    if (aria && !MONACO_DEFAULT.test(aria)) return aria;
  }
  return textBefore(editor.root);
}

var PROSE = { p: 1, blockquote: 1, pre: 1, ul: 1, ol: 1, dl: 1, figure: 1 };
var BESIDE_CAP = 60; // longer text before a field is prose, not its label
var BESIDE_LEVELS = 3; // how far up a field's wrappers the text before it is looked for
// A sentence (three words or more ended by "." or "!") is prose too: MiniWoB's enter-text says its task
// ('Enter "Kasey" into the text field and press Submit.') in a <div> before the field.
var SENTENCE = /\S+\s+\S+\s+\S+.*[^.][.!]["'\u201d\u2019)]?$/;

/** Text before a field as its label: "" for prose (too long, or a sentence), else without a trailing ":" or "*". */
function asLabel(text) {
  return text.length <= BESIDE_CAP && !SENTENCE.test(text) ? text.replace(/[:*]\s*$/, "").trim() : "";
}

/**
 * The text a person reads as a field's label when no <label>, aria or placeholder names it: the
 * text just before it ("Username" then the input; <td>Username</td><td><input></td>), from the
 * field or up to BESIDE_LEVELS of the wrappers it starts. Never text holding another control, and
 * never more than BESIDE_CAP characters. Used last (accessibleName): a real name always wins.
 * A checkbox or radio is named by the text right after it ("[x] Remember me"), when there is some.
 */
function textBeside(el) {
  var type = (el.getAttribute("type") || "").toLowerCase();
  if (type === "checkbox" || type === "radio") {
    for (var next = el.nextSibling; next; next = next.nextSibling) {
      if (next.nodeType === 1 && (next.matches("input, select, textarea, button") || next.querySelector("input, select, textarea, button"))) break;
      var after = next.nodeType === 3 ? normalize(next.nodeValue) : next.nodeType === 1 && next.getClientRects().length ? normalize(next.textContent) : "";
      if (after) return after.length <= BESIDE_CAP ? after : "";
    }
  }
  return textBefore(el);
}

function textBefore(el) {
  var node = el;
  for (var level = 0; level <= BESIDE_LEVELS && node && node.parentNode; level++) {
    for (var prev = node.previousSibling; prev; prev = prev.previousSibling) {
      if (prev.nodeType === 3) {
        var t = normalize(prev.nodeValue);
        if (!t) continue;
        return asLabel(t);
      }
      if (prev.nodeType !== 1) continue;
      var tag = tagOf(prev);
      if (tag === "br" || tag === "script" || tag === "style" || !prev.getClientRects().length) continue; // hidden text labels nothing
      // A paragraph, a quote or a list before a field is text of its own, not the field's label
      // (MiniWoB's find-word: the paragraph the task is about, then the answer's box).
      if (PROSE[tag]) return "";
      if (prev.matches("input, select, textarea, button") || prev.querySelector("input, select, textarea, button")) return "";
      var text = normalize(prev.textContent);
      if (!text) continue;
      // A line that holds a <label> and more ("subject: aute", MiniWoB's email-inbox) is a labelled value of
      // its own, not this field's label.
      var inner = tag === "label" ? null : prev.querySelector("label");
      if (inner && normalize(inner.textContent) !== text) return "";
      return asLabel(text);
    }
    node = node.parentNode;
    if (!node || node.nodeType !== 1 || /^(form|body|fieldset|table|tbody)$/.test(tagOf(node))) return "";
  }
  return "";
}

function describe(el) {
  var out = { tag: tagOf(el), text: cap(elementText(el), DESCRIBE_TEXT_CAP), bounding_box: box(el) };
  if (el.id) out.id = el.id;
  return out;
}

M.accessibleName = accessibleName;
M.textBeside = textBeside;
M.describe = describe;
M.elementText = elementText;
M.roleOf = roleOf;
M.ROLE_WORD = ROLE_WORD;
