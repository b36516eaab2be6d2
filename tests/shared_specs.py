"""The published specs and reference examples the project implements, found outside the repository.

A few tests hold our fixtures to what was published: the copies under
``tests/fixtures/`` must be the published files unchanged. Those files live
beside the repository (``../shared/specs``), not in it, so ``shared_spec``
finds them: ``$MCP_ACTIONS_SHARED_SPECS`` when set, else ``../shared/specs``
next to the clone, else ``/work/shared/specs``. Where none holds the file, a
developer's run skips the test saying so, and a CI run (``CI`` set) fails it:
a comparison that silently stops running would let the copies drift.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["shared_spec", "shared_specs_dirs"]

ROOT = Path(__file__).resolve().parents[1]


def shared_specs_dirs() -> list[Path]:
    """Where the shared specs are looked for, first match wins."""
    explicit = os.environ.get("MCP_ACTIONS_SHARED_SPECS")
    candidates = [Path(explicit)] if explicit else []
    return [*candidates, ROOT.parent / "shared" / "specs", Path("/work/shared/specs")]


def shared_spec(relative: str) -> Path:
    """The published file ``relative`` (to the specs folder); skips, or fails under CI, when it is nowhere."""
    for folder in shared_specs_dirs():
        path = folder / relative
        if path.exists():
            return path
    looked = ", ".join(str(folder) for folder in shared_specs_dirs())
    message = f"the shared spec file {relative} is not on this machine (looked in {looked}; set MCP_ACTIONS_SHARED_SPECS)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
