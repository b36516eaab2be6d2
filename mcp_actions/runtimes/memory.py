"""A runtime whose "page" is a Python object: real code for tests and benchmarks.

Like ``httpx.MockTransport``, it is a genuine runtime that speaks the bridge
items; only its page is simulated. Handlers are plain callables registered by
dotted name (resolved the way the page runtime resolves them: a property path,
never evaluated text), and primitives are callables by primitive name.

``locator.probe`` (the batch presence check state diagnosis uses, one round
trip for every diagnostic) is provided on top of the page's own
``locator.wait_for`` when the page does not register one itself: each probe
is one zero-timeout wait inside this runtime, so the bridge sees one call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..bridge.bridge import Bridge
from ..errors import ActionError, ErrorCode
from .inprocess import InProcessRuntime

__all__ = ["PROBE_PRIMITIVE", "MemoryRuntime", "sleep_forever"]

#: The batch presence primitive (see ``dispatch/primitives/states.py`` for its contract).
PROBE_PRIMITIVE = "locator.probe"

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
        if PROBE_PRIMITIVE not in self.primitives and "locator.wait_for" in self.primitives:
            self.primitives[PROBE_PRIMITIVE] = self._probe
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


    async def _probe(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``locator.probe`` from the page's ``locator.wait_for``: which probes match right now."""
        probes = arguments.get("probes")
        if not isinstance(probes, list):
            raise ActionError("locator.probe needs a probes array", code=ErrorCode.INVALID_INPUT, evidence={"field": "probes"})
        wait_for = self.primitives["locator.wait_for"]
        results = []
        for probe in probes:
            if not isinstance(probe, dict) or not isinstance(probe.get("locator"), dict):
                raise ActionError("each probe needs an id and a locator object", code=ErrorCode.INVALID_INPUT, evidence={"probe": probe})
            state = probe.get("state", "visible")
            try:
                output = wait_for({"locator": probe["locator"], "state": state, "timeout_ms": 0})
                if inspect.isawaitable(output):
                    output = await output
                matched = not (isinstance(output, dict) and output.get("matched") is False)
                count = output.get("match_count", 1) if isinstance(output, dict) else 1
                matched_by = output.get("matched_by") if isinstance(output, dict) else None
            except ActionError as exc:
                if exc.code in (ErrorCode.INVALID_LOCATOR, ErrorCode.INVALID_INPUT):
                    raise
                matched, count, matched_by = False, 0, None
            results.append({"id": probe.get("id"), "matched": matched, "match_count": count if matched else 0, "matched_by": matched_by})
        return {"results": results, "url": self.url}


async def sleep_forever(_: dict[str, Any]) -> Any:
    """A primitive that never answers (for timeout and disconnect tests)."""
    await asyncio.Event().wait()
