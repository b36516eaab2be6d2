"""What an acting page tool says it changed, and where a navigation it caused landed (issue 44).

After an action the page engine reports what changed (``refs.change_report``, once the page settled;
``runtimes/page/observe_changes.js``). An action that loads another document takes that engine with
it: the report then fails (the runtime reconnects, or the call sees ``the page navigated while
refs.change_report ran``). That is the action working, not failing: the answer says that the page
navigated and where it landed, the URL and title of the tab's new document (``page.info`` once the
tab's runtime answers again), never an error.

``page_act`` (``dispatch/builtins/acting/act_steps.py``) asks the same report of its own mark (``slot: "act"``), once
for all its steps.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ....errors import ActionError, ErrorCode
from ...call.service import ActionService
from ..answers import change_text, quote
from ..tool import BuiltinCall
from .act_probe import ActProbe

__all__ = ["LANDING_WAIT_MS", "MAX_MESSAGES", "SETTLE_MS", "SETTLE_QUIET_MS", "change_report", "closed_line", "landing_line", "navigated", "tabs_text"]

#: How long an acting tool waits for the page to settle before it says what changed (docs/mcp-surface.md):
#: until the DOM was quiet for SETTLE_QUIET_MS and no timer or request the action started is pending
#: (runtimes/page/observe_settle.js), at most SETTLE_MS. The quiet window is short because late replies
#: are waited for as pending work, not guessed by a long quiet period.
SETTLE_QUIET_MS = 40
SETTLE_MS = 1500
#: The longest a navigation's landing place is waited for (the new document's engine answering): a page
#: that takes longer is said as navigated, with where to look.
LANDING_WAIT_MS = 3000
#: How long a landing with no title yet is asked again: a page with no <title> at all costs this once.
TITLE_WAIT_MS = 500
#: The application's messages quoted after a landing line (Django's messagelist, a flash, a status region).
MAX_MESSAGES = 2
#: How long a document request an action started is waited for (the tab host's NAVIGATION_WAIT_S,
#: runtimes/consequences.py; said here without importing the browser's side).
NAVIGATION_WAIT_S = 5
#: Codes of a call whose page went away under it (a navigation replaced the page and its engine).
_GONE = frozenset({ErrorCode.TRANSPORT_FAILED, ErrorCode.RUNTIME_NOT_FOUND, ErrorCode.RUNTIME_NOT_READY, ErrorCode.STATE_MISMATCH})


def navigated(exc: ActionError) -> bool:
    """Whether an error of a call on the page means the page navigated under it (the action worked, the engine left)."""
    return exc.code in _GONE or bool(exc.evidence.get("navigated"))


async def landing_line(service: ActionService, runtime_id: str, remaining_ms: int, *, closed: bool = False) -> str:
    """``navigated to "Title" https://…``: where the tab's new document is, once its runtime answers again,
    then the messages the application showed there (``refs.messages``: Django's "… was changed successfully.").

    The tab host's runtime keeps its id across navigations and answers once the new document has its
    engine; a page runtime (a bookmarklet) leaves with its page, so it is not waited for. A tab that
    closed (``closed``, or its runtime gone meanwhile) is said closed, with the tab active after it.
    """
    if closed:
        return await closed_line(service, runtime_id)
    limit = asyncio.get_running_loop().time() + min(LANDING_WAIT_MS, max(0, remaining_ms)) / 1000
    untitled_until = min(limit, asyncio.get_running_loop().time() + TITLE_WAIT_MS / 1000)
    while service.bridge.registry.get(runtime_id) is not None:
        left_ms = int((limit - asyncio.get_running_loop().time()) * 1000)
        if left_ms <= 50:
            break
        try:
            info = await service.bridge.call("page.info", {}, runtime_id=runtime_id, timeout_ms=left_ms)
        except ActionError as exc:
            if not navigated(exc) and exc.code != ErrorCode.HANDLER_TIMEOUT:
                break
            await asyncio.sleep(0.05)
            continue
        url, title = str(info.get("url") or ""), str(info.get("title") or "")
        if title == "" and asyncio.get_running_loop().time() < untitled_until:
            # The new document's engine may answer before its <title> was parsed: asked again, briefly.
            await asyncio.sleep(0.05)
            continue
        if url and url != "about:blank":
            line = "navigated to " + " ".join(part for part in (quote(title) if title else "", url) if part)
            return line + await _messages(service, runtime_id, limit)
        await asyncio.sleep(0.05)
    if service.bridge.registry.get(runtime_id) is None and runtime_id.startswith("tab-"):
        return await closed_line(service, runtime_id)
    return "the page navigated or reloaded: page_observe or page_read to see the new one"


async def _messages(service: ActionService, runtime_id: str, limit: float) -> str:
    """The application's own word on the page a navigation landed on, quoted (page text): at most MAX_MESSAGES lines."""
    left_ms = int((limit - asyncio.get_running_loop().time()) * 1000)
    try:
        out = await service.bridge.call("refs.messages", {"max": MAX_MESSAGES}, runtime_id=runtime_id, timeout_ms=max(200, left_ms))
    except ActionError:
        return ""  # an engine without it, or the page moved on again: the landing is said alone
    found = out.get("messages") if isinstance(out, dict) else None
    texts = [text for text in found or [] if isinstance(text, str) and text]
    return "".join(f"\nmessage: {quote(text)}" for text in texts[:MAX_MESSAGES])


def _tab_name(runtime_id: str) -> str:
    """``tab-2`` as browser_list_tabs numbers it: ``tab 2``."""
    return runtime_id.replace("-", " ", 1) if runtime_id.startswith("tab-") else runtime_id


async def closed_line(service: ActionService, runtime_id: str) -> str:
    """``tab 2 closed; active: tab 1 "Title"``: a tab the action closed, and where untargeted calls go now."""
    registry = service.bridge.registry
    loop = asyncio.get_running_loop()
    until = loop.time() + 1.0
    # The host names the next active tab right after it dropped the closed one's runtime.
    while (registry.get(runtime_id) is not None or registry.active_id in (None, runtime_id)) and loop.time() < until:
        await asyncio.sleep(0.02)
    active = registry.active
    if active is None or active.runtime_id == runtime_id:
        return f"{_tab_name(runtime_id)} closed"
    return f"{_tab_name(runtime_id)} closed; active: " + " ".join(part for part in (_tab_name(active.runtime_id), quote(active.title) if active.title else active.url) if part)


def tabs_text(report: dict[str, Any], active_id: str | None) -> list[str]:
    """The tabs an action opened (``tabs_opened``, the tab host's report) and a navigation still loading, one line each."""
    lines = []
    for tab in report.get("tabs_opened") or []:
        if not isinstance(tab, dict):
            continue
        named = " ".join(part for part in (f"tab {tab.get('tab_id')}", quote(tab["title"]) if tab.get("title") else "", str(tab.get("url") or "")) if part)
        if tab.get("closed"):
            lines.append(f"opened {named}, which closed again")
        else:
            lines.append(f"opened {named}" + (" (now active)" if tab.get("runtime_id") == active_id else ""))
    if report.get("navigating"):
        lines.append(f"navigating to {report['navigating']}: not loaded after {NAVIGATION_WAIT_S:g} s; page_observe later")
    return lines


async def change_report(service: ActionService, call: BuiltinCall, *, slot: str | None = None, settle: bool = True) -> str:
    """What the action changed, a few lines (page_answers.change_text): the engine's report once the page settled.

    One round trip: refs.change_report waits (settle) until the page has done what the action started,
    then reports, with the journal's counts after the action when it asks for them (not for a ``slot``
    mark: page_act's steps each gave the journal theirs). A report that cannot be had says so in its
    line: the action ran whatever the report does; a navigation says where it landed.
    """
    probe: ActProbe | None = call.probe if slot is None else None
    arguments: dict[str, Any] = {**({"slot": slot} if slot else {}), **(probe.report_arguments() if probe is not None else {})}
    if settle:
        arguments["settle"] = {"quiet_ms": SETTLE_QUIET_MS, "timeout_ms": SETTLE_MS}
    runtime_id = call.runtime.runtime_id
    try:
        # A page that keeps changing (a clock, an animation) costs at most SETTLE_MS. Not held to the
        # judged origin: the action may have been a navigation, and reading its result acts on nothing.
        report = await service.bridge.call("refs.change_report", arguments, runtime_id=runtime_id, timeout_ms=call.deadline.remaining_ms())
    except ActionError as exc:
        if navigated(exc):
            # The action replaced the page (a link, a form post, a reload): its engine went with it; or
            # closed its tab (a popup that saved and closed itself).
            return await landing_line(service, runtime_id, call.deadline.remaining_ms(), closed=bool(exc.evidence.get("closed")))
        # The action is done; only the report of it is missing (its time ran out, the page would not say):
        # that is no failure of the action (dispatch/call/after_action.py), so it is said, not raised.
        return f"what it changed is unknown ({exc.code}): the action ran, do not repeat it; page_observe to see the page"
    if probe is not None:
        probe.reported(report)
    waited = report.get("settle") if isinstance(report, dict) else None
    if isinstance(waited, dict) and waited.get("navigating"):
        # The page began leaving (its beforeunload) and no host watched the browser for it (a page runtime
        # leaves with its document): said as the navigation it is, not as "no visible change".
        return await landing_line(service, runtime_id, call.deadline.remaining_ms())
    tabs = tabs_text(report, service.bridge.registry.active_id) if isinstance(report, dict) else []
    if not tabs:
        return change_text(report)
    # A tab opened is a change a person notices: the page's own lines follow, "no visible change" does not.
    changed = change_text(report)
    return "\n".join(tabs + ([] if changed == "no visible change" else [changed]))
