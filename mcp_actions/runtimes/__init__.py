"""Runtimes: the things that speak the Actions Bridge Protocol and act in a page.

- The page runtime: plain JavaScript modules in ``page/``, joined by
  ``page_script`` (``runtime_js`` with its WebSocket client, ``engine_js``
  without) and served at ``/runtime.js``.
- The Playwright browser host: ``mcp_actions.runtimes.browser.BrowserHost``
  (tabs and same-origin frames as runtimes, trusted input, privileged
  primitives). It imports Playwright, so it is not re-exported here: serving
  starts without it and imports it when a browser is first needed.
- ``InProcessRuntime``, the base of runtimes living in this process, and
  ``MemoryRuntime``, a shipped in-memory runtime for tests and embedding
  (real code, like ``httpx.MockTransport``).
- ``find_browser`` detects an installed Chromium/Chrome; the primitive
  dictionary is ``dictionary.json`` beside this file.
"""

from .chromium import find_browser
from .inprocess import InProcessRuntime
from .memory import MemoryRuntime
from .page_script import engine_js, runtime_js

__all__ = ["InProcessRuntime", "MemoryRuntime", "engine_js", "find_browser", "runtime_js"]
