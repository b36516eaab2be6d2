"""page_observe {since: "last"} on both hosts (docs/mcp-surface.md): only what appeared, changed or went since the last page_observe.

Fixture: tests/fixtures/pages/bap/changing.html (its Change button fills a field, removes a button,
re-renders another under the same name and adds one).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


def _ref(text: str, name: str) -> str:
    return next(line.split()[0] for line in text.splitlines() if f'"{name}"' in line)


@pytest.mark.parametrize("kind", KINDS)
async def test_since_last_answers_only_the_changes(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/bap/changing.html")
        full = await host.call("page_observe", {"since": "last"})  # the first: the whole list
        assert '"Remove me"' in full and '"Change"' in full
        await host.call("page_click", {"text": "Change"})
        changed = await host.call("page_observe", {"since": "last"})
        lines = changed.splitlines()
        assert lines[0].startswith('page: "BAP changing"')
        assert any(line.startswith("+ @e") and '"Undo"' in line for line in lines), changed
        assert any(line.startswith("+ @e") and '"Refresh"' in line and line.endswith(f"(was {_ref(full, 'Refresh')})") for line in lines), changed
        assert any(line.startswith("~ @e") and '"Name" = "Ada"' in line for line in lines), changed
        gone = next(line for line in lines if line.startswith("- gone: "))
        assert set(gone[len("- gone: ") :].split(", ")) == {_ref(full, "Remove me"), _ref(full, "Refresh")}
        assert '"Change"' not in changed  # unchanged elements are not repeated
        assert (await host.call("page_observe", {"since": "last"})).splitlines()[1:] == ["no change since the last page_observe"]
