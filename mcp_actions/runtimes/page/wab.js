/*
 * wab.js — Web Agent Bridge commands through the page's own bridge:
 * wab.execute {command, params} waits for window.AICommands (the wab:ready
 * event, or polling) and calls AICommands.execute(command, params). A WAB
 * error (an Error with a code) fails with handler_failed and the WAB code in
 * evidence.wab_code (plus retry_after_s for RATE_LIMITED); the host maps it
 * onto its stable codes. Permissions and max_rate are enforced by the host
 * before a command reaches this primitive.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone;

var READY_WAIT_MS = 5000;

function bridgeObject() {
  var commands = root.AICommands;
  return commands && typeof commands.execute === "function" ? commands : null;
}

function whenReady(timeoutMs) {
  var ready = bridgeObject();
  if (ready) return Promise.resolve(ready);
  return new Promise(function (resolve) {
    var done = false;
    function finish() {
      if (done) return;
      done = true;
      root.removeEventListener("wab:ready", check);
      clearInterval(timer);
      clearTimeout(limit);
      resolve(bridgeObject());
    }
    function check() { if (bridgeObject()) finish(); }
    root.addEventListener("wab:ready", check);
    var timer = setInterval(check, 100);
    var limit = setTimeout(finish, timeoutMs);
  });
}

function execute(args) {
  var command = args.command;
  if (typeof command !== "string" || !command) fail("invalid_input", "wab.execute needs the command's name", { field: "command" });
  // {command, params} from the host; {command, ...params} from a converted map's binding.
  var params = {};
  if (isObject(args.params)) params = args.params;
  else Object.keys(args).forEach(function (k) { if (k !== "command") params[k] = args[k]; });
  return whenReady(READY_WAIT_MS).then(function (commands) {
    if (!commands) fail("missing_handler", "the page has no WAB bridge (window.AICommands) after " + READY_WAIT_MS + " ms", { handler: "window.AICommands", command: command });
    var value;
    try {
      value = commands.execute(command, jsonClone(params));
    } catch (err) {
      value = Promise.reject(err);
    }
    return Promise.resolve(value).then(
      function (result) { return result === undefined ? null : jsonClone(result); },
      function (err) {
        var evidence = { command: command };
        if (err && typeof err.code === "string") evidence.wab_code = err.code;
        var retry = err && (err.retryAfter !== undefined ? err.retryAfter : err.details && err.details.retryAfter);
        if (typeof retry === "number") evidence.retry_after_s = retry;
        fail("handler_failed", String((err && err.message) || err), evidence);
      }
    );
  });
}

definePrimitive("wab.execute", execute, ["command"]);
