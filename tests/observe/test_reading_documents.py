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
        # A term says its definition's first words (bench py-glossary-eafp at b5e9e08: `@e1 term "EAFP" in: Glossary`,
        # and its read `- EAFP`; the agent read the glossary part by part, 9.6x the peer's bytes).
        assert re.fullmatch(r"@e\d+ term \"EAFP\" in: Glossary › Easier to ask for forgiveness than permission\. .*", first), found
        term = await text_of(s, "page_read", {"ref": first.split()[0]})
        assert term.startswith("- EAFP\n  Easier to ask for forgiveness than permission. This style assumes") and "Look before" not in term, term
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
        assert re.fullmatch(r'@e\d+ term "max_connections \(integer\)" in: 20\.3\.1\. Connection Settings › Determines the maximum number .*', lines[1]), term
        await s.navigate(f"{pages_url}/manuals/python-functions.html")
        links = (await text_of(s, "page_find", {"text": "round()", "role": "link"})).splitlines()
        # The index table's link says its row; the three in round()'s own text say its term, once, with every ref.
        assert re.fullmatch(r'@e\d+ link "round\(\)" in: Built-in Functions › B bytes\(\) R round\(\)', links[0]), links
        assert re.fullmatch(r'@e\d+ link "round\(\)" in: Built-in Functions › round\(number, ndigits=None\) \(also @e\d+ @e\d+\)', links[1]), links


async def test_page_find_says_what_a_match_is_and_the_best_first(pages_url: str) -> None:
    """bench/README at b5e9e08, "Every task where we lose": a term found without its definition (pg-work-mem,
    pg-max-connections, pg-glossary-vacuum), a Sphinx table cell (<td><p>) called a paragraph and a list item's
    context repeating its own text (py-strftime-table), 14 copy buttons matched by their code's text after the
    answer (py-argparse-prog, 2,958 B), and a plain <div>'s text not found at all (MiniWoB's "Last reward")."""
    async with product() as s:
        await s.navigate(f"{pages_url}/manuals/postgres-numeric.html")
        work_mem = (await text_of(s, "page_find", {"text": "work_mem"})).splitlines()
        # The first sentence, then the one that says the default.
        assert re.fullmatch(r'@e\d+ term "work_mem \(integer\)" in: 20\.4\.1\. Memory › Sets the base maximum amount of memory .*The default value is four megabytes \(4MB\)\..*', work_mem[0]), work_mem
        connections = await text_of(s, "page_find", {"text": "max_connections"})
        assert re.search(r'term "max_connections \(integer\)" in: 20\.3\.1\. Connection Settings › Determines the maximum number .* The default is typically 100 connections\.', connections), connections
        vacuum = (await text_of(s, "page_find", {"text": "Vacuum"})).splitlines()
        assert re.fullmatch(r'@e\d+ term "Vacuum" in: Appendix M\. Glossary › The process of removing outdated tuple versions from tables .*', vacuum[0]), vacuum
        read = await text_of(s, "page_read", {"ref": work_mem[0].split()[0]})
        assert read.startswith("- work_mem (integer)\n  Sets the base maximum") and "Hash-based operations" in read and "shared_buffers" not in read, read
        bigint = (await text_of(s, "page_find", {"text": "bigint"})).splitlines()
        assert bigint[0].startswith("@e") and " bigint " in bigint[0], bigint
        await s.navigate(f"{pages_url}/manuals/python-datetime.html")
        codes = (await text_of(s, "page_find", {"text": "%j"})).splitlines()
        # The cell says its row; the note says its words once (no context that repeats them).
        assert re.fullmatch(r'@e\d+ cell "%j" in: strftime\(\) and strptime\(\) Format Codes › %j Day of the year as a zero-padded decimal number\. 001, 002, …, 366 \(9\)', codes[0]), codes
        assert re.fullmatch(r'@e\d+ paragraph "…[^"]*%j, %U, %W, and %V\. Format %y does require a leading zero\." in: Technical Detail', codes[1]), codes
        await s.navigate(f"{pages_url}/manuals/python-argparse.html")
        prog = (await text_of(s, "page_find", {"text": "prog"})).splitlines()
        # Exact matches, then two partial ones at most, and how many there were.
        assert len(prog) == 5 and prog[-1] == "(4 of 5; raise max_results or narrow with text, role or name)", prog
        # Matched by their own words first; the copy buttons, matched by their code's, after them and said once.
        prog = (await text_of(s, "page_find", {"text": "prog", "max_results": 50})).splitlines()
        buttons = [line for line in prog if "Hide the prompts and output" in line]
        assert len(buttons) == 1 and buttons[0].endswith("(+5 more like it)") and prog[-1] == buttons[0], prog
        assert any(re.match(r'@e\d+ link "prog"( #prog)? in: ArgumentParser objects › prog - The name of the program \(default: os\.path\.basename\(sys\.argv\[0\]\)\)', line) for line in prog), prog
        await s.navigate(f"{pages_url}/read/reward.html")
        assert re.fullmatch(r'@e\d+ \w+ "Last reward: -1\.00"', await text_of(s, "page_find", {"text": "Last reward"}))
        assert re.fullmatch(r'@e\d+ \w+ "Last 10 average: -0\.20"', await text_of(s, "page_find", {"text": "10 average"}))
