/*
 * dom.js — Querying through open shadow roots, and why an element is not
 * visible. Locators, observation and extraction all search the composed tree
 * a user sees: the document plus every open shadow root inside it.
 */
var fail = M.fail,
  round = M.round;

// Elements the engine itself put on the page as its own UI (the overlay's host):
// not part of the page our primitives act on, so searches and hit tests skip them.
var OWN_HOSTS = typeof WeakSet === "function" ? new WeakSet() : null;

/** Mark el as engine UI that locators, observation and hit tests must not see. */
function hideFromEngine(el) {
  if (OWN_HOSTS) OWN_HOSTS.add(el);
}

// The tag of the launcher buttons' hosts (launchers.js), which observation lists (observe.js).
var LAUNCHER_HOST_TAG = "actions-json-launcher";

function isHiddenFromEngine(el) {
  return !!(OWN_HOSTS && el && OWN_HOSTS.has(el));
}

/** The document (or a scope) and every open shadow root below it, outermost first. */
function searchRoots(scope) {
  var roots = [scope || document];
  if (scope && scope.shadowRoot && scope.shadowRoot.mode === "open") roots.push(scope.shadowRoot);
  for (var i = 0; i < roots.length; i++) {
    var walker = document.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.shadowRoot && n.shadowRoot.mode === "open") roots.push(n.shadowRoot);
    }
  }
  return roots;
}

/**
 * querySelectorAll over the scope and its open shadow roots, in document
 * order per root. A malformed selector throws a SyntaxError (callers turn it
 * into their own error code).
 */
function queryAllDeep(selector, scope) {
  var roots = searchRoots(scope);
  var out = [];
  for (var i = 0; i < roots.length; i++) {
    var found = roots[i].querySelectorAll(selector);
    for (var j = 0; j < found.length; j++) if (!isHiddenFromEngine(found[j])) out.push(found[j]);
  }
  return out;
}

/** Every element of the composed tree (used by role and text searches). */
function allElementsDeep(scope) {
  return queryAllDeep("*", scope);
}

/** Element.closest that continues from a shadow root to its host. */
function closestDeep(el, selector) {
  var node = el;
  while (node) {
    var hit = node.closest(selector);
    if (hit) return hit;
    var rootNode = node.getRootNode ? node.getRootNode() : null;
    node = rootNode && rootNode.host ? rootNode.host : null;
  }
  return null;
}

/** The parent in the composed tree (a shadow root's host for its top children). */
function composedParent(el) {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  var rootNode = el.getRootNode ? el.getRootNode() : null;
  return rootNode && rootNode.host ? rootNode.host : null;
}

function shortTag(el) {
  return String(el.tagName || "").toLowerCase() + (el.id ? "#" + el.id : "");
}

/**
 * Why el is not visible, or null when it is: {reason, element?, ...}.
 * Reasons: detached, display_none, visibility_hidden, zero_size, inert,
 * off_screen (entirely at negative document coordinates, where no scroll
 * reaches), clipped (outside an overflow-clipping ancestor). aria-hidden is
 * not a reason: such an element is still on screen for a sighted user.
 */
function hiddenReason(el) {
  if (!el || !el.isConnected) return { reason: "detached" };
  for (var node = el; node; node = composedParent(node)) {
    var style = root.getComputedStyle(node);
    if (style && style.display === "none") return { reason: "display_none", element: shortTag(node) };
    if (node.hasAttribute && node.hasAttribute("inert")) return { reason: "inert", element: shortTag(node) };
  }
  var own = root.getComputedStyle(el);
  if (own && (own.visibility === "hidden" || own.visibility === "collapse")) return { reason: "visibility_hidden" };
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) {
    return { reason: "content_hidden" }; // content-visibility or another CSS rule the checks above missed
  }
  if (own && (own.clip === "rect(0px, 0px, 0px, 0px)" || /^inset\(50%\)$/.test(own.clipPath || ""))) return { reason: "clipped", element: shortTag(el) };
  var r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return { reason: "zero_size", width: round(r.width), height: round(r.height) };
  if (r.right + root.scrollX <= 0 || r.bottom + root.scrollY <= 0) {
    return { reason: "off_screen", x: round(r.left + root.scrollX), y: round(r.top + root.scrollY) };
  }
  for (var anc = composedParent(el); anc && anc !== document.body && anc !== document.documentElement; anc = composedParent(anc)) {
    var s = root.getComputedStyle(anc);
    // Only clipping overflow hides; auto/scroll containers are reached by scrolling.
    if (!s || !/^(hidden|clip)$/.test(s.overflowX + "") && !/^(hidden|clip)$/.test(s.overflowY + "")) continue;
    var a = anc.getBoundingClientRect();
    if (r.right <= a.left || r.left >= a.right || r.bottom <= a.top || r.top >= a.bottom) {
      return { reason: "clipped", element: shortTag(anc) };
    }
  }
  return null;
}

function isVisible(el) {
  return hiddenReason(el) === null;
}

/** A CSS selector argument of a primitive, checked: the elements it matches (deep). */
function selectAll(selector, code, scope) {
  if (typeof selector !== "string" || !selector.trim()) fail(code, "selector must be a non-empty CSS selector string", { selector: selector === undefined ? null : selector });
  try {
    return queryAllDeep(selector, scope);
  } catch (_err) {
    fail(code, "not a valid CSS selector: " + selector, { selector: selector });
  }
}

/**
 * elementFromPoint that descends into open shadow roots (the innermost element).
 * The engine's own overlay is looked through: it floats above the page, and our
 * primitives act on the page below it (a trusted click passes it the same way:
 * overlay.js, passThrough).
 */
function elementFromPointDeep(x, y) {
  var el = document.elementFromPoint(x, y);
  if (isHiddenFromEngine(el) && typeof document.elementsFromPoint === "function") {
    var stack = document.elementsFromPoint(x, y);
    el = null;
    for (var i = 0; i < stack.length; i++) {
      if (!isHiddenFromEngine(stack[i])) {
        el = stack[i];
        break;
      }
    }
  }
  while (el && el.shadowRoot && el.shadowRoot.mode === "open") {
    var inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/** Whether node is el or inside it in the composed tree. */
function isWithin(node, el) {
  for (var n = node; n; n = composedParent(n)) if (n === el) return true;
  return false;
}

M.elementFromPointDeep = elementFromPointDeep;
M.hideFromEngine = hideFromEngine;
M.LAUNCHER_HOST_TAG = LAUNCHER_HOST_TAG;
M.isHiddenFromEngine = isHiddenFromEngine;
M.isWithin = isWithin;
M.composedParent = composedParent;
M.searchRoots = searchRoots;
M.queryAllDeep = queryAllDeep;
M.allElementsDeep = allElementsDeep;
M.closestDeep = closestDeep;
M.hiddenReason = hiddenReason;
M.isVisible = isVisible;
M.selectAll = selectAll;
