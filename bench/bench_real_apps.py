"""Real applications nobody here wrote: Django's admin and Datasette, through mcp-actions and @playwright/mcp (issue 52).

The applications are installed from PyPI into a venv of the bench's own under a cache folder
outside the repository (``real_apps_kit.py``: Django 5.2.20, Datasette 0.65.5), set up at run
time and served on loopback:

- Django's admin, with a tiny app made by the bench (``library``: authors and books, admin
  registration, ``makemigrations``/``migrate``, a superuser, the users "maria" and "tom"),
  served by Django's own ``runserver``;
- Datasette serving a SQLite database the bench makes (``facetable``, faceted by state).

Each server gets the applications fresh (Django's database copied back from the seeded one)
and runs every task in order in **one session**, as a model would over a conversation. Every
task starts with ``browser_navigate`` to its start page and is counted on its own: calls, bytes
the model read (``bench_peers.result_bytes``: every text item plus the compact JSON of
``structuredContent``), time (first call sent to last answer read). The browser is up before
(an untimed ``browser_list_tabs`` / ``browser_tabs list``).

- mcp-actions: ``mcp-actions serve --browser-path /usr/bin/chromium --headless``, its default
  options otherwise, with ``HOME`` (so its data directory and browser profile) in a folder of the
  run, so no earlier run's cookies or learned maps are loaded;
- @playwright/mcp 0.0.83 as ``bench_peers.py`` starts it (``--headless --isolated
  --executable-path``), installed from npm into ``--peers-dir``.

The scripted agents decide from the answers' text alone: a ref comes from the last answer
(ours: ``page_find``/``page_observe`` lines or acting by the text a person reads; the peer's:
a snapshot), an answer the task asks for (a count) from what the tools said. **Success is
checked in the application's own database** (``sqlite3`` reads of Django's ``db.sqlite3`` and
Datasette's database), never on the page: a row added, changed or deleted, or the count the
agent answered equal to the database's.

Our answers to the steps that change something (a save, a delete, a toggle, a popup opened or
closed, a choice) are kept whole and judged against what happened: an answer that says ``no
visible change`` where something changed, or that leaves out the consequence the step had (a
navigation, the tab that opened or closed, the box's new state, the application's message), is
listed as misleading, quoted.

Command: ``.venv/bin/python bench/bench_real_apps.py`` (``--only django-login django-staff``,
``--servers mcp-actions``, ``--runs 1``). Results: ``bench/results/real-apps-<date>-<commit>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_peers
from bench_open_web import _report, commit, write
from mcp import Client, StdioServerParameters
from open_web_kit import ROOT, Agent, TaskFailed, ref_in
from real_apps_agent import Apps, AppTask, Suite, _need, _number, _pw_click, _pw_open, _pw_snap
from real_apps_kit import ADMIN, DEFAULT_CACHE, apps_python, datasette_command, django_command, free_port, make_datasette, make_django, query, serve
from real_apps_streamlit import SUITE as STREAMLIT
from real_apps_wagtail import SUITE as WAGTAIL

__all__ = ["TASKS", "main"]

PEER = "@playwright/mcp"
PEER_VERSION = "0.0.83"


def _user_link(name: str) -> str:
    return rf'link "{name}"'


# -- Django admin -----------------------------------------------------------------------------


def _django_user(apps: Apps, name: str) -> tuple[Any, ...]:
    rows = query(apps.django_db, "select id, is_staff, last_login from auth_user where username = ?", name)
    return rows[0] if rows else ()


async def login_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/")
    fields = [
        {"name": "Username", "type": "textbox", "target": _need(ref_in(text, r'textbox "Username'), "Username"), "value": ADMIN[0]},
        {"name": "Password", "type": "textbox", "target": _need(ref_in(text, r'textbox "Password'), "Password"), "value": ADMIN[1]},
    ]
    await a.call("browser_fill_form", {"fields": fields})
    return await _pw_click(a, text, r'button "Log in"', "Log in")


async def login_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/"})
    await a.call("page_find", {"role": "textbox"})
    steps = [{"tool": "page_fill", "arguments": {"text": "Username", "value": ADMIN[0]}}, {"tool": "page_fill", "arguments": {"text": "Password", "value": ADMIN[1]}}, {"tool": "page_click", "arguments": {"text": "Log in"}}]
    return apps.told("fill the login form, click Log in", await a.call("page_act", {"steps": steps}), r'navigated to "Site administration')


def login_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    user = _django_user(apps, ADMIN[0])
    sessions = query(apps.django_db, "select count(*) from django_session")[0][0]
    return bool(user and user[2] and sessions), f"last_login={user[2] if user else None}, sessions={sessions}"


NEW_AUTHOR = "Grace Hopper"


async def add_author_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/library/author/add/")
    await a.call("browser_type", {"element": "Name", "target": _need(ref_in(text, r'textbox "Name'), "Name"), "text": NEW_AUTHOR})
    return await _pw_click(a, text, r'button "Save" \[', "Save")


async def add_author_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/library/author/add/"})
    await a.call("page_find", {"role": "textbox"})
    steps = [{"tool": "page_fill", "arguments": {"text": "Name", "value": NEW_AUTHOR}}, {"tool": "page_click", "arguments": {"text": "Save"}}]
    return apps.told("fill Name, click Save", await a.call("page_act", {"steps": steps}), r"navigated to", r"message: .*was added successfully")


def add_author_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(apps.django_db, "select id from library_author where name = ?", NEW_AUTHOR)
    return bool(rows), f"{NEW_AUTHOR!r} rows: {len(rows)}"


async def _pw_open_user(a: Agent, apps: Apps, name: str) -> str:
    text = await _pw_open(a, apps.django + "/admin/auth/user/")
    await _pw_click(a, text, _user_link(name), name)
    return await _pw_snap(a)


async def staff_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open_user(a, apps, "maria")
    await _pw_click(a, text, r'checkbox "Staff status"', "Staff status")
    return await _pw_click(a, text, r'button "Save" \[', "Save")


async def staff_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/auth/user/"})
    await apps.act(a, "page_click", {"text": "maria"})
    apps.told("click Staff status", await apps.act(a, "page_click", {"text": "Staff status"}), r'checkbox "Staff status" checked')
    return apps.told("click Save", await apps.act(a, "page_click", {"text": "Save"}), r"navigated to", r"message: .*was changed successfully")


def staff_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    user = _django_user(apps, "maria")
    return bool(user and user[1] == 1), f"maria.is_staff={user[1] if user else None}"


GONE = "Boris Petrov"


async def delete_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/library/author/")
    await _pw_click(a, text, rf'link "{GONE}"', GONE)
    text = await _pw_snap(a)
    await _pw_click(a, text, r'link "Delete"', "Delete")
    text = await _pw_snap(a)
    return await _pw_click(a, text, r"button \"Yes, I.m sure\"", "Yes, I'm sure")


async def delete_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/library/author/"})
    await apps.act(a, "page_click", {"text": GONE})
    apps.told("click Delete (link to the confirmation page)", await apps.act(a, "page_click", {"text": "Delete"}), r"navigated to .*/delete/")
    # The button's words have a typographic apostrophe: the model takes its ref from a find.
    sure = _need(ref_in(await a.call("page_find", {"text": "sure", "role": "button"}), r"sure"), "Yes, I'm sure")
    return apps.told("click Yes, I'm sure", await a.call("page_click", {"ref": sure}), r"navigated to", r"message: .*deleted successfully")


def delete_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    authors = query(apps.django_db, "select count(*) from library_author where name = ?", GONE)[0][0]
    orphans = query(apps.django_db, "select count(*) from library_book where title like 'Volga Stories %'")[0][0]
    return authors == 0 and orphans == 0, f"{GONE!r} rows: {authors}, his books left: {orphans}"


GROUP = "Editors"


def _tab_index(text: str, pattern: str) -> int | None:
    """The index of the tab in the peer's "Open tabs" list whose line matches ``pattern``."""
    for line in text.splitlines():
        found = re.match(r"- (\d+):", line.strip())
        if found and re.search(pattern, line):
            return int(found.group(1))
    return None


