/*
 * page_messages.js — The messages an application shows a person in answer to what they did: an alert or
 * status region, a live region, an <output>, a message list's items (Django admin's ul.messagelist), a
 * toast or snackbar (docs/mcp-surface.md, "What acting tools answer"; issue 52).
 *
 * M.pageMessages(doc) lists those on a document now, visible and not empty, each once (the outermost
 * when one holds another: a live region around its toast). M.messagesMark() notes their texts before an
 * action and M.messagesSince(mark) says which appeared or changed text after it: an acting answer quotes
 * them (change_states.js), and a page an action landed on can be read with M.pageMessages.
 *
 * Uses only core.js and dom.js, so any later module may call it.
 */
var normalize = M.normalize,
  isVisible = M.isVisible,
  queryAllDeep = M.queryAllDeep;

// Where applications put their answer. A toast library's container is itself a live region, or holds the toast.
var MESSAGES = [
  "[role=alert]",
  "[role=status]",
  "[aria-live=polite]",
  "[aria-live=assertive]",
  "output",
  ".messagelist > li", // Django admin
  "ul.messages > li", // Django's own template, many sites
  ".flash", // Rails, Flask
  ".alert", // Bootstrap
  "[class*=toast]",
  "[class*=snackbar]",
].join(", ");
var MESSAGE_CAP = 240; // characters of one message said
var MAX_MESSAGES = 3; // messages said per answer
// A message is short: a live region that holds a list of results or a whole panel is content, which the
// change report's lines say; a message may hold a link or an Undo button, not a form.
var MESSAGE_MAX = 400, MESSAGE_CONTROLS = 3;

function textOf(el) {
  return normalize(typeof el.innerText === "string" ? el.innerText : el.textContent);
}

/**
 * The messages on doc (the top document by default): [{el, text}], visible, with words, outermost first.
 * A hidden region (an empty live region a page keeps ready) is left out: it says nothing to a person.
 */
function pageMessages(doc) {
  var found = [];
  (doc && doc !== document ? Array.prototype.slice.call(doc.querySelectorAll(MESSAGES)) : queryAllDeep(MESSAGES)).forEach(function (el) {
    if (!isVisible(el)) return;
    var text = textOf(el);
    if (text && text.length <= MESSAGE_MAX && el.querySelectorAll("a, button, input, select, textarea").length <= MESSAGE_CONTROLS) found.push({ el: el, text: text });
  });
  return found.filter(function (m) {
    return !found.some(function (other) { return other.el !== m.el && other.el.contains(m.el); });
  });
}

/** The messages' texts before an action: a Map element -> text (null where the page has no Map). */
function messagesMark() {
  if (typeof Map !== "function") return null;
  var seen = new Map();
  pageMessages().forEach(function (m) { seen.set(m.el, m.text); });
  return seen;
}

/** The messages that appeared or changed text since `mark` (messagesMark): {messages: [text], count}, or null. */
function messagesSince(mark) {
  if (!mark) return null;
  var said = [];
  pageMessages().forEach(function (m) {
    if (mark.get(m.el) === m.text) return;
    // The same words in a new element (a list rendered again) are no news to a person.
    var again = false;
    mark.forEach(function (text, el) { if (!el.isConnected && text === m.text) again = true; });
    if (!again) said.push(m.text.length > MESSAGE_CAP ? m.text.slice(0, M.cutPoint(m.text, MESSAGE_CAP - 1)) + "\u2026" : m.text);
  });
  return said.length ? { messages: said.slice(0, MAX_MESSAGES), count: said.length } : null;
}

M.pageMessages = pageMessages;
M.messagesMark = messagesMark;
M.messagesSince = messagesSince;
