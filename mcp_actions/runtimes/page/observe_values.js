/*
 * observe_values.js — refs.set_value (page_fill on inputs that take no typed text) and
 * locator.set_value (the same by locator, for learned tools): date, time,
 * datetime-local, month, week, range and color inputs get their value through the prototype's
 * setter, then input and change events, as a person's pick in the browser's own picker would
 * fire them (docs/mcp-surface.md, "Every kind of control"). The element is named by ref or text
 * (observe_refs.js resolveRefOrText). A value the input refuses (a date not in YYYY-MM-DD, a
 * range value outside min..max is clamped by the browser) is reported, never silently changed.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  tagOf = M.tagOf;

// The format each type takes, said when a value is refused.
var VALUE_TYPES = { date: "YYYY-MM-DD", time: "HH:MM or HH:MM:SS", "datetime-local": "YYYY-MM-DDTHH:MM", month: "YYYY-MM", week: "YYYY-Www", range: "a number", color: "#rrggbb" };

/** Whether el is an input whose value is set, not typed (see the module comment). */
function isValueInput(el) {
  return tagOf(el) === "input" && Object.prototype.hasOwnProperty.call(VALUE_TYPES, String(el.type));
}

/** Give el (a value input, named `what` in errors) the value, as a pick in the browser's picker would; its output. */
function applyValue(el, value, what, evidence) {
  if (!isValueInput(el)) fail("target_not_editable", what + " is not a date, time, range or color input", Object.assign({ tag: tagOf(el), type: String(el.type || "") }, evidence));
  var type = String(el.type);
  var descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
  if (typeof el.focus === "function") el.focus();
  var before = el.value;
  // The prototype's setter: a framework's instance-level value tracker (React) still sees the events.
  var set = function (v) {
    if (descriptor && descriptor.set) descriptor.set.call(el, v);
    else el.value = v;
  };
  set(value);
  if (el.value === "" && value !== "") {
    set(before); // a refused value empties the input: put back what it held
    fail("invalid_input", "the " + type + " input refused " + JSON.stringify(value) + ": it takes " + VALUE_TYPES[type], Object.assign({ field: "value", type: type }, evidence));
  }
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  var out = { value: String(el.value) };
  if (out.value !== value) out.adjusted = true; // a range clamped to min..max or rounded to its step
  return out;
}

function setValue(args) {
  if (typeof args.value !== "string") fail("invalid_input", "value must be a string", { field: "value" });
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text }, { accept: isValueInput });
  return Object.assign({ ref: found.ref }, applyValue(found.el, args.value, found.ref, { ref: found.ref }));
}

/** locator.set_value: the same on the one element a locator resolves to (a learned tool's step; no ref). */
function setValueByLocator(args) {
  if (typeof args.value !== "string") fail("invalid_input", "value must be a string", { field: "value" });
  var resolved = M.resolveOne(args.locator, true);
  return Object.assign({ matched_by: resolved.matched_by }, applyValue(resolved.element, args.value, "the locator's <" + tagOf(resolved.element) + ">", { matched_by: resolved.matched_by }));
}

/**
 * A slider's value and bounds, as its keys move it: {now, min, max, step, native}, or null when el is no
 * slider. A native <input type=range> (React Aria's thumb, in its hidden box) or an element with role=slider
 * (Base Web's thumb): page_fill presses its keys until it holds the value (acting/slider_keys.py), so an app
 * that commits at a key press's end (keyup, change) sees each step as it would a person's.
 */
function sliderState(el) {
  var native = tagOf(el) === "input" && String(el.type) === "range";
  if (!native && M.roleOf(el) !== "slider") return null;
  var number = function (v, fallback) { var n = parseFloat(v); return isFinite(n) ? n : fallback; };
  if (native) return { now: number(el.value, 0), min: number(el.min, 0), max: number(el.max, 100), step: el.step === "any" ? 1 : number(el.step, 1), native: true };
  var min = number(el.getAttribute("aria-valuemin"), 0), max = number(el.getAttribute("aria-valuemax"), 100);
  return { now: number(el.getAttribute("aria-valuenow"), min), min: min, max: max, step: 1, native: false };
}

M.isValueInput = isValueInput;
M.sliderState = sliderState;

definePrimitive("refs.set_value", setValue);
definePrimitive("locator.set_value", setValueByLocator, ["locator", "value"]);
