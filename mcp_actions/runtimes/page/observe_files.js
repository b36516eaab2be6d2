/*
 * observe_files.js — A file input takes files (refs.set_files; page_fill {files}, docs/mcp-surface.md,
 * "Every kind of control").
 *
 * The server reads the files (only from the user's upload roots, dispatch/page_files.py) and sends
 * their bytes base64-encoded; here they become File objects in a DataTransfer of the input's own
 * realm (a same-origin frame's input too), which is assigned to input.files, and input + change
 * fire as when a person picks files in the browser's dialog. The dialog itself never opens.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail;

function isFileInput(el) {
  return M.tagOf(el) === "input" && String(el.type).toLowerCase() === "file";
}

/** What a text may name for an upload: what a person can act on, and the visible labels of file inputs (often hidden themselves). */
function candidates() {
  var labels = M.queryAllDeep("label").filter(function (label) { return isFileInput(label.control || {}) && M.isVisible(label); });
  var listed = M.actionableInOrder();
  // A label whose input is listed itself would be a second match for the same input.
  return listed.concat(labels.filter(function (label) { return listed.indexOf(label) < 0 && listed.indexOf(label.control) < 0; }));
}

function fileOf(win, spec, index) {
  if (!spec || typeof spec.name !== "string" || typeof spec.data !== "string") fail("invalid_input", "each file needs a name and base64 data", { field: "files", index: index });
  var binary;
  try {
    binary = root.atob(spec.data);
  } catch (_notBase64) {
    fail("invalid_input", "a file's data is not base64", { field: "files", index: index });
  }
  var bytes = new Uint8Array(binary.length);
  for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new win.File([bytes], spec.name, { type: typeof spec.type === "string" ? spec.type : "" });
}

function setFiles(args) {
  // A styled upload often hides its input behind a label ("Attach a file"): the label's control is the input.
  var found = M.resolveRefOrText({ ref: args.ref, text: args.text }, { accept: function (el) { return isFileInput(el) || isFileInput(el.control || {}); }, candidates: candidates });
  var el = isFileInput(found.el) ? found.el : found.el.control || found.el;
  if (!isFileInput(el)) fail("target_not_editable", found.ref + " is not a file input", { ref: found.ref, tag: M.tagOf(el) });
  if (el.disabled) fail("target_not_editable", found.ref + " is disabled", { ref: found.ref });
  if (!Array.isArray(args.files) || !args.files.length) fail("invalid_input", "files must be a non-empty list", { field: "files" });
  if (args.files.length > 1 && !el.multiple) fail("invalid_input", found.ref + " takes one file (it has no multiple attribute)", { field: "files", ref: found.ref });
  var win = el.ownerDocument.defaultView;
  if (typeof win.DataTransfer !== "function") fail("capability_unavailable", "this browser cannot build a DataTransfer", { capability: "refs.set_files" });
  var transfer = new win.DataTransfer();
  args.files.forEach(function (spec, index) { transfer.items.add(fileOf(win, spec, index)); });
  el.files = transfer.files;
  el.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new win.Event("change", { bubbles: true }));
  return { ref: found.ref, files: Array.prototype.map.call(el.files, function (f) { return f.name; }) };
}

definePrimitive("refs.set_files", setFiles);
