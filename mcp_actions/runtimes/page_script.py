"""The page runtime's JavaScript source, read once from the installed package.

``runtime.js`` ships inside the package (``mcp_actions/runtimes/page/``) and
is read through ``importlib.resources`` so it is found from a wheel or a zip
as well as from a source checkout. The bridge serves it at ``/runtime.js``;
the browser host injects it (engine only) into every page it drives.
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["ENGINE_ONLY_PRELUDE", "ENGINE_PRIMITIVES", "engine_only_js", "runtime_js"]

#: The primitives the JavaScript engine implements (``__mcpActions.capabilities()``),
#: known here without a browser so hosts can announce them up front.
ENGINE_PRIMITIVES: tuple[str, ...] = (
    "page.info",
    "dom.snapshot_text",
    "dom.observe.visible",
    "locator.element_info",
    "locator.text_content",
    "locator.wait_for",
    "pointer.move",
    "pointer.click",
    "pointer.double_click",
    "viewport.scroll",
    "text.insert",
    "keyboard.press",
    "locator.probe",  # states.js
)

#: Where ``states.js`` (the batch probe of state diagnosis) is spliced into the engine.
_STATES_MARKER = "/*@include states.js*/"

#: Set before the source so the runtime installs its engine and skips its
#: WebSocket client (pages driven by the browser host are already runtimes).
#: Non-writable, so a page script cannot turn the client back on.
ENGINE_ONLY_PRELUDE = (
    "try { Object.defineProperty(window, '__MCP_ACTIONS_ENGINE_ONLY__', "
    "{value: true, writable: false, configurable: false, enumerable: false}); } catch (e) {}\n"
)


@functools.cache
def runtime_js() -> str:
    """The full page runtime (engine with ``states.js`` spliced in, and WebSocket client) as JavaScript text."""
    page = resources.files("mcp_actions.runtimes").joinpath("page")
    source = page.joinpath("runtime.js").read_text(encoding="utf-8")
    return source.replace(_STATES_MARKER, page.joinpath("states.js").read_text(encoding="utf-8"), 1)


@functools.cache
def engine_only_js() -> str:
    """The runtime with its client disabled: what a Playwright-driven page gets."""
    return ENGINE_ONLY_PRELUDE + runtime_js()
