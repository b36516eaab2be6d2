"""The identity book's bound on reservations never drops a connected runtime's owner.

Page runtimes that leave keep their ids reserved for their secret, at most
``max_reservations`` of them. Were a connected runtime's entry dropped with
the oldest reservations, its id would look unowned, and a connection of
another credential could take it.
"""

from __future__ import annotations

from mcp_actions.bridge.identity import IdentityBook
from mcp_actions.bridge.registry import RuntimeInfo, RuntimeRegistry


def test_reservations_are_bounded_but_a_connected_runtime_keeps_its_owner():
    book, registry = IdentityBook(max_reservations=2), RuntimeRegistry()
    registry.add(RuntimeInfo("paired-1", "https://mail.test/", "websocket", trust="paired"))
    book.own("paired-1", "pairing:a", "paired")  # connected first, so the oldest entry of all
    for n in range(3):
        book.own(f"page-{n}", f"secret:{n}", "page")
        book.left(f"page-{n}")
    assert book.owner("page-0") is None  # the oldest reservation went
    assert book.owner("page-1") == "secret:1" and book.owner("page-2") == "secret:2"
    assert book.owner("paired-1") == "pairing:a"
    # Another pairing claiming the connected runtime's id gets a fresh one; nothing is evicted.
    claim = book.claim(registry, trust="paired", owner="pairing:b", runtime_id="paired-1", runtime_key=None)
    assert claim.runtime_id != "paired-1" and claim.evict == () and claim.renamed["runtime_id"] == "paired-1"


def test_a_page_runtime_reconnecting_with_its_secret_takes_its_reserved_id_back():
    book, registry = IdentityBook(), RuntimeRegistry()
    book.own("page-7", "secret:x", "page")
    book.left("page-7")
    claim = book.claim(registry, trust="page", owner="secret:x", runtime_id="page-other", runtime_key=None)
    assert claim.runtime_id == "page-7" and claim.renamed == {}
    book.own("page-7", "secret:x", "page")
    # Connected again: it is no reservation any more, so the bound never counts it.
    for n in range(3):
        book.own(f"p{n}", f"secret:{n}", "page")
        book.left(f"p{n}")
    assert book.owner("page-7") == "secret:x"
