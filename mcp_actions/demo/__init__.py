"""The bundled demo: a small task board web app, its static server, and the ``demo`` command.

``run_demo`` serves the board on loopback with ``StaticSite``, launches
headless Chromium, connects an in-process MCP client and calls the board's
tools, printing each call with its result and time.
"""

from .run import run_demo
from .static import StaticSite

__all__ = ["StaticSite", "run_demo"]
