/*
 * observe_changes.js — What an action changed, briefly (docs/mcp-surface.md, "What acting
 * tools answer"): refs.change_mark notes the page's visible text lines, its open dialogs and
 * its URL before an action; refs.change_report, after it (and a settle), says which lines
 * appeared and went (multiset difference, capped), which dialogs opened or closed, and the new
 * URL of a same-document navigation. A full navigation replaces the page and its engine; the
 * acting tool says that itself when the report cannot be read.
 *
 * Cheap on purpose: one innerText of the body (and of each visible same-origin frame's body, and of the top
 * children of each visible open shadow root) before and one after, no MutationObserver between calls.
 * Controls whose state changed and the messages the page showed: change_states.js, page_messages.js.
 *
 * One round trip each side of the action: refs.change_report {settle} first waits until the page
 * has done what the action started (observe_settle.js, armed by refs.change_mark), and both take
 * what the journal of acting calls needs (dispatch/act_journal.py): change_mark {describe, watch}
 * describes the element a ref or text names (refs.describe) and counts the watched texts before
 * the action, change_report {watch} counts them after it.
 *
 * Besides text, what a person would notice (issue 44): controls that became visible or hidden
 * without text of their own changing (a hover revealing an icon-only "Remove" button, a dialog's
 * close button gone), each with its ref; and the page's new uncaught errors, rejected promises and
 * console errors since the mark (a script that failed makes every action look like "no visible
 * change"). A <dialog> that lost its `open` is closed even while its exit transition still draws
 * it (Chrome Labs' bistro fades its dialog out for 0.4 s): its text and controls count as gone.
 *
 * A second mark, slot "act", spans several actions (page_act): it neither arms the settle nor is
 * replaced by the marks of the single actions inside it, so the whole call's change is said once.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  isVisible = M.isVisible,
  queryAllDeep = M.queryAllDeep,
  pageErrorCount = M.pageErrorCount, // the page's errors (page_errors.js)
  pageErrorsSince = M.pageErrorsSince;

var LINE_CAP = 100; // characters of a control's name in a line
var TEXT_CAP = 240; // characters of one reported line of text: said whole up to here, else cut with "…"
var MAX_LINES = 5; // lines reported per direction by default

var CONTROLS = M.OBSERVE_INTERACTIVE; // what a person acts on, by tag or role (the cheap test: no cursor styles)
// Controls said shown or hidden per direction; new elements looked at for a clickable (a style read each).
var MAX_CONTROLS = 4, CLICKABLE_LOOKS = 400;
var SAID_ANYWAY = { textbox: 1, searchbox: 1, combobox: 1, spinbutton: 1, slider: 1, listbox: 1, option: 1 }; // fields and options
var marks = {}; // slot ("" for one action, "act" for page_act) -> {lines, dialogs, controls, errors} (the url: change_states.js)

/**
 * The labels a reported line runs together, or null. innerText joins inline siblings with nothing between
 * them when the page put no whitespace there (TodoMVC's filters as lit renders them: "AllActiveCompleted"):
 * the line is split into its text nodes when they make it up exactly, under one element whose text is the
 * line. Looked for only where a lower-case letter or digit meets a capital, the mark of glued labels.
 */
function labelsOf(line) {
  if (!/[a-z0-9][A-Z]/.test(line) || !document.body) return null;
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var n = walker.nextNode(); n; n = walker.nextNode()) {
    var first = normalize(n.data);
    if (!first || first === line || line.indexOf(first) !== 0) continue;
    var box = n.parentElement;
    for (var up = 0; box && up < 6 && normalize(box.textContent).length <= line.length; up++, box = box.parentElement) {
      if (normalize(box.textContent) !== line) continue;
      var parts = [];
      var inner = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      for (var t = inner.nextNode(); t; t = inner.nextNode()) {
        var text = normalize(t.data);
        if (text) parts.push(text);
      }
      return parts.length > 1 && parts.length <= 12 && parts.join("") === line ? parts : null;
    }
  }
  return null;
}

/** The lines among `lines` that run labels together, with their labels ({line: [labels]}), or null. */
function gluedLabels(lines) {
  var out = null;
  lines.forEach(function (line) {
    var labels = labelsOf(line);
    if (labels) (out = out || {})[line] = labels;
  });
  return out;
}

var closingDialogOf = M.closingDialogOf, openDialogs = M.openDialogs, dialogName = M.dialogName; // change_regions.js

function countLines(raw, counts) {
  raw.split("\n").forEach(function (line) {
    var text = normalize(line);
    if (text) counts[text] = (Object.prototype.hasOwnProperty.call(counts, text) ? counts[text] : 0) + 1;
  });
}

