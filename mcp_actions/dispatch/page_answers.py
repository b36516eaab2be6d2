"""What the page tools answer the model: compact text that costs what it carries (docs/mcp-surface.md).

A page tool's binding declares ``text_output``: its runner returns a :class:`TextAnswer`, the
text the model reads, sent once as the result's one text content (no ``structuredContent``, no
``outputSchema``). What only the host needs (the runtime the call ran on) rides in the
answer's ``meta``, which the MCP adapter puts in the result's ``_meta``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["META_RUNTIME", "TextAnswer", "observe_text"]

#: ``_meta`` key of the runtime a page tool ran on (for a host that routes the next call itself).
META_RUNTIME = "mcp-actions/runtime_id"


class TextAnswer(str):
    """A tool's answer text, with ``meta`` for the result's ``_meta`` (server/tools.py success_result)."""

    meta: dict[str, Any]

    def __new__(cls, text: str, meta: dict[str, Any] | None = None) -> TextAnswer:
        answer = super().__new__(cls, text)
        answer.meta = dict(meta or {})
        return answer


def observe_text(output: dict[str, Any]) -> str:
    """``refs.observe {as_text: true}``'s output as the model reads it: a page line, one line per element, and a cut line."""
    title = str(output.get("title") or "")
    head = f"page: {json.dumps(title, ensure_ascii=False)} {output.get('url', '')}" if title else f"page: {output.get('url', '')}"
    lines = [head]
    text = str(output.get("text") or "")
    if text:
        lines.append(text)
    else:
        lines.append("(nothing to act on is visible)")
    if output.get("truncated"):
        lines.append(f"({output.get('returned')} of {output.get('total')} shown; raise max_bytes, pass viewport_only, or page_find by text)")
    return "\n".join(lines)