async def popup_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open_user(a, apps, "maria")
    opened = await _pw_click(a, text, r'link "Add another group"', "Add another group")
    popup = _tab_index(opened, r"_popup=1|Add group")
    if popup is None:  # the answer did not list the new tab: ask for the tabs
        popup = _tab_index(await a.call("browser_tabs", {"action": "list"}), r"_popup=1|Add group")
    if popup is None:
        raise TaskFailed("no popup among the tabs")
    await a.call("browser_tabs", {"action": "select", "index": popup})
    text = await _pw_snap(a)
    await a.call("browser_type", {"element": "Name", "target": _need(ref_in(text, r'textbox "Name'), "Name"), "text": GROUP})
    await _pw_click(a, text, r'button "Save" \[', "Save (popup)")
    text = await _pw_snap(a)  # the popup closed itself: the user's form is current again
    return await _pw_click(a, text, r'button "Save" \[', "Save")


async def popup_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/auth/user/"})
    await apps.act(a, "page_click", {"text": "maria"})
    opened = apps.told("click + (Add another group): a popup window opens", await apps.act(a, "page_click", {"text": "Add another group"}), r"opened tab \d+ .*\(now active\)")
    if not re.search(r"opened tab \d+ .*\(now active\)", opened):
        # Not told of the popup: the model looks for it among the tabs and brings it to the front.
        tabs = await a.call("browser_list_tabs", {})
        popup = re.search(r"^tab (\d+): .*_popup=1", tabs, re.MULTILINE)
        if popup is None:
            raise TaskFailed(f"no popup among the tabs: {tabs[:300]}")
        if not re.search(r"_popup=1.*\(active", tabs):
            await a.call("browser_activate_tab", {"tab_id": int(popup.group(1))})
    await apps.act(a, "page_fill", {"text": "Name", "value": GROUP})
    apps.told("click Save in the popup: it saves and closes itself", await apps.act(a, "page_click", {"text": "Save"}), r"tab \d+ closed; active: tab \d+")
    return apps.told("click Save on the user's form", await apps.act(a, "page_click", {"text": "Save"}), r"navigated to", r"message: .*was changed successfully")