/** The text of open shadow roots under scope, which no innerText outside them includes (a widget's counter). */
function addShadowLines(scope, counts) {
  var walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
  for (var n = walker.nextNode(); n; n = walker.nextNode()) {
    var shadow = n.shadowRoot;
    if (!shadow || shadow.mode !== "open" || !isVisible(n)) continue;
    Array.prototype.forEach.call(shadow.children, function (child) {
      if (typeof child.innerText === "string" && child.localName !== "style" && child.localName !== "script") countLines(child.innerText, counts);
    });
    addShadowLines(shadow, counts);
  }
}

function addLines(doc, counts, depth) {
  var body = doc.body;
  countLines(body && typeof body.innerText === "string" ? body.innerText : "", counts);
  if (body) addShadowLines(body, counts);
  // A same-origin iframe's text is not in its parent's innerText: a form in a frame says what it saved too.
  if (depth > 3 || !M.frameDocument) return;
  Array.prototype.forEach.call(doc.querySelectorAll("iframe, frame"), function (frame) {
    var inner = isVisible(frame) ? M.frameDocument(frame) : null;
    if (inner) addLines(inner, counts, depth + 1);
  });
}

function visibleLines() {
  var counts = {};
  addLines(document, counts, 0);
  // A closed <dialog> fading out is still in the body's innerText: its lines are gone for a person.
  queryAllDeep("dialog:not([open])").forEach(function (dialog) {
    if (typeof dialog.innerText !== "string" || !isVisible(dialog)) return;
    var fading = {};
    countLines(dialog.innerText, fading);
    Object.keys(fading).forEach(function (text) {
      if (Object.prototype.hasOwnProperty.call(counts, text)) counts[text] = Math.max(0, counts[text] - fading[text]);
    });
  });
  return M.regionLines(counts, countLines); // an open dialog's lines apart from the page's (change_regions.js)
}

/** Whether a control is shown: drawn (checkVisibility: no display:none or hidden ancestor) and not in a closing dialog. */
function controlShown(el) {
  if (!el.isConnected || closingDialogOf(el)) return false;
  if (typeof el.checkVisibility === "function") return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  return isVisible(el);
}

/**
 * The controls on the page now: {present, shown} Sets (null when the page has no Set: then none are compared);
 * before an action (all) also every element of the document, so the clickables it adds are found after it.
 */
function pageControls(all) {
  if (typeof Set !== "function" || !CONTROLS) return null;
  var present = new Set(), shown = new Set();
  queryAllDeep(CONTROLS).forEach(function (el) {
    present.add(el);
    if (controlShown(el)) shown.add(el);
  });
  var out = { present: present, shown: shown };
  if (all) out.all = new Set(document.getElementsByTagName("*"));
  return out;
}

function lookOf(el) { return el.localName + "|" + (el.getAttribute("class") || ""); }

/**
 * The clickables (observe_candidates.js: a pointer cursor or a handler, no tag or role; an icon with no text)
 * the action added to the document, shown: the first CLICKABLE_LOOKS new elements are looked at. One like a
 * clickable that left the page (same tag, class and text) was rendered again: not new to a person.
 */
function newClickables(before) {
  if (!before.all || !M.isActionable) return [];
  var found = [];
  var els = document.getElementsByTagName("*");
  for (var i = 0, looked = 0; i < els.length && looked < CLICKABLE_LOOKS; i++) {
    var el = els[i];
    if (before.all.has(el) || el.matches(CONTROLS)) continue;
    looked += 1;
    if (M.isActionable(el) && controlShown(el) && !M.unseen(el)) found.push(el);
  }
  if (!found.length) return found;
  var looks = {}, gone = {};
  found.forEach(function (el) { looks[lookOf(el)] = 1; });
  before.all.forEach(function (el) {
    if (!el.isConnected && looks[lookOf(el)]) gone[signatureOf(el)] = (gone[signatureOf(el)] || 0) + 1;
  });
  return found.filter(function (el) {
    var sig = signatureOf(el);
    return !(gone[sig] > 0 && gone[sig]--); // one gone like it: rendered again
  });
}

var SAID_LINES = 200; // the changed lines a control's name is looked for in

/** What tells a control from another without its accessible name (which a detached one no longer has). */
function signatureOf(el) {
  return [el.localName, el.getAttribute("type") || "", el.getAttribute("role") || "", el.getAttribute("aria-label") || "", cap(normalize(el.textContent || ""), 40)].join("|");
}

