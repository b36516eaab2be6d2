/*
 * states.js — locator.probe: many locator presence checks in one call, so
 * dispatch diagnoses every declared state of a map in one round trip
 * (mcp_actions/dispatch/states.py owns the contract).
 *
 *   {probes: [{id, locator, state?: "visible" | "attached"}]}
 *   -> {results: [{id, matched, match_count, matched_by}], url}
 *
 * A probe that matches nothing is matched: false, never an error; an
 * invalid locator fails the whole call (a map bug that waiting cannot fix).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  isVisible = M.isVisible,
  resolveAll = M.resolveAll,
  EngineError = M.EngineError;

var PROBE_CAP = 200;
// A probe that cannot match here (no such element, or the locator's URL predicate
// does not hold on this page) is simply not matched.
var NOT_MATCHED = { target_not_found: true, target_not_visible: true, state_mismatch: true };

function probeLocators(args) {
  var probes = args.probes;
  if (!Array.isArray(probes)) fail("invalid_input", "probes must be an array", { field: "probes" });
  if (probes.length > PROBE_CAP) fail("invalid_input", "at most " + PROBE_CAP + " probes per call", { count: probes.length });
  var results = probes.map(function (probe, index) {
    if (!isObject(probe) || !isObject(probe.locator)) fail("invalid_input", "probe " + index + " needs a locator object", { index: index });
    var state = probe.state === undefined ? "visible" : probe.state;
    if (state !== "visible" && state !== "attached") fail("invalid_input", "state must be attached or visible", { index: index, field: "state" });
    var id = probe.id === undefined ? index : probe.id;
    var res;
    try {
      res = resolveAll(probe.locator);
    } catch (err) {
      if (err instanceof EngineError && NOT_MATCHED[err.code]) return { id: id, matched: false, match_count: 0, matched_by: null };
      throw err;
    }
    var count = state === "visible" ? res.matches.filter(isVisible).length : res.matches.length;
    return { id: id, matched: count > 0, match_count: count, matched_by: count > 0 ? res.matched_by : null };
  });
  return { results: results, url: String(root.location.href) };
}

definePrimitive("locator.probe", probeLocators);
M.probeLocators = probeLocators;