def popup_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(apps.django_db, "select u.username from auth_group g join auth_user_groups ug on ug.group_id = g.id join auth_user u on u.id = ug.user_id where g.name = ?", GROUP)
    groups = query(apps.django_db, "select count(*) from auth_group where name = ?", GROUP)[0][0]
    return [r[0] for r in rows] == ["maria"], f"{GROUP!r} groups: {groups}, members: {[r[0] for r in rows]}"


FILTERED = "Chen Wei"
BOOKS = r"\b(\d+) books?\b"


async def filter_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/library/book/")
    await _pw_click(a, text, rf'link "{FILTERED}"', FILTERED)
    text = await _pw_snap(a)
    return _number(BOOKS, text)


async def filter_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/library/book/"})
    clicked = apps.told(f"click the filter {FILTERED!r}", await apps.act(a, "page_click", {"text": FILTERED}), r"navigated to")
    with contextlib.suppress(TaskFailed):
        return _number(BOOKS, clicked)
    return _number(BOOKS, await a.call("page_read", {}))


def filter_check(apps: Apps, answer: str) -> tuple[bool, str]:
    count = query(apps.django_db, "select count(*) from library_book b join library_author a on a.id = b.author_id where a.name = ?", FILTERED)[0][0]
    return answer == str(count), f"answered {answer}, database {count}"


NEW_BOOK, BOOK_AUTHOR = "Harbour Lights", "Ada Castillo"


async def add_book_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/library/book/add/")
    fields = [
        {"name": "Title", "type": "textbox", "target": _need(ref_in(text, r'textbox "Title'), "Title"), "value": NEW_BOOK},
        {"name": "Author", "type": "combobox", "target": _need(ref_in(text, r'combobox "Author'), "Author"), "value": BOOK_AUTHOR},
    ]
    await a.call("browser_fill_form", {"fields": fields})
    return await _pw_click(a, text, r'button "Save" \[', "Save")


async def add_book_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/library/book/add/"})
    await a.call("page_find", {"role": "textbox"})
    steps = [
        {"tool": "page_fill", "arguments": {"text": "Title", "value": NEW_BOOK}},
        {"tool": "page_select", "arguments": {"text": "Author", "values": [BOOK_AUTHOR]}},
        {"tool": "page_click", "arguments": {"text": "Save"}},
    ]
    return apps.told("fill Title, choose the Author, click Save", await a.call("page_act", {"steps": steps}), rf'selected \["{BOOK_AUTHOR}"\]', r"navigated to", r"message: .*was added successfully")


def add_book_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(apps.django_db, "select a.name from library_book b join library_author a on a.id = b.author_id where b.title = ?", NEW_BOOK)
    return [r[0] for r in rows] == [BOOK_AUTHOR], f"{NEW_BOOK!r} by {[r[0] for r in rows]}"


BULK_AUTHOR = "Dora Mendes"
BULK_TITLES = ["Open Windows", "Lisbon at Noon"]