/**
 * The controls shown and hidden by the action, said as page_observe says them ({ref, role, name}):
 *
 * - shown: a control that was on the page but not drawn (a hover-revealed button, a dialog's), or a new
 *   one, unless a control of its kind left the page meanwhile (a list rendered again replaces its rows'
 *   checkboxes with their like: nothing a person would notice);
 * - hidden: a control still on the page that is no longer drawn (a closed menu's items); one that left
 *   the page went with its content, which the removed lines say, and one in a dialog that closed (`closed`)
 *   went with the dialog, which "dialog closed" says.
 *
 * - shown too: a clickable the action added (newClickables), as a nameless icon.
 *
 * Either is left out, but a field, when one of the changed lines (`said`) holds its name (a new row's checkbox named by
 * the row's text, a dialog's buttons in its "Next Cancel Previous" line): what a line says is not said again.
 */
function controlChanges(before, after, added, removed, closed) {
  var none = { shown: [], count: 0 };
  if (!before || !after) return { shown: none, hidden: none };
  var left = {};
  before.present.forEach(function (el) {
    if (!el.isConnected) {
      var sig = signatureOf(el);
      left[sig] = (left[sig] || 0) + 1;
    }
  });
  var appeared = [];
  after.shown.forEach(function (el) {
    if (before.shown.has(el)) return;
    if (!before.present.has(el)) {
      var sig = signatureOf(el);
      if (left[sig]) {
        left[sig] -= 1; // rendered again
        return;
      }
    }
    appeared.push(el);
  });
  appeared = appeared.concat(newClickables(before));
  var went = [];
  before.shown.forEach(function (el) {
    if (el.isConnected && !after.shown.has(el) && !closed.some(function (d) { return d.contains(el); })) went.push(el);
  });
  return { shown: described(appeared, added), hidden: described(went, removed) };
}

function described(els, said) {
  var out = [], count = 0;
  var lines = said.slice(0, SAID_LINES);
  // A required field first (a revealed address's Street before its optional Company): what must be filled is never cut off.
  els.slice().sort(function (a, b) { return M.isRequired(b) - M.isRequired(a); }).forEach(function (el) {
    var role = M.candidateRole(el);
    // A list whose items are the controls is said by its items (+ @e4 option "Madagascar"), not as a list.
    if (M.CONTAINER_ROLES[role] && (els.some(function (o) { return o !== el && el.contains(o); }) || M.actionableInTree(el).length)) return;
    var name = cap(normalize(M.candidateName(el, role) || ""), LINE_CAP);
    // A field or option is said even so: the line says its label or text, not the control to act on.
    if (name && !SAID_ANYWAY[role] && lines.some(function (line) { return line.indexOf(name) >= 0; })) return;
    count += 1;
    if (out.length < MAX_CONTROLS) out.push({ ref: M.refFor(el), role: role, name: name, required: M.isRequired(el) === 1 || undefined });
  });
  return { shown: out, count: count };
}

/** Lines of `a` that `b` has fewer of, in a's order, each once per missing copy. */
function missing(a, b) {
  var out = [];
  Object.keys(a).forEach(function (text) {
    var extra = a[text] - (Object.prototype.hasOwnProperty.call(b, text) ? b[text] : 0);
    for (var i = 0; i < extra; i++) out.push(M.lineText(text));
  });
  return out;
}

/**
 * The journal's look before an action: {element, ref, texts} as refs.describe gives them, the element
 * found as the acting tool finds it (a ref or a text, fields only with field). A failure to find or
 * describe it is the journal's note (why_not), never the action's failure: the action decides that.
 */
function describeBefore(describe, watch) {
  var out = {};
  try {
    var asked = {};
    if (describe) {
      if (!M.isObject(describe)) fail("invalid_input", "describe must be an object", { field: "describe" });
      var found = M.resolveRefOrText({ ref: describe.ref, text: describe.text }, describe.field === true ? { accept: M.isField } : null);
      asked.ref = found.ref;
      out.ref = found.ref;
    }
    if (watch !== undefined) asked.watch = watch;
    var described = M.describeCall(asked);
    if (described.element) out.element = described.element;
    if (described.texts) out.texts = described.texts;
  } catch (err) {
    if (!(err instanceof M.EngineError)) throw err;
    out.why_not = { code: err.code, message: String(err.message) };
  }
  return out;
}

function slotOf(args) {
  if (args.slot === undefined || args.slot === "") return "";
  if (args.slot !== "act") fail("invalid_input", 'slot must be "act"', { field: "slot" });
  return args.slot;
}

