"""Every consequence of an action is told (issue 52, items 1, 2 and 8), on an admin that follows Django's.

What a model met in Django's admin, and what the answers now say:

- "Yes, I'm sure" on the delete confirmation (a POST form's submit) answered "no visible change": the
  POST commits after the page's settle, and the author was gone. The answer says where the tab landed;
- the application's word there (``ul.messagelist``'s "The author … was deleted successfully.", no role)
  is quoted after the landing line;
- the "+" link (``window.open`` popup, ``_popup=1``) answered "no visible change" while the popup became
  the active tab; its Save (a POST whose response closes the window) answered "the page navigated or
  reloaded". The answers name the tab opened and active, then the tab closed and the one active after.

The site is a small real HTTP server (POST, a delay, a redirect, a flash message, a popup's response),
its pages tests/fixtures/pages/admin-app/.
"""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.async_api import Browser

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "admin-app"
#: How long the server takes to answer a POST: longer than the page's whole settle (1.5 s at most), as
#: Django's delete of an author and his nine books did; a popup's save is quicker.
POST_DELAY_S = {"/admin/library/author/3/delete/": 2.0, "/admin/auth/user/2/change/": 2.0, "/admin/auth/group/add/": 0.6}


class _Admin(BaseHTTPRequestHandler):
    """The admin's pages; a POST answers after POST_DELAY_S, as Django's views do after their write."""

    site: dict[str, object]

    def log_message(self, format: str, *args: object) -> None:  # the base class's name
        """Quiet: the test's output is the answers."""

    def _send(self, body: str, status: int = 200, headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # http.server's name
        path = urlparse(self.path).path
        site = self.server.site  # type: ignore[attr-defined]  # set by _serve
        lists = {"/admin/library/author/": ("authors.html", "authors"), "/admin/auth/user/": ("users.html", "users")}
        if path in lists:
            template, key = lists[path]
            flash = site.pop("flash", None)
            messages = f'<ul class="messagelist"><li class="success">{html.escape(str(flash))}</li></ul>' if flash else ""
            names = site[key]
            assert isinstance(names, list)
            rows = "".join(f'<tr><th class="field-name"><a href="{path}{i}/change/">{html.escape(a)}</a></th></tr>' for i, a in enumerate(names, 1))
            page = (PAGES / template).read_text().replace("{messages}", messages).replace("{rows}", rows).replace("{count}", f"{len(names)} {key}")
            return self._send(page)
        files = {"/admin/library/author/3/delete/": "delete.html", "/admin/auth/user/2/change/": "change.html", "/admin/auth/group/add/": "group-add.html"}
        if path in files:
            return self._send((PAGES / files[path]).read_text())
        self._send("not found", 404)

    def do_POST(self) -> None:  # http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())
        path = urlparse(self.path).path
        site = self.server.site  # type: ignore[attr-defined]  # set by _serve
        time.sleep(POST_DELAY_S.get(path, 0))
        if path == "/admin/library/author/3/delete/":
            authors = site["authors"]
            assert isinstance(authors, list)
            authors.remove("Ada Castillo")
            site["flash"] = "The author “Ada Castillo” was deleted successfully."
            return self._send("", 302, {"Location": "/admin/library/author/"})
        if path == "/admin/auth/user/2/change/":
            site["saved"] = form.get("username", [""])[0]
            site["flash"] = "The user “maria” was changed successfully."
            return self._send("", 302, {"Location": "/admin/auth/user/"})
        if path == "/admin/auth/group/add/":
            name = form.get("name", [""])[0]
            site["group"] = name
            data = html.escape(json.dumps({"value": "2", "obj": name}), quote=True)
            return self._send((PAGES / "popup-response.html").read_text().replace("{data}", data))
        self._send("not found", 404)


@pytest.fixture(scope="module")
def admin_url() -> Iterator[tuple[str, dict[str, object]]]:
    """The admin's base URL and its state (what a test checks in the application, not on the page)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Admin)
    server.site = {"authors": ["Ada Castillo", "Bruno Díaz"], "users": ["admin", "maria"]}  # type: ignore[attr-defined]  # the handler's state
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.site  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


async def test_a_confirmed_delete_says_where_it_landed_and_the_applications_word(chromium: Browser, admin_url: tuple[str, dict[str, object]]) -> None:
    base, site = admin_url
    async with hosted("browser", chromium) as host:
        await host.open(f"{base}/admin/library/author/3/delete/")
        answer = await host.call("page_click", {"text": "Yes, I’m sure"})
        lines = answer.splitlines()
        assert "no visible change" not in answer, answer
        assert "Ada Castillo" not in (site["authors"] or [])  # type: ignore[operator]  # the list of the server
        assert lines[1] == f'navigated to "Select author to change | Django site admin" {base}/admin/library/author/', answer
        assert lines[2:] == ['message: "The author “Ada Castillo” was deleted successfully."'], answer


async def test_a_popup_opened_and_closed_is_said_with_the_active_tab(chromium: Browser, admin_url: tuple[str, dict[str, object]]) -> None:
    base, site = admin_url
    async with hosted("browser", chromium) as host:
        page = await host.open(f"{base}/admin/auth/user/2/change/")
        opener = host.runtime_id
        observed = await host.call("page_observe", {})
        plus = next(line.split()[0] for line in observed.splitlines() if '"Add another group"' in line)
        opened = await host.call("page_click", {"ref": plus})
        popup = host.bridge.registry.active_id
        assert popup is not None and popup != opener, opened
        number = popup.removeprefix("tab-")
        assert opened.splitlines()[1:] == [f'opened tab {number} "Add group | Django site admin" {base}/admin/auth/group/add/?_to_field=id&_popup=1 (now active)'], opened
        # Untargeted calls now go to the popup, as the answer said.
        await host.call("page_fill", {"text": "Name:", "value": "Editors"})
        saved = await host.call("page_click", {"text": "Save"})
        assert site.get("group") == "Editors"
        assert host.bridge.registry.active_id == opener
        assert saved.splitlines()[1:] == [f'tab {number} closed; active: tab {opener.removeprefix("tab-")} "maria | Change user | Django site admin"'], saved
        # The opener took the new group, as Django's dismissAddRelatedObjectPopup does.
        assert await page.evaluate("() => [...document.querySelector('#id_groups').selectedOptions].map(o => o.text)") == ["Editors"]


async def test_save_says_where_it_landed_every_time(chromium: Browser, admin_url: tuple[str, dict[str, object]]) -> None:
    # Save answered "navigated to …" in some runs and "no visible change" in others: the POST commits
    # after the page was quiet. Three runs, each the same answer.
    base, site = admin_url
    async with hosted("browser", chromium) as host:
        for _run in range(3):
            await host.open(f"{base}/admin/auth/user/2/change/")
            answer = await host.call("page_click", {"text": "Save"})
            assert site.pop("saved", None) == "maria"
            assert answer.splitlines()[1:] == [
                f'navigated to "Select user to change | Django site admin" {base}/admin/auth/user/',
                'message: "The user “maria” was changed successfully."',
            ], answer


async def test_page_act_says_the_tab_its_steps_opened(chromium: Browser, admin_url: tuple[str, dict[str, object]]) -> None:
    # page_act keeps each step's first line only: the tab a step opened is in the whole call's report.
    base, _site = admin_url
    async with hosted("browser", chromium) as host:
        await host.open(f"{base}/admin/auth/user/2/change/")
        observed = await host.call("page_observe", {})
        plus = next(line.split()[0] for line in observed.splitlines() if '"Add another group"' in line)
        answer = await host.call("page_act", {"steps": [{"tool": "page_click", "arguments": {"ref": plus}}]})
        popup = host.bridge.registry.active_id
        assert popup is not None and popup != host.runtime_id, answer
        assert answer.splitlines()[1:] == [f'opened tab {popup.removeprefix("tab-")} "Add group | Django site admin" {base}/admin/auth/group/add/?_to_field=id&_popup=1 (now active)'], answer
