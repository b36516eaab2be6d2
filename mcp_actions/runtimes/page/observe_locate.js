/*
 * observe_locate.js — refs.locate (page_find {locator}): the elements a locator designates, as refs.
 *
 * An agent protocol's selectors (BAP's css, xpath, testId, role and name) are locators
 * (locators.js), while the acting tools take a ref or a visible text: this turns a locator
 * into the refs observe and the readers give the same elements, and the caller refuses
 * several as acting by text does. A module of its own after find.js, whose answer it shares.
 */
var definePrimitive = M.definePrimitive,
  cap = M.cap,
  refFor = M.refFor,
  resolveAll = M.resolveAll,
  candidateRole = M.candidateRole,
  candidateName = M.candidateName;

var NAME_CAP = 80;

/**
 * refs.locate {locator, max_results?}: every element the locator designates, the visible ones
 * when any is, each with its ref, role and name, in the shape refs.find answers.
 */
function locate(args) {
  var found = resolveAll(args.locator);
  var els = found.visible.length ? found.visible : found.matches;
  var max = typeof args.max_results === "number" ? args.max_results : 20;
  var matches = els.slice(0, max).map(function (el) {
    var role = candidateRole(el);
    var m = { ref: refFor(el), role: role };
    var name = candidateName(el, role);
    if (name) m.name = cap(name, NAME_CAP);
    return m;
  });
  return { matches: matches, total: els.length };
}

definePrimitive("refs.locate", locate);
