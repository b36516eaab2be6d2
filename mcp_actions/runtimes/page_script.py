"""The page runtime's JavaScript, assembled from its modules with no build step.

The runtime is a set of small plain-JavaScript modules in
``mcp_actions/runtimes/page/``, read through ``importlib.resources`` (so they
are found from a wheel or a zip as well as from a source checkout) and joined
in the fixed order of ``ENGINE_MODULES`` / ``CLIENT_MODULES`` / ``BOOT_MODULES``.

Joining scheme: the whole script is one IIFE that creates a namespace object
``M``; every module file is the *body* of a function ``(M, root)`` that reads
what it needs from ``M`` at its top (``var fail = M.fail, ...``) and registers
what it offers (``M.resolveOne = resolveOne``; primitives through
``M.definePrimitive(name, fn)``). A module may only use modules listed before
it. Modules have no side effects on the page; ``boot.js`` (last) installs the
engine once per window and starts the WebSocket client only when the client
module is part of the script. A later protocol adapter (WebMCP, ABP, WAB) adds
its own module file to ``ENGINE_MODULES`` before ``engine.js``.

Data the modules share with Python is not retyped in JavaScript: the header
sets ``M.DICTIONARY_NAMES`` (every primitive name of ``runtimes/dictionary.json``,
read through ``mcp_actions.primitive_dictionary``) and
``M.EXTENSION_CAPABILITIES`` (``ENGINE_EXTENSIONS``) as JSON before the first
module runs (``INJECTED``), so modules read them like anything a module registered.

Each module ships without what only people read (``js_strip.strip_js``: comments, indentation,
spaces no token needs, at about 60% of the source's bytes): the script is parsed in every document
and frame (issue 55). Lines stay lines, and each module keeps its ``// ---- name.js ----`` marker,
so a stack trace's line number still leads to one statement of one module; ``module_source`` is
the file as written.

- ``runtime_js()``: engine + client + boot, served by the bridge at /runtime.js.
- ``engine_js()``: engine + boot, injected by the Playwright browser host
  (its pages are runtimes already and need no WebSocket client).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

from ..primitive_dictionary import dictionary_names
from .js_strip import strip_js

__all__ = [
    "BOOT_MODULES",
    "CLIENT_MODULES",
    "ENGINE_MODULES",
    "ENGINE_EXTENSIONS",
    "ENGINE_PRIMITIVES",
    "engine_js",
    "engine_version",
    "injected",
    "module_source",
    "runtime_js",
    "shipped_source",
]

#: The engine's modules, in load order (each may use only those before it).
ENGINE_MODULES: tuple[str, ...] = (
    "intrinsics.js",  # built-ins captured at install, called so that no page patch intercepts them
    "core.js",  # errors, envelopes, helpers, the primitive registry
    "geometry.js",  # boxes, clickable centres and the viewport, read through built-ins captured at install
    "callcontext.js",  # each running call's deadline and cancellation
    "reach.js",  # what a person reaches by scrolling: the boxes that contain, clip and scroll an element
    "dom.js",  # deep (shadow DOM) queries, visibility and why not
    "click_point.js",  # where a click lands: the part of an element a person sees, scrolled into view, out from under a sticky header
    "editors.js",  # code editors (CodeMirror 5 and 6, Monaco, Ace) as one field: its box, its input, its drawn text
    "names.js",  # text, roles, accessible names
    "locator_filters.js",  # within, has, has_text: the locator extension filters
    "locators.js",  # target descriptors to elements
    "editing.js",  # text.insert, focusEditable
    "keyboard.js",  # keyboard.press
    "pointer.js",  # pointer.move/click/double_click, viewport.scroll
    "drag.js",  # pointer.drag
    "observe.js",  # page.info, dom.snapshot_text, dom.observe.visible, locator.*
    "sections.js",  # dom.list_sections, dom.settle
    "extract.js",  # dom.extract
    "states.js",  # locator.probe (state diagnosis in one round trip)
    "handlers.js",  # page handlers, DOM event forwarding
    "pagetools.js",  # tools declared by neighbouring protocols, change reports
    "callchannel.js",  # progress, input requests and cancels of running calls
    "webmcp_forms.js",  # declarative WebMCP: toolname forms, agent-invoked submits
    "webmcp_foreign.js",  # reading a WebMCP context that is not ours (native, a page's polyfill)
    "webmcp.js",  # document.modelContext (and the navigator alias), published page tools
    "webmcp_call.js",  # webmcp.list_tools, webmcp.call, webmcp.page_result
    "wab.js",  # wab.execute through window.AICommands
    "abp.js",  # ABP sessions: abp.list, abp.call, abp.shutdown
    "observe_candidates.js",  # what a person can act on: interactive, clickable by handler or cursor, open popup items
    "observe_state.js",  # what page_observe says of an element besides role and name: actions, value, suggestions, states
    "observe_refs.js",  # refs.observe, refs.resolve, refs.select (stable element refs)
    "observe_values.js",  # refs.set_value: date, time, range and color inputs take their value set
    "observe_scroll.js",  # refs.scroll: the page or the box an element scrolls in, by a screenful or to its end
    "observe_frames.js",  # refs.frame_act: act on an element inside a same-origin iframe (point, click, hover, fill)
    "observe_files.js",  # refs.set_files: a file input takes the files the server read (page_fill {files})
    "observe_drag.js",  # refs.drag_resolve: the two ends of page_drag, by ref or text, marked for pointer.drag
    "observe_marks.js",  # refs.marks: numbered badges on the listed elements in the viewport, for one screenshot
    "describe.js",  # refs.describe: how a person would find an element again (learned tools)
    "select.js",  # locator.select: options of the <select> a locator names (learned tools)
    "read_hidden.js",  # text laid out where no one sees it: a clip-path of no area, clipped away, an image that draws nothing
    "read_structure.js",  # what page_read and page_find agree on: left out, items, sections, the composed tree
    "drawn_controls.js",  # a control drawn by what a person sees while its real one is visually hidden (a slider's thumb, a label's box)
    "rich_text.js",  # a rich-text editor's text with its bold, emphasis, code and links marked (page_read)
    "read_sections.js",  # where an element sits (its section, a definition's term) and waiting for the page's load
    "read_cursor.js",  # page_read's byte budget and cursor
    "read_tokens.js",  # how page_read says one interactive element: [role "name" @eN state]
    "read_tables.js",  # how page_read says a table and its rows
    "read.js",  # refs.read: the page (or a ref's part) as compact text with refs inline
    "find.js",  # refs.find: elements by text, role or name, with the context they sit in
    "observe_locate.js",  # refs.locate: the elements a locator designates, as refs (page_find {locator}, BAP's selectors)
    "extract_schema.js",  # refs.extract: data into a small JSON Schema's shape, each value with its ref (page_extract)
    "page_errors.js",  # the page's uncaught errors, rejected promises and console errors, counted (the acting tools' answers)
    "observe_settle.js",  # when an acting tool may answer: the DOM quiet and nothing the action started pending
    "page_messages.js",  # the messages a page shows a person (alerts, status and live regions, message lists, toasts)
    "observe_landing.js",  # refs.messages: the application's word on the page an action landed on
    "change_states.js",  # the controls whose state an action changed, and the messages it made the page show
    "change_regions.js",  # the open dialogs, whose lines are counted apart from the page's in an action's change
    "observe_changes.js",  # refs.change_mark, refs.change_report: what an action changed, briefly
    "launcher_targets.js",  # where a launcher belongs: its target's rendered elements, while its state holds
    "launchers.js",  # launcher buttons kept beside their targets as the page changes
    "overlay_render.js",  # the overlay's panel: arguments checked, inert document, built in a closed shadow root
    "overlay.js",  # the one overlay's state: overlay.open, overlay.close, overlay.register_launcher
    "attachments.js",  # a map's attachments: applyAttachments(list, sinks)
    "engine.js",  # dispatch and the frozen engine object
)
#: The WebSocket client of the Actions Bridge Protocol (runtime_js only).
CLIENT_MODULES: tuple[str, ...] = (
    "client_identity.js",  # where the bridge is, who this runtime is across reloads
    "client.js",  # the connection: announce, run calls, forward events, reconnect
)
#: Installs the engine (and starts the client when present); always last.
BOOT_MODULES: tuple[str, ...] = ("boot.js",)

#: The primitives the JavaScript engine implements, in the order its
#: ``capabilities()`` reports them (module order, then registration order);
#: known here without a browser so hosts can announce them up front.
ENGINE_PRIMITIVES: tuple[str, ...] = (
    "text.insert",
    "keyboard.press",
    "pointer.move",
    "pointer.click",
    "pointer.double_click",
    "viewport.scroll",
    "pointer.drag",
    "page.info",
    "dom.snapshot_text",
    "dom.observe.visible",
    "locator.element_info",
    "locator.text_content",
    "locator.wait_for",
    "dom.list_sections",
    "dom.settle",
    "dom.extract",
    "locator.probe",
    "webmcp.list_tools",
    "webmcp.call",
    "webmcp.page_result",
    "wab.execute",
    "abp.list",
    "abp.call",
    "abp.shutdown",
    "refs.observe",
    "refs.resolve",
    "refs.select",
    "refs.set_value",
    "locator.set_value",
    "refs.scroll",
    "refs.frame_act",
    "refs.set_files",
    "refs.drag_resolve",
    "refs.marks",
    "refs.describe",
    "locator.select",
    "refs.read",
    "refs.find",
    "refs.locate",
    "refs.extract",
    "refs.messages",
    "refs.change_mark",
    "refs.change_report",
    "overlay.open",
    "overlay.close",
    "overlay.register_launcher",
)
#: Additions to the reference dictionary the engine implements, announced after its
#: primitives (``M.EXTENSION_CAPABILITIES`` in engine.js; see the dictionary's ``argument_capabilities``).
ENGINE_EXTENSIONS: tuple[str, ...] = ("pointer.click.target",)


def injected() -> dict[str, Any]:
    """What the script's header sets on ``M`` before any module runs: name -> JSON value."""
    return {
        # Every primitive name of the dictionary: those the engine lacks fail as capability_unavailable.
        "DICTIONARY_NAMES": list(dictionary_names()),
        "EXTENSION_CAPABILITIES": list(ENGINE_EXTENSIONS),
    }

