/*
 * observe.js — Reading the page: page.info, dom.snapshot_text, dom.observe.visible and
 * the locator primitives (element_info, text_content, wait_for).
 */
var definePrimitive = M.definePrimitive,
  TEXT_CAP = M.TEXT_CAP,
  DESCRIBE_TEXT_CAP = M.DESCRIBE_TEXT_CAP,
  EngineError = M.EngineError,
  fail = M.fail,
  normalize = M.normalize,
  cap = M.cap,
  tagOf = M.tagOf,
  box = M.box,
  isVisible = M.isVisible,
  selectAll = M.selectAll,
  elementFromPointDeep = M.elementFromPointDeep,
  isWithin = M.isWithin,
  inViewport = M.inViewport,
  isEnabled = M.isEnabled,
  elementText = M.elementText,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  describe = M.describe,
  asLocator = M.asLocator,
  locatorEvidence = M.locatorEvidence,
  resolveAll = M.resolveAll,
  resolveOne = M.resolveOne,
  resolveClickable = M.resolveClickable,
  editableOf = M.editableOf,
  queryAllDeep = M.queryAllDeep,
  LAUNCHER_HOST_TAG = M.LAUNCHER_HOST_TAG;

// -- primitives -----------------------------------------------------------

function elementInfo(args) {
  // Visible only: a hidden element has no point a click could use (its
  // centre would be (0, 0), the page's corner), so it fails target_not_visible.
  // Brought into view when off-screen, so clickable_center is a point pointer.click can use.
  var resolved = resolveClickable(args.locator);
  var el = resolved.element;
  var visible = true;
  var center = resolved.center;
  var info = {
    bounding_box: box(el),
    clickable_center: center,
    visible: visible,
    in_viewport: visible && inViewport(center),
    enabled: isEnabled(el),
    editable: editableOf(el) !== null,
    tag: tagOf(el),
    text: cap(elementText(el), TEXT_CAP),
    matched_by: resolved.matched_by,
    match_count: resolved.match_count,
  };
  var role = roleOf(el);
  if (role) info.role = role;
  var name = accessibleName(el, role);
  if (name) info.name = cap(name, TEXT_CAP);
  if (visible && info.in_viewport) {
    var onTop = elementFromPointDeep(center.x, center.y);
    info.occluded = !isWithin(onTop, el) && !M.laidOver(onTop, el); // a grid's scroller over its canvas is the grid (click_point.js)
  }
  if (resolved.covered_by) info.covered_by = resolved.covered_by; // a sticky or fixed box stays over all of it
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
    info.value = cap(String(el.value), TEXT_CAP);
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) info.checked = el.checked;
  }
  return info;
}

function textContent(args) {
  var resolved = resolveOne(args.locator, false);
  var el = resolved.element;
  var raw = isVisible(el) && typeof el.innerText === "string" ? el.innerText : el.textContent;
  var out = { text: String(raw || "").trim(), matched_by: resolved.matched_by };
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) out.value = String(el.value);
  return out;
}

