"""The idle preparation compiles every check a call or a page event will need, off their paths (catalog/prepare.py)."""

from __future__ import annotations

import asyncio

from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog import prepare
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.prepare import CheckPreparation
from mcp_actions.primitive_dictionary import PrimitiveDictionary

from .maps import handler_tool, loaded, manifest

SIGNAL = {"name": "card_added", "event": "board:card-added", "ingestion": "enabled", "payload": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}


async def test_a_maps_signal_payload_schemas_are_compiled_before_the_first_event(monkeypatch) -> None:
    # Issue 42: the board's first board:card-added came while add_card waited for the page, and
    # compiling its payload schema then (the metaschema check) held the event loop, and that call's answer.
    monkeypatch.setattr(prepare, "PREPARE_AFTER_S", 0)
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("board.find"), origin="https://board.test", signals=[SIGNAL]), namespace="board")])
    check = catalog.signals_for(RuntimeInfo("tab-1", "https://board.test/", "memory"))["card_added"].payload_check()
    assert check is not None and check._validator is None  # nothing compiled yet
    preparation = CheckPreparation(catalog, PrimitiveDictionary({}))
    preparation.start()
    assert preparation.task is not None
    await asyncio.wait_for(preparation.task, 10)
    # The spec an event is checked against (built anew per event) finds the check compiled.
    again = catalog.signals_for(RuntimeInfo("tab-1", "https://board.test/", "memory"))["card_added"].payload_check()
    assert again is check and check._validator is not None
