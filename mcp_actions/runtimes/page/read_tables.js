/*
 * read_tables.js — how page_read says a table: its name, then one "| cell | cell |" line per row
 * (a header repeated in the body said once), a long one cut to its header and first rows with
 * the ref that reads it all, like a long list. read.js calls readTable and readRow with its own
 * walkChildren, which reads what a cell holds.
 */
var cap = M.cap,
  tagOf = M.tagOf,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  refFor = M.refFor,
  skipReason = M.skipReason,
  childrenOf = M.childrenOf,
  quote = M.quote;

var NAME_CAP = 80;
// A long table (or list: read.js) inside what is read shows its header and its first SHOWN rows.
var COLLAPSE_AT = 30;
var SHOWN = 20;

function cells(w, rowEl, walkChildren) {
  var out = [];
  (function collect(parent) {
    var nodes = childrenOf(parent);
    for (var i = 0; i < nodes.length; i++) {
      var c = nodes[i];
      if (c.nodeType !== 1 || skipReason(c)) continue;
      var tag = tagOf(c), role = roleOf(c);
      if (tag === "td" || tag === "th" || /^(cell|gridcell|columnheader|rowheader)$/.test(role || "")) {
        // A cell's own text is judged as any element's (read_structure.js textHidden): a hidden cell says nothing.
        var hidden = !!M.textHidden(c, M.styleOf(c));
        out.push({ text: w.capture(function () { walkChildren(w, c, hidden); }).replace(/\|/g, "\\|"), header: tag === "th" || role === "columnheader" });
      } else {
        collect(c); // a wrapper between a row and its cells
      }
    }
  })(rowEl);
  return out;
}

function rowLine(w, rowEl, walkChildren) {
  var found = cells(w, rowEl, walkChildren);
  if (!found.length) return null;
  return { line: "| " + found.map(function (c) { return c.text; }).join(" | ") + " |", header: found.every(function (c) { return c.header; }) };
}

function row(w, el, walkChildren) {
  var r = rowLine(w, el, walkChildren);
  if (r) w.line(r.line);
}

function table(w, el, walkChildren) {
  w.flush();
  var name = accessibleName(el, "table");
  if (name) w.line("[table " + quote(cap(name, NAME_CAP)) + "]");
  var rows = [];
  (function collect(parent) {
    var nodes = childrenOf(parent);
    for (var i = 0; i < nodes.length; i++) {
      var c = nodes[i];
      if (c.nodeType !== 1 || skipReason(c) || tagOf(c) === "caption") continue;
      if (tagOf(c) === "tr" || roleOf(c) === "row") rows.push(c);
      else collect(c); // thead, tbody, tfoot, rowgroups
    }
  })(el);
  // A long table inside what is read shows its header and first rows, like a long list (walkChildren).
  var shown = el === w.scope || rows.length <= COLLAPSE_AT ? rows.length : SHOWN + 1;
  var header = null;
  for (var i = 0; i < shown; i++) {
    var r = rowLine(w, rows[i], walkChildren);
    if (!r) continue;
    if (i === 0 && r.header) header = r.line;
    else if (header !== null && r.line === header) continue; // a header repeated in the body is said once
    w.line(r.line);
  }
  if (shown < rows.length) w.line("| … " + (rows.length - shown) + " more rows: page_read {\"ref\":\"" + refFor(el) + "\"} |");
  // A grid that draws only some of its rows (a canvas grid's table, a virtualised grid) says which, of how many.
  var drawn = M.rowsShown(el);
  if (drawn) w.line("| rows " + drawn.first + "-" + drawn.last + " of " + drawn.total + " shown: page_scroll {\"ref\":\"" + refFor(M.laidOut(el)) + "\"} for others, or page_find by text |");
}

M.readTable = table;
M.readRow = row;
M.COLLAPSE_AT = COLLAPSE_AT;
M.SHOWN = SHOWN;
