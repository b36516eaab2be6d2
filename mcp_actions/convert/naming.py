"""Safe actions.json identifiers from the free-form names other protocols use."""

from __future__ import annotations

import re

__all__ = ["safe_identifier", "safe_dotted_name"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_MAX_SEGMENT = 60


def safe_identifier(raw: str, *, fallback: str) -> str:
    """One identifier segment (``^[a-zA-Z][a-zA-Z0-9_-]*$``) made from ``raw``.

    Runs of unsafe characters become ``_``; a segment that would not start
    with a letter is prefixed with ``x``; an empty result is ``fallback``.
    """
    segment = _UNSAFE.sub("_", raw.strip()).strip("_-")[:_MAX_SEGMENT]
    if not segment:
        return fallback
    if not segment[0].isalpha() or not segment[0].isascii():
        segment = f"x{segment}"
    return segment


def safe_dotted_name(raw: str, *, fallback: str) -> str:
    """A dotted identifier (each ``.``-separated segment made safe), e.g. ``convert.markdownToHtml``."""
    segments = [safe_identifier(part, fallback=fallback) for part in raw.split(".") if part.strip()]
    return ".".join(segments) or fallback
