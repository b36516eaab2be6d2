"""``mcp-actions init URL [-o OUT]``: a draft map of a live page.

Opens URL in headless Chromium with the browser host (one tab, a throwaway
profile: the way ``mcp-actions check`` opens a page), waits for the page to
settle — no DOM change for ``SETTLE_QUIET_MS``, then no visible
``aria-busy="true"`` element (a skeleton, a loading list), at most
``READY_TIMEOUT_MS`` in all, so a form that renders late is read once it is
there — reads it (``reader.read_page``: forms, search boxes, buttons, links,
status regions; ``reader.native_submits``: which forms no page script takes,
so that submitting them loads another page; ``webmcp.list_tools`` for the
tools the page declares with WebMCP) and drafts the map (``draft.draft_map``).
Only the top document is read (frames are not).

The map goes to stdout, or to OUT, as JSON with a 2-space indent; stderr gets
one summary line and the review list (also kept in the map as
``x_init_review``). Exit 0 on success; 2 with one line
``mcp-actions init: <code>: <message>`` on a usage or I/O error: a URL that is
not http(s) (``usage_error``), a page that does not load or answers an HTTP
error (``io_error``), a browser that does not start
(``capability_unavailable``), an output file that cannot be written
(``io_error``).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import UTC, datetime
from typing import Any, TextIO
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from ..bridge.bridge import Bridge
from ..errors import ActionError, ActionsError, ErrorCode
from ..runtimes.headless import headless_tab
from ..runtimes.tab import TabRuntime
from .draft import Draft, draft_map
from .explore import DEFAULT_BUDGET_S, Exploration, Tab, explore
from .reader import busy_count, native_submits, read_page

__all__ = ["INIT_TIMEOUT_MS", "READY_TIMEOUT_MS", "SETTLE_QUIET_MS", "draft_page", "run_init_command"]

#: Bound on loading the page and on each primitive call of init.
INIT_TIMEOUT_MS = 20_000
#: A page is read once no DOM change happened for this long...
SETTLE_QUIET_MS = 400
#: ...and nothing visible says aria-busy; init waits at most this long in all.
READY_TIMEOUT_MS = 5_000
_BUSY_POLL_S = 0.2


def _one_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def check_url(url: str) -> str:
    """``url`` when init can draft from it (an http or https URL with a host); else a usage error."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ActionsError(f"init drafts a map of a web page: give an http:// or https:// URL, not {url!r}", code=ErrorCode.USAGE_ERROR)
    return url


async def draft_page(url: str, *, browser_path: str | None = None, created_at: str | None = None, explore_budget_s: float = DEFAULT_BUDGET_S) -> Draft:
    """Open ``url`` in a headless browser, wait for it to settle, read it, explore it (``explore_budget_s`` > 0) and draft its map."""
    check_url(url)
    async with headless_tab(browser_path=browser_path, timeout_ms=INIT_TIMEOUT_MS) as (bridge, tab):
        try:
            return await _draft_in(bridge, tab, url, created_at, explore_budget_s)
        except PlaywrightError as exc:  # the page or the browser went away while it was read
            raise ActionsError(f"could not read {url}: {_one_line(exc)}", code=ErrorCode.IO_ERROR, evidence={"url": url}) from exc


