/*
 * drawn_controls.js — A control a page draws itself while its real control is visually hidden
 * (docs/mcp-surface.md, "What page_observe lists"; issue 53).
 *
 * The accessible pattern of the component libraries: React Aria's slider keeps each thumb's
 * <input type=range aria-label="Minimum price"> in a 1px clipped box inside the drawn thumb; Base Web's
 * checkbox (Streamlit) keeps a native checkbox of no size inside a <label> beside a drawn box. A person
 * sees the thumb or the box, and the control is what a screen reader and the keyboard use. Such a
 * control is listed, read and found by its real name and value, and acted on through what a person
 * sees (drawnControl: its host, the box a click goes to).
 *
 * Hidden *text* stays out (read_structure.js skipReason): only a control takes this way (a form field or
 * an ARIA widget role, never a link, a button or words), only when what hides it is the visually hidden
 * pattern (a clip, a box of 1px or none, opacity 0) and never display:none, visibility, [hidden], inert,
 * aria-hidden, or a place no scroll reaches; and only with a drawn control a person sees: a visible label
 * of it, or the nearest visible box around it, small (a thumb, a box: not a section or the page) and
 * holding the control's place.
 */
var tagOf = M.tagOf;

// ARIA widget roles that hold a value or a state a person sets (not link or button: a hidden one is text).
var WIDGET_ROLES = { slider: 1, checkbox: 1, radio: 1, "switch": 1, spinbutton: 1, textbox: 1, searchbox: 1, combobox: 1, menuitemcheckbox: 1, menuitemradio: 1 };
var NOT_FIELDS = { hidden: 1, button: 1, submit: 1, reset: 1, image: 1, file: 1 };
// What hides a drawn control's real one: the visually hidden pattern (read_structure.js skipReason's words).
var VISUALLY_HIDDEN = { visually_hidden: 1, clipped: 1, transparent: 1 };
var HOST_MAX_AREA = 600 * 160; // px²: a thumb, a box, a label's line; never a section or the page
var NEVER_HOSTS = { html: 1, body: 1, main: 1, form: 1, section: 1, article: 1, aside: 1, nav: 1, fieldset: 1, dialog: 1, header: 1, footer: 1 };
var LANDMARKS = { main: 1, navigation: 1, banner: 1, contentinfo: 1, complementary: 1, search: 1, form: 1, region: 1, dialog: 1, application: 1 };
// A checkbox or a radio is clicked through its label (a person clicks the words or the box); a slider, a field
// through the box drawn around it (a thumb: its label only focuses it).
var LABEL_FIRST = { checkbox: 1, radio: 1, "switch": 1, menuitemcheckbox: 1, menuitemradio: 1 };

/** Whether el is a control that may be drawn by another element: a form field, or an ARIA widget role. */
function isDrawableControl(el) {
  var tag = tagOf(el);
  if (tag === "input") return !NOT_FIELDS[String(el.type).toLowerCase()];
  if (tag === "select" || tag === "textarea") return true;
  var role = String((el.getAttribute && el.getAttribute("role")) || "").trim().split(/\s+/)[0];
  return !!WIDGET_ROLES[role];
}

/** Whether a person sees el as it is (visible to a click, and not left out by a reader). */
function seenAsIs(el) {
  return M.isVisible(el) && !M.unseen(el);
}

/** Why el is hidden other than by the visually hidden pattern, up to (not including) stop: "" when only that pattern hides it. */
function hiddenOtherwise(el, stop) {
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true })) return "hidden";
  if (el.closest && el.closest("[inert], [aria-hidden=true], [hidden]")) return "hidden";
  for (var node = el; node && node !== stop && node.nodeType === 1; node = M.composedParent(node)) {
    var why = M.skipReason(node);
    if (why && !VISUALLY_HIDDEN[why]) return why;
  }
  return "";
}

/** Whether host is a small box a person sees that holds el's place (its box's corner inside host's, within 2px). */
function holdsPlace(host, el) {
  var tag = tagOf(host);
  if (NEVER_HOSTS[tag] || LANDMARKS[M.roleOf(host)]) return false;
  var h = M.rectOf(host), r = M.rectOf(el);
  if (!(h.width > 0 && h.height > 0) || h.width * h.height > HOST_MAX_AREA) return false;
  return r.left >= h.left - 2 && r.left <= h.right + 2 && r.top >= h.top - 2 && r.top <= h.bottom + 2;
}

/**
 * The element a person sees and clicks for el when el is a control drawn by it (see the module comment):
 * a visible label of el, else the nearest visible box around el that holds its place; null when el is seen
 * as it is, is no such control, or nothing drawn stands for it.
 */
function drawnControl(el) {
  if (!el || el.nodeType !== 1 || !el.isConnected || !isDrawableControl(el) || seenAsIs(el)) return null;
  var byLabel = labelHost(el), byBox = boxHost(el);
  return LABEL_FIRST[M.roleOf(el)] ? byLabel || byBox : byBox || byLabel;
}

/** A visible label of el, when only the visually hidden pattern hides el up to it. */
function labelHost(el) {
  var labels = el.labels ? Array.prototype.slice.call(el.labels) : [];
  for (var i = 0; i < labels.length; i++) {
    if (seenAsIs(labels[i]) && !hiddenOtherwise(el, labels[i].contains(el) ? labels[i] : null)) return labels[i];
  }
  return null;
}

/** The nearest visible box around el, when it is small, holds el's place, and only the visually hidden pattern hides el in it. */
function boxHost(el) {
  for (var node = M.composedParent(el); node && node.nodeType === 1; node = M.composedParent(node)) {
    if (!seenAsIs(node)) continue;
    return holdsPlace(node, el) && !hiddenOtherwise(el, node) ? node : null;
  }
  return null;
}

/** Whether a person can reach el: seen as it is, or a control drawn by what a person sees. */
function reachable(el) {
  return seenAsIs(el) || !!drawnControl(el);
}

/**
 * Where a click on el goes when a drawn control stands for it: the centre of that control, brought into
 * view ({x, y, occluded?}); null when el is clicked as it is.
 */
function drawnPoint(el) {
  var host = drawnControl(el);
  if (!host) return null;
  if (!M.inViewport(M.clickableCenter(host)) && typeof host.scrollIntoView === "function") host.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  var point = M.clickableCenter(host);
  var hit = M.elementFromPointDeep(point.x, point.y);
  var out = { x: point.x, y: point.y };
  if (hit && !M.isWithin(hit, host) && !M.isWithin(hit, el)) out.occluded = true;
  return out;
}

/**
 * The controls under el (el itself too), which a reader leaves out, that a page draws by what a person sees:
 * page_read says their tokens (React Aria's thumb input in its 1px clipped box, Base Web's checkbox of no
 * size), never el's text. Only under a visually hidden box: hidden otherwise, nothing in it is drawn.
 */
function drawnInside(el) {
  if (!VISUALLY_HIDDEN[M.skipReason(el)]) return [];
  var found = isDrawableControl(el) ? [el] : Array.prototype.filter.call(el.querySelectorAll("input, select, textarea, [role]"), isDrawableControl);
  return found.filter(function (control) { return !!drawnControl(control); });
}

M.drawnInside = drawnInside;
M.isDrawableControl = isDrawableControl;
M.drawnControl = drawnControl;
M.reachable = reachable;
M.drawnPoint = drawnPoint;
