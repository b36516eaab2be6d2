/*
 * boot.js — Installs the engine once per window and, when the client module
 * is part of this script (runtime_js, not engine_js) and a bridge URL is
 * known, starts the WebSocket client. Loading the script twice does nothing
 * the second time: the first engine and the first client stay.
 */
var engine = root.__mcpActions;
if (!engine) {
  engine = M.createEngine();
  try {
    Object.defineProperty(root, "__mcpActions", {
      value: engine,
      enumerable: false,
      configurable: false,
      writable: false,
    });
  } catch (_ignored) {
    // Another copy won the race between the check and the define: use it.
    engine = root.__mcpActions;
  }
}

// A page global of the same name that is not this engine: stay out of its way.
if (!engine || typeof engine.run !== "function" || typeof engine._attachClient !== "function") return;

if (typeof M.startClient === "function" && !root.__mcpActionsClientStarted) {
  var config = M.discoverBridge();
  if (config) {
    try {
      Object.defineProperty(root, "__mcpActionsClientStarted", { value: true, enumerable: false });
    } catch (_ignored) {
      return;
    }
    M.startClient(engine, config);
  }
}
