"""A call's deadline and cancellation reach the page: its work stops when the call ends (issue 29, item 3).

On both hosts (the page runtime over a real WebSocket, the Playwright browser
host), through a real bridge, against ``tests/fixtures/pages/deadline``, whose
counter moves whenever an effect lands on the page:

- a page handler that waits a second, then counts, called with a 100 ms limit,
  answers ``handler_timeout`` at once, and 1.5 s later the count has not moved
  (its signal aborted); the same when the caller cancels the call (the bridge
  sends ``action_cancel``);
- a ``locator.wait_for`` that would wait 5 s ends with its 100 ms call: the
  engine has no call running a moment later;
- the runtime's answer after the call ended is dropped and logged;
- on the browser host, a click on a page whose main thread is busy for a
  second, timed out at 100 ms, is never performed once the page runs again
  (the call's task is cancelled; before, the click landed a second late).

Before this, the handler ran to its end after both (the count moved), and the
wait went on in the page for its own 5 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError, ErrorCode
from tests.runtimes.both_hosts import KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

#: How long the page's slow work takes, and how long after the call's end we watch for it landing.
SLOW_MS = 1000
WATCH_S = 1.5


class Host:
    """One host with the deadline page open."""

    def __init__(self, kind: str, bridge: Bridge, extra: dict[str, Any]) -> None:
        self.kind = kind
        self.bridge = bridge
        self.extra = extra
        self.runtime_id = ""
        self.page: Page | None = None

    async def open(self, pages_url: str) -> None:
        previous = self.page
        self.runtime_id, self.page = await open_runtime(self.kind, self.bridge, self.extra, f"{pages_url}/deadline/index.html")
        if previous is not None:
            await previous.close()

    async def count(self) -> int:
        assert self.page is not None
        return int(await self.page.inner_text("#count"))

    async def engine_calls(self) -> int:
        """Calls with work still running in the page's engine (callcontext.js)."""
        assert self.page is not None
        return int(await self.page.evaluate("() => window.__mcpActions.status().running_calls"))


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[Host]:
    bridge = Bridge(default_timeout_ms=10_000)
    async with serving(request.param, bridge, chromium) as extra:
        yield Host(request.param, bridge, extra)
    await bridge.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def opened(host: Host, pages_url: str) -> Host:
    await host.open(pages_url)
    return host


async def test_a_timed_out_handler_does_not_act_later(opened: Host, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    started = time.monotonic()
    with pytest.raises(ActionError) as caught:
        await opened.bridge.call("deadline.slow_bump", {"ms": SLOW_MS}, runtime_id=opened.runtime_id, handler="deadline.slowBump", timeout_ms=100)
    assert caught.value.code == ErrorCode.HANDLER_TIMEOUT
    assert time.monotonic() - started < 0.6  # at once, not after the handler's second
    call_id = caught.value.evidence["call_id"]
    assert call_id and caught.value.evidence["runtime_id"] == opened.runtime_id
    await asyncio.sleep(WATCH_S)
    assert await opened.count() == 0  # the handler's signal aborted: it never counted
    assert await opened.engine_calls() == 0
    # The runtime's own answer to the cancel (handler_timeout) is the call's last word when it comes within
    # the bridge's short wait (bridge/calls.py _last_word), else a late answer, logged and dropped: never
    # refused as naming no call.
    assert not any(call_id in r.getMessage() and "no pending call" in r.getMessage() for r in caplog.records)
    # The page still works: a call within its time counts.
    done = await opened.bridge.call("deadline.slow_bump", {"ms": 10}, runtime_id=opened.runtime_id, handler="deadline.slowBump", timeout_ms=5000)
    assert done == {"count": 1}


async def test_a_cancelled_handler_does_not_act_later(opened: Host) -> None:
    call = asyncio.create_task(
        opened.bridge.call("deadline.slow_bump", {"ms": SLOW_MS}, runtime_id=opened.runtime_id, handler="deadline.slowBump", timeout_ms=10_000)
    )
    await asyncio.sleep(0.2)
    assert not call.done()
    call.cancel()  # the caller gives up: the bridge sends action_cancel
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.sleep(WATCH_S)
    assert await opened.count() == 0
    assert await opened.engine_calls() == 0
    assert opened.bridge.pending_count == 0


async def test_a_wait_ends_with_its_call(opened: Host) -> None:
    arguments = {"locator": {"selector": "#never"}, "state": "visible", "timeout_ms": 5000}
    with pytest.raises(ActionError) as caught:
        await opened.bridge.call("locator.wait_for", arguments, runtime_id=opened.runtime_id, timeout_ms=100)
    assert caught.value.code == ErrorCode.HANDLER_TIMEOUT
    # Whichever ends it (the bridge's timer, the engine's own deadline, the answer to the cancel), it names its call.
    assert caught.value.evidence["call_id"] and caught.value.evidence["runtime_id"] == opened.runtime_id
    # The engine's wait stopped with the call, not after its own 5 s.
    for _ in range(50):
        if await opened.engine_calls() == 0:
            break
        await asyncio.sleep(0.02)
    assert await opened.engine_calls() == 0
    # And after a cancel.
    call = asyncio.create_task(opened.bridge.call("locator.wait_for", arguments, runtime_id=opened.runtime_id, timeout_ms=10_000))
    await asyncio.sleep(0.2)
    assert await opened.engine_calls() == 1
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call
    for _ in range(50):
        if await opened.engine_calls() == 0:
            break
        await asyncio.sleep(0.02)
    assert await opened.engine_calls() == 0


async def test_a_timed_out_click_does_not_land_when_the_busy_page_frees_up(opened: Host) -> None:
    if opened.kind != "browser":
        # A page runtime hears of the call only when its page runs again, and then runs it (it
        # cannot know how long the call waited in its socket); the browser host holds the call itself.
        pytest.skip("the call reaches a page runtime only after its page's thread is free")
    assert opened.page is not None
    await opened.page.evaluate(f"() => window.deadline.busy({SLOW_MS})")
    with pytest.raises(ActionError) as caught:
        await opened.bridge.call("pointer.click", {"target": {"selector": "#bump"}}, runtime_id=opened.runtime_id, timeout_ms=100)
    assert caught.value.code == ErrorCode.HANDLER_TIMEOUT
    assert caught.value.evidence["call_id"] and caught.value.evidence["runtime_id"] == opened.runtime_id
    await asyncio.sleep(WATCH_S)
    assert await opened.count() == 0
    clicked = await opened.bridge.call("pointer.click", {"target": {"selector": "#bump"}}, runtime_id=opened.runtime_id, timeout_ms=5000)
    assert clicked["clicked"] is True and await opened.count() == 1