function waitFor(args, call) {
  var state = args.state === undefined ? "visible" : args.state;
  if (state !== "attached" && state !== "visible") fail("invalid_input", "state must be attached or visible", { field: "state" });
  var timeout = args.timeout_ms === undefined ? 5000 : args.timeout_ms;
  if (typeof timeout !== "number" || !(timeout >= 0)) fail("invalid_input", "timeout_ms must be a non-negative number", { field: "timeout_ms" });
  var locator = asLocator(args.locator);
  var started = Date.now();

  function check() {
    var res;
    try {
      res = resolveAll(locator);
    } catch (err) {
      if (err instanceof EngineError && err.code === "target_not_found") return { done: false, tried: err.evidence.tried };
      throw err; // invalid locators fail at once: waiting cannot fix them
    }
    var count = state === "visible" ? res.visible.length : res.matches.length;
    if (count > 0) return { done: true, output: { matched: true, state: state, matched_by: res.matched_by, match_count: count } };
    return { done: false, tried: res.tried };
  }

  var first = check();
  if (first.done) return first.output;
  return new Promise(function (resolve, reject) {
    var last = first;
    var finished = false;
    var observer = null, interval = null, timer = null, frame = null, stopListening = null;
    function finish(fn, value) {
      if (finished) return;
      finished = true;
      if (stopListening) stopListening();
      if (observer) observer.disconnect();
      if (interval) clearInterval(interval);
      if (timer) clearTimeout(timer);
      if (frame && root.cancelAnimationFrame) root.cancelAnimationFrame(frame);
      fn(value);
    }
    function poll() {
      frame = null;
      if (finished) return;
      try {
        var r = check();
        if (r.done) finish(resolve, r.output);
        else last = r;
      } catch (err) {
        finish(reject, err);
      }
    }
    var lastCheck = 0;
    function schedule() {
      if (frame || finished) return;
      // The first change after a quiet spell is checked at once: an answer that lands
      // as one DOM change (a saved card appended) is seen in the same task, not up to a
      // frame (16 ms) later. Bursts after it are coalesced into one check per frame.
      var now = Date.now();
      if (now - lastCheck >= 16) {
        lastCheck = now;
        poll();
        return;
      }
      frame = root.requestAnimationFrame ? root.requestAnimationFrame(poll) : setTimeout(poll, 16);
    }
    if (typeof MutationObserver === "function") {
      observer = new MutationObserver(schedule);
      observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
    // Style/layout changes (CSS classes elsewhere, animations) and hidden
    // tabs without animation frames are caught by a plain interval.
    interval = setInterval(poll, 100);
    // The call was cancelled or ran out of its deadline: stop watching now (callcontext.js).
    if (call) stopListening = call.onAbort(function () { finish(reject, call.error()); });
    timer = setTimeout(function () {
      finish(reject, new EngineError("timeout", "the locator did not become " + state + " within " + timeout + " ms", {
        locator: locatorEvidence(locator), state: state, timeout_ms: timeout, elapsed_ms: Date.now() - started, tried: last.tried,
      }));
    }, timeout);
  });
}


function pageInfo() {
  return { url: String(root.location.href), title: String(document.title || "") };
}

/**
 * Our launcher buttons (launchers.js) inside the snapshot's elements, one line
 * each: innerText never includes shadow-root content, and a launcher's label
 * stays out of the page's own text on purpose (a target's text predicates must
 * not change when a launcher is placed inside it).
 */
function launcherLines(elements) {
  var labels = [];
  elements.forEach(function (el) {
    queryAllDeep(LAUNCHER_HOST_TAG, el).forEach(function (host) {
      var button = host.shadowRoot && host.shadowRoot.querySelector("button");
      if (button && isVisible(button) && labels.indexOf(button) < 0) labels.push(button);
    });
  });
  if (!labels.length) return [];
  return [labels.map(function (b) { return "[launcher button] " + normalize(b.textContent); }).join("\n")];
}

function snapshotText(args) {
  var maxChars = args.max_chars === undefined ? 20000 : args.max_chars;
  if (typeof maxChars !== "number" || maxChars < 1) fail("invalid_input", "max_chars must be a positive integer", { field: "max_chars" });
  var elements = args.selector === undefined ? [document.body || document.documentElement] : selectAll(args.selector, "invalid_selector");
  var text = elements.map(function (el) {
    return M.shown((typeof el.innerText === "string" ? el.innerText : el.textContent) || "").trim();
  }).filter(Boolean).concat(launcherLines(elements)).join("\n\n");
  var truncated = text.length > maxChars;
  return { text: truncated ? text.slice(0, M.cutPoint(text, maxChars)) : text, truncated: truncated, match_count: elements.length };
}

var OBSERVE_DEFAULT = "a[href], button, input:not([type=hidden]), select, textarea, [role], h1, h2, h3, h4, h5, h6, [contenteditable]";
var OBSERVE_CAP = 50;

function observeVisible(args) {
  var selector = args.selector === undefined ? OBSERVE_DEFAULT : args.selector;
  var elements = selectAll(selector, "invalid_selector");
  var visible = elements.filter(isVisible);
  if (typeof args.text_contains === "string") {
    var sub = normalize(args.text_contains);
    visible = visible.filter(function (el) { return elementText(el).indexOf(sub) >= 0; });
  }
  var matches = visible.slice(0, OBSERVE_CAP).map(function (el) {
    var item = describe(el);
    var role = roleOf(el);
    if (role) item.role = role;
    var name = accessibleName(el, role);
    if (name) item.name = cap(name, DESCRIBE_TEXT_CAP);
    return item;
  });
  return { matches: matches, match_count: visible.length, truncated: visible.length > OBSERVE_CAP };
}

definePrimitive("page.info", pageInfo);
definePrimitive("dom.snapshot_text", snapshotText);
definePrimitive("dom.observe.visible", observeVisible);
M.elementInfo = elementInfo; // refs.resolve {point}: the clickable centre in the resolving round trip (observe_refs.js)
definePrimitive("locator.element_info", elementInfo, ["locator"]);
definePrimitive("locator.text_content", textContent, ["locator"]);
definePrimitive("locator.wait_for", waitFor, ["locator"]);
