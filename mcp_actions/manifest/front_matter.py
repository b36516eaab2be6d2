"""Simple YAML-ish front matter, as ``SKILL.md``-style files carry it.

A file that starts with a ``---`` line has front matter up to the next
``---`` line. Each ``key: value`` line is a member; a value is a string
(quotes removed), ``true``/``false``, ``null``, an integer or number, or an
inline list ``[a, b]``. A ``key:`` with no value takes the indented lines
below it: ``- item`` lines make a list, ``sub: value`` lines an object (one
level). This is deliberately not a YAML parser: no anchors, no multi-line
scalars, nothing evaluated. Lines that fit none of these are skipped.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse_front_matter"]

_KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:\s*(.*)$")


def _scalar(raw: str) -> Any:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(part) for part in inner.split(",")] if inner else []
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "~", ""):
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return text


def parse_front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    """``(front matter, body)``; ``(None, text)`` when the text has none."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None, text
    result: dict[str, Any] = {}
    open_key: str | None = None  # a `key:` without value, filled by the indented lines below it
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[:1] in (" ", "\t")
        stripped = line.strip()
        if indented and open_key is not None:
            if stripped.startswith("- "):
                bucket = result[open_key] if isinstance(result[open_key], list) else []
                bucket.append(_scalar(stripped[2:]))
                result[open_key] = bucket
            elif (match := _KEY.match(stripped)) is not None:
                bucket_map = result[open_key] if isinstance(result[open_key], dict) else {}
                bucket_map[match.group(1)] = _scalar(match.group(2))
                result[open_key] = bucket_map
            continue
        match = _KEY.match(stripped)
        if match is None:
            open_key = None
            continue
        key, value = match.group(1), match.group(2)
        result[key] = _scalar(value)
        open_key = key if not value.strip() else None
    return result, "".join(lines[end + 1 :])
