"""A result text cut for size stays JSON (``jsonutil.fit_json``; docs/mcp-surface.md, the results' text).

A host that shows only a result's text must still parse it: the cut keeps the first items of each
list, the same share of each, then shortens long strings, and a line says what it left out.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_actions.jsonutil import fit_json
from mcp_actions.server.tools import TEXT_LIMIT, success_result

ROWS: dict[str, Any] = {
    "data": [{"name": f"Author {i}", "city": "Lisbon", "born": 1900 + i} for i in range(100)],
    "sources": [{"path": f"{i}.{key}", "ref": f"@e{i}", "text": "x" * 20} for i in range(100) for key in ("name", "city", "born")],
    "missing": [],
    "records": 100,
}


def test_a_short_value_is_its_json_and_nothing_is_said() -> None:
    assert fit_json({"a": [1, 2]}, 100) == ('{"a":[1,2]}', None)


def test_lists_keep_the_same_share_of_their_first_items_and_the_line_counts_the_rest() -> None:
    text, line = fit_json(ROWS, 4000)
    kept = json.loads(text)
    assert len(text) <= 4000 and kept["records"] == 100
    rows, sources = len(kept["data"]), len(kept["sources"])
    assert 0 < rows < 100 and kept["data"] == ROWS["data"][:rows] and abs(sources - 3 * rows) <= 3
    assert line == f"(+{100 - rows} more items in data, +{300 - sources} in sources; all in structuredContent)"


def test_a_bare_list_and_a_long_string() -> None:
    text, line = fit_json(list(range(5000)), 400)
    assert json.loads(text) == list(range(len(json.loads(text)))) and line == f"(+{5000 - len(json.loads(text))} more items; all in structuredContent)"
    text, line = fit_json({"page": "y" * 10000}, 4000)
    assert json.loads(text)["page"].startswith("yyy") and len(text) <= 4000 and line == "(1 long text cut; all in structuredContent)"


def test_the_mcp_text_is_json_and_the_line_while_structured_content_keeps_the_whole() -> None:
    result = success_result(ROWS)
    shown, line = result.content[0].text.rsplit("\n", 1)  # type: ignore[union-attr]  # a text block
    assert len(shown) <= TEXT_LIMIT and json.loads(shown)["data"][0] == ROWS["data"][0]
    assert line.endswith("; all in structuredContent)") and result.structured_content == ROWS
