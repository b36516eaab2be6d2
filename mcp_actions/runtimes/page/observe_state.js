/*
 * observe_state.js — what page_observe says of one element besides its role and name: what can be done
 * with it (actionsOf), its value as a person sees it (valueOf), the first options of the <datalist> it
 * suggests from (suggestionsOf) and the ARIA states a person sees (statesOf). observe_refs.js builds each
 * listed element's entry from these.
 */
var tagOf = M.tagOf,
  isEnabled = M.isEnabled,
  cap = M.cap;

function actionsOf(el, role) {
  var tag = tagOf(el);
  var type = String(el.type || "").toLowerCase();
  if (!isEnabled(el)) return [];
  if (tag === "select") return ["select"];
  if (role === "clickable" || role === "option") return ["click"];
  if (tag === "textarea" || el.isContentEditable || role === "textbox" || role === "searchbox" || role === "combobox" || (tag === "input" && ["checkbox", "radio", "button", "submit", "reset", "image", "file"].indexOf(type) < 0)) {
    return ["fill", "press", "click"];
  }
  return ["click", "press"];
}

function valueOf(el) {
  var tag = tagOf(el);
  if (tag === "select") {
    var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.label || o.value; });
    return chosen.join(", ");
  }
  if (tag === "input" || tag === "textarea") {
    // A checkbox's or a button's value is not what a person sees ("on"): their state or name says it.
    if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].indexOf(String(el.type)) >= 0) return null;
    if (el.type === "password") return el.value ? "••••" : "";
    return String(el.value == null ? "" : el.value);
  }
  // A code editor's value is the text it draws (editors.js); a rich-text editor's is its text (a comment box being written).
  if (M.isEditorField(el)) return M.editorText(M.editorOf(el));
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return M.normalize(el.innerText);
  // A drawn slider or spin button (Base Web's thumb, a div with role=slider): the value it says, not the digits drawn in it.
  var role = M.roleOf(el);
  if (role === "slider" || role === "spinbutton" || role === "scrollbar") {
    var said = M.normalize(el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow"));
    if (said) return said;
  }
  return null;
}

var SUGGESTIONS = 5; // a <datalist>'s options said beside its field

/** The first options of the <datalist> an input suggests from (its popup is the browser's, not the page's), or null. */
function suggestionsOf(el) {
  var list = tagOf(el) === "input" ? el.list : null;
  if (!list || !list.options || !list.options.length) return null;
  var values = Array.prototype.slice.call(list.options, 0, SUGGESTIONS).map(function (o) { return cap(o.value || o.label, 40); });
  return { values: values, total: list.options.length };
}

var CHOICES_SHOWN = 6; // a select's or a combobox's options said beside it: all of up to 6, else the first 5 and the count

/**
 * The options a <select> or an ARIA combobox (its listbox, by aria-controls or aria-owns) offers, as a
 * person would pick them: {values (the first ones), total}, or null. A person sees them by opening it; a
 * model reads them here instead of trying values.
 */
function choicesOf(el) {
  var options = null;
  if (tagOf(el) === "select") options = Array.prototype.map.call(el.options, function (o) { return o.label || o.value; });
  else if (!el.list && M.roleOf(el) === "combobox") {
    var ids = M.normalize(el.getAttribute("aria-controls") || el.getAttribute("aria-owns")).split(" ").filter(Boolean);
    var box = ids.length ? el.ownerDocument.getElementById(ids[0]) : null;
    if (box) options = Array.prototype.map.call(box.querySelectorAll("[role=option]"), function (o) { return M.normalize(o.textContent); });
  }
  options = options ? options.filter(Boolean) : [];
  if (!options.length) return null;
  var shown = options.length <= CHOICES_SHOWN ? options.length : CHOICES_SHOWN - 1;
  return { values: options.slice(0, shown).map(function (v) { return cap(v, 40); }), total: options.length };
}

/** How a field's choices read after its name: options "1 Person", "2 People" (+4). */
function choicesText(choices) {
  var more = choices.total - choices.values.length;
  return "options " + choices.values.map(M.quote).join(", ") + (more > 0 ? " (+" + more + ")" : "");
}

/** The placeholder an empty field shows (its format, "(555) 000-0000"), when it is not the field's name already. */
function placeholderOf(el, name) {
  var tag = tagOf(el);
  if ((tag !== "input" && tag !== "textarea") || el.value) return "";
  var shown = M.normalize(el.getAttribute("placeholder"));
  return shown && shown !== name ? cap(shown, 60) : "";
}

var CHECKABLE = { checkbox: 1, radio: 1, switch: 1, menuitemcheckbox: 1, menuitemradio: 1 };

/** ARIA states a person sees: checked (native or aria-checked), expanded/collapsed, selected, pressed. */
function statesOf(el, role, entry) {
  if (el.type === "checkbox" || el.type === "radio") entry.checked = !!el.checked;
  else if (CHECKABLE[role] && el.hasAttribute("aria-checked")) entry.checked = el.getAttribute("aria-checked") === "true";
  var expanded = el.getAttribute("aria-expanded");
  if (expanded === "true" || expanded === "false") entry.expanded = expanded === "true";
  if (el.getAttribute("aria-selected") === "true") entry.selected = true;
  if (el.getAttribute("aria-pressed") === "true") entry.pressed = true;
}

M.actionsOf = actionsOf;
M.valueOf = valueOf;
M.suggestionsOf = suggestionsOf;
M.statesOf = statesOf;
M.choicesOf = choicesOf;
M.choicesText = choicesText;
M.placeholderOf = placeholderOf;
