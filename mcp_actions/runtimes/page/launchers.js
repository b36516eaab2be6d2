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
 */
var EngineError = M.EngineError,
  resolveAll = M.resolveAll,
  hiddenReason = M.hiddenReason,
  queryAllDeep = M.queryAllDeep;

// An anchor may be rendered but empty (an <output> before its first result) or scrolled out of its
// box: a launcher still belongs beside it. Hidden (display:none, visibility, inert) it does not.
var RENDERED_REASONS = { zero_size: true, off_screen: true, clipped: true };

var PLACEMENTS = ["beforebegin", "afterbegin", "beforeend", "afterend"];
var RECONCILE_DELAY_MS = 60;
var MAX_WAIT_MS = 250;
var HOST_TAG = M.LAUNCHER_HOST_TAG;
var LAUNCHER_ATTR = "data-actions-json-launcher";

// Captured when the engine installs, before page scripts can patch them (a patched
// attachShadow would otherwise see every launcher's root).
var nativeAttachShadow = root.Element && Element.prototype.attachShadow;

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
  host.setAttribute(LAUNCHER_ATTR, spec.id);
  Object.keys(spec.attrs || {}).forEach(function (name) { host.setAttribute(name, spec.attrs[name]); });
  var shadow = nativeAttachShadow.call(host, { mode: "open" });
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
  button.addEventListener("click", function (ev) {
    // A launcher placed inside a link or a clickable card opens the overlay, not the card.
    ev.preventDefault();
    ev.stopPropagation();
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

/** Whether every probe of a {name, probes} state check holds on this page (no probe: never). */
function stateHolds(check) {
  var probes = check && Array.isArray(check.probes) ? check.probes : [];
  if (!probes.length) return false;
  var url = String(root.location.href);
  return probes.every(function (probe) {
    if (typeof probe.url_contains === "string" && url.indexOf(probe.url_contains) < 0) return false;
    if (typeof probe.url_matches === "string") {
      try {
        if (!new RegExp(probe.url_matches).test(url)) return false;
      } catch (_bad) {
        return false;
      }
    }
    return true;
  }) && locatorsHold(probes.filter(function (probe) { return !!probe.locator; }));
}

/** Whether every probe's locator finds what it asks for, judged as locator.probe judges it (states.js). */
function locatorsHold(probes) {
  if (!probes.length) return true;
  try {
    return M.probeLocators({ probes: probes.map(function (p) { return { id: p.id, locator: p.locator, state: p.state }; }) }).results.every(function (r) { return r.matched; });
  } catch (_err) {
    return false; // an invalid locator: the state cannot hold
  }
}

/** A target descriptor without ``state`` (which names a map state, checked through whenState). */
function locatorOf(target) {
  if (typeof target === "string" || target.state === undefined) return target;
  var copy = {};
  Object.keys(target).forEach(function (k) { if (k !== "state") copy[k] = target[k]; });
  return copy;
}

/** The rendered elements a spec's target designates now: [] when absent, null when the descriptor is refused. */
function targetsOf(spec) {
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
  var rendered = res.matches.filter(function (el) {
    var hidden = hiddenReason(el);
    return hidden === null || RENDERED_REASONS[hidden.reason] === true;
  });
  return rendered.filter(function (el) { return !insideLauncher(el); });
}

function hasStructure(target) {
  if (typeof target === "string") return true;
  return ["selector", "selectors", "xpath", "fallback_selectors", "role"].some(function (k) { return target[k] !== undefined && target[k] !== null; });
}

function reconcileSpec(spec, entry) {
  var wanted = targetsOf(spec);
  if (wanted === null) {
    removeAll(entry);
    return "failed";
  }
  wanted = wanted.slice(0, spec.max);
  var kept = [];
  entry.instances.forEach(function (inst) {
    if (wanted.indexOf(inst.anchor) >= 0 && inPlace(inst.host, inst.anchor, spec.placement) && !kept.some(function (k) { return k.anchor === inst.anchor; })) kept.push(inst);
    else if (inst.host.parentNode) inst.host.parentNode.removeChild(inst.host);
  });
  var failed = false;
  wanted.forEach(function (anchor) {
    if (kept.some(function (k) { return k.anchor === anchor; })) return;
    var host = makeHost(spec);
    try {
      anchor.insertAdjacentElement(spec.placement, host);
    } catch (_err) {
      failed = true; // beforebegin/afterend of the root element, say
      return;
    }
    kept.push({ host: host, anchor: anchor });
  });
  entry.instances = kept;
  // Any other host with this id (a framework cloned a section with our button in it) goes.
  var sel = HOST_TAG + "[" + LAUNCHER_ATTR + "=" + JSON.stringify(spec.id) + "]";
  queryAllDeep(sel).forEach(function (h) {
    if (!kept.some(function (k) { return k.host === h; }) && h.parentNode) h.parentNode.removeChild(h);
  });
  if (kept.length) {
    entry.everAttached = true;
    return "attached";
  }
  if (failed) return "failed";
  return entry.everAttached ? "removed" : "waiting";
}

function removeAll(entry) {
  entry.instances.forEach(function (inst) {
    if (inst.host.parentNode) inst.host.parentNode.removeChild(inst.host);
  });
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
  var nodes = Array.prototype.slice.call(record.addedNodes).concat(Array.prototype.slice.call(record.removedNodes));
  return nodes.length > 0 && nodes.every(function (n) { return isLauncherHost(n); });
}

function schedule() {
  var now = Date.now();
  if (!timer) firstChangeAt = now;
  else clearTimeout(timer);
  // Trailing debounce, but never later than MAX_WAIT_MS after the first change of a burst.
  var delay = Math.max(0, Math.min(RECONCILE_DELAY_MS, firstChangeAt + MAX_WAIT_MS - now));
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
  var any = sets.some(function (s) { return s.specs.length > 0; });
  if (any && !observer && typeof MutationObserver === "function") {
    observer = new MutationObserver(function (records) {
      if (!records.every(ownMutation)) schedule();
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
  sets.forEach(function (set) { set.reconcile(); });
  if (observer) observer.takeRecords(); // our own changes of this pass are not news
}

/**
 * A replaceable set of launcher specs; onStates([{id, state}]) is called after a
 * reconcile that changed any state (and once after each replace).
 */
function launcherSet(onStates) {
  var entries = {}; // id -> {spec, key, instances, everAttached, state}
  var set = { specs: [] };

  set.replace = function (specs) {
    var next = {};
    specs.forEach(function (spec) {
      var key = JSON.stringify([spec.target, spec.placement, spec.max, spec.label, spec.title, spec.attrs, !!spec.badge, spec.whenState || null]);
      var old = entries[spec.id];
      if (old && old.key === key) {
        old.spec = spec; // same launcher: keep its buttons (a new onClick is taken)
        next[spec.id] = old;
      } else {
        if (old) removeAll(old);
        next[spec.id] = { spec: spec, key: key, instances: [], everAttached: false, state: null };
      }
    });
    Object.keys(entries).forEach(function (id) { if (!next[id]) removeAll(entries[id]); });
    entries = next;
    set.specs = specs;
    watch();
    set.reconcile(true);
    if (observer) observer.takeRecords();
  };

  set.reconcile = function (force) {
    var changed = !!force;
    Object.keys(entries).forEach(function (id) {
      var entry = entries[id];
      var state = reconcileSpec(entry.spec, entry);
      if (state !== entry.state) {
        entry.state = state;
        changed = true;
      }
    });
    if (changed && typeof onStates === "function") {
      try {
        onStates(set.states());
      } catch (_ignored) { /* a failing sink must not stop the installer */ }
    }
  };

  set.states = function () {
    return Object.keys(entries).map(function (id) { return { id: id, state: entries[id].state || "waiting" }; });
  };

  sets.push(set);
  return set;
}

/** A launcher spec's placement, checked (afterend by default). */
function placementOf(value, code) {
  if (value === undefined || value === null) return "afterend";
  if (PLACEMENTS.indexOf(value) < 0) M.fail(code, "placement must be one of " + PLACEMENTS.join(", "), { field: "placement", placement: value });
  return value;
}

M.launcherSet = launcherSet;
M.placementOf = placementOf;
M.isLauncherHost = isLauncherHost;
