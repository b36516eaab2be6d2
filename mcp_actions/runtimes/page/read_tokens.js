/*
 * read_tokens.js — How page_read says one interactive element (read.js): a
 * token [role "name" @eN state], with the ref page_observe gives it
 * (observe_refs.js refFor) and its state: the value (= "bob"; a password is
 * "••••"), checked, mixed, selected, pressed, expanded or collapsed, disabled.
 * docs/mcp-surface.md, "page_read".
 */
var cap = M.cap,
  normalize = M.normalize,
  tagOf = M.tagOf,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName,
  isEnabled = M.isEnabled,
  refFor = M.refFor,
  pageText = M.pageText,
  quote = M.quote; // page text quoted, never read as the product's own tokens (core.js pageText)

var NAME_CAP = 80;
var VALUE_CAP = 120;

function stateOf(el, role) {
  var tag = tagOf(el), type = String(el.type || "").toLowerCase(), out = "";
  if (tag === "select") {
    var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return o.label || o.value; });
    if (chosen.length) out += " = " + quote(cap(chosen.join(", "), VALUE_CAP));
  } else if (tag === "input" && (type === "checkbox" || type === "radio")) {
    if (el.checked) out += " checked";
  } else if (tag === "input" || tag === "textarea") {
    var value = type === "password" ? (el.value ? "••••" : "") : String(el.value == null ? "" : el.value);
    if (value && type !== "submit" && type !== "button" && type !== "reset" && type !== "image") out += " = " + quote(cap(value.replace(/\s+/g, " "), VALUE_CAP));
  } else if (M.isEditorField(el) || el.isContentEditable) {
    // A code editor says the text it draws (editors.js), a rich-text editor its text with its formatting (rich_text.js).
    var text = normalize(M.isEditorField(el) ? M.editorText(M.editorOf(el)) : M.markedText(el));
    if (text) out += " = " + quote(cap(text, VALUE_CAP));
  } else if (role === "slider" || role === "spinbutton") {
    var said = M.valueOf(el); // a drawn slider's aria-valuetext or aria-valuenow (observe_state.js)
    if (said) out += " = " + quote(cap(said, VALUE_CAP));
  }
  var checked = el.getAttribute("aria-checked");
  if (checked === "true") out += " checked";
  else if (checked === "mixed") out += " mixed";
  if (el.getAttribute("aria-selected") === "true") out += " selected";
  if (el.getAttribute("aria-pressed") === "true") out += " pressed";
  var expanded = tag === "summary" && el.parentElement && tagOf(el.parentElement) === "details" ? String(el.parentElement.open) : el.getAttribute("aria-expanded");
  if (expanded === "true") out += " expanded";
  else if (expanded === "false") out += " collapsed";
  if (!isEnabled(el)) out += " disabled";
  return out;
}

var TARGET_CAP = 160;

/**
 * Where a link leads when it leaves this document, said cheaply: the path (with query and fragment)
 * on this origin, the whole URL on another; "" for a link within the page (#…, a script) or that goes
 * nowhere. The URL is the parser's (spaces and quotes escaped); "]" is escaped too, so it never ends a token.
 */
function linkTarget(el) {
  var tag = tagOf(el);
  if ((tag !== "a" && tag !== "area") || !el.hasAttribute("href")) return "";
  var url;
  try {
    url = new URL(el.href);
  } catch (_bad) {
    return "";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "";
  var here = el.ownerDocument.location;
  var shown = url.origin === here.origin ? url.pathname + url.search + url.hash : url.href;
  if (url.origin === here.origin && url.pathname === here.pathname && url.search === here.search) return ""; // this page
  return pageText(cap(shown, TARGET_CAP).replace(/\]/g, "%5D"));
}

/** The token of el; named false: a container's token, named only by its aria-label (its content is read after it). */
function token(el, named) {
  // The role and name page_observe gives it ("clickable" for a div a handler or cursor makes one).
  var role = candidateRole(el);
  // A container is named as its author named it (aria-label, aria-labelledby), never by the content read after it.
  var authored = el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby");
  var name = named || authored ? cap(named ? candidateName(el, role) : M.accessibleName(el, role), NAME_CAP) : "";
  var to = linkTarget(el);
  // What can be chosen and what an empty field asks for, as page_observe says them (observe_state.js).
  var choices = M.choicesOf(el), placeholder = M.placeholderOf(el, name);
  var asks = (choices ? " " + M.choicesText(choices) : "") + (placeholder ? " placeholder " + quote(placeholder) : "");
  return "[" + role + (name ? " " + quote(name) : "") + " " + refFor(el) + (to ? " " + to : "") + stateOf(el, role) + asks + "]";
}

M.token = token;
M.linkTarget = linkTarget;
