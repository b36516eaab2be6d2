/*
 * client_identity.js — What the page runtime's client (client.js) starts from: where the bridge
 * is (discoverBridge: this script's own src, or window.__MCP_ACTIONS_BRIDGE__) and who this
 * runtime is across reloads of its tab (ids and the bridge's secret kept in sessionStorage, the
 * frame's path among its tab's frames).
 */
function discoverBridge() {
  var explicit = root.__MCP_ACTIONS_BRIDGE__;
  if (explicit && typeof explicit === "object" && typeof explicit.url === "string" && explicit.url) {
    var token = typeof explicit.token === "string" ? explicit.token : tokenOf(explicit.url);
    return { url: toBridgeUrl(explicit.url), token: token };
  }
  var script = document.currentScript;
  var src = script && script.src;
  if (!src) return null;
  var parsed;
  try {
    parsed = new URL(src, root.location.href);
  } catch (_ignored) {
    return null;
  }
  if (!/\/runtime\.js$/.test(parsed.pathname) || !/^https?:$/.test(parsed.protocol)) return null;
  var base = parsed.pathname.replace(/runtime\.js$/, "bridge");
  var scheme = parsed.protocol === "https:" ? "wss:" : "ws:";
  return { url: scheme + "//" + parsed.host + base, token: parsed.searchParams.get("token") };
}

function tokenOf(url) {
  try {
    return new URL(url, root.location.href).searchParams.get("token");
  } catch (_ignored) {
    return null;
  }
}

function toBridgeUrl(url) {
  // Accept ws(s)://host/bridge as given, or an http(s) base such as http://host:port.
  var parsed;
  try {
    parsed = new URL(url, root.location.href);
  } catch (_ignored) {
    return url;
  }
  if (parsed.protocol === "http:" || parsed.protocol === "https:") {
    parsed.protocol = parsed.protocol === "https:" ? "wss:" : "ws:";
    if (!/\/bridge$/.test(parsed.pathname)) parsed.pathname = parsed.pathname.replace(/\/?$/, "/bridge");
  }
  parsed.searchParams.delete("token");
  return parsed.toString();
}

function randomId(bytes) {
  var arr = new Uint8Array(bytes || 8);
  if (root.crypto && root.crypto.getRandomValues) root.crypto.getRandomValues(arr);
  else for (var i = 0; i < arr.length; i++) arr[i] = Math.floor(Math.random() * 256);
  return Array.prototype.map.call(arr, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
}

function sessionValue(key, make) {
  // sessionStorage survives reloads of the same tab; it throws on opaque
  // origins and in some sandboxes, where an in-memory id has to do.
  try {
    var value = root.sessionStorage.getItem(key);
    if (!value) {
      value = make();
      root.sessionStorage.setItem(key, value);
    }
    return value;
  } catch (_ignored) {
    return make();
  }
}

function storedValue(key, value) {
  // Read (one argument) or write a sessionStorage value; null where storage is refused.
  try {
    if (arguments.length > 1) root.sessionStorage.setItem(key, value);
    return root.sessionStorage.getItem(key);
  } catch (_ignored) {
    return arguments.length > 1 ? value : null;
  }
}

/** "" for a top-level page; "/frame/0/2" for the third frame of the first frame. */
function framePath() {
  var parts = [];
  var w = root;
  try {
    while (w.parent && w !== w.parent) {
      var parent = w.parent;
      var index = -1;
      for (var i = 0; i < parent.frames.length; i++) {
        if (parent.frames[i] === w) {
          index = i;
          break;
        }
      }
      parts.unshift(index);
      w = parent;
    }
  } catch (_ignored) {
    parts.unshift("x"); // an ancestor we may not inspect
  }
  return parts.length ? "/frame/" + parts.join("/") : "";
}

M.discoverBridge = discoverBridge;
M.randomId = randomId;
M.sessionValue = sessionValue;
M.storedValue = storedValue;
M.framePath = framePath;