async def _draft_in(bridge: Bridge, tab: TabRuntime, url: str, created_at: str | None, explore_budget_s: float) -> Draft:
    """Load ``url`` in ``tab``, wait for it to settle, read it, explore it and draft its map."""
    runtime_id = tab.runtime_id
    try:
        response = await tab.page.goto(url, wait_until="load", timeout=INIT_TIMEOUT_MS)
    except PlaywrightError as exc:
        raise ActionsError(f"could not load {url}: {_one_line(exc)}", code=ErrorCode.IO_ERROR, evidence={"url": url}) from exc
    if response is not None and response.status >= 400:
        raise ActionsError(f"{url} answered HTTP {response.status}", code=ErrorCode.IO_ERROR, evidence={"url": url, "status": response.status})

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        return await bridge.call(name, arguments, runtime_id=runtime_id, timeout_ms=INIT_TIMEOUT_MS)

    started = time.monotonic()

    def left_ms() -> int:
        return max(0, READY_TIMEOUT_MS - int((time.monotonic() - started) * 1000))

    await call("dom.settle", {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": left_ms()})
    waited_for_busy = False
    while left_ms() > 0 and await busy_count(tab.evaluate) > 0:
        waited_for_busy = True
        await asyncio.sleep(_BUSY_POLL_S)
    if waited_for_busy and left_ms() > 0:
        await call("dom.settle", {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": left_ms()})  # it rendered late: let the rest land
    page = await read_page(tab.evaluate)
    natives = await native_submits(tab.page)
    for form, native in zip(page.get("forms") or [], natives, strict=False):
        form["navigates"] = native
    try:
        listed = await call("webmcp.list_tools", {})
    except ActionError:
        listed = {}
    page["webmcp_tools"] = [t for t in (listed or {}).get("tools") or [] if isinstance(t, dict)]
    stamp = created_at or datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    exploration: Exploration | None = None
    if explore_budget_s > 0:
        # After the read above, which the draft keeps as the page at load time: exploring changes the page.
        async def reload() -> None:
            await tab.page.goto(url, wait_until="load", timeout=INIT_TIMEOUT_MS)
            await call("dom.settle", {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": READY_TIMEOUT_MS})

        exploration = await explore(call, tab.evaluate, page, Tab(url=lambda: tab.page.url, reload=reload), budget_s=explore_budget_s)
    return draft_map(page, url=url, created_at=stamp, exploration=exploration)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _summary(draft: Draft, url: str) -> str:
    c = draft.counts
    kinds = (
        ("explored", "found by exploring", "found by exploring"),
        ("forms", "form", "forms"),
        ("webmcp_tools", "WebMCP tool", "WebMCP tools"),
        ("search_boxes", "search box", "search boxes"),
        ("buttons", "button", "buttons"),
        ("links", "link", "links"),
    )
    parts = [_count(c[key], one, many) for key, one, many in kinds if c.get(key)]
    return f"mcp-actions init: drafted {_count(c.get('tools', 0), 'tool', 'tools')} from {url}" + (f" ({', '.join(parts)})" if parts else "")


def run_init_command(url: str, output: str | None, *, out: TextIO, err: TextIO, browser_path: str | None = None, explore_budget_s: float = DEFAULT_BUDGET_S) -> int:
    """Run ``mcp-actions init`` and return its exit status (0, or 2 on a usage or I/O error)."""
    if output is not None:
        # The folder may not exist yet (-o drafts/shop.actions.json): it is made at write time, so the
        # folder that must be writable now is the nearest one that exists.
        folder = os.path.dirname(os.path.abspath(output))
        while not os.path.exists(folder) and os.path.dirname(folder) != folder:
            folder = os.path.dirname(folder)
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK) or os.path.isdir(output):
            print(f"mcp-actions init: {ErrorCode.IO_ERROR}: cannot write {output}: {'it is a directory' if os.path.isdir(output) else 'no writable folder ' + folder}", file=err)
            return 2  # said before a browser starts, not after
    try:
        draft = asyncio.run(draft_page(url, browser_path=browser_path, explore_budget_s=explore_budget_s))
    except ActionsError as exc:
        print(f"mcp-actions init: {exc.code}: {_one_line(exc)}", file=err)
        return 2
    except OSError as exc:
        print(f"mcp-actions init: {ErrorCode.IO_ERROR}: {_one_line(exc)}", file=err)
        return 2
    text = json.dumps(draft.manifest, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        out.write(text)
        out.flush()
    else:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            print(f"mcp-actions init: {ErrorCode.IO_ERROR}: cannot write {output}: {exc.strerror or exc}", file=err)
            return 2
    print(_summary(draft, url) + (f", written to {output}" if output else ""), file=err)
    print("review before you use it:", file=err)
    for item in draft.review:
        print(f"  - {item.line()}", file=err)
    return 0
