/*
 * change_regions.js — The open dialogs, and the region of the page each changed line belongs to
 * (docs/mcp-surface.md, "What acting tools answer"). observe_changes.js counts the page's visible lines
 * before and after an action; the lines inside an open dialog are counted apart from the page's.
 *
 * Why apart: a text that leaves a dialog for the page is a change a person sees. Wagtail's page chooser
 * lists "Harbour Guide" in its modal; choosing it closes the modal and the Related field shows "Harbour
 * Guide". Counted over the whole page the line was there before and after, so the answer left out what was
 * chosen. Counted by region, it went from the dialog and came to the page: `+ "Harbour Guide"`.
 */
var isVisible = M.isVisible,
  normalize = M.normalize,
  queryAllDeep = M.queryAllDeep;

var DIALOGS = "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]";
var IN_DIALOG = "\u0001"; // the key of a line counted in an open dialog: never a character of a page's text line

/** A dialog that was closed but is still drawn while its exit transition runs: what it holds is gone. */
function closingDialogOf(el) {
  var dialog = el.closest ? el.closest("dialog") : null;
  return dialog && !dialog.open ? dialog : null;
}

function openDialogs() {
  return queryAllDeep(DIALOGS).filter(function (d) { return isVisible(d) && !(d.localName === "dialog" && !d.open); });
}

function dialogName(el) {
  var name = M.accessibleName(el, "dialog");
  if (!name) {
    var heading = el.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
    name = heading ? normalize(heading.textContent) : normalize(el.textContent);
  }
  return M.cap(name, 100);
}

/**
 * Moves the lines of the open dialogs in counts ({text: n}, the whole page's) to their own keys: a dialog in
 * a dialog is counted once, with its outermost one.
 */
function regionLines(counts, countLines) {
  var dialogs = openDialogs();
  dialogs.forEach(function (dialog) {
    if (typeof dialog.innerText !== "string" || dialogs.some(function (o) { return o !== dialog && o.contains(dialog); })) return;
    var inside = {};
    countLines(dialog.innerText, inside);
    Object.keys(inside).forEach(function (text) {
      var moved = Object.prototype.hasOwnProperty.call(counts, text) ? Math.min(counts[text], inside[text]) : 0;
      if (!moved) return;
      counts[text] -= moved;
      counts[IN_DIALOG + text] = (counts[IN_DIALOG + text] || 0) + moved;
    });
  });
  return counts;
}

/** A counted line as the page says it: without its region's mark. */
function lineText(key) {
  return key.charAt(0) === IN_DIALOG ? key.slice(1) : key;
}

/**
 * The counted lines before an action without the dialogs' own, when every dialog open then has closed: a person
 * saw the dialog go, which "dialog closed" says, not each of its lines again (MiniWoB's click-dialog said
 * `- "Close"` and its text; Wagtail's chooser 9 lines and more). While one of them is still open its lines count.
 */
function withoutDialogLines(counts, allClosed) {
  if (!allClosed) return counts;
  var out = {};
  Object.keys(counts).forEach(function (key) { if (key.charAt(0) !== IN_DIALOG) out[key] = counts[key]; });
  return out;
}

M.DIALOGS = DIALOGS;
M.closingDialogOf = closingDialogOf;
M.openDialogs = openDialogs;
M.dialogName = dialogName;
M.regionLines = regionLines;
M.lineText = lineText;
M.withoutDialogLines = withoutDialogLines;
