/*
 * observe_values.js — refs.set_value (page_fill on inputs that take no typed text): date, time,
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

function setValue(args) {
  if (typeof args.value !== "string") fail("invalid_input", "value must be a string", { field: "value" });
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text }, { accept: isValueInput });
  var el = found.el;
  if (!isValueInput(el)) fail("target_not_editable", found.ref + " is not a date, time, range or color input", { ref: found.ref, tag: tagOf(el), type: String(el.type || "") });
  var type = String(el.type);
  var descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
  if (typeof el.focus === "function") el.focus();
  var before = el.value;
  // The prototype's setter: a framework's instance-level value tracker (React) still sees the events.
  var set = function (v) {
    if (descriptor && descriptor.set) descriptor.set.call(el, v);
    else el.value = v;
  };
  set(args.value);
  if (el.value === "" && args.value !== "") {
    set(before); // a refused value empties the input: put back what it held
    fail("invalid_input", "the " + type + " input refused " + JSON.stringify(args.value) + ": it takes " + VALUE_TYPES[type], { field: "value", ref: found.ref, type: type });
  }
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  var out = { ref: found.ref, value: String(el.value) };
  if (out.value !== args.value) out.adjusted = true; // a range clamped to min..max or rounded to its step
  return out;
}

M.isValueInput = isValueInput;

definePrimitive("refs.set_value", setValue);
