/*
 * read_cursor.js — page_read's byte budget and cursor (read.js): a text is cut
 * at a line end when a whole line fits, inside the line (on a code point
 * boundary) when even one does not, and a cursor "<scope>.<offset>" names the
 * character offset where the next part starts ("p" for the whole page, "e12"
 * for the part under @e12). docs/mcp-surface.md, "page_read".
 */
var fail = M.fail;

var encoder = typeof TextEncoder === "function" ? new TextEncoder() : null;
function utf8Length(text) {
  return encoder ? encoder.encode(text).length : unescape(encodeURIComponent(text)).length;
}

function parseCursor(cursor) {
  var m = typeof cursor === "string" ? /^(p|e[0-9]+)\.([0-9]{1,9})$/.exec(cursor) : null;
  if (!m) fail("invalid_input", "cursor must be one a previous page_read answered", { field: "cursor" });
  return { scope: m[1], offset: Number(m[2]) };
}

/** The part of text from start that fits in room bytes: {end, next} (next: where the following part starts). */
function cutText(text, start, room) {
  var used = 0, pos = start, fit = -1;
  // Whole lines while they fit.
  for (;;) {
    var nl = text.indexOf("\n", pos);
    var lineEnd = nl < 0 ? text.length : nl;
    var size = utf8Length(text.slice(pos, lineEnd)) + (fit < 0 ? 0 : 1);
    if (used + size > room) break;
    used += size;
    fit = lineEnd;
    if (nl < 0) break;
    pos = nl + 1;
  }
  if (fit > start) return { end: fit, next: fit < text.length ? fit + 1 : fit }; // the newline is between parts
  // One line longer than the budget: cut inside it, on a code point boundary.
  var piece = "";
  var chars = Array.from(M.sliceText(text, start, start + room));
  for (var i = 0; i < chars.length && utf8Length(piece + chars[i]) <= room; i++) piece += chars[i];
  // At least one whole character, so every part moves on (a pair's two halves go together).
  var end = start + Math.max(piece.length, chars.length ? chars[0].length : 1);
  return { end: end, next: end };
}

M.utf8Length = utf8Length;
M.parseCursor = parseCursor;
M.cutText = cutText;
