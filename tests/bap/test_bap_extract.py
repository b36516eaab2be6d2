"""``agent/extract`` with the released client (docs/bap.md, "Extract"): page_extract's values, their sources, and missing values never invented."""

from __future__ import annotations

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import css  # after the skip

from tests.bap.bap_server import Server, client


async def test_values_come_with_their_sources_and_confidence_counts_what_the_page_showed(server: Server) -> None:
    async with client(server, "extractor") as c:
        await c.create_page(url=server.page("shop.html"))
        schema = {"type": "object", "properties": {"customer": {"type": "string"}, "total": {"type": "number"}, "coupon": {"type": "string"}}}
        out = await c.extract("the customer, the total and the coupon code", schema)
        assert out.success and out.data == {"customer": "Ada Lovelace", "total": 1234.5, "coupon": None}
        assert out.confidence == pytest.approx(2 / 3, abs=0.001)  # the coupon is not on the page: not invented
        assert out.sources is not None and [s.text for s in out.sources] == ["Ada Lovelace", "$1,234.50"]
        assert all(s.selector == {"type": "ref", "ref": s.ref} for s in out.sources)

        items = {"type": "object", "properties": {"title": {"type": "string"}, "stars": {"type": "number"}}}
        listed = await c.extract("the reviews", items, mode="list", selector=css("#reviews"))
        assert listed.data == [{"title": "Lovely tea", "stars": 5}, {"title": "Stale scones", "stars": 2}] and listed.confidence == 1.0

        nothing = await c.extract("the shipping address", {"type": "string", "description": "Shipping address"})
        assert not nothing.success and nothing.data is None and nothing.confidence == 0 and nothing.error


async def test_a_selector_limits_what_is_read_to_its_part_of_the_page(server: Server) -> None:
    async with client(server, "scoper") as c:
        await c.create_page(url=server.page("shop.html"))
        schema = {"type": "object", "properties": {"total": {"type": "number"}}}
        inside = await c.extract("the total", schema, selector=css("#summary"))
        outside = await c.extract("the total", schema, selector=css("#lines"))
        assert inside.data == {"total": 1234.5} and inside.confidence == 1.0
        assert outside.data == {"total": None} and not outside.success and outside.confidence == 0
