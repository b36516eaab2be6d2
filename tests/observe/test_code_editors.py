"""Rich text and code editors are textboxes (issue 52, item 4; contract §6): CodeMirror 5 and 6, Monaco, Ace
and a contenteditable rich-text box are listed by page_observe and page_read, found by page_find {role:
"textbox"} and by their label, and page_fill replaces their whole content, read back; a fill refused on what
holds an editor names the editor.

Fixtures: tests/fixtures/pages/editors/, one page per editor and a page following Datasette's SQL form (a
CodeMirror 5 box made from a labelled textarea, prefilled). The editors are the published npm packages,
installed once per run by tests/npm_cache.py and served next to the pages by this module's one server.
Driven through the MCP SDK's Client in headless Chromium; the page runtime (no real keys) through the
service as tests/observe/page_hosts.py runs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import Browser

from tests.conftest import PAGES
from tests.npm_cache import npm_package, serving_with_packages
from tests.protocols.conftest import Session, product

from .page_hosts import hosted

pytestmark = pytest.mark.browser

#: /npm/<alias>/ on the server: the package directory (CodeMirror 6: its whole node_modules tree, for the import map).
PACKAGES = {
    "codemirror5": ("codemirror@5.65.18", False),
    "cm6": ("codemirror@6.0.1", True),
    "monaco": ("monaco-editor@0.45.0", False),  # types through a hidden textarea
    "monaco-edit-context": ("monaco-editor@0.58.0", False),  # through an EditContext div (and an IME textarea)
    "ace": ("ace-builds@1.36.5", False),
}

#: page, the editor's name, what it holds, what page_fill puts in, and how the page's own editor object reads it.
EDITORS = [
    ("codemirror5.html", "Script", "line one line two", "echo ready", "window.cm.getValue()"),
    ("codemirror6.html", "Stylesheet", "a { color: red }", "body { margin: 0 }", "window.view.state.doc.toString()"),
    ("monaco.html", "Program", "let x = 1;", "const y = 2;", "window.editor.getValue()"),
    ("monaco-edit-context.html", "Program", "let x = 1;", "const y = 2;", "window.editor.getValue()"),
    ("ace.html", "Template", "Hello {name}", "Dear {title}", "window.editor.getValue()"),
    ("richtext.html", "Body", "Old draft", "Fresh words", "document.querySelector('.ProseMirror').innerText.trim()"),
]


@pytest.fixture(scope="module")
def editors_url() -> Iterator[str]:
    """One server for the module: the fixture pages and the editors they load."""
    packages = {}
    for alias, (spec, tree) in PACKAGES.items():
        directory = npm_package(spec)
        packages[alias] = directory.parent if tree else directory
    with serving_with_packages(PAGES, packages, mount="/npm/") as base:
        yield f"{base}/editors"


async def _open(s: Session, url: str) -> None:
    await s.navigate(url)
    page = s.tab().page
    await page.wait_for_function("() => !!document.querySelector('.CodeMirror-line, .cm-line, .view-line, .ace_line, .ProseMirror')", polling=100)


async def _text(s: Session, tool: str, arguments: dict[str, object]) -> str:
    result = await s.client.call_tool(tool, arguments)
    text = result.content[0].text
    assert not result.is_error, text
    return text


async def test_every_editor_is_a_textbox_listed_found_and_filled(editors_url: str) -> None:
    """At 9e0c4a1 page_observe listed none of the code editors, page_find {role: textbox} answered No match,
    and page_fill by the editor's name answered target_not_found (Monaco's hidden textarea was listed as
    `textbox "Editor content;Press Alt+F1 …"`)."""
    async with product() as s:
        for page, name, old, new, reader in EDITORS:
            await _open(s, f"{editors_url}/{page}")
            listing = await _text(s, "page_observe", {})
            field = re.search(rf'(@e\d+) textbox "{re.escape(name)}"', listing)
            assert field is not None, (page, listing)
            assert "Editor content" not in listing and listing.count(" textbox ") == 1, (page, listing)
            read = await _text(s, "page_read", {})
            # page_read marks a rich-text editor's formatting (issue 53): the draft's <strong> is **draft**.
            said = "Old **draft**" if page == "richtext.html" else old
            assert re.search(rf'\[textbox "{re.escape(name)}" @e\d+ = "{re.escape(said)}"', read), (page, read)
            found = await _text(s, "page_find", {"role": "textbox"})
            assert f'{field.group(1)} textbox "{name}"' in found, (page, found)
            by_label = await _text(s, "page_find", {"text": name})
            assert field.group(1) in by_label, (page, by_label)
            filled = await _text(s, "page_fill", {"text": name, "value": new})
            assert filled.startswith(f'filled {field.group(1)} textbox "{name}"'), (page, filled)
            # The editor's hidden input is never said as a field of its own in the change report.
            assert filled.count("textbox") == 1, (page, filled)
            assert await s.tab().page.evaluate(reader) == new, page
        # What the editor made of the text is read back and said: Monaco indents the line and closes the brace.
        await _open(s, f"{editors_url}/monaco.html")
        typed = await _text(s, "page_fill", {"text": "Program", "value": "if (x) {\nfoo()"})
        assert typed.splitlines()[0] == 'filled @e1 textbox "Program" (the editor now holds "if (x) {\\n    foo()\\n}")', typed
        assert await s.tab().page.evaluate("window.editor.getValue()") == "if (x) {\n    foo()\n}"


async def test_the_sql_box_of_a_datasette_page_is_replaced_and_named(editors_url: str) -> None:
    """Datasette's SQL form: a CodeMirror 5 box made from `<textarea id=sql-editor>` with `<label for>`. At
    9e0c4a1 it was not listed, page_fill on the paragraph holding it answered target_not_editable without
    naming it, and text typed into it went before `select * from facetable`."""
    async with product() as s:
        await _open(s, f"{editors_url}/datasette-sql.html")
        listing = await _text(s, "page_observe", {})
        box = re.search(r'(@e\d+) textbox "SQL" = "select \* from facetable"', listing)
        assert box is not None, listing
        # What holds the editor (a ref page_find gives for a locator) is refused, naming the editor.
        holder = await _text(s, "page_find", {"locator": {"selector": "form.sql p"}})
        holder_ref = re.search(r"@e\d+", holder)
        assert holder_ref is not None, holder
        refused = await s.client.call_tool("page_fill", {"ref": holder_ref.group(0), "value": "select 1"})
        assert refused.is_error and f'the field there is {box.group(1)} textbox "SQL"' in refused.content[0].text, refused.content
        # Any part of the editor is the editor: a drawn line, found by a locator.
        line = await _text(s, "page_find", {"locator": {"selector": ".CodeMirror-line"}})
        line_ref = re.search(r"@e\d+", line)
        assert line_ref is not None, line
        query = "select state from facetable where pk = 2"
        filled = await _text(s, "page_fill", {"ref": line_ref.group(0), "value": query})
        assert filled.startswith("filled "), filled
        assert await s.tab().page.evaluate("window.cm.getValue()") == query
        # The form posts what the editor holds (CodeMirror keeps its textarea in step on submit).
        await s.tab().page.evaluate("window.cm.save()")
        assert await s.tab().page.evaluate("document.getElementById('sql-editor').value") == query
        filled = await _text(s, "page_fill", {"text": "SQL", "value": "select count(*) from facetable"})
        assert filled.startswith(f'filled {box.group(1)} textbox "SQL"'), filled
        assert await s.tab().page.evaluate("window.cm.getValue()") == "select count(*) from facetable"
        # Keys pressed on the editor go to it, where its caret is (after the text typed), wherever the focus was.
        await _text(s, "page_click", {"text": "Format SQL"})
        await _text(s, "page_press", {"ref": box.group(1), "key": "Backspace"})
        assert await s.tab().page.evaluate("window.cm.getValue()") == "select count(*) from facetabl"


@pytest.mark.asyncio(loop_scope="module")
async def test_the_page_runtime_fills_the_editors_it_can_and_says_which_it_cannot(chromium: Browser, editors_url: str) -> None:
    """The page runtimes (bookmarklet, extension) have no real keys: CodeMirror 5 and Ace take the text through
    their own editor object, CodeMirror 6 through its content, and Monaco is refused by name, never left as it
    was behind a "filled". Before, each was target_not_found (none was a field)."""
    for page, name, _old, new, reader in EDITORS:
        async with hosted("page", chromium) as host:
            tab = await host.open(f"{editors_url}/{page}")
            await tab.wait_for_function("() => document.body.dataset.ready === '1' || !!document.querySelector('.CodeMirror-line, .ProseMirror')", polling=100)
            if page.startswith("monaco"):
                with pytest.raises(Exception, match="this monaco editor takes text only from real keys"):
                    await host.call("page_fill", {"text": name, "value": new})
                continue
            filled = await host.call("page_fill", {"text": name, "value": new})
            assert filled.splitlines()[0] == f'filled @e1 textbox "{name}"', (page, filled)
            assert await tab.evaluate(reader) == new, page
