"""Where the shipped extension is, and its copy of the page engine.

The extension injects our page engine (``engine_js()`` of
``runtimes/page_script.py``) into shared tabs from its own file
``chrome/engine.js``: an MV3 extension may only run code it ships. That file
is generated from ``runtimes/page/*.js``; ``refresh_engine`` rewrites it when
it differs (a source checkout after an engine change), and the docs generator
calls it too, so a built wheel ships a current copy.
"""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path
from typing import Any

from ..runtimes.page_script import engine_js
from .identity import extension_id, extension_version

__all__ = ["ENGINE_FILE", "extension_dir", "extension_info", "refresh_engine"]

log = logging.getLogger(__name__)

#: The engine's file name inside the extension (sw.js injects it by this name).
ENGINE_FILE = "engine.js"


def extension_dir() -> Path:
    """The unpacked extension's directory (what "Load unpacked" is pointed at)."""
    return Path(str(resources.files("mcp_actions.extension").joinpath("chrome"))).resolve()


def refresh_engine() -> bool:
    """Rewrite ``chrome/engine.js`` when it is not the current engine; True when it was rewritten.

    An installed package may be read-only: then the shipped copy stays (it was current when built).
    """
    path = extension_dir() / ENGINE_FILE
    current = engine_js()
    try:
        if path.is_file() and path.read_text(encoding="utf-8") == current:
            return False
        path.write_text(current, encoding="utf-8")
    except OSError as exc:
        log.warning("could not refresh the extension's page engine at %s: %s", path, exc)
        return False
    return True


def extension_info() -> dict[str, Any]:
    """``{"path", "id", "version"}``: what ``mcp-actions extension --json`` prints."""
    refresh_engine()
    return {"path": str(extension_dir()), "id": extension_id(), "version": extension_version()}
