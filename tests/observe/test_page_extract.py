"""page_extract {schema, ref?} on both hosts (docs/mcp-surface.md, "page_extract"): values with their refs, missing ones never invented.

Fixture: tests/fixtures/pages/bap/shop.html (a definition list, a "Label: value" line, a checkbox,
a table with a header row, and a list of reviews).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Browser

from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import KINDS

from .page_hosts import Hosted, hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SUMMARY = {
    "type": "object",
    "properties": {
        "customer": {"type": "string"},
        "total": {"type": "number"},
        "status": {"type": "string"},
        "gift_wrap": {"type": "boolean"},
        "coupon": {"type": "string"},
    },
}


async def _extract(host: Hosted, arguments: dict[str, Any]) -> dict[str, Any]:
    out = await host.service.call("page_extract", arguments)
    return out if isinstance(out, dict) else json.loads(str(out))


async def _text_of(host: Hosted, ref: str) -> str:
    return str(await host.run("refs.read", {"ref": ref}))


@pytest.mark.parametrize("kind", KINDS)
async def test_an_object_is_read_with_its_sources_and_what_the_page_does_not_show_is_missing(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/bap/shop.html")
        out = await _extract(host, {"schema": SUMMARY})
        assert out["data"] == {"customer": "Ada Lovelace", "total": 1234.5, "status": "paid", "gift_wrap": True, "coupon": None}
        assert out["missing"] == ["coupon"]
        sources = {s["path"]: s for s in out["sources"]}
        assert set(sources) == {"customer", "total", "status", "gift_wrap"}
        # Each ref is the element the value was read from.
        assert "Ada Lovelace" in await _text_of(host, sources["customer"]["ref"])
        assert sources["total"]["text"] == "$1,234.50"


@pytest.mark.parametrize("kind", KINDS)
async def test_an_array_is_read_from_a_table_and_from_repeated_items(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/bap/shop.html")
        lines = {"type": "array", "items": {"type": "object", "properties": {"product": {"type": "string"}, "price": {"type": "number"}, "qty": {"type": "integer"}}}}
        out = await _extract(host, {"schema": lines})
        assert out["data"] == [{"product": "Tea", "price": 4.0, "qty": 2}, {"product": "Scones", "price": 6.5, "qty": 1}]
        assert [s["path"] for s in out["sources"]] == ["0.product", "0.price", "0.qty", "1.product", "1.price", "1.qty"] and out["missing"] == []
        reviews = {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}, "stars": {"type": "number"}, "author": {"type": "string"}}}}
        out = await _extract(host, {"schema": reviews})
        assert out["data"] == [{"title": "Lovely tea", "stars": 5, "author": None}, {"title": "Stale scones", "stars": 2, "author": None}]
        assert out["missing"] == ["0.author", "1.author"]


@pytest.mark.parametrize("kind", KINDS)
async def test_under_a_ref_only_that_part_is_read_and_a_nested_schema_is_refused(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/bap/shop.html")
        found = str(await host.call("page_find", {"locator": {"selector": "#reviews"}}))
        ref = found.split()[0]
        out = await _extract(host, {"schema": {"type": "object", "properties": {"customer": {"type": "string"}}}, "ref": ref})
        assert out["data"] == {"customer": None} and out["missing"] == ["customer"]
        with pytest.raises(ActionError) as nested:
            await _extract(host, {"schema": {"type": "object", "properties": {"address": {"type": "object"}}}})
        assert nested.value.code == "invalid_input"
