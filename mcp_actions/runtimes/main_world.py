"""Evaluate in a tab's top document over the tab's own CDP session, without Playwright's utility script.

Playwright's ``page.evaluate`` injects its utility script into every new
document on the first evaluation there (~30 ms, measured: the script is
compiled in the page), and adds about a millisecond to each call. A tab's hot
path — engine calls, hit-test probes, the title read after a navigation — runs
dozens of evaluations per task and one first evaluation per navigation, so it
goes through ``Runtime.evaluate`` of a CDP session instead: the function's
source is applied to its argument written as a JSON literal, and the result
comes back by value.

Failures are raised as Playwright's ``Error`` with the protocol's message
(``Execution context was destroyed``, ``Target closed``, a page exception's
description), so callers translate them exactly as they translate
Playwright's own.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from playwright.async_api import CDPSession, Frame, Page
from playwright.async_api import Error as PlaywrightError

__all__ = ["MainWorld", "frame_id_in"]

_NO_ARGUMENT = object()
#: How long detaching may take. A tab whose navigation hangs (a server that accepts and never
#: answers) does not answer the detach either, and stopping the host must not wait on it.
DETACH_TIMEOUT_S = 1.0


class MainWorld:
    """The main world of one tab's top document, reached through a CDP session made at first use."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._session: CDPSession | None = None
        self._opening: asyncio.Lock = asyncio.Lock()

    async def _cdp(self) -> CDPSession:
        async with self._opening:  # two first calls at once open one session
            if self._session is None:
                self._session = await self.page.context.new_cdp_session(self.page)
        return self._session

    async def call(self, function_source: str, argument: Any = _NO_ARGUMENT) -> Any:
        """``(function_source)(argument)`` in the page, awaited; its JSON value (None for undefined).

        ``argument`` must be JSON data (it travels as a literal). Raises Playwright's
        ``Error`` when the page throws or the document or tab goes away meanwhile.
        """
        applied = "" if argument is _NO_ARGUMENT else json.dumps(argument, ensure_ascii=False, allow_nan=False)
        expression = f"({function_source})({applied})"
        session = await self._cdp()
        reply = await session.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        details = reply.get("exceptionDetails")
        if details is not None:
            exception = details.get("exception") or {}
            raise PlaywrightError(str(exception.get("description") or details.get("text") or "the page threw"))
        return reply.get("result", {}).get("value")

    async def call_on(self, object_id: str, function_source: str, argument: Any) -> Any:
        """``function_source`` called with ``argument`` in the main world of the document ``object_id`` belongs to.

        ``Runtime.callFunctionOn``: the argument is made by the browser from JSON and the function called
        by it, so nothing of the page's (its serializers, its ``eval``, its array iterator) sees either,
        as for ``call``. Raises Playwright's ``Error`` when the page throws or the document went away.
        """
        session = await self._cdp()
        reply = await session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": function_source, "arguments": [{"value": argument}], "awaitPromise": True, "returnByValue": True},
        )
        details = reply.get("exceptionDetails")
        if details is not None:
            exception = details.get("exception") or {}
            raise PlaywrightError(str(exception.get("description") or details.get("text") or "the page threw"))
        return reply.get("result", {}).get("value")

    async def frame_document(self, frame: Frame) -> str | None:
        """The remote object id of ``frame``'s document, in its main world (None when the frame is not found).

        Three protocol calls: the frame tree (to name the frame as the browser does), its owner element,
        and the owner's content document. Valid until the frame's document changes.
        """
        session = await self._cdp()
        frame_id = frame_id_in((await session.send("Page.getFrameTree"))["frameTree"], frame)
        if frame_id is None:
            return None
        owner = await session.send("DOM.getFrameOwner", {"frameId": frame_id})
        described = await session.send("DOM.describeNode", {"backendNodeId": owner["backendNodeId"], "depth": 0})
        document = described.get("node", {}).get("contentDocument")
        if not isinstance(document, dict) or "backendNodeId" not in document:
            return None
        resolved = await session.send("DOM.resolveNode", {"backendNodeId": document["backendNodeId"]})
        object_id = resolved.get("object", {}).get("objectId")
        return object_id if isinstance(object_id, str) else None

    async def close(self) -> None:
        """Detach the session (the tab is closing or the host stopping); never raises."""
        session, self._session = self._session, None
        if session is not None:
            try:
                await asyncio.wait_for(session.detach(), DETACH_TIMEOUT_S)
            except PlaywrightError:
                pass  # the tab is already gone, and its session with it
            except TimeoutError:
                pass  # the session goes with its tab or the browser, which are closing


def frame_id_in(tree: dict[str, Any], frame: Frame) -> str | None:
    """The browser's id of ``frame`` in ``tree`` (``Page.getFrameTree``'s), found by its path from the top.

    Each step takes the child with the frame's url and name; of several alike, the one at the frame's
    place among its alike siblings (both lists keep the order the frames were attached in).
    """
    path: list[Frame] = []
    step: Frame | None = frame
    while step is not None and step.parent_frame is not None:
        path.insert(0, step)
        step = step.parent_frame
    node = tree
    for child in path:
        parent = child.parent_frame
        alike = [f for f in (parent.child_frames if parent is not None else []) if f.url == child.url and f.name == child.name]
        candidates = [
            c for c in node.get("childFrames", [])
            if c["frame"].get("url", "") + c["frame"].get("urlFragment", "") == child.url and (c["frame"].get("name") or "") == child.name
        ]
        place = alike.index(child) if child in alike else -1
        if not 0 <= place < len(candidates):
            return None
        node = candidates[place]
    frame_id = node.get("frame", {}).get("id")
    return frame_id if isinstance(frame_id, str) else None
