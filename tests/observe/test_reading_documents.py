"""page_read and page_find on documents written by others: sentences stay whole, every structure is read (issue 44).

Fixtures (tests/fixtures/pages/manuals/) follow the markup of the Python 3.11 and PostgreSQL 15 manuals as
Debian's python3.11-doc and postgresql-doc-15 ship them: Sphinx signatures of <em class="sig-param">s, inline
<code class="docutils literal">, heading permalinks (¶), the glossary's <dl class="glossary">, DocBook's
<div class="note"> and <div class="table">. Driven through the MCP SDK's Client in headless Chromium.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import Session, product

pytestmark = pytest.mark.browser


async def text_of(s: Session, tool: str, arguments: dict[str, object]) -> str:
    result = await s.client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_inline_code_emphasis_and_links_stay_inside_their_sentence(pages_url: str) -> None:
    """The round() paragraph of library/functions.html is one line (it read `both / - round(0.5) / and / - round(-0.5)
    / are / - 0` at 5735e83, each <code> an item of a look-alike run), and each signature is one line (`- class
    bytes(` / `- source` / `- ,`)."""
    async with product() as s:
        await s.navigate(f"{pages_url}/manuals/python-functions.html")
        text = await text_of(s, "page_read", {"max_bytes": 100_000})
        lines = text.splitlines()
        sentence = next(line for line in lines if "round(0.5)" in line)
        assert "both round(0.5) and round(-0.5) are 0, and round(1.5) is 2)." in sentence, text
        assert re.search(r'See also \[link "EAFP" @e\d+ /glossary\.html#term-EAFP\] and \[link "PEP 8" @e\d+ https://peps\.python\.org/pep-0008/\]\.', sentence), sentence
        assert "- class bytes(source=b'')" in lines and "- class bytes(source, encoding, errors)" in lines, text
        assert "- round(number, ndigits=None)" in lines, text
        # A definition's lines sit under its term.
        assert lines[lines.index("- round(number, ndigits=None)") + 1].startswith("  Return number rounded to ndigits precision"), text
        assert "¶" not in text and "\n- 0\n" not in text and "\n- source\n" not in text


async def test_definition_lists_figures_captions_and_asides_are_read(pages_url: str) -> None:
    """The glossary's terms are read, each with its definition under it (at 5735e83 the <dt> terms were read as
    look-alike items only while the list was short, and a term was never found); a figure's caption says it is
    one, and an aside says where it ends."""
    async with product() as s:
        await s.navigate(f"{pages_url}/manuals/python-glossary.html")
        text = await text_of(s, "page_read", {})
        assert "\n- EAFP\n  Easier to ask for forgiveness than permission." in text, text
        assert "\n- LBYL\n  Look before you leap." in text, text
        found = await text_of(s, "page_find", {"text": "EAFP"})
        first = found.splitlines()[0]
        assert re.fullmatch(r"@e\d+ term \"EAFP\"( in: Glossary)?", first), found
        # A link inside a definition says the term it is defined under.
        assert re.search(r'link "EAFP" in: Glossary › (duck-typing|LBYL)', found), found
        await s.navigate(f"{pages_url}/manuals/python-functions.html")
        text = await text_of(s, "page_read", {"max_bytes": 100_000})
        assert '[img "Rounding half to even"]\n[caption] Halves go to the even neighbour: round(2.5) is 2.' in text, text
        assert "[complementary]\nFloating point\nMost decimal fractions cannot be represented exactly as a float.\n[/complementary]\nThe functions below are rarely needed." in text, text


async def test_page_find_says_a_whole_context_from_the_right_section(pages_url: str) -> None:
    """At 5735e83 the context was cut mid-word at the answer (`prog - The name of the program (default:
    os.path.basename(sy`), a table row after a note said `in: Note`, a term was dropped for an exact link
    ("max_connections"), and look-alike matches were said once each."""
    async with product() as s:
        await s.navigate(f"{pages_url}/manuals/python-argparse.html")
        found = await text_of(s, "page_find", {"text": "default: os.path"})
        assert found == "@e1 link \"prog\" #prog in: ArgumentParser objects › prog - The name of the program (default: os.path.basename(sys.argv[0]))" or found.endswith(
            "in: ArgumentParser objects › prog - The name of the program (default: os.path.basename(sys.argv[0]))"
        ), found
        await s.navigate(f"{pages_url}/manuals/postgres-numeric.html")
        row = await text_of(s, "page_find", {"text": "bigint", "role": "row"})
        assert re.fullmatch(r'@e\d+ row "bigint 8 bytes -9223372036854775808 to \+9223372036854775807" in: Numeric Types', row), row
        term = await text_of(s, "page_find", {"text": "max_connections"})
        lines = term.splitlines()
        # The exact match (the link) first, then the term that defines it, partial.
        assert re.fullmatch(r'@e\d+ link "max_connections" in: 20\.3\.1\. Connection Settings › reserved_connections \(integer\)', lines[0]), term
        assert re.fullmatch(r'@e\d+ term "max_connections \(integer\)" in: 20\.3\.1\. Connection Settings', lines[1]), term
        await s.navigate(f"{pages_url}/manuals/python-functions.html")
        links = (await text_of(s, "page_find", {"text": "round()", "role": "link"})).splitlines()
        # The index table's link says its row; the three in round()'s own text say its term, once, with every ref.
        assert re.fullmatch(r'@e\d+ link "round\(\)" in: Built-in Functions › B bytes\(\) R round\(\)', links[0]), links
        assert re.fullmatch(r'@e\d+ link "round\(\)" in: Built-in Functions › round\(number, ndigits=None\) \(also @e\d+ @e\d+\)', links[1]), links
