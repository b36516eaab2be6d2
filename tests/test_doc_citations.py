"""Code that cites a section of the docs names one that exists.

Modules point readers at the reference with ``docs/<page>.md, "<Heading>"``
(or ``docs/<page>.md "<Heading>"``, ``docs/<page>.md: "<Heading>"``). A heading
renamed or never written leaves the reader nowhere, so every such citation in
the package's Python and JavaScript must match a heading of that page.
"""

from __future__ import annotations

import re
from pathlib import Path

import mcp_actions

ROOT = Path(mcp_actions.__file__).resolve().parents[1]
PACKAGE = ROOT / "mcp_actions"
#: ``docs/page.md`` then an optional comma or colon, then a quoted heading.
CITATION = re.compile(r'docs/([\w./-]+\.md)[,:]?\s+"([^"\n]+)"')
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def citations(text: str) -> list[tuple[str, str]]:
    """The ``(page, heading)`` pairs a source text cites."""
    return [(page, heading) for page, heading in CITATION.findall(text)]


def headings(page: Path) -> set[str]:
    """The headings of a Markdown page, as written (backticks and all)."""
    return {match.strip() for match in HEADING.findall(page.read_text(encoding="utf-8"))}


def test_every_cited_docs_heading_exists():
    missing = []
    for source in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.js")]):
        for page, heading in citations(source.read_text(encoding="utf-8")):
            doc = ROOT / "docs" / page
            if not doc.is_file() or heading not in headings(doc):
                missing.append(f"{source.relative_to(ROOT)} cites docs/{page} \"{heading}\"")
    assert missing == []


def test_the_citation_pattern_reads_the_forms_the_code_uses():
    # The check itself must see citations, or it passes by seeing none.
    assert citations('see docs/bridge-protocol.md, "Call messages"') == [("bridge-protocol.md", "Call messages")]
    assert citations('(docs/bridge-protocol.md "Runtime configuration")') == [("bridge-protocol.md", "Runtime configuration")]
    assert citations('docs/bridge-protocol.md: "Call messages"') == [("bridge-protocol.md", "Call messages")]
