/*
 * observe_candidates.js — What a person can act on, so the model can find it
 * (docs/mcp-surface.md, "What page_observe lists"):
 *
 * - the interactive elements by tag and role (links, buttons, fields,
 *   [role=button]..., [tabindex] other than -1);
 * - elements clickable by a handler or by their cursor: an onclick attribute or
 *   property, or cursor:pointer that is not inherited from the parent, with a
 *   name, text or an icon (dom.js iconDrawn; then nameless) (a
 *   span inside a pointer card is the card's), outside any interactive
 *   element. The page runtime cannot see listeners added with
 *   addEventListener, so a role-less div with only such a listener and no
 *   pointer cursor stays unseen: that is the documented limit;
 * - the items of an open popup list that has no roles (a jQuery UI
 *   autocomplete's `ul.ui-autocomplete li`, a suggestion dropdown): a visible
 *   ul/ol that floats (position absolute or fixed) or whose class says it is
 *   a menu, autocomplete, suggestion, dropdown or typeahead list; its li are
 *   listed as options.
 *
 * Inert elements are never listed: under [inert], or outside an open modal <dialog>.
 * Elements inside a same-origin iframe are listed where the iframe is.
 *
 * candidateRole/candidateName give such an element a role ("clickable",
 * "option") and a name (its text) where ARIA gives none.
 */
var tagOf = M.tagOf,
  normalize = M.normalize,
  roleOf = M.roleOf,
  accessibleName = M.accessibleName,
  elementText = M.elementText;

var INTERACTIVE = [
  "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary", "[contenteditable=''], [contenteditable=true]",
  "[role=button]", "[role=link]", "[role=checkbox]", "[role=radio]", "[role=switch]", "[role=tab]", "[role=menuitem]",
  "[role=menuitemcheckbox]", "[role=menuitemradio]", "[role=treeitem]",
  "[role=option]", "[role=combobox]", "[role=textbox]", "[role=searchbox]", "[role=slider]", "[role=spinbutton]",
  "[tabindex]:not([tabindex='-1'])",
  // A code editor's box: the field a person sees, whose own input is hidden (editors.js).
  ".CodeMirror", ".monaco-editor", ".ace_editor",
].join(", ");
// A popup list's class names (jQuery UI, Bootstrap, typeahead.js, awesomplete and most hand-made ones).
var POPUP_CLASS = /(^|[\s_-])(ui-autocomplete|ui-menu|autocomplete|autocomplete-items|suggestions?|dropdown-menu|dropdown|typeahead|tt-menu|awesomplete|menu|listbox|popup|popover)([\s_-]|$)/i;
// Never a click target of their own: the document, and what carries no content.
var NEVER = { html: 1, body: 1, head: 1, script: 1, style: 1, br: 1, hr: 1, option: 1, optgroup: 1, label: 1 };
var TEXT_CAP = 200; // a clickable with more text than this is a region, named by its start

function cursorOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  var style = view.getComputedStyle(el);
  return style ? style.cursor : "";
}

/** Whether el is interactive by its tag or role (the cheap test). */
function isTagInteractive(el) {
  return el.matches(INTERACTIVE);
}

/** Whether el is clickable by an onclick handler or its own pointer cursor (see the module comment). */
function isClickable(el) {
  if (NEVER[tagOf(el)] || isTagInteractive(el)) return false;
  var handler = el.hasAttribute("onclick") || typeof el.onclick === "function";
  if (!handler) {
    if (cursorOf(el) !== "pointer") return false;
    var parent = el.parentElement;
    if (parent && cursorOf(parent) === "pointer") return false; // inherited, or part of a pointer container
  }
  // Inside a link or button, or around one (a card around its title link): that element is what a person clicks.
  var up = el.parentElement;
  if ((up && up.closest(INTERACTIVE)) || el.querySelector(INTERACTIVE)) return false;
  // Inside an open popup list's item (a pointer wrapper in a jQuery UI menu item): the item is listed.
  var item = up && up.closest("li");
  if (item && popupListOf(item)) return false;
  // Something to tell the model: a name or some text, or an icon a person sees (a text-less 14 px <span>
  // with a background image, MiniWoB's email-inbox send icon: listed nameless).
  return !!(accessibleName(el, roleOf(el)) || normalize(el.textContent) || el.querySelector("img[alt], svg title") || M.iconDrawn(el));
}

/** The popup list el belongs to when it is an item of an open role-less popup list, else null. */
function popupListOf(el) {
  if (tagOf(el) !== "li" || roleOf(el) !== "listitem") return null;
  var list = el.parentElement;
  if (!list || (tagOf(list) !== "ul" && tagOf(list) !== "ol")) return null;
  var listRole = list.getAttribute("role");
  if (listRole === "listbox" || listRole === "menu") return list; // its items lack role=option/menuitem
  if (POPUP_CLASS.test(String(list.getAttribute("class") || ""))) return list;
  var view = (list.ownerDocument && list.ownerDocument.defaultView) || root;
  var position = view.getComputedStyle(list).position;
  return position === "absolute" || position === "fixed" ? list : null;
}

