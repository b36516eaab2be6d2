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
  // A rich-text editor's value is its text (a comment box being written).
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return M.normalize(el.innerText);
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