async def bulk_delete_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.django + "/admin/library/book/")
    for title in BULK_TITLES:
        await _pw_click(a, text, rf'checkbox "[^"]*{title}"', f"select {title}")
    action = _need(ref_in(text, r'combobox "Action'), "the Action select")
    await a.call("browser_select_option", {"element": "Action", "target": action, "values": ["Delete selected books"]})
    await _pw_click(a, text, r'button "Go"', "Go")
    text = await _pw_snap(a)
    return await _pw_click(a, text, r"button \"Yes, I.m sure\"", "Yes, I'm sure")


async def bulk_delete_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.django + "/admin/library/book/"})
    found = await a.call("page_find", {"text": BULK_AUTHOR, "role": "checkbox"})
    boxes = re.findall(r"^(@e\d+) checkbox", found, re.MULTILINE)
    if len(boxes) != len(BULK_TITLES):
        raise TaskFailed(f"page_find gave {len(boxes)} row checkboxes for {BULK_AUTHOR}: {found[:300]}")
    steps = [
        *({"tool": "page_click", "arguments": {"ref": ref}} for ref in boxes),
        {"tool": "page_select", "arguments": {"text": "Action", "values": ["Delete selected books"]}},
        {"tool": "page_click", "arguments": {"text": "Go"}},
    ]
    apps.told("tick the two rows, choose the action, click Go", await a.call("page_act", {"steps": steps}), r'selected \["Delete selected books"\]', r"navigated to")
    sure = _need(ref_in(await a.call("page_find", {"text": "sure", "role": "button"}), r"sure"), "Yes, I'm sure")
    return apps.told("click Yes, I'm sure (2 books)", await a.call("page_click", {"ref": sure}), r"navigated to", r"message: .*[Dd]eleted 2 books")


def bulk_delete_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    left = query(apps.django_db, f"select count(*) from library_book where title in ({', '.join('?' for _ in BULK_TITLES)})", *BULK_TITLES)[0][0]
    others = query(apps.django_db, "select count(*) from library_book b join library_author a on a.id = b.author_id where a.name = ?", FILTERED)[0][0]
    return left == 0 and others == 4, f"{BULK_AUTHOR}'s books left: {left}, {FILTERED}'s books: {others}"


# -- Datasette --------------------------------------------------------------------------------

SQL = "select count(*) as ca_rows from facetable where state = 'CA' and _neighborhood like '%o%'"
CA_ROWS = "ca_rows"


def _result_cell(text: str) -> str:
    """The first number after the result's column header (the last "ca_rows": the query's text says it first)."""
    at = text.rfind(CA_ROWS)
    found = re.search(r"\b(\d+)\b", text[at + len(CA_ROWS) :]) if at >= 0 else None
    if found is None:
        raise TaskFailed("no result under ca_rows")
    return found.group(1)


async def sql_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.datasette + "/bench/facetable")
    await _pw_click(a, text, r'link "[^"]*View and edit SQL', "View and edit SQL")
    text = await _pw_snap(a)
    box = _need(ref_in(text, r"- textbox \["), "the SQL box")
    # The editor's text box is CodeMirror's hidden textarea (a click on it times out): the model clicks
    # the query's text beside it, selects it all and types over it.
    code = re.search(r"- textbox \[ref=[^\]]+\]\n\s*- generic \[ref=([^\]]+)\]", text)
    await a.call("browser_click", {"element": "SQL editor's text", "target": _need(code.group(1) if code else None, "the editor's text")})
    await a.call("browser_press_key", {"key": "Control+a"})
    await a.call("browser_type", {"element": "SQL editor", "target": box, "text": SQL})
    await _pw_click(a, text, r'button "Run SQL"', "Run SQL")
    return _result_cell(await _pw_snap(a))


async def sql_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.datasette + "/bench/facetable"})
    await apps.act(a, "page_click", {"text": "View and edit SQL"})
    box = _need(ref_in(await a.call("page_find", {"role": "textbox"}), r"textbox"), "the SQL box")
    filled = await a.call("page_fill", {"ref": box, "value": SQL}, may_fail=True)
    if filled.startswith("ERROR target_not_visible"):
        # Datasette turns its textarea into CodeMirror on the window's load, after the click's answer
        # said where it landed: the box found first was the textarea the editor then hid. Find it again.
        box = _need(ref_in(await a.call("page_find", {"role": "textbox"}), r"textbox"), "the SQL box")
        filled = await a.call("page_fill", {"ref": box, "value": SQL})
    apps.told("fill the SQL box (CodeMirror)", filled, r"filled @e\d+")
    apps.told("click Run SQL", await apps.act(a, "page_click", {"text": "Run SQL"}), r"navigated to")
    return _result_cell(await a.call("page_read", {}))


