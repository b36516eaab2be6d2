"""Every link to a section of the docs lands on a heading that exists.

``tests/test_doc_citations.py`` holds the package's ``docs/<page>.md, "<Heading>"``
citations. This module holds the rest of what points a reader at a section:

- Markdown links with an anchor (``[…](cli.md#the-policy)``, ``[…](#routing)``) in
  ``docs/``, the README and ``bench/README.md``: the anchor must be the slug of a
  heading of that page, as GitHub makes it (lower case, punctuation dropped, spaces
  to hyphens, ``-1``, ``-2`` for repeats);
- ``docs/<page>.md#anchor`` written in code, tests and benchmarks, the same way;
- quoted-heading citations (``docs/<page>.md, "<Heading>"``, also in brackets,
  ``docs/<page>.md (<Heading>)``, and wrapped over a comment's line break) in the
  tests, the benchmarks and the docs themselves, not only in the package.

A renamed heading leaves every such reference pointing nowhere; this fails instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import mcp_actions

ROOT = Path(mcp_actions.__file__).resolve().parents[1]
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
#: ``[text](page.md#anchor)`` or ``[text](#anchor)`` in Markdown.
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]*)#([^)\s]+)\)")
#: ``docs/page.md#anchor`` (or ``README.md#anchor``) written in code.
CODE_ANCHOR = re.compile(r"\b((?:docs/)[\w-]+\.md|README\.md)#([\w-]+)")
#: ``docs/page.md, "Heading"`` and its variants; ``docs/page.md (Heading)``.
QUOTED = re.compile(r'docs/([\w./-]+\.md)[,:]?\s+\(?["“]([^"”]+)["”]')
BRACKETED = re.compile(r"docs/([\w./-]+\.md)\s+\(([A-Z][^)\"',;:]+)\)")
#: A line break inside a comment or docstring, with the next line's comment marker.
CONTINUATION = re.compile(r"\s*\n\s*(?:#|//|\*)?\s*")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, only word characters, hyphens and spaces kept, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def page_headings(page: Path) -> list[str]:
    """The headings of a Markdown page as written (code blocks left out)."""
    return [h.strip() for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))]


def page_anchors(page: Path) -> set[str]:
    """Every anchor a page has: its headings' slugs (repeats numbered) and explicit ``<a id>``/``<a name>``."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in page_headings(page):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchors.add(base if count == 0 else f"{base}-{count}")
    anchors |= set(re.findall(r'<a (?:name|id)="([^"]+)"', page.read_text(encoding="utf-8")))
    return anchors


def markdown_pages() -> list[Path]:
    return [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "bench" / "README.md"]


def sources() -> list[Path]:
    """Code, tests and benchmarks (not the extension's generated copy of the engine: the engine's text again)."""
    found = [*ROOT.glob("mcp_actions/**/*.py"), *ROOT.glob("mcp_actions/**/*.js"), *ROOT.glob("mcp_actions/**/*.html"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/*.py")]
    own = Path(__file__).resolve()  # this module's examples are not references
    return sorted(p for p in found if (p.name != "engine.js" or "extension" not in p.parts) and p.resolve() != own)


def markdown_links(text: str) -> Iterator[tuple[str, str]]:
    """The ``(target, anchor)`` of each anchored link of a Markdown text (target empty: the page itself)."""
    for match in MARKDOWN_LINK.finditer(FENCE.sub("", text)):
        yield match.group(1), match.group(2)


def quoted_citations(text: str) -> list[tuple[str, str]]:
    """The ``(page, heading)`` pairs a text cites by the heading's words, a wrapped line joined."""
    joined = CONTINUATION.sub(" ", text)
    return [*QUOTED.findall(joined), *BRACKETED.findall(joined)]


def test_every_anchored_link_in_the_docs_lands_on_a_heading():
    missing, checked = [], 0
    for page in markdown_pages():
        for target, anchor in markdown_links(page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page
            if linked.suffix != ".md":
                continue
            checked += 1
            if not linked.is_file() or anchor not in page_anchors(linked):
                missing.append(f"{page.relative_to(ROOT)} links {target}#{anchor}")
    assert missing == []
    assert checked > 50  # the docs link sections often; seeing none would mean the pattern broke


def test_every_docs_anchor_written_in_code_lands_on_a_heading():
    # None are written today (the code cites headings by their words); one written later is held too.
    missing = []
    for source in sources():
        for page, anchor in CODE_ANCHOR.findall(source.read_text(encoding="utf-8")):
            doc = ROOT / page
            if not doc.is_file() or anchor not in page_anchors(doc):
                missing.append(f"{source.relative_to(ROOT)} cites {page}#{anchor}")
    assert missing == []


def test_every_heading_cited_by_its_words_exists():
    missing, checked = [], 0
    for source in [*sources(), *markdown_pages()]:
        for page, heading in quoted_citations(source.read_text(encoding="utf-8")):
            checked += 1
            doc = ROOT / "docs" / page
            if not doc.is_file() or heading.strip() not in page_headings(doc):
                missing.append(f'{source.relative_to(ROOT)} cites docs/{page} "{heading}"')
    assert missing == []
    assert checked > 50


def test_the_readers_see_what_the_code_writes():
    # The checks must see references, or they pass by seeing none.
    assert slug("Observe (pages with no map)") == "observe-pages-with-no-map"
    assert slug("`refs.frame_act`") == "refsframe_act"
    assert slug("Runtime → bridge") == "runtime--bridge"
    assert list(markdown_links("see [the policy](cli.md#the-policy) and [here](#routing)")) == [("cli.md", "the-policy"), ("", "routing")]
    assert CODE_ANCHOR.findall("(docs/primitives.md#locators)") == [("docs/primitives.md", "locators")]
    wrapped = '# see docs/bridge-protocol.md, "Deadlines and\n    # cancellation" for why'
    assert quoted_citations(wrapped) == [("bridge-protocol.md", "Deadlines and cancellation")]
    assert quoted_citations("docs/manifest-language.md (State projections)") == [("manifest-language.md", "State projections")]
