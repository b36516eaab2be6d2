/*
 * page_errors.js — the page's errors: uncaught exceptions, rejected promises and console.error calls,
 * counted and the latest kept (short), for the acting tools' answers (observe_changes.js: "page
 * errors: …" since the action's mark) and page_observe (why a page may look dead).
 *
 * Listened for from the engine's install: in the Playwright tab host that is the init script, before
 * the page's own scripts, so an error thrown while loading is seen; the page runtime sees those after
 * its bookmarklet ran. Never reported to anyone but the page tools.
 */
var cap = M.cap,
  normalize = M.normalize;

var ERROR_CAP = 100; // characters of one reported page error
var ERRORS_KEPT = 20; // the page's latest errors remembered (the count goes on)

var pageErrors = { count: 0, latest: [] }; // latest: [{n, text}], the last ERRORS_KEPT

function noteError(text) {
  pageErrors.count += 1;
  pageErrors.latest.push({ n: pageErrors.count, text: cap(normalize(String(text || "error")).replace(/^Uncaught /, ""), ERROR_CAP) });
  if (pageErrors.latest.length > ERRORS_KEPT) pageErrors.latest.shift();
}

function describeThrown(value) {
  if (value && typeof value === "object" && typeof value.name === "string" && typeof value.message === "string") return value.name + ": " + value.message;
  try {
    return String(value);
  } catch (_unprintable) {
    return "error";
  }
}

(function listenForErrors() {
  try {
    root.addEventListener("error", function (event) {
      // Only a script's uncaught exception (an ErrorEvent); a failed <img> or <script> load is not one.
      if (event && typeof event.message === "string" && event.message) noteError(event.error ? describeThrown(event.error) : event.message);
    }, true);
    root.addEventListener("unhandledrejection", function (event) {
      noteError("Unhandled rejection: " + describeThrown(event && event.reason));
    });
    var console_ = root.console;
    var original = console_ && console_.error;
    if (typeof original === "function") {
      console_.error = function error() {
        try {
          noteError(Array.prototype.map.call(arguments, describeThrown).join(" "));
        } catch (_ignored) { /* counting never breaks the page's logging */ }
        return original.apply(this, arguments);
      };
    }
  } catch (_noWindow) { /* a document without a window to listen on */ }
})();

/** The page's errors since count `since`: {count, first} (the first new one still remembered), or null. */
function errorsSince(since) {
  var count = pageErrors.count - since;
  if (count <= 0) return null;
  var first = null;
  for (var i = 0; i < pageErrors.latest.length; i++) {
    if (pageErrors.latest[i].n > since) {
      first = pageErrors.latest[i].text;
      break;
    }
  }
  return { count: count, first: first || "" };
}

/** How many errors the page made since the engine was installed (a mark keeps it; errorsSince reads from it). */
M.pageErrorCount = function () { return pageErrors.count; };
M.pageErrorsSince = errorsSince;
/** The page's errors since the engine was installed ({count, first, latest}), or null: why a page may look dead. */
M.pageErrorsSoFar = function () {
  if (!pageErrors.count) return null;
  return { count: pageErrors.count, first: pageErrors.latest[0].n === 1 ? pageErrors.latest[0].text : "", latest: pageErrors.latest[pageErrors.latest.length - 1].text };
};