def sql_check(apps: Apps, answer: str) -> tuple[bool, str]:
    count = query(apps.datasette_db, SQL)[0][0]
    return answer == str(count), f"answered {answer}, database {count}"


FACET = "MI"
FACET_ROWS = rf'(\d+) rows? where state = \\?"?{FACET}\b'


async def facet_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.datasette + "/bench/facetable")
    clicked = await _pw_click(a, text, rf'link "{FACET}"', FACET)
    with contextlib.suppress(TaskFailed):
        return _number(FACET_ROWS, clicked)
    return _number(FACET_ROWS, await _pw_snap(a))


async def facet_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.datasette + "/bench/facetable"})
    clicked = apps.told(f"click the facet value {FACET!r}", await apps.act(a, "page_click", {"text": FACET}), r"navigated to")
    with contextlib.suppress(TaskFailed):
        return _number(FACET_ROWS, clicked)
    return _number(FACET_ROWS, await a.call("page_read", {}))


def facet_check(apps: Apps, answer: str) -> tuple[bool, str]:
    count = query(apps.datasette_db, "select count(*) from facetable where state = ?", FACET)[0][0]
    return answer == str(count), f"answered {answer}, database {count}"


WORD = "town"
WORD_ROWS = rf"(\d+) rows? where _neighborhood contains \\?\"?{WORD}"


def _filter_refs(text: str, combobox: str, textbox: str) -> tuple[str, str, str]:
    """The filter row's column and operator selects and its value box: the first two comboboxes, the next text box."""
    refs: list[str] = []
    for line in text.splitlines():
        wanted = combobox if len(refs) < 2 else textbox
        if re.search(wanted, line):
            ref = ref_in(line, ".")
            if ref:
                refs.append(ref)
        if len(refs) == 3:
            return refs[0], refs[1], refs[2]
    raise TaskFailed(f"no filter row (found {refs})")


async def filter_form_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, apps.datasette + "/bench/facetable")
    column, op, value = _filter_refs(text, r"- combobox", r"- textbox")
    fields = [
        {"name": "column", "type": "combobox", "target": column, "value": "_neighborhood"},
        {"name": "operator", "type": "combobox", "target": op, "value": "contains"},
        {"name": "value", "type": "textbox", "target": value, "value": WORD},
    ]
    await a.call("browser_fill_form", {"fields": fields})
    clicked = await _pw_click(a, text, r'button "Apply"', "Apply")
    with contextlib.suppress(TaskFailed):
        return _number(WORD_ROWS, clicked)
    return _number(WORD_ROWS, await _pw_snap(a))


async def filter_form_actions(a: Agent, apps: Apps) -> str:
    await a.call("browser_navigate", {"url": apps.datasette + "/bench/facetable"})
    column, op, value = _filter_refs(await a.call("page_observe", {}), r"@e\d+ combobox", r"@e\d+ textbox")
    steps = [
        {"tool": "page_select", "arguments": {"ref": column, "values": ["_neighborhood"]}},
        {"tool": "page_select", "arguments": {"ref": op, "values": ["contains"]}},
        {"tool": "page_fill", "arguments": {"ref": value, "value": WORD}},
        {"tool": "page_click", "arguments": {"text": "Apply"}},
    ]
    applied = apps.told("choose the column and operator, fill the value, click Apply", await a.call("page_act", {"steps": steps}), r'selected \["_neighborhood"\]', r'selected \["contains"\]', r"navigated to")
    with contextlib.suppress(TaskFailed):
        return _number(WORD_ROWS, applied)
    return _number(WORD_ROWS, await a.call("page_read", {}))


def filter_form_check(apps: Apps, answer: str) -> tuple[bool, str]:
    count = query(apps.datasette_db, "select count(*) from facetable where _neighborhood like ?", f"%{WORD}%")[0][0]
    return answer == str(count), f"answered {answer}, database {count}"


