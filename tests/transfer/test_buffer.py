"""The transfer buffer and its rendering on their own: formats, caps, expiry by the buffer's clock, templates."""

from __future__ import annotations

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.transfer import TransferBuffer, render_item, select_items


class Clock:
    """Seconds since the epoch that a test moves on by hand (the buffer's ``clock`` parameter)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def code_of(call) -> str:
    with pytest.raises(ActionError) as caught:
        call()
    return caught.value.code


def test_expiry_tombstones_and_a_ttl_of_zero() -> None:
    clock = Clock()
    buffer = TransferBuffer(clock=clock)
    item = buffer.write("a", "text/plain", "x", ttl_seconds=10)
    forever = buffer.write("b", "text/plain", "y", ttl_seconds=0)
    assert item.describe()["expires_at"] == "2023-11-14T22:13:30Z" and "expires_at" not in forever.describe()
    clock.now += 10
    assert code_of(lambda: buffer.get(label="a")) == "transfer_expired"
    assert code_of(lambda: buffer.get(item_id=item.id)) == "transfer_expired"
    clock.now += 3601  # the tombstone is forgotten too
    assert code_of(lambda: buffer.get(label="a")) == "transfer_label_not_found"
    assert buffer.get(label="b").value == "y" and buffer.labels() == ["b"]


def test_caps_formats_and_appends() -> None:
    buffer = TransferBuffer(max_item_bytes=16, max_total_bytes=22, max_items=2)
    assert code_of(lambda: buffer.write("big", "text/plain", "é" * 9)) == "transfer_payload_too_large"  # 18 bytes
    buffer.write("one", "text/plain", "12345678")
    assert code_of(lambda: buffer.write("two", "text/plain", "x" * 16)) == "transfer_payload_too_large"  # 24 in all
    buffer.write("two", "text/uri-list", "# comment\nhttps://a.t/\n\n")
    assert buffer.get(label="two").value == ["https://a.t/"]
    assert code_of(lambda: buffer.write("three", "text/plain", "x")) == "transfer_payload_too_large"  # a third item
    assert code_of(lambda: buffer.write("one", "application/json", [1], mode="append")) == "transfer_append_incompatible"
    assert code_of(lambda: buffer.write("x", "text/html", "<b>")) == "transfer_format_unsupported"
    assert code_of(lambda: buffer.write("x", "text/plain", 3)) == "invalid_input"
    first = buffer.get(label="one").id
    assert buffer.write("one", "text/plain", "9", mode="append").id == first  # an append keeps the id
    assert buffer.write("one", "text/plain", "9").id != first  # a replacement is a new item
    assert buffer.clear() == 2 and len(buffer) == 0


def test_rendering_and_selection() -> None:
    rows = [{"t": "a", "n": 1, "tags": ["x"]}, {"t": "b", "n": 2}]
    assert render_item("application/json", rows, {"template": "- {{t}} ({{n}}) {{tags.0}}", "prefix": ">\n"}) == ">\n- a (1) x\n- b (2) "
    assert render_item("application/json", rows[0], {"as": "json"}) == '{"t":"a","n":1,"tags":["x"]}'
    assert render_item("application/json", "plain string") == "plain string"
    assert render_item("text/uri-list", ["https://a.test/", "https://b.test/"]) == "https://a.test/\nhttps://b.test/"
    assert select_items({"rows": rows}, {"pointer": "/rows", "where": {"t": "b"}, "index": 0}) == rows[1]
    assert code_of(lambda: select_items(rows, {"index": 5})) == "target_not_found"
    assert code_of(lambda: select_items(rows, {"pointer": "rows"})) == "invalid_input"
    assert code_of(lambda: render_item("text/plain", "x", {"as": "yaml"})) == "invalid_input"
    assert code_of(lambda: render_item("text/plain", "x", {"colour": "red"})) == "invalid_input"
