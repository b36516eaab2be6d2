/*
 * sections.js — Page structure and quiet: dom.list_sections (the page's
 * sections by heading, with document geometry, so a workflow can scroll to
 * one) and dom.settle (wait until the DOM stops changing).
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  normalize = M.normalize,
  cap = M.cap,
  round = M.round,
  viewport = M.viewport,
  isVisible = M.isVisible,
  selectAll = M.selectAll,
  elementText = M.elementText;

var HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]";

function positiveInt(args, key, fallback, minimum) {
  var value = args[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || value % 1 !== 0 || value < minimum) fail("invalid_input", key + " must be an integer of at least " + minimum, { field: key });
  return value;
}

function headingLevel(el) {
  var m = /^h([1-6])$/.exec(String(el.tagName || "").toLowerCase());
  if (m) return Number(m[1]);
  var aria = Number(el.getAttribute("aria-level"));
  return aria >= 1 ? aria : 2;
}

function docTop(el) {
  return el.getBoundingClientRect().top + root.scrollY;
}

/**
 * Sections: with `selector`, each visible matching element is a section
 * (its heading: the first heading_selector match inside); without, each
 * visible heading starts a section that runs to the next heading.
 * item_count counts item_selector matches in the section.
 */
function listSections(args) {
  var headingSelector = args.heading_selector === undefined ? HEADINGS : args.heading_selector;
  var maxSections = positiveInt(args, "max_sections", 50, 1);
  var maxHeading = positiveInt(args, "max_heading_length", 120, 12);
  var docHeight = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  var sections = [];
  if (args.selector !== undefined) {
    selectAll(args.selector, "invalid_selector").filter(isVisible).forEach(function (el) {
      var heading = selectAll(headingSelector, "invalid_selector", el).filter(isVisible)[0] || null;
      var r = el.getBoundingClientRect();
      sections.push({ el: el, heading: heading, top: r.top + root.scrollY, bottom: r.bottom + root.scrollY });
    });
  } else {
    var headings = selectAll(headingSelector, "invalid_selector").filter(isVisible);
    headings.sort(function (a, b) { return docTop(a) - docTop(b); });
    headings.forEach(function (h, i) {
      sections.push({ el: null, heading: h, top: docTop(h), bottom: i + 1 < headings.length ? docTop(headings[i + 1]) : docHeight });
    });
  }
  var items = args.item_selector === undefined ? null : selectAll(args.item_selector, "invalid_selector").filter(isVisible);
  var vp = viewport();
  var out = [];
  sections.forEach(function (s, index) {
    var headingText = s.heading ? elementText(s.heading) : "";
    if (typeof args.text_contains === "string") {
      var wanted = normalize(args.text_contains).toLowerCase();
      var haystack = (s.el ? elementText(s.el) : headingText).toLowerCase();
      if (haystack.indexOf(wanted) < 0) return;
    }
    var section = {
      index: index,
      heading: cap(headingText, maxHeading),
      level: s.heading ? headingLevel(s.heading) : null,
      top: round(s.top),
      height: round(Math.max(0, s.bottom - s.top)),
      in_viewport: s.top < root.scrollY + vp.height && s.bottom > root.scrollY,
    };
    var anchor = s.el || s.heading;
    if (anchor && anchor.id) section.id = anchor.id;
    if (items) {
      section.item_count = items.filter(function (it) {
        if (s.el) return s.el.contains(it);
        var y = docTop(it);
        return y >= s.top && y < s.bottom;
      }).length;
    }
    out.push(section);
  });
  var total = out.length;
  return { sections: out.slice(0, maxSections), section_count: total, truncated: total > maxSections, scroll_y: round(root.scrollY), viewport_height: vp.height };
}

/**
 * Resolve once no DOM mutation happened for quiet_ms, or at timeout_ms with
 * settled=false (never an error): {settled, waited_ms}.
 */
function settle(args, call) {
  var quiet = args.quiet_ms === undefined ? 100 : args.quiet_ms;
  var timeout = args.timeout_ms === undefined ? 2000 : args.timeout_ms;
  if (typeof quiet !== "number" || !(quiet >= 0)) fail("invalid_input", "quiet_ms must be a non-negative number", { field: "quiet_ms" });
  if (typeof timeout !== "number" || !(timeout >= 0)) fail("invalid_input", "timeout_ms must be a non-negative number", { field: "timeout_ms" });
  var started = Date.now();
  return new Promise(function (resolve) {
    var quietTimer = null, limitTimer = null, observer = null, stopListening = null;
    function finish(settled) {
      if (stopListening) stopListening();
      if (observer) observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(limitTimer);
      observer = null;
      resolve({ settled: settled, waited_ms: Date.now() - started });
    }
    function restart() {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(function () { finish(true); }, quiet);
    }
    if (typeof MutationObserver === "function") {
      observer = new MutationObserver(function () { if (observer) restart(); });
      observer.observe(document.documentElement || document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
    limitTimer = setTimeout(function () { finish(false); }, timeout);
    // A cancelled call (or one past its deadline) stops watching at once (callcontext.js).
    if (call) stopListening = call.onAbort(function () { finish(false); });
    restart();
  });
}

definePrimitive("dom.list_sections", listSections);
definePrimitive("dom.settle", settle);
