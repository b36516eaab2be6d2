/*
 * change_states.js — The controls whose state an action changed, and the messages it made the page show
 * (docs/mcp-surface.md, "What acting tools answer"; issue 52): a checkbox checked or unchecked (native,
 * or a switch, radio or menu item by aria-checked), a button pressed, a disclosure expanded or collapsed,
 * a tab or option selected, a <select>'s chosen option by its label, and a field's value when it is not
 * what was typed into it (a maxlength cut, a mask or formatter, a number field that refused letters).
 *
 * observe_changes.js takes statesMark(slot, typed) with its change mark and statesReport(slot) with its
 * report. The page's address is said when it moved (url): from the address the last answer said, so a
 * history.replaceState the page made between two actions (an autosave moving …/add/ to …/34/edit/) is said
 * by the next answer (issue 53); a page_act mark compares with its own start (its steps' lines are cut).
 * The text an action selected is said too (a key press in an editor: Control+A, Shift+End). A page_act mark
 * ("act") spans several actions: what a step typed is expected there too, so a field that holds what was
 * typed is not said again by the whole call's report.
 */
var normalize = M.normalize,
  cap = M.cap,
  queryAllDeep = M.queryAllDeep;

var STATEFUL = "input:not([type=hidden]):not([type=password]):not([type=file]), textarea, select, summary, [aria-checked], [aria-pressed], [aria-expanded], [aria-selected]";
var LOOKED = 1500; // controls whose state is noted at a mark (a long table's checkboxes: the first ones)
var MAX_STATES = 6; // controls said per answer
var VALUE_CAP = 100; // characters of a value said
var BUTTONS = { button: 1, submit: 1, reset: 1, image: 1 };
var ONE_OF = { radio: 1, menuitemradio: 1, tab: 1, option: 1 }; // choosing one un-chooses another: only the chosen is said
var snapshots = {}; // slot -> {states: Map element -> state, typed: Map element -> value (null: the action's line says it), messages, url}
var urlSaid = null; // the address this document's last acting answer said, or its first mark's

/** What a person sees of el's state: {said?: "checked" | "unchecked" | "mixed" | "pressed" | …, value?}, as page_observe says it. */
function stateOf(el) {
  var out = {};
  var tag = M.tagOf(el);
  var type = String(el.type || "").toLowerCase();
  if (tag === "input" && (type === "checkbox" || type === "radio")) out.said = el.indeterminate ? "mixed" : el.checked ? "checked" : "unchecked";
  else if (el.hasAttribute("aria-checked")) out.said = { "true": "checked", "false": "unchecked", mixed: "mixed" }[el.getAttribute("aria-checked")];
  var pressed = el.getAttribute("aria-pressed");
  if (pressed === "true" || pressed === "false") out.said = [out.said, pressed === "true" ? "pressed" : "not pressed"].filter(Boolean).join(" ");
  var expanded = tag === "summary" && el.parentElement && M.tagOf(el.parentElement) === "details" ? String(el.parentElement.open) : el.getAttribute("aria-expanded");
  if (expanded === "true" || expanded === "false") out.said = [out.said, expanded === "true" ? "expanded" : "collapsed"].filter(Boolean).join(" ");
  if (el.getAttribute("aria-selected") === "true") out.said = [out.said, "selected"].filter(Boolean).join(" ");
  if (tag === "select") out.value = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.label || o.value; }).join(", ");
  else if (tag === "textarea" || (tag === "input" && type !== "checkbox" && type !== "radio" && !BUTTONS[type])) out.value = String(el.value == null ? "" : el.value);
  return out;
}

function same(a, b) { return a.said === b.said && a.value === b.value && a.rich === b.rich; }

/**
 * The rich-text editor that has the focus (its outermost editable box), or null. A key chord in it (Control+B)
 * changes what a person sees of its text, not the text: its marked text (rich_text.js) is noted with the
 * controls, so a formatting change is said (`~ @e3 textbox "Body" = "… **daily**"`), never "no visible change".
 */
