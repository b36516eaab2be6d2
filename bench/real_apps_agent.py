"""What the tasks of ``bench_real_apps.py`` share: the run's applications, a task, and the scripted agents' small steps.

Each application's tasks (``bench_real_apps.py`` for Django and Datasette, ``real_apps_<app>.py``
for the others, registered there as a ``Suite``) are written against these, so a module of
tasks never imports the runner.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_web_kit import Agent, TaskFailed, ref_in

__all__ = ["Apps", "AppTask", "Check", "Script", "Suite"]


# -- the applications as one run sees them ---------------------------------------------------


@dataclass
class Apps:
    """Where the applications are served and their databases; what our answers said at each consequential step."""

    django: str
    django_db: Path
    datasette: str
    datasette_db: Path
    said: list[dict[str, Any]] = field(default_factory=list)
    #: What the other applications' suites serve (their URLs, databases), by the names they give.
    more: dict[str, Any] = field(default_factory=dict)
    task: str = ""
    server: str = ""

    def told(self, step: str, answer: str, *expected: str) -> str:
        """Keep a consequential step's answer and whether it told each expected consequence (regexes)."""
        missing = [pattern for pattern in expected if not re.search(pattern, answer)]
        self.said.append({"task": self.task, "server": self.server, "step": step, "answer": answer, "expected": list(expected), "missing": missing, "misled": bool(missing), "no_visible_change": "no visible change" in answer})
        return answer

    async def act(self, a: Agent, tool: str, arguments: dict[str, Any]) -> str:
        """An acting call by text, as a model makes it: on ``target_not_found`` it does what the error says.

        It finds the text with ``page_find`` and acts on the ref found. When the find lists the
        element, the refusal said something false (the element was there), and it is kept.
        """
        answer = await a.call(tool, arguments, may_fail=True)
        if not answer.startswith("ERROR "):
            return answer
        if not answer.startswith("ERROR target_not_found"):
            raise TaskFailed(f"{tool} {json.dumps(arguments)[:120]} failed: {answer[:300]}")
        found = await a.call("page_find", {"text": arguments["text"]})
        ref = ref_in(found, re.escape(json.dumps(arguments["text"])[1:-1]))
        if ref is None:
            raise TaskFailed(f"{tool} {json.dumps(arguments)[:120]} failed and page_find found nothing: {answer[:200]} / {found[:200]}")
        self.said.append(
            {
                "task": self.task,
                "server": self.server,
                "step": f"{tool} {json.dumps(arguments)}",
                "answer": answer[len("ERROR ") :],
                "expected": [f"the element page_find found right after: {found.splitlines()[0]}"],
                "missing": ["the element was there"],
                "misled": True,
                "no_visible_change": False,
            }
        )
        return await a.call(tool, {**{k: v for k, v in arguments.items() if k != "text"}, "ref": ref})


Script = Callable[[Agent, Apps], Awaitable[str]]
Check = Callable[[Apps, str], tuple[bool, str]]


@dataclass
class AppTask:
    name: str
    goal: str
    playwright: Script
    actions: Script
    check: Check


def _need(ref: str | None, what: str) -> str:
    if ref is None:
        raise TaskFailed(f"no {what}")
    return ref


def _number(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    if found is None:
        raise TaskFailed(f"{pattern!r} not in the answer")
    return found.group(1)


# -- the peer: refs from snapshots --------------------------------------------------------------


async def _pw_snap(a: Agent) -> str:
    return await a.call("browser_snapshot", {})


async def _pw_open(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    return await _pw_snap(a)


async def _pw_click(a: Agent, text: str, pattern: str, what: str) -> str:
    """Click the element on the first snapshot line matching ``pattern``; its answer."""
    return await a.call("browser_click", {"element": what, "target": _need(ref_in(text, pattern), what)})


@dataclass
class Suite:
    """One more application of the bench: its tasks, and how it is installed and served.

    ``install(cache)`` puts the application into a venv of its own under ``cache`` (kept across
    runs) and returns the installed versions; ``serving(cache, work)`` sets it up fresh and serves
    it for one server's run, yielding what its tasks read from ``apps.more`` (URLs, databases).
    """

    name: str
    tasks: list[AppTask]
    install: Callable[[Path], dict[str, str]]
    serving: Callable[[Path, Path], AbstractContextManager[dict[str, Any]]]
