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

definePrimitive("locator.select", selectByLocator, ["locator", "values"]);
