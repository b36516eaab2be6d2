/*
 * launcher_targets.js — Where a launcher belongs (launchers.js): the rendered elements a launcher
 * spec's target designates now, judged only while the map state it names holds; and the small
 * list and string helpers launchers.js walks its data with.
 *
 * A spec (launchers.js) carries the onClick that opens a map's tool or overlay, so nothing here
 * hands a spec, or a list holding one, to a built-in the page can replace: targets and probes are
 * read by own property and lists walked by index (docs/overlays.md, "Launcher clicks").
 */
var EngineError = M.EngineError,
  resolveAll = M.resolveAll,
  hiddenReason = M.hiddenReason,
  I = M.intrinsics;

var own = I.own,
  isArray = I.isArray;

// An anchor may be rendered but empty (an <output> before its first result) or scrolled out of its
// box: a launcher still belongs beside it. Hidden (display:none, visibility, inert) it does not.
var RENDERED_REASONS = { zero_size: true, off_screen: true, clipped: true };

/** The items of an array-like (a NodeList, a page's list) as a fresh array, by index. */
function listOf(items) {
  var out = [];
  var n = items ? items.length : 0;
  for (var i = 0; i < n; i++) out[i] = items[i];
  return out;
}

/** text as a quoted CSS string (an attribute selector's value). */
function cssString(text) {
  var out = '"';
  for (var i = 0; i < text.length; i++) {
    var c = I.charCodeAt(text, i);
    if (c === 34 || c === 92) out += "\\" + text[i];
    else if (c < 32 || c === 127) out += "\\" + c.toString(16) + " ";
    else out += text[i];
  }
  return out + '"';
}

/** Whether every probe of a {name, probes} state check holds on this page (no probe: never). */
function stateHolds(check) {
  var probes = own(check, "probes");
  if (!isArray(probes) || !probes.length) return false;
  var url = String(root.location.href);
  var located = [];
  for (var i = 0; i < probes.length; i++) {
    var probe = probes[i];
    var contained = own(probe, "url_contains"),
      matches = own(probe, "url_matches"),
      locator = own(probe, "locator");
    if (typeof contained === "string" && url.indexOf(contained) < 0) return false;
    if (typeof matches === "string") {
      try {
        if (!new RegExp(matches).test(url)) return false;
      } catch (_bad) {
        return false;
      }
    }
    if (locator) located[located.length] = { id: own(probe, "id"), locator: locator, state: own(probe, "state") };
  }
  return locatorsHold(located);
}

/** Whether every probe's locator finds what it asks for, judged as locator.probe judges it (states.js). */
function locatorsHold(probes) {
  if (!probes.length) return true;
  try {
    var results = M.probeLocators({ probes: probes }).results;
    for (var i = 0; i < results.length; i++) if (!results[i].matched) return false;
    return true;
  } catch (_err) {
    return false; // an invalid locator: the state cannot hold
  }
}

/** A target descriptor without ``state`` (which names a map state, checked through whenState). */
function locatorOf(target) {
  if (typeof target === "string" || own(target, "state") === undefined) return target;
  var copy = {};
  var keys = I.keys(target);
  for (var i = 0; i < keys.length; i++) if (keys[i] !== "state") copy[keys[i]] = target[keys[i]];
  return copy;
}

/** The rendered elements a spec's target designates now: [] when absent, null when the descriptor is refused. */
function launcherTargets(spec) {
  if (spec.whenState && !stateHolds(spec.whenState)) return [];
  var res;
  try {
    res = resolveAll(locatorOf(spec.target));
  } catch (err) {
    if (err instanceof EngineError && err.code === "target_not_found") return [];
    return null;
  }
  // Beside an element its selectors (or role) find, never beside any text on the page: for a
  // launcher, text predicates narrow those matches and do not stand in for them when they fail
  // (an "h2 containing Results" target must not move to a "Results" link once the heading goes).
  if (/^text_/.test(res.matched_by) && hasStructure(spec.target)) return [];
  var rendered = [];
  for (var i = 0; i < res.matches.length; i++) {
    var el = res.matches[i];
    var hidden = hiddenReason(el);
    if (hidden === null || I.hasOwn(RENDERED_REASONS, hidden.reason)) rendered[rendered.length] = el;
  }
  return rendered;
}

var STRUCTURE = ["selector", "selectors", "xpath", "fallback_selectors", "role"];

function hasStructure(target) {
  if (typeof target === "string") return true;
  for (var i = 0; i < STRUCTURE.length; i++) {
    var value = own(target, STRUCTURE[i]);
    if (value !== undefined && value !== null) return true;
  }
  return false;
}

M.launcherTargets = launcherTargets;
M.listOf = listOf;
M.cssString = cssString;