/** Whether a person can act on el: interactive by tag or role, clickable, or an item of an open popup list. */
function isActionable(el) {
  // A code editor is its box (or CodeMirror 6's content), never also the hidden input its keys go to.
  if (M.isEditorInput(el)) return false;
  if (isTagInteractive(el)) return !el.matches(M.EDITOR_ROOTS) || M.isEditorField(el);
  if (popupListOf(el)) return !el.querySelector(INTERACTIVE); // its own controls are listed instead
  return isClickable(el);
}

/** el's role for a model: ARIA's, else "option" for a popup list's item, "clickable" for a clickable, else its tag. */
function candidateRole(el) {
  if (!isTagInteractive(el)) {
    if (popupListOf(el)) return "option";
    var aria = el.getAttribute("role");
    if (!aria && isClickable(el)) return "clickable";
  }
  // A tag said as a role is a word too (a custom element's name may hold quotes or "@" in Chromium now).
  var tag = tagOf(el);
  return roleOf(el) || (M.ROLE_WORD.test(tag) ? tag : "element");
}

// Roles that hold other things (ARIA: never named from their content): a focusable list is not named "Italy".
var CONTAINER_ROLES = { list: 1, listbox: 1, menu: 1, menubar: 1, tablist: 1, tree: 1, treegrid: 1, grid: 1, table: 1, group: 1, radiogroup: 1, toolbar: 1, tabpanel: 1, region: 1, dialog: 1, alertdialog: 1 };

var FIELDS = { textbox: 1, searchbox: 1, combobox: 1, spinbutton: 1, slider: 1 };
// Landmarks (a main that takes focus, as a data app's does): named by their own name only, never their content (issue 53).
var LANDMARK_ROLES = { main: 1, navigation: 1, banner: 1, contentinfo: 1, complementary: 1, search: 1, form: 1, region: 1, application: 1, document: 1 };

/** el's name for a model: its accessible name, else (for a clickable or a popup item) its text, capped. */
function candidateName(el, role) {
  var name = accessibleName(el, role);
  // A field is never named by its content (a <select>'s options, a textarea's value).
  if (name || FIELDS[role] || /^(input|select|textarea)$/.test(tagOf(el)) || CONTAINER_ROLES[role] || LANDMARK_ROLES[role]) return name;
  var text = elementText(el);
  return M.cap(text, TEXT_CAP);
}

/** The open modal <dialog> (showModal), or null: while one is open, the rest of the page is inert. */
function openModal() {
  try {
    return document.querySelector("dialog:modal");
  } catch (_noModalPseudoClass) {
    return null;
  }
}

/**
 * The elements a person can act on under scope (the document by default), in composed-tree order.
 * Inert ones are left out ([inert], and everything outside an open modal dialog): no click reaches them.
 */
function actionableInTree(scope) {
  var out = [];
  var modal = openModal();
  (function walk(s) {
    var walker = document.createTreeWalker(s, NodeFilter.SHOW_ELEMENT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.hasAttribute("inert")) {
        // Nothing under an inert element takes input: go on after its subtree (from its last descendant).
        var last = n;
        while (last.lastElementChild) last = last.lastElementChild;
        walker.currentNode = last;
        continue;
      }
      if (isActionable(n) && (!modal || modal.contains(n))) out.push(n);
      if (n.shadowRoot && n.shadowRoot.mode === "open") walk(n.shadowRoot);
      // A same-origin iframe's document is part of what a person sees and acts on (an embedded form);
      // its elements are acted on through observe_frames.js. Cross-origin frames stay closed.
      var inner = (n.localName === "iframe" || n.localName === "frame") && M.frameDocument ? M.frameDocument(n) : null;
      if (inner) walk(inner);
    }
  })(scope || document);
  return out;
}

/**
 * The elements of `among` (all of els by default) that are the one element of els inside another of
 * els and have its name: one target with it (a jQuery UI tab's <a>; the outer one, with its states, is
 * kept, and a click at its centre reaches the inner one). A Set, or null where there is no Map or Set.
 */
function innerTwins(els, nameOf, among) {
  if (typeof Map !== "function" || typeof Set !== "function") return null;
  var index = new Map();
  els.forEach(function (el, i) { index.set(el, i); });
  var outerOf = els.map(function (el) {
    for (var p = M.composedParent(el); p; p = M.composedParent(p)) if (index.has(p)) return index.get(p);
    return -1;
  });
  var inside = {};
  outerOf.forEach(function (o) { if (o >= 0) inside[o] = (inside[o] || 0) + 1; });
  var twins = new Set();
  (among || els).forEach(function (el) {
    var o = index.has(el) ? outerOf[index.get(el)] : -1;
    if (o >= 0 && inside[o] === 1 && nameOf(el) && nameOf(el) === nameOf(els[o])) twins.add(el);
  });
  return twins;
}

M.OBSERVE_INTERACTIVE = INTERACTIVE;
M.innerTwins = innerTwins;
M.isActionable = isActionable;
M.candidateRole = candidateRole;
M.candidateName = candidateName;
M.CONTAINER_ROLES = CONTAINER_ROLES;
M.LANDMARK_ROLES = LANDMARK_ROLES;
M.actionableInTree = actionableInTree;
M.openModal = openModal;
