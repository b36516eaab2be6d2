"""The idle preparation compiles every check a call or a page event will need, off their paths (catalog/prepare.py)."""

from __future__ import annotations

import asyncio

from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog import prepare
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.prepare import CheckPreparation
from mcp_actions.primitive_dictionary import PrimitiveDictionary, dictionary_document

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


def _fresh_dictionary() -> PrimitiveDictionary:
    """The bundled dictionary with nothing compiled yet (``load_dictionary()``'s is shared by the whole test run)."""
    return PrimitiveDictionary.from_json(dictionary_document())


async def _turns_while(task: asyncio.Task[None]) -> int:
    """Event-loop turns another coroutine got while ``task`` ran (one per ``sleep(0)`` it was let through)."""
    turns = 0
    while not task.done():
        await asyncio.sleep(0)
        turns += 1
    return turns


async def test_a_call_arriving_during_the_first_pass_is_let_through_between_compiles(monkeypatch) -> None:
    monkeypatch.setattr(prepare, "PREPARE_AFTER_S", 0)
    dictionary = _fresh_dictionary()
    preparation = CheckPreparation(Catalog(), dictionary)
    preparation.start()
    assert preparation.task is not None
    # Every primitive's input check is compiled (~1 ms each): the loop turns between them.
    assert await _turns_while(preparation.task) >= len(dictionary) // 2


async def test_the_pass_after_a_catalogue_change_finds_everything_compiled_and_holds_no_turns(monkeypatch) -> None:
    # Issue 42: a navigation changes the catalogue (page tools come and go), and the pass after it
    # took a loop turn per item, ~90 of them spread over the agent's next call.
    monkeypatch.setattr(prepare, "PREPARE_AFTER_S", 0)
    dictionary = _fresh_dictionary()
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("board.find"), origin="https://board.test", signals=[SIGNAL]), namespace="board")])
    preparation = CheckPreparation(catalog, dictionary)
    preparation.start()
    assert preparation.task is not None
    await asyncio.wait_for(preparation.task, 30)
    preparation.again()
    # The start's own two turns, not one per item (a loaded machine may stretch a few items past COMPILED_S).
    assert await _turns_while(preparation.task) < len(dictionary) // 4