TASKS = [
    AppTask("django-login", "log in to Django's admin", login_playwright, login_actions, login_check),
    AppTask("django-add-author", f"add the author {NEW_AUTHOR!r}", add_author_playwright, add_author_actions, add_author_check),
    AppTask("django-staff", "give the user maria staff status (a checkbox) and save", staff_playwright, staff_actions, staff_check),
    AppTask("django-delete", f"delete the author {GONE!r} (and his 9 books) through the confirmation page", delete_playwright, delete_actions, delete_check),
    AppTask("django-popup-group", f"add a group {GROUP!r} through the '+' popup of maria's form, save her", popup_playwright, popup_actions, popup_check),
    AppTask("django-filter", f"filter the books by the author {FILTERED!r}: how many are there", filter_playwright, filter_actions, filter_check),
    AppTask("django-add-book", f"add the book {NEW_BOOK!r} by {BOOK_AUTHOR!r} (a select)", add_book_playwright, add_book_actions, add_book_check),
    AppTask("django-bulk-delete", f"delete {BULK_AUTHOR}'s two books with the list's action 'Delete selected books' and its confirmation", bulk_delete_playwright, bulk_delete_actions, bulk_delete_check),
    AppTask("datasette-sql", "run a SQL query in the CodeMirror SQL box: how many CA rows have an 'o' in their neighbourhood", sql_playwright, sql_actions, sql_check),
    AppTask("datasette-filter-form", f"filter facetable with the filter row (_neighborhood contains {WORD!r}): how many rows", filter_form_playwright, filter_form_actions, filter_form_check),
    AppTask("datasette-facet", f"filter facetable by the state facet's {FACET!r}: how many rows", facet_playwright, facet_actions, facet_check),
]

#: The other applications, each in a module of its own (``real_apps_<app>.py``), run after the tasks above.
SUITES: list[Suite] = [WAGTAIL, STREAMLIT]


# -- sessions ---------------------------------------------------------------------------------


def _actions_params(browser: str, home: Path) -> StdioServerParameters:
    """``mcp-actions serve`` as a host starts it: default options but the browser's path and headless; a home of its own."""
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "USER", "TMPDIR")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"), PYTHONPATH=str(ROOT))
    script = Path(sys.executable).parent / "mcp-actions"
    command, args = (str(script), ["serve"]) if script.exists() else (sys.executable, ["-m", "mcp_actions", "serve"])
    return StdioServerParameters(command=command, args=[*args, "--browser-path", browser, "--headless"], env=env, cwd=str(home))


@contextlib.asynccontextmanager
async def session(server: str, args: argparse.Namespace, work: Path) -> AsyncIterator[Agent]:
    await bench_peers.wait_for_quiet(args.browser_path)
    if server == "mcp-actions":
        params = _actions_params(args.browser_path, work / f"home-{time.monotonic_ns()}")
    else:
        params = bench_peers.server_params("playwright-mcp", args.peers_dir, args.browser_path, work, work / "unused.json")
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        await client.list_tools()
        # Untimed: the browser starts (ours launches it with the first call that needs it).
        if server == "playwright-mcp":
            await client.call_tool("browser_tabs", {"action": "list"})
        else:
            await client.call_tool("browser_list_tabs", {})
            await bench_peers.wait_for_runtime(client)
        yield Agent(client, server)


def install_peer(peers_dir: Path) -> str:
    """@playwright/mcp at the pinned version into ``peers_dir`` (kept when already there)."""
    import subprocess

    package = peers_dir / "node_modules" / "@playwright" / "mcp" / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != PEER_VERSION:
        peers_dir.mkdir(parents=True, exist_ok=True)
        print(f"installing {PEER}@{PEER_VERSION} into {peers_dir} ...", file=sys.stderr)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(peers_dir), f"{PEER}@{PEER_VERSION}"], check=True, stdout=subprocess.DEVNULL)
    version: str = json.loads(package.read_text())["version"]
    return version


@dataclass
class TaskRun:
    task: str
    server: str
    run: int
    ok: bool = False
    answer: str | None = None
    check: str = ""
    error: str | None = None
    calls: int = 0
    bytes_to_model: int = 0
    task_ms: float = 0.0
    call_log: list[dict[str, Any]] = field(default_factory=list)