_HEADER = """/*
 * mcp-actions page runtime (assembled from mcp_actions/runtimes/page/: {modules}).
 *
 * No build step, no dependencies. Loading it twice does nothing the second
 * time. window.__mcpActions (non-enumerable, frozen) is the engine: the
 * portable primitives of the mcp-actions dictionary, locator resolution and
 * handler calls.{client}
 */
(function (root) {{
  "use strict";
  if (!root || !root.document) return;
  var M = {{}};
"""
_CLIENT_NOTE = """ The client connects to the bridge named by this script's own
 * src (.../runtime.js?token=T) or by window.__MCP_ACTIONS_BRIDGE__ = {url, token}."""
_FOOTER = "})(typeof window !== \"undefined\" ? window : null);\n"


def module_source(name: str) -> str:
    """One module file's text, as shipped in the package."""
    return resources.files("mcp_actions.runtimes").joinpath("page", name).read_text(encoding="utf-8")


@functools.cache
def shipped_source(name: str) -> str:
    """One module as the assembled script carries it: ``module_source`` stripped (``js_strip``)."""
    return strip_js(module_source(name))


def engine_version() -> str:
    """The page engine's own version (``VERSION`` in core.js): what a page runtime reports as
    ``page-runtime/<version>`` and ``status().version``.

    It is the engine's, not the package's: the package's version comes from git tags and changes
    with every commit, while the engine's copies (the extension's ``engine.js``) must stay the
    same file from one build to the next.
    """
    found = re.search(r'^var VERSION = "([^"]+)";$', module_source("core.js"), re.MULTILINE)
    if found is None:
        raise RuntimeError("core.js declares no VERSION")
    return found.group(1)


def _assemble(modules: tuple[str, ...], with_client: bool) -> str:
    parts = [_HEADER.format(modules=", ".join(modules), client=_CLIENT_NOTE if with_client else "")]
    # Plain JSON (ASCII, with "<" escaped) is a JavaScript literal, safe inside an inline <script> too.
    parts.extend(f"  M.{name} = {_js_literal(value)};\n" for name, value in injected().items())
    for name in modules:
        # Each module runs in its own function scope: its local names cannot
        # collide with another module's, and only M carries what it shares.
        # boot.js may `return` early, which a function body allows.
        parts.append(f"\n  // ---- {name} ----\n  (function (M, root) {{\n{shipped_source(name)}\n  }})(M, root);\n")
    parts.append(_FOOTER)
    return "".join(parts)


def _js_literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True).replace("<", "\\u003c")


@functools.cache
def runtime_js() -> str:
    """The full page runtime (engine and WebSocket client) as JavaScript text."""
    return _assemble(ENGINE_MODULES + CLIENT_MODULES + BOOT_MODULES, with_client=True)


@functools.cache
def engine_js() -> str:
    """The engine without the client: what a Playwright-driven page gets."""
    return _assemble(ENGINE_MODULES + BOOT_MODULES, with_client=False)
