/*
 * launchers.js — Keeps launcher buttons installed beside their targets while the
 * page changes: the one installer behind map attachments (attachments.js) and
 * overlay.register_launcher (overlay.js).
 *
 * A launcher spec: {id, target (a target descriptor), placement
 * (beforebegin|afterbegin|beforeend|afterend), max (instances), label, title,
 * attrs ({name: value} set on each host), onClick(launcherId), badge (true: a
 * status badge, not a button: nothing to open), whenState ({name, probes}: the
 * launcher is installed only while every probe holds, i.e. while the state its
 * target names is current, judged as the server judges states)}. A *set* of specs
 * (M.launcherSet(onStates)) is replaced whole with set.replace(specs); every
 * set is reconciled against the page after each DOM mutation, history change,
 * popstate or hashchange, debounced (RECONCILE_DELAY_MS, at most MAX_WAIT_MS
 * after the first change), so a launcher follows a single-page app's section
 * as it goes, comes back and is re-rendered several times in a row.
 *
 * Never a duplicate: each reconcile keeps at most `max` hosts per spec, each
 * beside a distinct visible target, and removes any other host carrying the
 * spec's id (a framework's clone of a section, a stale copy). States reported
 * per spec, only when they change: attached, waiting (target not present
 * yet), removed (present once, gone now: context mismatch), failed (a target
 * descriptor the locator code refuses, or an insertion the page refused).
 *
 * A launcher is a real <button type=button> in an OPEN shadow root on a small
 * host element (`all: initial`): keyboard- and screen-reader reachable, found by
 * our observe tools and by Playwright's get_by_role (which pierces open roots,
 * not closed ones), and styled apart from the page's CSS. The label is the
 * button's own text inside the shadow root, never light-DOM text, so a
 * target's text (text_equals/text_contains) does not change when a launcher is
 * placed inside it.
 *
 * Open, so the page can reach a launcher's button, and a page script could click it to make the
 * server run a map tool. A launcher acts only on a click the page did not forge: trusted input
 * (the user's, or CDP input), or a click the engine itself dispatches for the agent
 * (intrinsics.js unforged; docs/overlays.md, "Launcher clicks"). Specs hold the onClick that
 * opens a map's tool or overlay, so no spec, entry or set ever passes through a built-in the
 * page can replace: lists are walked by index and keys written with the captured jsonText.
 */
var queryAllDeep = M.queryAllDeep,
  launcherTargets = M.launcherTargets,
  listOf = M.listOf,
  cssString = M.cssString,
  I = M.intrinsics;

var PLACEMENTS = ["beforebegin", "afterbegin", "beforeend", "afterend"];
var PLACEMENT_SET = { beforebegin: true, afterbegin: true, beforeend: true, afterend: true };
var RECONCILE_DELAY_MS = 60;
var MAX_WAIT_MS = 250;
var HOST_TAG = M.LAUNCHER_HOST_TAG;
var LAUNCHER_ATTR = "data-actions-json-launcher";

// Captured when the engine installs, before page scripts can patch them (a patched
// attachShadow would otherwise see every launcher's root, addEventListener our listener).
var ElementP = root.Element ? root.Element.prototype : null;
var attachShadow = I.nativeMethod(ElementP, "attachShadow", "Element.prototype.attachShadow");
var setAttribute = I.nativeMethod(ElementP, "setAttribute", "Element.prototype.setAttribute");
var listen = I.nativeMethod(root.EventTarget ? root.EventTarget.prototype : null, "addEventListener", "EventTarget.prototype.addEventListener");
var EventP = root.Event ? root.Event.prototype : null;
var preventDefault = I.nativeMethod(EventP, "preventDefault", "Event.prototype.preventDefault");
var stopPropagation = I.nativeMethod(EventP, "stopPropagation", "Event.prototype.stopPropagation");
var min = Math.min,
  max = Math.max,
  now = Date.now;

