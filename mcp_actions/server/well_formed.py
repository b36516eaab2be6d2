"""The MCP door's last line of defence: no answer it sends can stop its transport (docs/threat-model.md, row 2).

A page can put a lone surrogate (half of a UTF-16 pair) in any string it hands on; JSON carries it as
``"\\udb40"`` and Python decodes it into a ``str`` no UTF-8 encoder takes. The SDK then cannot serialize
the answer, and over stdio a failed write ends the session. The page engine already cuts between whole
characters and shows a lone half as U+FFFD (runtimes/page/core.js ``shown``); ``answering`` makes that
hold for every answer whatever produced it: the handlers the server registers (tools, resources,
their listings) return their result, or raise their JSON-RPC error, with every string well formed
(``page_chars.well_formed``). The SDK serializes a result inside its middleware chain, before any
middleware sees it, so this wraps the handlers themselves. Log messages, progress and elicitations,
which the server sends on its own, pass ``well_formed`` where they are sent (logs.py, mcp_server.py
``_progress_of``, confirm.py).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from ..page_chars import well_formed

__all__ = ["answering", "well_formed_model"]

_R = TypeVar("_R")


def well_formed_model(value: Any) -> Any:
    """``value`` (a pydantic model, or JSON-like data holding models) with every string well formed.

    Models are repaired in place (their fields set to the repaired values); other containers are
    new only where a string changed, as ``page_chars.well_formed`` does.
    """
    return well_formed(value, other=_repair_model)


def _repair_model(value: Any) -> Any:
    """A pydantic model with its fields (declared and extra) well formed, in place; any other value as it is."""
    if isinstance(value, BaseModel):
        fields = value.__dict__
        for name, field in list(fields.items()):
            fixed = well_formed_model(field)
            if fixed is not field:
                fields[name] = fixed
        extra = value.__pydantic_extra__
        if extra:
            for name, field in list(extra.items()):
                extra[name] = well_formed_model(field)
    return value


def answering(handler: Callable[..., Awaitable[_R]]) -> Callable[..., Awaitable[_R]]:
    """``handler`` whose result, or JSON-RPC error, leaves with every string well formed (see the module)."""

    @functools.wraps(handler)
    async def wrapped(*args: Any, **kwargs: Any) -> _R:
        try:
            result = await handler(*args, **kwargs)
        except MCPError as exc:
            error = exc.error
            message, data = well_formed(error.message), well_formed_model(error.data)
            if message is error.message and data is error.data:
                raise
            raise MCPError(error.code, message, data) from exc
        fixed: _R = well_formed_model(result)
        return fixed

    return wrapped
