"""The extension ships its own copy of the page engine (chrome/engine.js): it must be the current one.

An MV3 extension may only inject code it ships, so ``chrome/engine.js`` is a
generated copy of ``engine_js()`` (``runtimes/page/*.js``). After any change
to the page engine, regenerate it with ``python -m mcp_actions.docgen`` and
commit it. The file is read when this module is collected, before any test
(the Chromium tests refresh it so that they exercise the current engine)
could rewrite it.
"""

from __future__ import annotations

from mcp_actions.extension import extension_dir
from mcp_actions.extension.bundle import ENGINE_FILE
from mcp_actions.runtimes.page_script import engine_js

SHIPPED = (extension_dir() / ENGINE_FILE).read_text(encoding="utf-8")


def test_the_shipped_engine_is_the_current_engine() -> None:
    assert SHIPPED == engine_js(), (
        f"{extension_dir() / ENGINE_FILE} is stale: the page engine changed since it was generated. "
        "Run `python -m mcp_actions.docgen` and commit the file."
    )
