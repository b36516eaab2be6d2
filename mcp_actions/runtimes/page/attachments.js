/*
 * attachments.js — A map's attachments on the page: applyAttachments(list, sinks).
 *
 * Each item is an attachment object as a map declares it (actions-json schema v1,
 * "attachments"): {id, kind, target, affordance: {label, title?, placement,
 * max_instances, opens: {tool, arguments, kind?}}, lifecycle: {install, remove,
 * reattach}, signals}. The list replaces the current set; launchers.js keeps a
 * launcher button beside each matching target (at most max_instances, default 1),
 * removes it when the target goes (when_context_mismatch) and puts it back when
 * the target returns or the URL or DOM changes (on_url_or_dom_change).
 *
 * A click opens what the attachment names: a primitive of this engine runs here
 * with opens.arguments (opens.kind "primitive", or no kind and a primitive the
 * engine has whose arguments need nothing from the server); anything else (a map
 * tool: opens.kind "tool", or arguments naming storage the server must resolve)
 * goes to sinks.open(attachment_id, launcher_id), for the host to send
 * attachment_open to the bridge. Either way `actions-json:overlay-launcher-opened`
 * {launcher_id} is dispatched on the document (declared signals are forwarded by
 * handlers.js watchEvents). sinks.status([{id, state}]) gets every state change.
 *
 * An attachment that opens nothing (a status_badge, say) is a badge, not a
 * button. One whose opens the server marked unavailable (a file that is not
 * there, a tool of no map) is reported failed and not installed. A target
 * naming a map state is installed only while the state's probes (when_state,
 * sent by the server) hold.
 *
 * The list holds what the map gives the user (an overlay's HTML and data, in
 * opens.arguments), so nothing of it passes through a built-in the page can
 * replace (docs/overlays.md, "What a page can reach"): items are read by own
 * property, lists by index, copies are made with the captured JSON.parse
 * (intrinsics.js), and a host may hand the list over as JSON text so that no
 * page-visible code builds it. A launcher opens only on a click the page did
 * not forge (launchers.js, docs/overlays.md "Launcher clicks").
 */
var isObject = M.isObject,
  PRIMITIVES = M.PRIMITIVES,
  launcherSet = M.launcherSet,
  OPENED_EVENT = M.OVERLAY_OPENED_EVENT,
  I = M.intrinsics;

var own = I.own,
  hasOwn = I.hasOwn,
  isArray = I.isArray;

var ATTACHMENT_ATTR = "data-actions-json-attachment";
var PLACEMENTS = { beforebegin: true, afterbegin: true, beforeend: true, afterend: true };
// Arguments only the server can turn into something a page can render (storage references).
var SERVER_RESOLVED = ["template", "data", "html_source", "data_source"];
var promiseThen = typeof Promise === "function" ? I.nativeMethod(Promise.prototype, "then", "Promise.prototype.then") : null;
var nothing = function () {};
var floor = Math.floor;

var sinks = { status: null, open: null };
var refused = []; // [{id, state: "failed"}] for items that cannot be installed at all
var installed = launcherSet(function (states) {
  var all = [];
  for (var i = 0; i < states.length; i++) all[all.length] = states[i];
  for (var j = 0; j < refused.length; j++) all[all.length] = refused[j];
  if (typeof sinks.status === "function") sinks.status(all);
});

function ownObject(obj, key) {
  var value = own(obj, key);
  return isObject(value) ? value : null;
}

function ownString(obj, key) {
  var value = own(obj, key);
  return typeof value === "string" ? value : null;
}

function runsHere(opens) {
  var tool = ownString(opens, "tool");
  if (!isObject(opens) || tool === null) return false;
  var kind = own(opens, "kind");
  if (kind === "tool") return false;
  if (!hasOwn(PRIMITIVES, tool)) return false;
  if (kind === "primitive") return true;
  var args = ownObject(opens, "arguments") || {};
  for (var i = 0; i < SERVER_RESOLVED.length; i++) if (own(args, SERVER_RESOLVED[i]) !== undefined) return false;
  return true;
}

