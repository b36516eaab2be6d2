"""Composition: fold a manifest's imports into one document with namespaced names.

``compose`` returns the composed document (the importing map's own entries
plus every enabled import's, renamed into the import's namespace), the origin
of every tool (source and trust level, carried into MCP ``_meta``), and the
problems found on the way. This first version composes the map's own entries
only; imports are resolved by the composition engine that replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problem

__all__ = ["Composition", "ToolOrigin", "compose"]


@dataclass(frozen=True)
class ToolOrigin:
    """Where a composed tool came from and how far it is trusted."""

    source: str
    trust: str
    import_id: str | None = None
    namespace: str | None = None


@dataclass
class Composition:
    """A composed manifest document with the origin of each tool."""

    document: dict[str, Any]
    origins: dict[str, ToolOrigin] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def compose(document: dict[str, Any], *, source: str, base_dir: Path | None = None, trust: str = "local") -> Composition:
    """Compose ``document`` (already valid on its own) with its imports."""
    origins = {tool["name"]: ToolOrigin(source=source, trust=trust) for tool in document.get("tools", [])}
    return Composition(document=document, origins=origins)
