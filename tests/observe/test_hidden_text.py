"""Text a person cannot see is left out of what page_read, page_find and page_observe read (issue 41).

One fixture page, tests/fixtures/pages/page-text/hidden.html, with a case per way of hiding text: the
eleven the readers already left out (display:none, visibility:hidden, the hidden attribute, aria-hidden,
placed off the page left or above, clip, clip-path, a 1px clipping box, a box of no height, a closed
details) and the eleven they handed on (opacity 0, also an ancestor's; the background's colour;
transparent; font-size 0 and 1px; scale(0); a negative text-indent; covered by another element;
behind its box by z-index; filter: opacity(0); the alt of a 1px image), and four more (issue 51): a
clip-path of no area (circle(0), ellipse(0 0), a flat polygon, inset() past the middle), text pushed out
of an overflow: hidden (or clip) box, the alt of an image that draws nothing (a transparent picture, a
1px spacer stretched), a table row with visibility: collapse; beside them a clip-path that leaves some
area, text scrolled inside an overflow: auto box and a drawn picture's alt, which are read. Each case has HIDDEN-<n> text
(and a HIDDEN-<n> link where a click could reach one) beside SHOWN-<n> words and a SHOWN-<n> link that
must still be read. Through the MCP SDK's Client against the whole product with headless Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

CASES = 27


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return str(result.content[0].text)


async def test_hidden_text_reaches_no_reader_and_every_visible_control_does(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/page-text/hidden.html")
        read = text_of(await s.client.call_tool("page_read", {"max_bytes": 100000}))
        observed = text_of(await s.client.call_tool("page_observe", {"max_bytes": 100000}))
        links = text_of(await s.client.call_tool("page_find", {"role": "link", "max_results": 500}))
        paragraphs = text_of(await s.client.call_tool("page_find", {"role": "paragraph", "max_results": 500}))
        shown = text_of(await s.client.call_tool("page_find", {"text": "words", "max_results": 500}))
        answers = {"page_read": read, "page_observe": observed, "page_find links": links, "page_find paragraphs": paragraphs, "page_find words": shown}
        for name, answer in answers.items():
            assert "HIDDEN-" not in answer, (name, [line for line in answer.splitlines() if "HIDDEN-" in line])
        for n in range(1, CASES + 1):
            # Every visible control is read, listed and found; every visible sentence is read.
            assert re.search(rf'\[link "SHOWN-{n} link" @e\d+\]', read) and f"SHOWN-{n} words" in read, (n, read)
            assert f'link "SHOWN-{n} link"' in observed and f'link "SHOWN-{n} link"' in links, (n, observed, links)
            # Searching for the hidden words finds nothing: no snippet of them is quoted.
            hidden = text_of(await s.client.call_tool("page_find", {"text": f"HIDDEN-{n}"}))
            assert hidden == "no match", (n, hidden)
            assert f"SHOWN-{n} words" in text_of(await s.client.call_tool("page_find", {"text": f"SHOWN-{n} words"}))
        # A checkbox a page draws by its label (its own opacity 0) is still a control, named by that label.
        assert re.search(r'@e\d+ checkbox "SHOWN-box remember me"', observed), observed
        assert re.search(r'\[checkbox "SHOWN-box remember me" @e\d+\]', read), read
        # The closed details' summary is a visible control too.
        assert 'button "SHOWN-23 summary"' in observed
        # Issue 51: a clip-path that leaves some area, a box scrolled by its user and a picture drawn are still read.
        for words in ("SHOWN-24 circle words", "SHOWN-25 box words", "SHOWN-25 scrolled words", '[img "SHOWN-26 alt"]', "SHOWN-27 cell"):
            assert words in read, (words, read)