async def run_server(server: str, tasks: list[AppTask], apps: Apps, args: argparse.Namespace, work: Path, repeat: int) -> list[TaskRun]:
    """Every task in order in one session of ``server``."""
    runs = []
    apps.server = server
    async with session(server, args, work) as agent:
        for task in tasks:
            apps.task = task.name
            run = TaskRun(task.name, server, repeat)
            calls, size, logged = agent.calls, agent.bytes_to_model, len(agent.log)
            script = task.playwright if server == "playwright-mcp" else task.actions
            started = time.perf_counter()
            answer = ""
            try:
                answer = await asyncio.wait_for(script(agent, apps), timeout=120)
                run.answer = answer[:300]
            except (TaskFailed, TimeoutError) as exc:
                run.error = str(exc) or type(exc).__name__
            run.task_ms = (time.perf_counter() - started) * 1000
            run.calls, run.bytes_to_model, run.call_log = agent.calls - calls, agent.bytes_to_model - size, agent.log[logged:]
            await asyncio.sleep(0.3)  # a POST's last writes land before the database is read
            run.ok, run.check = task.check(apps, answer)
            if not run.ok and run.error is None:
                run.error = f"database: {run.check}"
            runs.append(run)
            if args.show_calls:
                for entry in run.call_log:
                    print(f"    {entry['tool']} {json.dumps(entry['args'])[:160]} -> {entry['answer'][:300]!r}", file=sys.stderr)
            status = "ok" if run.ok else "FAILED: " + (run.error or "")[:200]
            print(f"{task.name:20} {server:15} run={repeat} calls={run.calls:2} bytes={run.bytes_to_model:>8,} task={run.task_ms:6.0f} ms {status} [{run.check}]", file=sys.stderr)
    return runs


async def run_all(args: argparse.Namespace) -> int:
    python, app_versions = apps_python(args.cache)
    versions: dict[str, str] = {**app_versions}
    suites = [suite for suite in SUITES if any(not args.only or t.name in args.only for t in suite.tasks)]
    for suite in suites:
        versions.update(suite.install(args.cache))
    if "playwright-mcp" in args.servers:
        versions["playwright-mcp"] = install_peer(args.peers_dir)
    head = commit()
    tasks = [t for t in [*TASKS, *(t for suite in suites for t in suite.tasks)] if not args.only or t.name in args.only]
    runs: list[TaskRun] = []
    said: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-real-apps-") as tmp:
        work = Path(tmp)
        project = make_django(python, work)
        db, metadata = make_datasette(work)
        django_port, datasette_port = free_port(), free_port()
        django, datasette = f"http://127.0.0.1:{django_port}", f"http://127.0.0.1:{datasette_port}"
        with serve(datasette_command(python, db, metadata, datasette_port), work, datasette + "/-/versions.json", work / "datasette.log"):
            for repeat in range(1, args.runs + 1):
                for server in args.servers:
                    shutil.copyfile(project / "pristine.sqlite3", project / "db.sqlite3")  # the same rows for every server
                    with contextlib.ExitStack() as served:
                        served.enter_context(serve(django_command(python, project, django_port), project, django + "/admin/login/", work / "django.log"))
                        apps = Apps(django, project / "db.sqlite3", datasette, db)
                        for suite in suites:  # each suite's application fresh for each server
                            apps.more.update(served.enter_context(suite.serving(args.cache, work / suite.name)))
                        runs += await run_server(server, tasks, apps, args, work, repeat)
                        said += apps.said
    rows = summarise(runs)
    misled = [s for s in said if s["misled"]]
    report = _report(
        head,
        load_before,
        versions,
        rows,
        runs,
        tasks=[{"name": t.name, "goal": t.goal} for t in tasks],
        servers={"mcp-actions": "mcp-actions serve --browser-path /usr/bin/chromium --headless (default options otherwise, HOME of the run)", "playwright-mcp": "playwright-mcp --headless --isolated --executable-path /usr/bin/chromium"},
        consequential_answers=said,
        misleading=misled,
    )
    write(report, "real-apps" + ("-only" if args.only else ""), args.no_save)
    print(markdown(rows))
    print()
    print(answers_markdown(said))
    return 0 if all(r.ok for r in runs) and not misled else 1


# -- report -----------------------------------------------------------------------------------


