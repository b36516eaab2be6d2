"""A runtime whose "page" is a Python object: real code for tests and benchmarks.

Like ``httpx.MockTransport``, it is a genuine runtime that speaks the bridge
items; only its page is simulated. Handlers are plain callables registered by
dotted name (resolved the way the page runtime resolves them: a property path,
never evaluated text), and primitives are callables by primitive name.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..bridge.bridge import Bridge
from ..errors import ActionError, ErrorCode
from .inprocess import InProcessRuntime

__all__ = ["MemoryRuntime", "sleep_forever"]

Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]


class MemoryRuntime(InProcessRuntime):
    """An in-process runtime with Python handlers and primitives."""

    transport = "memory"

    def __init__(
        self,
        bridge: Bridge,
        *,
        runtime_id: str,
        url: str = "memory://page",
        handlers: Mapping[str, Handler] | None = None,
        primitives: Mapping[str, Handler] | None = None,
        runtime_key: str | None = None,
        title: str | None = None,
        capabilities: Sequence[str] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        self.handlers = dict(handlers or {})
        self.primitives = dict(primitives or {})
        super().__init__(
            bridge,
            runtime_id=runtime_id,
            url=url,
            runtime_key=runtime_key,
            title=title,
            capabilities=list(capabilities) if capabilities is not None else sorted(self.primitives),
            manifest=manifest,
        )
        self.calls: list[tuple[str, dict[str, Any], str | None]] = []

    async def execute(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run the registered handler or primitive; unknown ones fail like a page would."""
        self.calls.append((name, arguments, handler))
        if handler is not None:
            function = self.handlers.get(handler)
            if function is None:
                raise ActionError(f"no handler {handler!r} on this page", code=ErrorCode.MISSING_HANDLER, evidence={"handler": handler})
        else:
            function = self.primitives.get(name)
            if function is None:
                raise ActionError(f"{name} is not available here", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"capability": name, "host": "memory"})
        result = function(arguments)
        if inspect.isawaitable(result):
            result = await result
        return result


async def sleep_forever(_: dict[str, Any]) -> Any:
    """A primitive that never answers (for timeout and disconnect tests)."""
    await asyncio.Event().wait()
