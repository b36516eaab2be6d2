"""MCP tool names from namespaced dotted actions.json names.

An MCP name must match ``^[a-zA-Z0-9_-]{1,64}$``. It is a function of the
dotted name alone, so it is deterministic, stable across restarts and
unchanged by loading other manifests: dots become underscores
(``contact.submit_name`` → ``contact_submit_name``), and a name too long to
fit keeps its first 55 characters plus a hash of the whole. Two different
dotted names can still meet on one MCP name (``a.b_c`` and ``a_b.c``); the
catalog then keeps the plain name for the one that sorts first and gives the
other ``disambiguated_name``, and logs it.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["MCP_NAME_PATTERN", "disambiguated_name", "mcp_tool_name"]

MCP_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_MAX = 64
_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_-]")


def _digest(name: str, length: int) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]


def mcp_tool_name(dotted: str) -> str:
    """The MCP tool name for a namespaced dotted actions.json name."""
    slug = _NOT_ALLOWED.sub("_", dotted.replace(".", "_")) or "tool"
    if len(slug) <= _MAX:
        return slug
    return f"{slug[:55]}_{_digest(dotted, 8)}"


def disambiguated_name(dotted: str) -> str:
    """A second deterministic name for a dotted name whose plain MCP name is taken."""
    suffix = _digest(dotted, 6)
    return f"{mcp_tool_name(dotted)[: _MAX - 7]}_{suffix}"
