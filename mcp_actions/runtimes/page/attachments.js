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
 */
var isObject = M.isObject,
  PRIMITIVES = M.PRIMITIVES,
  launcherSet = M.launcherSet,
  OPENED_EVENT = M.OVERLAY_OPENED_EVENT;

var ATTACHMENT_ATTR = "data-actions-json-attachment";
var PLACEMENTS = ["beforebegin", "afterbegin", "beforeend", "afterend"];
// Arguments only the server can turn into something a page can render (storage references).
var SERVER_RESOLVED = ["template", "data", "html_source", "data_source"];

var sinks = { status: null, open: null };
var refused = []; // [{id, state: "failed"}] for items that cannot be installed at all
var installed = launcherSet(function (states) {
  var all = states.concat(refused);
  if (typeof sinks.status === "function") sinks.status(all);
});

function runsHere(opens) {
  if (!isObject(opens) || typeof opens.tool !== "string") return false;
  if (opens.kind === "tool") return false;
  if (!Object.prototype.hasOwnProperty.call(PRIMITIVES, opens.tool)) return false;
  var args = isObject(opens.arguments) ? opens.arguments : {};
  if (opens.kind === "primitive") return true;
  return !SERVER_RESOLVED.some(function (k) { return args[k] !== undefined; });
}

function opener(attachment) {
  var opens = attachment.affordance.opens;
  return function (launcherId) {
    if (runsHere(opens)) {
      var entry = PRIMITIVES[opens.tool];
      try {
        // A user's click: the overlay it opens takes the keyboard focus.
        if (opens.tool === "overlay.open") M.renderOverlayFromArgs(opens.arguments || {});
        else Promise.resolve(entry.fn(M.jsonClone(opens.arguments || {}))).catch(function () {});
      } catch (err) {
        try {
          console.warn("[mcp-actions] attachment " + attachment.id + " could not open " + opens.tool + ": " + (err && err.message));
        } catch (_ignored) { /* no console */ }
      }
    } else if (typeof sinks.open === "function") {
      sinks.open(attachment.id, launcherId);
    }
    document.dispatchEvent(new CustomEvent(OPENED_EVENT, { detail: { launcher_id: launcherId }, bubbles: true }));
  };
}

/** One declared attachment as a launcher spec, or null when it cannot be installed. */
function specOf(attachment) {
  if (!isObject(attachment) || typeof attachment.id !== "string" || !attachment.id) return null;
  var affordance = isObject(attachment.affordance) ? attachment.affordance : {};
  var target = attachment.target;
  if (!isObject(target) && typeof target !== "string") return null;
  var placement = affordance.placement === undefined ? "afterend" : affordance.placement;
  if (PLACEMENTS.indexOf(placement) < 0) return null;
  var max = affordance.max_instances === undefined ? 1 : affordance.max_instances;
  if (typeof max !== "number" || !(max >= 1)) return null;
  var lifecycle = isObject(attachment.lifecycle) ? attachment.lifecycle : {};
  if (lifecycle.install === "disabled" || lifecycle.install === "never") return null;
  var opens = isObject(affordance.opens) ? affordance.opens : null;
  if (opens && opens.kind === "unavailable") return null;
  var label = typeof affordance.label === "string" && affordance.label ? affordance.label : attachment.id;
  var attrs = {};
  attrs[ATTACHMENT_ATTR] = attachment.id;
  return {
    id: attachment.id,
    target: target,
    placement: placement,
    max: Math.min(Math.floor(max), 10),
    label: label,
    title: typeof affordance.title === "string" ? affordance.title : typeof attachment.description === "string" ? attachment.description : "",
    attrs: attrs,
    badge: !opens,
    whenState: isObject(attachment.when_state) ? attachment.when_state : null,
    onClick: opener({ id: attachment.id, affordance: { opens: affordance.opens } }),
  };
}

/**
 * Replace the page's attachments with `list`. sinks: {status([{id, state}]),
 * open(attachment_id, launcher_id)}; either may be missing. Returns the states now.
 */
function applyAttachments(list, newSinks) {
  sinks = isObject(newSinks) ? { status: newSinks.status, open: newSinks.open } : { status: null, open: null };
  var specs = [];
  refused = [];
  var seen = {};
  (Array.isArray(list) ? list : []).forEach(function (attachment) {
    var spec = specOf(attachment);
    if (spec && !seen[spec.id]) {
      seen[spec.id] = true;
      specs.push(spec);
    } else if (isObject(attachment) && typeof attachment.id === "string" && attachment.id && !seen[attachment.id]) {
      seen[attachment.id] = true;
      var lifecycle = isObject(attachment.lifecycle) ? attachment.lifecycle : {};
      var off = lifecycle.install === "disabled" || lifecycle.install === "never";
      refused.push({ id: attachment.id, state: off ? "disabled" : "failed" });
    }
  });
  installed.replace(specs);
  return installed.states().concat(refused);
}

M.applyAttachments = applyAttachments;
