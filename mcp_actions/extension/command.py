"""``mcp-actions extension [--json] [--pairings] [--forget ID|all]``: the shipped browser extension.

Without options: where it is and how to load it. ``--pairings`` lists the
browsers paired with this user's servers (``bridge/pairings.py``);
``--forget`` revokes one pairing, or all of them: its shared tabs are
disconnected within seconds by a running server, and the extension must be
paired again from a new connect link.
"""

from __future__ import annotations

import json
from typing import TextIO

from ..bridge.pairings import PairingStore
from .bundle import extension_info

__all__ = ["run_extension_command", "run_pairings_command"]

_HOW = """mcp-actions browser extension {version_name} (id {id})
  folder: {path}

Load it once (Chrome, Chromium or Edge):
  1. open chrome://extensions (edge://extensions in Edge)
  2. turn on Developer mode
  3. click "Load unpacked" and choose the folder above

Then open the connect link `mcp-actions serve` prints on stderr
(also in actions://bridge/launch and on the bridge's status page), and share the tabs
the agent may operate, one by one. docs/extension.md has the details.
"""


def run_pairings_command(*, as_json: bool, forget: str | None, out: TextIO, err: TextIO) -> int:
    """List the pairings (``[{authorization_id, label, created_at}]`` with ``as_json``), or ``forget`` one (or ``all``).

    Exit 0; 1 when ``forget`` names no pairing.
    """
    store = PairingStore()
    if forget is not None:
        targets = [e["authorization_id"] for e in store.entries()] if forget == "all" else [forget]
        revoked = [t for t in targets if store.revoke(t)]
        if forget != "all" and not revoked:
            err.write(f"mcp-actions: no pairing {forget} (see mcp-actions extension --pairings)\n")
            return 1
        out.write(json.dumps({"revoked": revoked}) + "\n" if as_json else f"revoked {len(revoked)} pairing(s): {', '.join(revoked) or 'none'}\n")
        return 0
    entries = store.entries()
    if as_json:
        out.write(json.dumps(entries) + "\n")
    elif not entries:
        out.write(f"no browser is paired ({store.path})\n")
    else:
        out.write(f"paired browsers ({store.path}):\n")
        out.writelines(f"  {e['authorization_id']}  {e['label']}  since {e['created_at']}\n" for e in entries)
    return 0


def run_extension_command(*, as_json: bool, out: TextIO) -> int:
    """Print the extension's folder, id and version (``{"path", "id", "version", "version_name"}`` with ``as_json``)."""
    info = extension_info()
    if as_json:
        out.write(json.dumps(info) + "\n")
    else:
        out.write(_HOW.format(**info))
    return 0
