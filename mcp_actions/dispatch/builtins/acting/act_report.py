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

__all__ = ["LANDING_WAIT_MS", "SETTLE_MS", "SETTLE_QUIET_MS", "change_report", "landing_line", "navigated"]

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
#: Codes of a call whose page went away under it (a navigation replaced the page and its engine).
_GONE = frozenset({ErrorCode.TRANSPORT_FAILED, ErrorCode.RUNTIME_NOT_FOUND, ErrorCode.RUNTIME_NOT_READY, ErrorCode.STATE_MISMATCH})


def navigated(exc: ActionError) -> bool:
    """Whether an error of a call on the page means the page navigated under it (the action worked, the engine left)."""
    return exc.code in _GONE or bool(exc.evidence.get("navigated"))


async def landing_line(service: ActionService, runtime_id: str, remaining_ms: int) -> str:
    """``navigated to "Title" https://…``: where the tab's new document is, once its runtime answers again.

    The tab host's runtime keeps its id across navigations and answers once the new document has its
    engine; a page runtime (a bookmarklet) leaves with its page, so it is not waited for.
    """
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
            return "navigated to " + " ".join(part for part in (quote(title) if title else "", url) if part)
        await asyncio.sleep(0.05)
    return "the page navigated or reloaded: page_observe or page_read to see the new one"


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
            # The action replaced the page (a link, a form post, a reload): its engine went with it.
            return await landing_line(service, runtime_id, call.deadline.remaining_ms())
        # The action is done; only the report of it is missing (its time ran out, the page would not say):
        # that is no failure of the action (dispatch/call/after_action.py), so it is said, not raised.
        return f"what it changed is unknown ({exc.code}): the action ran, do not repeat it; page_observe to see the page"
    if probe is not None:
        probe.reported(report)
    return change_text(report)
