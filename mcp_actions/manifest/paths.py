"""Where the manifests shipped with mcp_actions live on disk.

A leaf module (it imports nothing of ours), so the loader, the import
resolver and the demo can all reach the bundled manifests without importing
one another.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["bundled_manifests_dir"]


def bundled_manifests_dir() -> Path:
    """The manifests shipped with the package (inside the wheel, or beside it in a checkout)."""
    packaged = Path(str(resources.files("mcp_actions"))) / "_bundled_manifests"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "manifests"
