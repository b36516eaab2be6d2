"""``mcp-actions extension [--json]``: where the shipped browser extension is and how to load it."""

from __future__ import annotations

import json
from typing import TextIO

from .bundle import extension_info

__all__ = ["run_extension_command"]

_HOW = """mcp-actions browser extension {version} (id {id})
  folder: {path}

Load it once (Chrome, Chromium or Edge):
  1. open chrome://extensions (edge://extensions in Edge)
  2. turn on Developer mode
  3. click "Load unpacked" and choose the folder above

Then open the connect link `mcp-actions serve` prints on stderr (also in
actions://bridge/launch and on the bridge's status page), and share the tabs
the agent may operate, one by one. docs/extension.md has the details.
"""


def run_extension_command(*, as_json: bool, out: TextIO) -> int:
    """Print the extension's folder, id and version (``{"path", "id", "version"}`` with ``as_json``)."""
    info = extension_info()
    if as_json:
        out.write(json.dumps(info) + "\n")
    else:
        out.write(_HOW.format(**info))
    return 0
