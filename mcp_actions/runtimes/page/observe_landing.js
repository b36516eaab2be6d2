/*
 * observe_landing.js — refs.messages: the application's own word on the page an action landed on
 * (docs/mcp-surface.md, "What acting tools answer"; issue 52). After Save or Delete, Django's admin
 * redirects to its list and says "The user “maria” was changed successfully." in a role-less
 * ul.messagelist: the acting answer quotes it after its landing line (dispatch act_report.landing_line).
 *
 * The messages are page_messages.js's (M.pageMessages: alert, status and live regions, <output>, message
 * lists, flash, alert and toast classes), at most `max` of them, each cut at MESSAGE_CAP characters.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail;

var MESSAGE_CAP = 240; // characters of one message said
var MAX_MESSAGES = 5; // the most a caller may ask for

function messages(args) {
  var max = args.max === undefined ? 2 : args.max;
  if (typeof max !== "number" || !(max >= 0) || max > MAX_MESSAGES) fail("invalid_input", "max must be a number from 0 to " + MAX_MESSAGES, { field: "max" });
  // Looked up when called: page_messages.js may come later in the engine than this module.
  var found = typeof M.pageMessages === "function" ? M.pageMessages() : [];
  var out = [];
  for (var i = 0; i < found.length && out.length < max; i++) {
    var text = found[i].text;
    if (out.indexOf(text) < 0) out.push(text.length > MESSAGE_CAP ? text.slice(0, M.cutPoint(text, MESSAGE_CAP - 1)) + "\u2026" : text);
  }
  return { messages: out, count: found.length };
}

// Once the landed document's HTML is parsed (read_sections.js afterLoad, HTML only): the landing is asked as
// soon as the new document answers, often before a server-rendered message list has arrived.
definePrimitive("refs.messages", function (args) { return M.afterLoad(function () { return messages(args); }, true); });
