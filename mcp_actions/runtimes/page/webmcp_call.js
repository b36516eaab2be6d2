/*
 * webmcp_call.js — Calling WebMCP tools for the host: webmcp.list_tools,
 * webmcp.call {tool, arguments, call_id?} and webmcp.page_result.
 *
 * A tool of this document runs its execute(input, client) (imperative) or
 * its form (declarative, webmcp_forms.js); a tool only a foreign context
 * lists runs through that context's executeTool (webmcp_foreign.js), with a
 * signal the caller's cancel aborts.
 *
 * client.requestUserInteraction(callback): when the host passed the call's
 * bridge id (call_id), the page's wish to ask the user travels as an
 * input_request {protocol: "webmcp", method: "requestUserInteraction",
 * tool} (callchannel.js); the host answers {granted: true} once the user
 * agreed (MCP elicitation), and only then the callback runs and its result
 * is the promise's. Otherwise the promise rejects with a NotAllowedError
 * DOMException (the user declined or cancelled, or the client cannot ask),
 * and a tool that lets that refusal end its execute fails the call with
 * permission_denied (evidence.reason). After the call ended it rejects with
 * InvalidStateError. Cancelling the call fires "toolcancel" (toolName) at
 * document.modelContext.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  jsonClone = M.jsonClone,
  requestInput = M.requestInput,
  onCancel = M.onCancel,
  webmcp = M.webmcp,
  forms = M.webmcpForms,
  foreign = M.webmcpForeign;

function domError(message, name) {
  var Err = root.DOMException;
  return Err ? new Err(message, name) : new Error(message);
}

function errorText(err) {
  return String((err && err.message) || err || "failed");
}

function agentClient(callId, tool, refusals) {
  var state = { running: true };
  var client = {
    requestUserInteraction: function (callback) {
      if (typeof callback !== "function") return Promise.reject(new TypeError("requestUserInteraction expects a function"));
      if (!state.running) return Promise.reject(domError("the call of " + tool + " has ended", "InvalidStateError"));
      if (!callId) return Promise.resolve().then(function () { return callback(); });
      var request = { protocol: "webmcp", method: "requestUserInteraction", tool: tool };
      return requestInput(callId, request).then(function (answer) {
        var response = isObject(answer.response) ? answer.response : {};
        if (answer.error || response.granted !== true) {
          var reason = answer.error ? "no_elicitation" : String(response.reason || "declined");
          var message = answer.error ? "the agent cannot ask the user: " + String(answer.error.message || answer.error.code) : String(response.message || "the user did not allow it (" + reason + ")");
          var refusal = domError(message, "NotAllowedError");
          refusals.push({ error: refusal, reason: reason });
          throw refusal;
        }
        return callback();
      });
    },
  };
  return { client: client, end: function () { state.running = false; } };
}

function refusalOf(err, refusals) {
  for (var i = 0; i < refusals.length; i++) if (refusals[i].error === err) return refusals[i];
  return null;
}

function failed(err, name, refusals) {
  var refusal = refusalOf(err, refusals);
  if (refusal) fail("permission_denied", name + ": " + errorText(err), { tool: name, reason: refusal.reason, protocol: "webmcp" });
  if (err instanceof M.EngineError) throw err;
  fail("handler_failed", errorText(err), { tool: name, name: err && err.name ? String(err.name) : "Error" });
}

function cancelled(name) {
  try {
    var ev = new Event("toolcancel");
    ev.toolName = name;
    webmcp.context.dispatchEvent(ev);
  } catch (_ignored) { /* a page handler threw */ }
}

function callTool(args) {
  var name = args.tool;
  if (typeof name !== "string" || !name) fail("invalid_input", "webmcp.call needs the tool's name", { field: "tool" });
  var input = args.arguments === undefined ? {} : args.arguments;
  if (!isObject(input)) fail("invalid_input", "arguments must be an object", { field: "arguments" });
  var callId = typeof args.call_id === "string" && args.call_id ? args.call_id : null;
  var refusals = [];
  var agent = agentClient(callId, name, refusals);
  var controller = typeof AbortController === "function" ? new AbortController() : null;
  var stop = callId ? onCancel(callId, function (reason) { cancelled(name); if (controller) controller.abort(reason); }) : function () {};
  var end = function () { agent.end(); stop(); };
  var running = webmcp.runOwn(name, jsonClone(input), agent.client);
  if (running) {
    return running.then(function (done) {
      end();
      if (done.kind === "declarative") return done.output;
      return { result: forms.toJson(done.value, name) };
    }, function (err) {
      end();
      failed(err, name, refusals);
    });
  }
  var theirs = foreign.call(name, jsonClone(input), controller ? controller.signal : undefined);
  if (!theirs) {
    end();
    fail("missing_handler", "the page has no WebMCP tool named " + name, { tool: name });
  }
  return theirs.then(function (value) {
    end();
    return { result: forms.toJson(value, name) };
  }, function (err) {
    end();
    failed(err, name, refusals);
  });
}

function listTools() {
  return webmcp.refresh().then(function (list) {
    return { tools: list, native: foreign.labels().some(function (l) { return / \(native\)$/.test(l); }), document: webmcp.docId, sources: foreign.labels() };
  });
}

definePrimitive("webmcp.list_tools", listTools);
definePrimitive("webmcp.call", callTool, ["tool"]);
definePrimitive("webmcp.page_result", forms.pageResult);
