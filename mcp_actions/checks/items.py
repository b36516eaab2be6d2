"""One item of a drift report, and how severe a tool's drift is (``drift.py`` says what each item holds)."""

from __future__ import annotations

from typing import Any

from ..catalog.annotations import derive_annotations
from ..manifest.model import Manifest, Tool

__all__ = ["report_item", "tool_severity"]


def report_item(kind: str, id_: str, status: str, severity: str, message: str, evidence: Any = None, warnings: list[str] | None = None,
          *, note: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "id": id_, "status": status, "severity": severity, "message": message,
            "evidence": evidence or {}, "warnings": warnings or [], "note": note, **extra}


def tool_severity(tool: Tool, manifest: Manifest) -> str:
    """The severity of ``tool``'s drift: minor for a read-only tool, major for one that acts."""
    return "minor" if derive_annotations(tool, manifest).get("readOnlyHint") else "major"
