/*
 * observe_changes.js — What an action changed, briefly (docs/mcp-surface.md, "What acting
 * tools answer"): refs.change_mark notes the page's visible text lines, its open dialogs and
 * its URL before an action; refs.change_report, after it (and a settle), says which lines
 * appeared and went (multiset difference, capped), which dialogs opened or closed, and the new
 * URL of a same-document navigation. A full navigation replaces the page and its engine; the
 * acting tool says that itself when the report cannot be read.
 *
 * Cheap on purpose: one innerText of the body (and of each visible same-origin frame's body,
 * and of the top children of each visible open shadow root, which no outer innerText includes)
 * before and one after, no MutationObserver left running between calls.
 *
 * One round trip each side of the action: refs.change_report {settle} first waits until the page
 * has done what the action started (observe_settle.js, armed by refs.change_mark), and both take
 * what the journal of acting calls needs (dispatch/act_journal.py): change_mark {describe, watch}
 * describes the element a ref or text names (refs.describe) and counts the watched texts before
 * the action, change_report {watch} counts them after it.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  cap = M.cap,
  normalize = M.normalize,
  isVisible = M.isVisible,
  accessibleName = M.accessibleName,
  queryAllDeep = M.queryAllDeep;

var LINE_CAP = 100; // characters of one reported line
var MAX_LINES = 5; // lines reported per direction by default
var DIALOGS = "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]";

var mark = null; // {lines: {text: count}, dialogs: [elements], url}

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
  return counts;
}

function openDialogs() {
  return queryAllDeep(DIALOGS).filter(isVisible);
}

function dialogName(el) {
  var name = accessibleName(el, "dialog");
  if (!name) {
    var heading = el.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
    name = heading ? normalize(heading.textContent) : normalize(el.textContent);
  }
  return cap(name, LINE_CAP);
}

/** Lines of `a` that `b` has fewer of, in a's order, each once per missing copy. */
function missing(a, b) {
  var out = [];
  Object.keys(a).forEach(function (text) {
    var extra = a[text] - (Object.prototype.hasOwnProperty.call(b, text) ? b[text] : 0);
    for (var i = 0; i < extra; i++) out.push(text);
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

function takeMark(journal) {
  mark = { lines: visibleLines(), dialogs: openDialogs(), url: String(root.location.href) };
  // From here on, what the page starts is the action's (observe_settle.js).
  M.actionSettle.arm();
  var out = { marked: true };
  if (journal) out.journal = journal;
  return out;
}

function changeMark(args) {
  return takeMark(args.describe !== undefined || args.watch !== undefined ? describeBefore(args.describe, args.watch) : null);
}

/** refs.resolve {mark}: the change mark of an element refs.resolve just found ({describe: true} describes it). */
function changeMarkOf(ref, options) {
  if (!M.isObject(options)) fail("invalid_input", "mark must be an object", { field: "mark" });
  var describe = options.describe === true ? { ref: ref } : undefined;
  return takeMark(describe !== undefined || options.watch !== undefined ? describeBefore(describe, options.watch) : null);
}

function changeReport(args, call) {
  if (!mark) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  var limit = args.max_lines === undefined ? MAX_LINES : args.max_lines;
  if (typeof limit !== "number" || !(limit >= 0) || limit > 50) fail("invalid_input", "max_lines must be a number from 0 to 50", { field: "max_lines" });
  if (args.watch !== undefined && !Array.isArray(args.watch)) fail("invalid_input", "watch must be an array of strings", { field: "watch" });
  if (args.settle === undefined) return report(limit, args.watch);
  if (!M.isObject(args.settle)) fail("invalid_input", "settle must be an object", { field: "settle" });
  return M.actionSettle.settle(args.settle, call).then(function (waited) {
    M.actionSettle.disarm();
    var out = report(limit, args.watch);
    out.settle = waited;
    return out;
  }, function (err) {
    M.actionSettle.disarm();
    throw err;
  });
}

function report(limit, watch) {
  M.actionSettle.disarm();
  if (!mark) fail("state_mismatch", "refs.change_mark was not called on this page before the action", {});
  var before = mark;
  mark = null;
  var after = visibleLines();
  var added = missing(after, before.lines);
  var removed = missing(before.lines, after);
  var dialogs = openDialogs();
  var out = {
    added: added.slice(0, limit).map(function (t) { return cap(t, LINE_CAP); }),
    added_count: added.length,
    removed: removed.slice(0, limit).map(function (t) { return cap(t, LINE_CAP); }),
    removed_count: removed.length,
    dialogs_opened: dialogs.filter(function (d) { return before.dialogs.indexOf(d) < 0; }).map(dialogName),
    dialogs_closed: before.dialogs.filter(function (d) { return dialogs.indexOf(d) < 0 && !(d.isConnected && isVisible(d)); }).length,
  };
  var url = String(root.location.href);
  if (url !== before.url) out.url = url;
  if (watch !== undefined) out.texts = M.describeCall({ watch: watch }).texts;
  return out;
}

M.changeMarkOf = changeMarkOf;

definePrimitive("refs.change_mark", changeMark);
definePrimitive("refs.change_report", changeReport);