function takeMark(journal, slot, typed) {
  marks[slot || ""] = { lines: visibleLines(), dialogs: openDialogs(), controls: pageControls(true), errors: pageErrorCount() };
  M.statesMark(slot, typed, marks[slot || ""].controls); // typed: {ref, value} a fill puts in its field (change_states.js)
  // From here on, what the page starts is the action's (observe_settle.js); a page_act mark spans
  // actions that arm it themselves.
  if (!slot) M.actionSettle.arm();
  var out = { marked: true };
  if (journal) out.journal = journal;
  return out;
}

function changeMark(args) {
  return takeMark(args.describe !== undefined || args.watch !== undefined ? describeBefore(args.describe, args.watch) : null, slotOf(args));
}

/** refs.resolve {mark}: the change mark of an element refs.resolve just found ({describe: true} describes it). */
function changeMarkOf(ref, options) {
  if (!M.isObject(options)) fail("invalid_input", "mark must be an object", { field: "mark" });
  var describe = options.describe === true ? { ref: ref } : undefined;
  var typed = typeof options.typed === "string" ? { ref: ref, value: options.typed } : null;
  return takeMark(describe !== undefined || options.watch !== undefined ? describeBefore(describe, options.watch) : null, "", typed);
}

function changeReport(args, call) {
  var slot = slotOf(args);
  if (!marks[slot]) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  var limit = args.max_lines === undefined ? MAX_LINES : args.max_lines;
  if (typeof limit !== "number" || !(limit >= 0) || limit > 50) fail("invalid_input", "max_lines must be a number from 0 to 50", { field: "max_lines" });
  if (args.watch !== undefined && !Array.isArray(args.watch)) fail("invalid_input", "watch must be an array of strings", { field: "watch" });
  if (args.settle === undefined) return report(limit, args.watch, slot);
  if (!M.isObject(args.settle)) fail("invalid_input", "settle must be an object", { field: "settle" });
  return M.actionSettle.settle(args.settle, call).then(function (waited) {
    if (!slot) M.actionSettle.disarm();
    var out = report(limit, args.watch, slot);
    out.settle = waited;
    return out;
  }, function (err) {
    if (!slot) M.actionSettle.disarm();
    throw err;
  });
}

function lineCap(t) { return t.length > TEXT_CAP ? t.slice(0, M.cutPoint(t, TEXT_CAP - 1)) + "\u2026" : t; }

function report(limit, watch, slot) {
  if (!slot) M.actionSettle.disarm();
  var before = marks[slot || ""];
  if (!before) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  delete marks[slot || ""];
  var after = visibleLines();
  var added = missing(after, before.lines);
  var dialogs = openDialogs();
  var closed = before.dialogs.filter(function (d) { return dialogs.indexOf(d) < 0 && !(d.isConnected && isVisible(d) && !closingDialogOf(d)); });
  // "dialog closed" says what went with the dialogs (change_regions.js): their lines and controls are not listed again.
  var removed = missing(M.withoutDialogLines(before.lines, closed.length > 0 && closed.length === before.dialogs.length), after);
  var out = {
    added: added.slice(0, limit).map(lineCap),
    added_count: added.length,
    removed: removed.slice(0, limit).map(lineCap),
    removed_count: removed.length,
    dialogs_opened: dialogs.filter(function (d) { return before.dialogs.indexOf(d) < 0; }).map(dialogName),
    dialogs_closed: closed.length,
  };
  Object.assign(out, M.statesReport(slot)); // states and messages (change_states.js)
  // Only lines that appeared: they are on the page to be looked up (removed ones are gone with their elements).
  var labels = gluedLabels(out.added);
  if (labels) out.labels = labels;
  // A control is left out for a line that names it only when that line is said: one past the cap ("+ … 6 more
  // lines") is not read, and the control would be lost (Wagtail's link chooser: its one choice, link "Home").
  var changed = controlChanges(before.controls, pageControls(), added.slice(0, limit), removed, closed), shown = changed.shown, hidden = changed.hidden;
  if (shown.count) {
    out.controls_shown = shown.shown;
    out.controls_shown_count = shown.count;
  }
  if (hidden.count) {
    out.controls_hidden = hidden.shown;
    out.controls_hidden_count = hidden.count;
  }
  var errors = pageErrorsSince(before.errors);
  if (errors) out.errors = errors;
  // An action that changed nothing on a page that threw before it: that is likely why (issue 44's backbone).
  else if (before.errors && M.pageErrorsSoFar) out.errors_before = M.pageErrorsSoFar();
  if (watch !== undefined) out.texts = M.describeCall({ watch: watch }).texts;
  return out;
}

M.changeMarkOf = changeMarkOf;

definePrimitive("refs.change_mark", changeMark);
definePrimitive("refs.change_report", changeReport);