function opener(id, opens) {
  return function (launcherId) {
    if (runsHere(opens)) {
      var tool = own(opens, "tool");
      var args = ownObject(opens, "arguments") || {};
      try {
        // A user's click: the overlay it opens takes the keyboard focus.
        if (tool === "overlay.open") M.renderOverlayFromArgs(args);
        else {
          // The primitive gets its own copy; its result is nobody's. A rejection is dropped through
          // the captured then (which throws when the result is no promise).
          var result = own(PRIMITIVES, tool).fn(I.jsonCopy(args));
          if (promiseThen && result !== null && typeof result === "object") {
            try {
              promiseThen(result, nothing, nothing);
            } catch (_notAPromise) { /* a plain output: nothing to wait for */ }
          }
        }
      } catch (err) {
        try {
          console.warn("[mcp-actions] attachment " + id + " could not open " + tool + ": " + (err && err.message));
        } catch (_ignored) { /* no console */ }
      }
    } else if (typeof sinks.open === "function") {
      sinks.open(id, launcherId);
    }
    document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
  };
}

function switchedOff(attachment) {
  var install = own(ownObject(attachment, "lifecycle"), "install");
  return install === "disabled" || install === "never";
}

/** One declared attachment as a launcher spec, or null when it cannot be installed. */
function specOf(attachment) {
  var id = ownString(attachment, "id");
  if (!isObject(attachment) || !id) return null;
  var affordance = ownObject(attachment, "affordance") || {};
  var target = own(attachment, "target");
  if (!isObject(target) && typeof target !== "string") return null;
  var placement = own(affordance, "placement");
  if (placement === undefined) placement = "afterend";
  if (typeof placement !== "string" || !hasOwn(PLACEMENTS, placement)) return null;
  var max = own(affordance, "max_instances");
  if (max === undefined) max = 1;
  if (typeof max !== "number" || !(max >= 1)) return null;
  if (switchedOff(attachment)) return null;
  var opens = ownObject(affordance, "opens");
  if (opens && own(opens, "kind") === "unavailable") return null;
  var label = ownString(affordance, "label") || id;
  var title = ownString(affordance, "title");
  if (title === null) title = ownString(attachment, "description") || "";
  var attrs = {};
  attrs[ATTACHMENT_ATTR] = id;
  return {
    id: id,
    target: target,
    placement: placement,
    max: max > 10 ? 10 : floor(max),
    label: label,
    title: title,
    attrs: attrs,
    badge: !opens,
    whenState: ownObject(attachment, "when_state"),
    onClick: opener(id, opens),
  };
}

/**
 * Replace the page's attachments with `list` (an array, or its JSON text). sinks:
 * {status([{id, state}]), open(attachment_id, launcher_id)}, either may be missing;
 * none at all keeps the sinks given before. Returns the states now.
 */
function applyAttachments(list, newSinks) {
  if (typeof list === "string") {
    try {
      list = I.parseJSON(list);
    } catch (_bad) {
      list = [];
    }
  }
  if (newSinks !== undefined) sinks = isObject(newSinks) ? { status: own(newSinks, "status"), open: own(newSinks, "open") } : { status: null, open: null };
  var items = isArray(list) ? list : [];
  var specs = [];
  refused = [];
  var seen = I.create(null);
  for (var i = 0; i < items.length; i++) {
    var attachment = items[i];
    var spec = specOf(attachment);
    var id = ownString(attachment, "id");
    if (spec && !seen[spec.id]) {
      seen[spec.id] = true;
      specs[specs.length] = spec;
    } else if (isObject(attachment) && id && !seen[id]) {
      seen[id] = true;
      refused[refused.length] = { id: id, state: switchedOff(attachment) ? "disabled" : "failed" };
    }
  }
  installed.replace(specs);
  var states = installed.states();
  for (var j = 0; j < refused.length; j++) states[states.length] = refused[j];
  return states;
}

M.applyAttachments = applyAttachments;