def summarise(runs: list[TaskRun]) -> list[dict[str, Any]]:
    """Per task and server, then the totals: successes, medians of the successful runs, ratios against the peer."""
    rows: list[dict[str, Any]] = []
    keys = list(dict.fromkeys((r.task, r.server) for r in runs))
    for task, server in keys:
        group = [r for r in runs if (r.task, r.server) == (task, server)]
        good = [r for r in group if r.ok]
        row: dict[str, Any] = {"task": task, "server": server, "runs": len(group), "ok": len(good), "errors": [r.error for r in group if not r.ok]}
        if good:
            row.update(calls=statistics.median(r.calls for r in good), bytes_to_model=statistics.median(r.bytes_to_model for r in good), task_ms=round(statistics.median(r.task_ms for r in good), 1))
        rows.append(row)
    for server in dict.fromkeys(r.server for r in runs):
        mine = [r for r in rows if r["server"] == server and r["task"] != "total"]
        total: dict[str, Any] = {"task": "total", "server": server, "runs": sum(r["runs"] for r in mine), "ok": sum(r["ok"] for r in mine)}
        # The totals are over the tasks both servers did (medians summed), so they compare.
        both = [r for r in mine if r.get("calls") is not None and all(p.get("calls") is not None for p in rows if p["task"] == r["task"])]
        total.update(tasks_in_total=len(both), calls=sum(r["calls"] for r in both), bytes_to_model=sum(r["bytes_to_model"] for r in both), task_ms=round(sum(r["task_ms"] for r in both), 1))
        rows.append(total)
    for row in rows:
        peer = next((p for p in rows if p["task"] == row["task"] and p["server"] == "playwright-mcp" and p.get("calls")), None)
        if row["server"] == "mcp-actions" and peer and row.get("calls") is not None:
            row["vs_playwright"] = {key: round(row[key] / peer[key], 3) for key in ("calls", "bytes_to_model", "task_ms")}
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| task | server | success | calls | bytes to the model | time |", "|---|---|---:|---:|---:|---:|"]
    for row in rows:
        name = f"**{row['task']}**" if row["task"] == "total" else row["task"]
        if row.get("calls") is None:
            lines.append(f"| {name} | {row['server']} | {row['ok']}/{row['runs']} | | | failed: {(row['errors'] or [''])[0][:120]} |")
            continue
        ratio = row.get("vs_playwright")
        calls = f"{row['calls']:g}" + (f" = {ratio['calls']:.2f}×" if ratio else "")
        size = f"{row['bytes_to_model']:,.0f} B" + (f" = {ratio['bytes_to_model']:.2f}×" if ratio else "")
        timing = f"{row['task_ms'] / 1000:.2f} s" + (f" = {ratio['task_ms']:.2f}×" if ratio else "")
        lines.append(f"| {name} | {row['server']} | {row['ok']}/{row['runs']} | {calls} | {size} | {timing} |")
    return "\n".join(lines)


def answers_markdown(said: list[dict[str, Any]]) -> str:
    """Our answers to the consequential steps, per step over the runs: how often told, and each different misleading answer quoted."""
    lines = ["Our answers to the steps that changed something (over all runs):", ""]
    steps = list(dict.fromkeys((e["task"], e["step"]) for e in said))
    for task, step in steps:
        group = [e for e in said if (e["task"], e["step"]) == (task, step)]
        told = sum(not e["misled"] for e in group)
        lines.append(f"- {task} / {step}: told {told} of {len(group)}")
        shown: dict[tuple[str, str], int] = {}
        for entry in [e for e in group if not e["misled"]][:1] + [e for e in group if e["misled"]]:
            verdict = "told" if not entry["misled"] else ("FALSE (no visible change)" if entry["no_visible_change"] else "MISLEADING, left out: " + ", ".join(entry["missing"]))
            quoted = re.sub(r"http://127\.0\.0\.1:\d+", "…", entry["answer"].strip()).replace("\n", " ⏎ ")
            shown[(verdict, quoted)] = shown.get((verdict, quoted), 0) + 1
        for (verdict, quoted), times in shown.items():
            lines.append(f"  - {verdict}{f' (×{times})' if times > 1 else ''}: `{quoted[:400]}`")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--servers", nargs="+", default=["playwright-mcp", "mcp-actions"], choices=["playwright-mcp", "mcp-actions"])
    parser.add_argument("--only", nargs="+", help="only these tasks (django-login is needed before the other Django tasks)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the applications' venv lives here (outside the repository)")
    parser.add_argument("--peers-dir", type=Path, default=DEFAULT_CACHE.parent / "peers", help=f"where {PEER}@{PEER_VERSION} is installed from npm and kept")
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--show-calls", action="store_true", help="print every call and the start of its answer")
    args = parser.parse_args()
    return asyncio.run(run_all(args))


if __name__ == "__main__":
    raise SystemExit(main())
