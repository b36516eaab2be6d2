/*
 * select.js — locator.select: choose options of the one <select> a locator
 * resolves to, by value or visible label, as refs.select does for a ref.
 * Learned tools (actions_save_tool) repeat a page_select with it: their
 * steps name elements by locators a person would write, never by ref.
 *
 *   {locator, values: [value or label, ...]} -> {selected: [value, ...], matched_by}
 *
 * A single <select> takes the first enabled option that matches; a multiple
 * one every match. input and change events follow, as a user's choice fires them.
 *
 * Also the form a choice submits (refs.select {submit}: page_fill and page_select with submit): a
 * <select> has no Enter that submits, so its form is submitted as its default button would.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf,
  normalize = M.normalize,
  resolveOne = M.resolveOne;

function selectByLocator(args) {
  if (!Array.isArray(args.values) || !args.values.length) fail("invalid_input", "values must be a non-empty array of option values or labels", { field: "values" });
  var resolved = resolveOne(args.locator, true);
  var el = resolved.element;
  if (tagOf(el) !== "select") fail("target_not_editable", "the locator resolves to a <" + tagOf(el) + ">, not a <select>", { tag: tagOf(el), matched_by: resolved.matched_by });
  if (el.disabled) fail("target_not_editable", "the <select> is disabled", { matched_by: resolved.matched_by });
  var wanted = args.values.map(String);
  var matched = [];
  Array.prototype.forEach.call(el.options, function (o) {
    var hit = !o.disabled && (wanted.indexOf(o.value) >= 0 || wanted.indexOf(o.label) >= 0 || wanted.indexOf(normalize(o.textContent)) >= 0);
    if (hit && (el.multiple || matched.length === 0)) matched.push(o);
  });
  if (!matched.length) {
    var options = Array.prototype.map.call(el.options, function (o) { return normalize(o.label || o.textContent); }).slice(0, 20);
    fail("target_not_found", "no enabled option matches " + JSON.stringify(wanted) + "; there are: " + JSON.stringify(options), { values: wanted, candidates: options });
  }
  Array.prototype.forEach.call(el.options, function (o) { o.selected = matched.indexOf(o) >= 0; });
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { selected: matched.map(function (o) { return o.value; }), matched_by: resolved.matched_by };
}

// -- a choice that submits its form (page_fill / page_select {submit}; refs.select in observe_refs.js) --

function isSubmitButton(el) {
  var tag = tagOf(el), type = String(el.type || "").toLowerCase();
  return (tag === "button" && type === "submit") || (tag === "input" && (type === "submit" || type === "image"));
}

function nameOf(button) {
  return M.candidateName ? M.candidateName(button, M.candidateRole(button)) : normalize(button.textContent || button.value || "");
}

/**
 * The form a <select>'s choice submits, and its default button (the first submit button), checked before
 * anything is chosen: a select in no form, or whose form's default button is disabled, cannot be submitted
 * (HTML's implicit submission does nothing then), and is refused with what to do instead.
 */
function formToSubmit(el, ref) {
  var form = el.form;
  var said = ref + " combobox " + M.quote(nameOf(el)); // as page_observe says it
  if (!form) fail("invalid_input", said + " is in no form: there is nothing to submit (choose without submit, then click what the page offers)", { field: "submit", ref: ref });
  var button = null;
  for (var i = 0; i < form.elements.length && !button; i++) if (isSubmitButton(form.elements[i])) button = form.elements[i];
  if (button && button.disabled) fail("invalid_input", "the form of " + said + " cannot be submitted: its button " + M.quote(nameOf(button)) + " is disabled (nothing was chosen)", { field: "submit", ref: ref });
  return { form: form, button: button };
}

/** Submit what formToSubmit found, as its default button would: {submitted: true, button?}, or {submitted: false, invalid} when a field stops it. */
function submitForm(target) {
  var form = target.form;
  if (!form.checkValidity()) {
    var bad = Array.prototype.filter.call(form.elements, function (f) { return f.willValidate && f.validity && !f.validity.valid; })[0];
    var name = bad ? M.candidateName(bad, M.candidateRole(bad)) : "";
    return { submitted: false, invalid: { name: name, message: bad ? String(bad.validationMessage || "") : "" } };
  }
  if (typeof form.requestSubmit === "function") {
    if (target.button) form.requestSubmit(target.button);
    else form.requestSubmit();
  } else if (target.button) target.button.click();
  else form.submit();
  var out = { submitted: true };
  if (target.button) out.button = nameOf(target.button);
  return out;
}

M.formToSubmit = formToSubmit;
M.submitForm = submitForm;

definePrimitive("locator.select", selectByLocator, ["locator", "values"]);