function focusedEditor() {
  var el = document.activeElement;
  if (!el || !el.isContentEditable || typeof M.markedText !== "function") return null;
  while (el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
  return el;
}

function editorState(el) {
  return { rich: M.markedText(el), plain: normalize(el.textContent || "") };
}

/** Where the marked text first differs, in a window of VALUE_CAP characters around it. */
function aroundChange(before, now) {
  var i = 0;
  while (i < before.length && i < now.length && before[i] === now[i]) i++;
  var start = Math.max(0, i - 40);
  return (start ? "… " : "") + cap(now.slice(start), VALUE_CAP);
}

function statesNow() {
  var states = new Map();
  var els = queryAllDeep(STATEFUL);
  // A code editor's hidden input is not a field a person sees: page_fill's own line says what the editor holds (editors.js).
  for (var i = 0; i < els.length && i < LOOKED; i++) {
    if (M.isEditorInput(els[i])) continue;
    var state = stateOf(els[i]);
    // Whether a person saw it at the mark: one shown only by the action appeared (its line or `+ @e…` says it),
    // whatever its state was while hidden (TodoMVC's "Mark all as complete", checked while no item showed it).
    state.seen = shown(els[i]);
    states.set(els[i], state);
  }
  var editor = focusedEditor();
  if (editor) states.set(editor, editorState(editor));
  return states;
}

/**
 * Notes the page's control states (and messages, page_messages.js) before an action, for slot ("" or "act").
 * typed: {ref, value} the action is about to put in a field (value null: the action's own line says the new
 * state, a select's chosen labels); expected in this slot's report and in a page_act mark's. controls: the
 * controls observe_changes.js noted ({shown} Set), of which the enabled ones are kept (disabledSince).
 */
function statesMark(slot, typed, controls) {
  if (typeof Map !== "function") return;
  var key = slot || "";
  var url = String(root.location.href);
  if (urlSaid === null) urlSaid = url;
  snapshots[key] = { states: statesNow(), typed: new Map(), messages: M.messagesMark(), url: key ? url : urlSaid, selection: selectionNow(), enabled: enabledOf(controls) };
  if (typed) expect(typed.ref, typed.value);
}

/** Expects el (by ref) to hold value after the action (null: say nothing of it), in every open mark. */
function expect(ref, value) {
  var el = null;
  try {
    el = M.elementOfRef(String(ref)).el;
  } catch (err) {
    if (!(err instanceof M.EngineError)) throw err;
    return; // gone or hidden already: nothing of it will be said
  }
  Object.keys(snapshots).forEach(function (key) { snapshots[key].typed.set(el, value); });
}

function shown(el) {
  if (!el.isConnected) return false;
  return typeof el.checkVisibility === "function" ? el.checkVisibility() : M.isVisible(el);
}

function isDisabled(el) {
  return (typeof el.matches === "function" && el.matches(":disabled")) || el.getAttribute("aria-disabled") === "true";
}

/** The shown controls a person could use at the mark (none when observe_changes.js gave none). */
function enabledOf(controls) {
  var out = [];
  if (controls && controls.shown) controls.shown.forEach(function (el) { if (!isDisabled(el)) out.push(el); });
  return out;
}

/**
 * The controls the action disabled, still shown: a button that turned `disabled` while what it started loads
 * (Wagtail's "Choose a page", disabled until its chooser opened) is a change a person sees, not "no visible change".
 * One enabled again is not said: it is what a person expects of a form (a Save enabled by typing).
 */
function disabledSince(snap) {
  return snap.enabled.filter(function (el) { return el.isConnected && isDisabled(el) && shown(el); });
}

/** The controls the action changed, said as page_observe says them: [{ref, role, name?, state?, value?}], and how many. */
function changedStates(snap) {
  var out = [];
  var count = 0;
  var disabled = disabledSince(snap);
  var said = function (el) { return disabled.indexOf(el) >= 0; };
  snap.states.forEach(function (before, el) {
    // `~` is a change a person saw: a control hidden before or after the action appeared or went instead.
    if (before.seen === false || !shown(el)) return;
    var now = before.rich !== undefined ? editorState(el) : stateOf(el);
    if (same(before, now)) return;
    var role = M.candidateRole(el);
    var entry = {};
    if (now.said !== before.said && now.said) {
      // A radio un-chosen by its neighbour's choice, a tab or option no longer selected: the chosen one says it.
      // A tab that was "expanded selected" and is now "collapsed" is the un-chosen one too (jQuery UI's tabs).
      var unchosen = now.said === "unchecked" || (/\bselected\b/.test(before.said || "") && !/\bselected\b/.test(now.said));
      if (!(ONE_OF[role] && unchosen)) entry.state = now.said;
    }
    if (now.value !== before.value && now.value !== undefined) {
      var typed = snap.typed.has(el) ? snap.typed.get(el) : undefined;
      // What the action put there is its own line's, unless the field holds something else.
      if (typed === undefined || (typed !== null && typed !== now.value)) entry.value = cap(now.value, VALUE_CAP);
    }
    // An editor whose text is the same but marked otherwise (bold, a link): its formatting changed. Typing is
    // said by the text's own lines.
    if (before.rich !== undefined && now.plain === before.plain && now.rich !== before.rich) entry.value = aroundChange(before.rich, now.rich);
    if (said(el)) {
      entry.state = [entry.state, "disabled"].filter(Boolean).join(" ");
      disabled.splice(disabled.indexOf(el), 1); // said here, with its other change
    }
    if (entry.state === undefined && entry.value === undefined) return;
    add(entry, el, role);
  });
  disabled.forEach(function (el) { add({ state: "disabled" }, el, M.candidateRole(el)); });
  return { states: out, count: count };

  function add(entry, el, role) {
    count += 1;
    if (out.length >= MAX_STATES) return;
    entry.ref = M.refFor(el);
    entry.role = role;
    var name = cap(normalize(M.candidateName(el, role) || ""), VALUE_CAP);
    if (name) entry.name = name;
    out.push(entry);
  }
}

/** What statesMark's slot saw change: {states, states_count, messages, messages_count}, the keys only when there are some. */
function statesReport(slot) {
  var key = slot || "";
  var snap = snapshots[key];
  delete snapshots[key];
  var out = {};
  if (!snap) return out;
  var changed = changedStates(snap);
  if (changed.count) {
    out.states = changed.states;
    out.states_count = changed.count;
  }
  var said = M.messagesSince(snap.messages);
  if (said) {
    out.messages = said.messages;
    out.messages_count = said.count;
  }
  var url = String(root.location.href);
  if (url !== snap.url) out.url = url; // pushState, replaceState, a hash: said as "now at …"
  var selected = normalize(selectionNow());
  if (selected && selected !== normalize(snap.selection)) out.selection = cap(selected, VALUE_CAP);
  if (!key) urlSaid = url;
  return out;
}

/** The text selected now (issue 53): in the focused field, else the document's (a rich-text editor's); "" when none. */
function selectionNow() {
  var el = document.activeElement;
  var tag = el ? M.tagOf(el) : "";
  if ((tag === "input" || tag === "textarea") && typeof el.selectionStart === "number" && el.type !== "password") return String(el.value).slice(el.selectionStart, el.selectionEnd);
  var selection = typeof root.getSelection === "function" ? root.getSelection() : null;
  return selection ? String(selection) : "";
}

/** 1 for a field a form needs filled (required, aria-required), else 0: said first and marked among shown controls. */
function isRequired(el) {
  return el.required === true || (el.getAttribute && el.getAttribute("aria-required") === "true") ? 1 : 0;
}

M.isRequired = isRequired;
M.statesMark = statesMark;
M.statesReport = statesReport;
M.expectState = expect;