function contains(list, item) {
  for (var i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

var sets = []; // every live launcher set, reconciled together
var hosts = typeof WeakSet === "function" ? new WeakSet() : null; // every launcher host we made

var STYLE = [
  ":host { all: initial !important; display: inline-block !important; vertical-align: middle !important; margin: 0 0.4em !important; }",
  "button { all: initial; box-sizing: border-box; display: inline-flex; align-items: center; gap: 0.3em; cursor: pointer;",
  "  font: 500 12px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f2a44; background: #eef2ff;",
  "  border: 1px solid #9aa8d8; border-radius: 999px; padding: 2px 10px; white-space: nowrap; }",
  "button:hover { background: #dfe6ff; }",
  "button:focus-visible { outline: 2px solid #3456d1; outline-offset: 2px; }",
  ".badge { all: initial; display: inline-block; font: 500 11px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif;",
  "  color: #1f2a44; background: #eef2ff; border: 1px solid #9aa8d8; border-radius: 4px; padding: 1px 6px; white-space: nowrap; }",
].join("\n");

function isLauncherHost(el) {
  return !!(hosts && el && hosts.has(el));
}

/** Whether el is a launcher host or inside one (targets there are never anchors). */
function insideLauncher(el) {
  for (var n = el; n; n = M.composedParent(n)) if (isLauncherHost(n)) return true;
  return false;
}

var sheet = null;
/** The launcher look, adopted (a page's CSP may refuse a <style> element) or else a <style>. */
function adoptStyle(shadow) {
  try {
    if (!sheet) {
      sheet = new root.CSSStyleSheet();
      sheet.replaceSync(STYLE);
    }
    shadow.adoptedStyleSheets = [sheet];
  } catch (_ignored) {
    var style = document.createElement("style");
    style.textContent = STYLE;
    shadow.appendChild(style);
  }
}

function makeHost(spec) {
  var host = document.createElement(HOST_TAG);
  setAttribute(host, LAUNCHER_ATTR, spec.id);
  var attrs = spec.attrs || {};
  var names = I.keys(attrs);
  for (var i = 0; i < names.length; i++) setAttribute(host, names[i], attrs[names[i]]);
  // A bare init dictionary: attachShadow reads members we do not set, and none may come from Object.prototype.
  var shadow = attachShadow(host, I.bare({ mode: "open" }));
  adoptStyle(shadow);
  if (spec.badge) {
    // A status badge says something about its target; it opens nothing, so it is no button.
    var badge = document.createElement("span");
    badge.className = "badge";
    badge.setAttribute("part", "badge");
    badge.textContent = spec.label;
    if (spec.title) badge.title = spec.title;
    shadow.appendChild(badge);
    if (hosts) hosts.add(host);
    return host;
  }
  var button = document.createElement("button");
  button.type = "button";
  button.setAttribute("part", "button");
  button.textContent = spec.label;
  if (spec.title) button.title = spec.title;
  listen(button, "click", function (ev) {
    // A launcher placed inside a link or a clickable card opens the overlay, not the card.
    preventDefault(ev);
    stopPropagation(ev);
    // A page script's click() or dispatched MouseEvent opens nothing (docs/overlays.md, "Launcher clicks").
    if (!I.unforged(ev, button)) return;
    spec.onClick(spec.id);
  });
  shadow.appendChild(button);
  if (hosts) hosts.add(host);
  return host;
}

/** Is host still where the spec's placement put it relative to anchor? */
function inPlace(host, anchor, placement) {
  if (!host.isConnected || !anchor.isConnected) return false;
  if (placement === "afterbegin" || placement === "beforeend") return host.parentNode === anchor;
  return host.parentNode === anchor.parentNode;
}

/** The instance of `instances` beside `anchor`, or null. */
function instanceAt(instances, anchor) {
  for (var i = 0; i < instances.length; i++) if (instances[i].anchor === anchor) return instances[i];
  return null;
}

/** The rendered elements a spec's target designates now, none inside a launcher: [] when absent, null when refused. */
function targetsOf(spec) {
  var found = launcherTargets(spec);
  if (found === null) return null;
  var out = [];
  for (var i = 0; i < found.length; i++) if (!insideLauncher(found[i])) out[out.length] = found[i];
  return out;
}

function reconcileSpec(spec, entry) {
  var wanted = targetsOf(spec);
  if (wanted === null) {
    removeAll(entry);
    return "failed";
  }
  if (wanted.length > spec.max) wanted.length = spec.max;
  var kept = [];
  var i, inst;
  for (i = 0; i < entry.instances.length; i++) {
    inst = entry.instances[i];
    if (contains(wanted, inst.anchor) && inPlace(inst.host, inst.anchor, spec.placement) && !instanceAt(kept, inst.anchor)) kept[kept.length] = inst;
    else if (inst.host.parentNode) inst.host.parentNode.removeChild(inst.host);
  }
  var failed = false;
  for (i = 0; i < wanted.length; i++) {
    var anchor = wanted[i];
    if (instanceAt(kept, anchor)) continue;
    var host = makeHost(spec);
    try {
      anchor.insertAdjacentElement(spec.placement, host);
    } catch (_err) {
      failed = true; // beforebegin/afterend of the root element, say
      continue;
    }
    kept[kept.length] = { host: host, anchor: anchor };
  }
  entry.instances = kept;
  // Any other host with this id (a framework cloned a section with our button in it) goes.
  var sel = HOST_TAG + "[" + LAUNCHER_ATTR + "=" + cssString(spec.id) + "]";
  var copies = listOf(queryAllDeep(sel));
  for (i = 0; i < copies.length; i++) {
    var h = copies[i];
    var ours = false;
    for (var k = 0; k < kept.length; k++) if (kept[k].host === h) ours = true;
    if (!ours && h.parentNode) h.parentNode.removeChild(h);
  }
  if (kept.length) {
    entry.everAttached = true;
    return "attached";
  }
  if (failed) return "failed";
  return entry.everAttached ? "removed" : "waiting";
}

function removeAll(entry) {
  for (var i = 0; i < entry.instances.length; i++) {
    var host = entry.instances[i].host;
    if (host.parentNode) host.parentNode.removeChild(host);
  }
  entry.instances = [];
}

// -- watching the page ------------------------------------------------------

var observer = null;
var timer = null;
var firstChangeAt = 0;
var historyHooked = false;

function ownMutation(record) {
  // Our own insertions and removals do not call for another reconcile (no feedback loop).
  if (record.type !== "childList") return isLauncherHost(record.target) || insideLauncher(record.target);
  var added = listOf(record.addedNodes),
    removed = listOf(record.removedNodes);
  if (!added.length && !removed.length) return false;
  for (var i = 0; i < added.length; i++) if (!isLauncherHost(added[i])) return false;
  for (var j = 0; j < removed.length; j++) if (!isLauncherHost(removed[j])) return false;
  return true;
}

function schedule() {
  var at = now();
  if (!timer) firstChangeAt = at;
  else clearTimeout(timer);
  // Trailing debounce, but never later than MAX_WAIT_MS after the first change of a burst.
  var delay = max(0, min(RECONCILE_DELAY_MS, firstChangeAt + MAX_WAIT_MS - at));
  timer = setTimeout(function () {
    timer = null;
    reconcileAll();
  }, delay);
}

function hookHistory() {
  if (historyHooked || !root.history) return;
  historyHooked = true;
  ["pushState", "replaceState"].forEach(function (method) {
    var original = root.history[method];
    if (typeof original !== "function") return;
    root.history[method] = function () {
      var result = original.apply(this, arguments);
      if (sets.length) schedule();
      return result;
    };
  });
  root.addEventListener("popstate", function () { if (sets.length) schedule(); });
  root.addEventListener("hashchange", function () { if (sets.length) schedule(); });
}

function watch() {
  var any = false;
  for (var i = 0; i < sets.length; i++) if (sets[i].specs.length > 0) any = true;
  if (any && !observer && typeof MutationObserver === "function") {
    observer = new MutationObserver(function (records) {
      for (var r = 0; r < records.length; r++) {
        if (!ownMutation(records[r])) {
          schedule();
          return;
        }
      }
    });
    observer.observe(document.documentElement || document, {
      childList: true, subtree: true, attributes: true, attributeFilter: ["class", "style", "hidden", "open", "aria-hidden"],
    });
  } else if (!any && observer) {
    observer.disconnect();
    observer = null;
  }
  if (any) hookHistory();
}

function reconcileAll() {
  for (var i = 0; i < sets.length; i++) sets[i].reconcile();
  if (observer) observer.takeRecords(); // our own changes of this pass are not news
}

/**
 * A replaceable set of launcher specs; onStates([{id, state}]) is called after a
 * reconcile that changed any state (and once after each replace).
 */
function launcherSet(onStates) {
  var entries = I.create(null); // id -> {spec, key, instances, everAttached, state}
  var set = { specs: [] };

  set.replace = function (specs) {
    var next = I.create(null);
    var i;
    for (i = 0; i < specs.length; i++) {
      var spec = specs[i];
      var key = I.jsonText([spec.target, spec.placement, spec.max, spec.label, spec.title, spec.attrs, !!spec.badge, spec.whenState || null]);
      var old = entries[spec.id];
      if (old && old.key === key) {
        old.spec = spec; // same launcher: keep its buttons (a new onClick is taken)
        next[spec.id] = old;
      } else {
        if (old) removeAll(old);
        next[spec.id] = { spec: spec, key: key, instances: [], everAttached: false, state: null };
      }
    }
    var ids = I.keys(entries);
    for (i = 0; i < ids.length; i++) if (!next[ids[i]]) removeAll(entries[ids[i]]);
    entries = next;
    set.specs = specs;
    watch();
    set.reconcile(true);
    if (observer) observer.takeRecords();
  };

  set.reconcile = function (force) {
    var changed = !!force;
    var ids = I.keys(entries);
    for (var i = 0; i < ids.length; i++) {
      var entry = entries[ids[i]];
      var state = reconcileSpec(entry.spec, entry);
      if (state !== entry.state) {
        entry.state = state;
        changed = true;
      }
    }
    if (changed && typeof onStates === "function") {
      try {
        onStates(set.states());
      } catch (_ignored) { /* a failing sink must not stop the installer */ }
    }
  };

  set.states = function () {
    var ids = I.keys(entries);
    var out = [];
    for (var i = 0; i < ids.length; i++) out[i] = { id: ids[i], state: entries[ids[i]].state || "waiting" };
    return out;
  };

  sets[sets.length] = set;
  return set;
}

/** A launcher spec's placement, checked (afterend by default). */
function placementOf(value, code) {
  if (value === undefined || value === null) return "afterend";
  if (typeof value !== "string" || !I.hasOwn(PLACEMENT_SET, value)) M.fail(code, "placement must be one of " + PLACEMENTS.join(", "), { field: "placement", placement: value });
  return value;
}

M.launcherSet = launcherSet;
M.placementOf = placementOf;
M.isLauncherHost = isLauncherHost;
