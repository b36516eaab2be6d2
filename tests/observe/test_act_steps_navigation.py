"""page_act waits for a step's navigation as a single call does (issue 53, finding 5).

A content management system's flow: click "Add post", then fill "Post date" on the page that loads. A small
server of the test's own answers the editor page late (its headers after a pause, then its form a second later,
as a slow admin does): the fill step must wait for the new page, as page_fill by text does alone. And when a step
fails while the page was still changing, the answer says so. Headless Chromium through the MCP SDK's Client.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

LIST = b'<!doctype html><html><head><meta charset="utf-8"><title>Posts</title></head><body><h1>Posts</h1><a href="/add">Add post</a> <a href="/slow-empty">Drafts</a></body></html>'
EDITOR_HEAD = b'<!doctype html><html><head><meta charset="utf-8"><title>New post</title></head><body><h1>New post</h1><p>Loading the editor' + b" " * 2048 + b"</p>"
EDITOR_FORM = b'<form><label for="d">Post date</label> <input id="d" type="text"><label for="t">Title</label> <input id="t" type="text"></form></body></html>'
EMPTY_HEAD = b'<!doctype html><html><head><meta charset="utf-8"><title>Drafts</title></head><body><h1>Drafts</h1>' + b" " * 2048


class SlowAdmin(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path in ("/add", "/slow-empty"):
            time.sleep(0.6)  # the server thinks before it answers
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        if self.path == "/add":
            self.wfile.write(EDITOR_HEAD)
            self.wfile.flush()
            time.sleep(1.0)
            self.wfile.write(EDITOR_FORM)
        elif self.path == "/slow-empty":
            self.wfile.write(EMPTY_HEAD)
            self.wfile.flush()
            time.sleep(15.0)  # still loading when the step gives up (refs.resolve waits 5 s for the HTML)
            self.wfile.write(b"</body></html>")
        else:
            self.wfile.write(LIST)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def slow_admin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowAdmin)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_fill_step_after_a_click_that_navigated_waits_for_the_new_page(slow_admin: str) -> None:
    async with product() as s:
        await s.navigate(slow_admin + "/")
        steps = [
            {"tool": "page_click", "arguments": {"text": "Add post"}},
            {"tool": "page_fill", "arguments": {"text": "Post date", "value": "2026-12-24"}},
            {"tool": "page_fill", "arguments": {"text": "Title", "value": "Winter sale"}},
        ]
        result = await s.client.call_tool("page_act", {"steps": steps})
        said = text_of(result)
        assert not result.is_error and "failed" not in said, said
        assert "filled @e" in said and "Post date" in said, said
        assert await s.tab().page.input_value("#d") == "2026-12-24"


async def test_a_step_that_fails_while_the_page_is_still_loading_says_so(slow_admin: str) -> None:
    async with product() as s:
        await s.navigate(slow_admin + "/")
        steps = [
            {"tool": "page_click", "arguments": {"text": "Drafts"}},
            {"tool": "page_click", "arguments": {"text": "Publish all"}},
        ]
        result = await s.client.call_tool("page_act", {"steps": steps})
        said = text_of(result)
        assert "step 2 (page_click) failed: target_not_found" in said, said
        assert "still loading" in said, said
