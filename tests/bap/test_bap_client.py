"""BAP, driven by the released Python client (PyPI ``browser-agent-protocol`` 0.9.0) against real Chromium (docs/bap.md).

The server is the one tests/bap/ shares (bap_server.py: a small map for the fixture page
tests/fixtures/pages/bap/form.html and a policy that denies every call on the ``localhost``
origin). Each test connects the client as an agent would.
"""

from __future__ import annotations

import asyncio
import json

import pytest

bap = pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient, css, label, placeholder, ref, role, semantic, test_id, text, xpath  # noqa: E402  # after the skip
from browseragentprotocol.errors import BAPError  # noqa: E402

from tests.bap.bap_server import Server, client  # noqa: E402


async def _status(c: BAPClient) -> str:
    observed = await c.observe()
    content = await c.content()
    assert observed.metadata is not None
    return content.content


async def test_a_connection_without_the_token_is_refused(server: Server) -> None:
    for token in (None, "wrong"):
        refused = BAPClient(server.bap_url, token=token, timeout=5)
        with pytest.raises(Exception, match="401"):
            await refused.connect()
        await refused.close()


async def test_launch_and_pages(server: Server) -> None:
    async with client(server) as c:
        launched = await c.launch(browser="chromium", headless=True)
        assert launched.browser == "chromium"
        page = await c.create_page(url=server.site)
        assert page.title == "BAP form" and page.url == server.site
        listed = await c.list_pages()
        assert [p["id"] for p in listed["pages"]] == [page.id] and listed["activePage"] == page.id
        second = await c.create_page(url="about:blank")
        navigated = await c.navigate(server.site + "?again", page_id=second.id)
        assert navigated.url.endswith("?again")
        assert {p["id"] for p in (await c.list_pages())["pages"]} == {page.id, second.id}
        await c.close_page(second.id)
        assert [p["id"] for p in (await c.list_pages())["pages"]] == [page.id]


async def test_act_by_every_selector_kind(server: Server) -> None:
    async with client(server) as c:
        await c.create_page(url=server.site)
        await c.fill(label("Your name"), "Ada")
        await c.fill(placeholder("Item wanted"), "tea")
        await c.fill(test_id("name-field"), "Ada L.")
        await c.type(css("#item"), " leaves")
        await c.fill(xpath("//input[@id='note']"), "quick")
        await c.check(text("Gift wrap"))
        await c.select(css("#size"), "m")
        await c.hover(role("button", "Save draft"))
        await c.click(role("button", "Place order"))
        assert "Ordered tea leaves for Ada L." in await _status(c)
        await c.press("Enter", css("#item"))
        await c.click(semantic("Save draft"))
        assert "Saved draft" in await _status(c)


async def test_several_matches_are_refused_never_one_picked(server: Server) -> None:
    async with client(server) as c:
        await c.create_page(url=server.site)
        for selector in (text("Save"), semantic("Save"), css("button")):
            with pytest.raises(BAPError) as caught:
                await c.click(selector)
            assert caught.value.code == -32020, caught.value  # SelectorAmbiguous
        assert "Saved" not in await _status(c)


async def test_agent_observe_gives_refs_with_their_stability(server: Server) -> None:
    async with client(server) as c:
        await c.create_page(url=server.site)
        first = await c.observe(max_elements=50)
        assert first.metadata is not None and first.metadata.title == "BAP form"
        elements = first.interactive_elements or []
        by_name = {e.name: e for e in elements}
        assert by_name["Place order"].role == "button" and all(e.stability == "new" for e in elements)
        again = await c.observe()
        assert {e.ref for e in again.interactive_elements or []} == {e.ref for e in elements}
        assert all(e.stability == "stable" for e in again.interactive_elements or [])
        await c.fill(ref(by_name["Your name"].ref), "Grace")
        await c.click(by_name["Place order"].selector)
        assert "for Grace" in await _status(c)


async def test_a_map_tool_runs_as_an_agent_act_step(server: Server) -> None:
    async with client(server) as c:
        await c.create_page(url=server.site)
        discovered = await c._request("discovery/discover", {})
        assert "bapform_write_note" in [t["name"] for t in discovered["tools"]]
        result = await c.act(
            [
                BAPClient.step("mcp-actions/call", {"name": "bapform_write_note", "arguments": {"note": "ring twice"}}),
                BAPClient.step("action/click", {"selector": {"type": "text", "value": "Save"}}, on_error="skip"),
                BAPClient.step("action/click", {"selector": {"type": "role", "role": "button", "name": "Save copy"}}),
            ],
            stop_on_first_error=False,
        )
        assert result.results[0].success and result.results[0].result == {"written": "ring twice"}
        assert not result.results[1].success and result.results[1].error is not None and result.results[1].error.code == -32020
        assert result.results[2].success and result.failed_at == 1 and result.completed == 2
        assert "Saved again" in await _status(c)


async def test_two_connections_never_see_each_others_pages(server: Server) -> None:
    async with client(server, "one") as a, client(server, "two") as b:
        page_a = await a.create_page(url=server.site)
        page_b = await b.create_page(url=server.site + "?b")
        assert [p["id"] for p in (await a.list_pages())["pages"]] == [page_a.id]
        assert [p["id"] for p in (await b.list_pages())["pages"]] == [page_b.id]
        with pytest.raises(BAPError) as caught:
            await a.navigate(server.site, page_id=page_b.id)
        assert caught.value.code == -32011  # PageNotFound, as for a page that does not exist


async def test_a_denied_origin_is_refused_and_the_audit_names_the_client(server: Server) -> None:
    async with client(server, "auditor") as c:
        await c.create_page(url=server.site)
        with pytest.raises(BAPError) as caught:
            await c.navigate(server.denied_site)
        assert caught.value.code == -32041, caught.value  # DomainNotAllowed
        # The client rebuilds this error from details.domain alone (docs/bap.md, "Where BAP's documents and the released client differ").
        assert caught.value.details is not None and caught.value.details["domain"].startswith("http://localhost"), caught.value.details
    lines = [json.loads(line) for line in server.audit.read_text().splitlines() if line.strip()]
    mine = [line for line in lines if line.get("client") == "bap:auditor"]
    assert {line["tool"] for line in mine} >= {"browser.navigate"}, mine[-3:]
    assert any(line.get("decision") == "denied" for line in mine)
    assert all(str(line.get("session", "")).startswith("b-") for line in mine)


async def test_shutdown_ends_the_session_and_its_context(server: Server) -> None:
    c = client(server, "closer")
    await c.connect()
    await c.create_page(url=server.site)
    await c.close()  # sends shutdown, then closes
    await asyncio.sleep(0.5)
    text_err = server.stderr.read_text()
    assert "the BAP client sent shutdown" in text_err, text_err[-2000:]
