"""Streamlit in the real-applications bench (issue 53): a data app drawn by React over Streamlit's websocket.

Streamlit is installed from PyPI into a venv of its own under the bench's cache
(``<cache>/venv-streamlit``, never the project's venv). The bench writes the app at run time
(``_APP``): a shop's catalogue of 320 products with drawn controls (in 1.67 the slider and the
checkbox are React Aria's, a real ``<input>`` in a 1 px clipped box; the selects are Base Web's), a
canvas data grid and a view that scrolls inside Streamlit's own column (``main.stMain``,
``overflow-y: auto``), not the document:

- filters: a slider "Minimum price", a checkbox "In stock only", a selectbox "Category", and the
  line "Showing N of 320 products";
- the catalogue as ``st.dataframe`` (glide-data-grid, drawn on a canvas), sorted by SKU;
- a form "Add a product" with two text inputs and its submit button;
- "Remove a product": a text input for the SKU and a button that asks in an ``st.dialog``;
- further down, past the fold of the scrolling view, "Weekly report" settings and their button.

**The app persists what the user does to a SQLite file of its own**: the filters are saved on
every rerun (so a slider's value is saved only once the app has it), the form adds a row, the
dialog deletes one. Each task is checked there, never on the page. Every server gets a fresh
database and a fresh ``streamlit run --server.headless true`` on a free port.

Tasks run in the order below in one session per server; every task starts with
``browser_navigate`` to the app. The filters are loaded from the database when a session starts,
so a filter set by one task is what the next task's page shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from open_web_kit import Agent, TaskFailed, ref_in
from real_apps_agent import Apps, AppTask, Suite, _need, _number, _pw_click, _pw_snap
from real_apps_kit import free_port, query, serve

__all__ = ["SUITE"]

STREAMLIT = "1.67.0"

#: The catalogue's products: (sku, name, category, price, in_stock), the same for every run.
CATEGORIES = ["Kitchen", "Garden", "Office", "Tools", "Toys"]
_ADJECTIVES = ["Copper", "Oak", "Linen", "Steel", "Amber", "Cedar", "Slate", "Ivory", "Cobalt", "Maple", "Birch", "Onyx", "Coral", "Sage", "Walnut", "Pewter"]
_NOUNS = ["Kettle", "Planter", "Notebook", "Wrench", "Robot", "Lamp", "Basket", "Stapler", "Trowel", "Puzzle", "Mug", "Clock", "Shears", "Drill", "Kite", "Tray", "Vase", "Ruler", "Rake", "Yo-yo"]
PRODUCTS = [(f"P-{n:04d}", f"{_ADJECTIVES[n % 16]} {_NOUNS[(n * 7) % 20]} {n}", CATEGORIES[n % 5], 5 + (n * 37) % 490, int(n % 3 != 0)) for n in range(1, 321)]

_APP = '''
"""A shop's catalogue (written by the real-applications bench)."""
import os
import sqlite3

import pandas as pd
import streamlit as st

DB = os.environ["BENCH_STREAMLIT_DB"]
st.set_page_config(page_title="Catalogue", layout="centered")


def connect():
    return sqlite3.connect(DB)


def prefs():
    with connect() as conn:
        return dict(conn.execute("select key, value from prefs").fetchall())


def save_pref(key, value):
    with connect() as conn:
        conn.execute("insert or replace into prefs (key, value) values (?, ?)", (key, str(value)))


saved = prefs()
# A session starts with the saved filters; after that the widgets hold them.
defaults = {"min_price": int(saved.get("min_price", 0)), "in_stock": saved.get("in_stock", "0") == "1", "category": saved.get("category", "All"), "report_email": saved.get("report_email", "")}
for key, value in defaults.items():
    st.session_state.setdefault(key, value)

st.title("Catalogue")
st.write("Browse the shop's products, narrow them with the filters, add or remove products.")

st.header("Filters")
st.slider("Minimum price", min_value=0, max_value=500, step=50, key="min_price")
st.checkbox("In stock only", key="in_stock")
st.selectbox("Category", ["All", "Kitchen", "Garden", "Office", "Tools", "Toys"], key="category")
# The filters as the app has them now are saved on every run.
save_pref("min_price", st.session_state.min_price)
save_pref("in_stock", "1" if st.session_state.in_stock else "0")
save_pref("category", st.session_state.category)

with connect() as conn:
    frame = pd.read_sql_query("select sku as SKU, name as Name, category as Category, price as Price, in_stock as \\"In stock\\" from products order by sku", conn)
frame["In stock"] = frame["In stock"].astype(bool)
shown = frame[frame.Price >= st.session_state.min_price]
if st.session_state.in_stock:
    shown = shown[shown["In stock"]]
if st.session_state.category != "All":
    shown = shown[shown.Category == st.session_state.category]
st.markdown(f"Showing **{len(shown)}** of {len(frame)} products")
st.dataframe(shown, hide_index=True, width="stretch", height=420)

st.header("Add a product")
with st.form("add_product", clear_on_submit=True):
    name = st.text_input("Product name")
    price = st.text_input("Price (USD)")
    category = st.selectbox("Category of the product", ["Kitchen", "Garden", "Office", "Tools", "Toys"])
    if st.form_submit_button("Add product"):
        try:
            amount = int(float(price))
        except ValueError:
            st.error(f"The price {price!r} is not a number.")
        else:
            with connect() as conn:
                number = conn.execute("select count(*) from products").fetchone()[0] + 1000
                conn.execute("insert into products (sku, name, category, price, in_stock) values (?, ?, ?, ?, 1)", (f"P-{number:04d}", name, category, amount))
            st.success(f"Added {name} at ${amount}.")


@st.dialog("Remove a product")
def confirm_removal(sku):
    with connect() as conn:
        row = conn.execute("select name from products where sku = ?", (sku,)).fetchone()
    if row is None:
        st.write(f"There is no product {sku}.")
        return
    st.write(f"Remove {sku} {row[0]} from the catalogue? This cannot be undone.")
    if st.button("Yes, remove it"):
        with connect() as conn:
            conn.execute("delete from products where sku = ?", (sku,))
        st.session_state.removed = f"Removed {sku} {row[0]}."
        st.rerun()


st.header("Remove a product")
sku = st.text_input("SKU to remove", placeholder="P-0001")
if st.button("Remove product"):
    confirm_removal(sku.strip())
if "removed" in st.session_state:
    st.success(st.session_state.pop("removed"))

st.header("About the catalogue")
for n in range(1, 9):
    st.subheader(f"Note {n}")
    st.write(
        "Prices are in US dollars and include tax. Stock is counted every night; a product "
        "marked out of stock can still be ordered and ships when it is back. " * 2
    )

st.header("Weekly report")
st.write("A summary of the catalogue's changes is mailed every Monday.")
st.text_input("Report email", key="report_email")
if st.button("Save report settings"):
    save_pref("report_email", st.session_state.report_email)
    st.success(f"The weekly report goes to {st.session_state.report_email}.")
'''


def _venv_python(cache: Path) -> Path:
    return cache / "venv-streamlit" / "bin" / "python"


def install(cache: Path) -> dict[str, str]:
    """Streamlit at ``STREAMLIT`` in ``<cache>/venv-streamlit`` (created and pip-installed when missing); its version."""
    python = _venv_python(cache)
    if not python.exists():
        print(f"creating {python.parent.parent} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(python.parent.parent)], check=True)
    probe = [str(python), "-c", "import streamlit; print(streamlit.__version__)"]
    found = subprocess.run(probe, capture_output=True, text=True, check=False).stdout.strip()
    if found != STREAMLIT:
        print(f"pip install streamlit=={STREAMLIT} into {python.parent.parent} ...", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"streamlit=={STREAMLIT}"], check=True)
        found = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    return {"streamlit": found}


def make_db(folder: Path) -> Path:
    """The app's database: the products and the saved filters (none yet)."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "shop.sqlite3"
    db.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("create table products (sku text primary key, name text, category text, price integer, in_stock integer)")
        conn.executemany("insert into products values (?, ?, ?, ?, ?)", PRODUCTS)
        conn.execute("create table prefs (key text primary key, value text)")
        conn.commit()
    return db


@contextlib.contextmanager
def serving(cache: Path, work: Path) -> Iterator[dict[str, Any]]:
    """A fresh database and ``streamlit run`` of the app on a free loopback port."""
    db = make_db(work)
    app = work / "catalogue.py"
    app.write_text(textwrap.dedent(_APP).lstrip())
    port = free_port()
    command = [
        str(_venv_python(cache)), "-m", "streamlit", "run", str(app),
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with _env(BENCH_STREAMLIT_DB=str(db)), serve(command, work, url + "/_stcore/health", work / "streamlit.log"):
        yield {"streamlit": url, "streamlit_db": db}


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    """Environment variables for a child started inside the block (the app reads its database's path)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _db(apps: Apps) -> Path:
    db: Path = apps.more["streamlit_db"]
    return db


def _url(apps: Apps) -> str:
    url: str = apps.more["streamlit"]
    return url


def _pref(apps: Apps, key: str) -> str | None:
    rows = query(_db(apps), "select value from prefs where key = ?", key)
    return rows[0][0] if rows else None


# -- what both agents share -------------------------------------------------------------------

#: The app draws itself over its websocket after the page's load: a model looks again until it is there.
LOOKS = 6


#: The grid and the app's last control: once both are listed, the app is drawn (before, a model sees part of it and looks again).
READY_ACTIONS = (r"@e\d+ canvas", r'button "Save report settings"|more below')
READY_PLAYWRIGHT = (r'button "Search"', r"paragraph \[ref=\w+\]: Save report settings")


async def _open_actions(a: Agent, apps: Apps, ready: tuple[str, ...] = READY_ACTIONS) -> str:
    """``browser_navigate`` to the app, then ``page_observe`` until all of ``ready`` is listed (the app is drawn)."""
    await a.call("browser_navigate", {"url": _url(apps)})
    for _ in range(LOOKS):
        seen = await a.call("page_observe", {})
        if all(re.search(pattern, seen) for pattern in ready):
            return seen
        await asyncio.sleep(1)  # the model reads the answer, sees the app not drawn yet, and looks again
    raise TaskFailed(f"the app never showed {ready!r}")


async def _open_playwright(a: Agent, apps: Apps, ready: tuple[str, ...] = READY_PLAYWRIGHT) -> str:
    """``browser_navigate`` to the app, then ``browser_snapshot`` until all of ``ready`` is in it."""
    await a.call("browser_navigate", {"url": _url(apps)})
    for _ in range(LOOKS):
        seen = await _pw_snap(a)
        if all(re.search(pattern, seen) for pattern in ready):
            return seen
        await asyncio.sleep(1)
    raise TaskFailed(f"the app never showed {ready!r}")


async def _act_on(a: Agent, apps: Apps, tool: str, arguments: dict[str, Any], role: str) -> str:
    """Act by text as ``apps.act`` does; refused as ``multiple_targets`` (a control and its own label), the model takes the ``role`` from the list."""
    answer = await a.call(tool, arguments, may_fail=True)
    if answer.startswith("ERROR multiple_targets"):
        ref = _need(ref_in(answer, rf"@e\d+ {role} "), f"the {role} among {answer[:200]}")
        return await a.call(tool, {**{k: v for k, v in arguments.items() if k != "text"}, "ref": ref})
    if answer.startswith("ERROR target_not_found"):
        return await apps.act(a, tool, arguments)
    if answer.startswith("ERROR "):
        raise TaskFailed(f"{tool} {arguments}: {answer[:300]}")
    return answer


# -- the grid: a row past the first screen ------------------------------------------------------

ROW = "P-0317"


def _row_price(text: str) -> str | None:
    """The Price cell of ``ROW``'s line in a read of the grid (``| P-0317 | name | category | price | stock |``)."""
    found = re.search(rf"{ROW}\s*\|[^|\n]*\|[^|\n]*\|\s*(\d+)\s*\|", text)
    return found.group(1) if found else None


async def grid_row_actions(a: Agent, apps: Apps) -> str:
    seen = await _open_actions(a, apps)
    grid = _need(ref_in(seen, r"@e\d+ canvas"), "the grid")
    found = await a.call("page_find", {"text": ROW})
    if (price := _row_price(found)) is not None:
        return price
    # Not among the rows the grid draws: scroll the grid itself to its end, as a person turns the wheel over it.
    scrolled = apps.told("page_scroll the grid to its bottom", await a.call("page_scroll", {"ref": grid, "to": "bottom"}), r"P-03\d\d|rows 3\d\d-")
    if (price := _row_price(scrolled)) is not None:
        return price
    if (price := _row_price(await a.call("page_read", {"ref": grid}))) is not None:
        return price
    # The grid did not move: a person clicks a cell and jumps to the last row with the keyboard.
    await a.call("page_click", {"ref": grid})
    pressed = apps.told("press Control+ArrowDown in the grid (to its last row)", await a.call("page_press", {"ref": grid, "key": "Control+ArrowDown"}), r"Control\+ArrowDown", r"P-03\d\d")
    if (price := _row_price(pressed)) is not None:
        return price
    if (price := _row_price(await a.call("page_read", {"ref": grid}))) is not None:
        return price
    return _need(_row_price(await a.call("page_read", {})), f"{ROW}'s row")


#: What a model writes when the snapshot shows none of the grid's rows: scroll the grid's scrolling box to its end, read its rows.
_READ_GRID_END = """() => {
  const grid = document.querySelector('[data-testid="stDataFrame"]');
  const box = [...grid.querySelectorAll('*')].find(e => e.scrollHeight > e.clientHeight + 10);
  box.scrollTop = box.scrollHeight;
  return new Promise(done => setTimeout(() => done([...grid.querySelectorAll('tr')].map(r => '| ' + [...r.children].map(c => c.innerText.trim()).join(' | ') + ' |').join('\\n')), 500));
}"""


async def grid_row_playwright(a: Agent, apps: Apps) -> str:
    await _open_playwright(a, apps)
    # The snapshot shows the grid's toolbar and none of its rows (drawn on a canvas), and gives no ref to
    # scroll it by: the model reads the grid with a script (not a screenshot: it could not read row 317 there).
    read = await a.call("browser_evaluate", {"function": _READ_GRID_END})
    return _need(_row_price(read), f"{ROW}'s row")


def grid_row_check(apps: Apps, answer: str) -> tuple[bool, str]:
    rows = query(_db(apps), "select price from products where sku = ?", ROW)
    price = rows[0][0] if rows else None
    return answer == str(price), f"answered {answer}, database {price}"


# -- the slider, the checkbox, the select --------------------------------------------------------

PRICE, STEP = 250, 50
SHOWING = r"Showing \**(\d+)\**\s*of"


async def slider_actions(a: Agent, apps: Apps) -> str:
    seen = await _open_actions(a, apps)
    slider = ref_in(seen, r'slider "Minimum price') or ref_in(await a.call("page_find", {"role": "slider"}), r"slider")
    slider = _need(slider, "the slider Minimum price")
    filled = apps.told(f"page_fill the slider Minimum price with {PRICE}", await a.call("page_fill", {"ref": slider, "value": str(PRICE)}), rf"{PRICE}", SHOWING)
    if re.search(SHOWING, filled):
        return filled
    # The answer says the value but not the app's answer to it (the count of products): the model looks.
    count = await a.call("page_find", {"text": "Showing"})
    every = re.search(r"Showing \**(\d+)\**\s*of (\d+)", count)
    if every is None or every.group(1) == every.group(2):
        # The app still shows every product: it has not taken the value. A person nudges the thumb with the keys.
        apps.told("press ArrowRight on the slider", await a.call("page_press", {"ref": slider, "key": "ArrowRight"}), SHOWING)
        return apps.told("press ArrowLeft on the slider", await a.call("page_press", {"ref": slider, "key": "ArrowLeft"}), rf"{PRICE}", SHOWING)
    return count


def _slider_value(snapshot: str) -> int | None:
    found = re.search(r'slider "Minimum price[^"]*" \[ref=\w+\][^:\n]*: "(\d+)"', snapshot)
    return int(found.group(1)) if found else None


async def slider_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    clicked = await a.call("browser_click", {"element": "Minimum price slider", "target": _need(ref_in(text, r'slider "Minimum price'), "the slider")}, may_fail=True)
    if clicked.startswith("ERROR "):
        # Its thumb is covered (the click times out): the model clicks the slider's group, which holds the track.
        await _pw_click(a, text, r'group "Minimum price"', "Minimum price")
    text = await _pw_snap(a)
    value = _slider_value(text)
    if value is None:
        raise TaskFailed("no value on the slider's line")
    key = "ArrowRight" if value < PRICE else "ArrowLeft"
    for _ in range(abs(PRICE - value) // STEP):
        await a.call("browser_press_key", {"key": key})
    return await _pw_snap(a)


def slider_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    saved = _pref(apps, "min_price")
    return saved == str(PRICE), f"saved min_price={saved}"


async def stock_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    return apps.told("click In stock only", await _act_on(a, apps, "page_click", {"text": "In stock only"}, "checkbox"), r'checkbox "In stock only" checked', SHOWING)


async def stock_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    clicked = await a.call("browser_click", {"element": "In stock only", "target": _need(ref_in(text, r'checkbox "In stock only"'), "the checkbox")}, may_fail=True)
    if not clicked.startswith("ERROR "):
        return clicked
    # Its box is covered (the click times out): the model clicks the words beside it.
    return await _pw_click(a, text, r"paragraph \[ref=\w+\]: In stock only", "In stock only")


def stock_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    saved = _pref(apps, "in_stock")
    return saved == "1", f"saved in_stock={saved}"


CATEGORY = "Garden"


async def category_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    opened = await _act_on(a, apps, "page_click", {"text": "Category"}, "combobox")
    apps.told("click the Category select (its options open)", opened, rf'option "{CATEGORY}"')
    return apps.told(f"click the option {CATEGORY}", await apps.act(a, "page_click", {"text": CATEGORY}), rf'combobox "Category" = "{CATEGORY}"', SHOWING)


async def category_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    await _pw_click(a, text, r'combobox "Category"', "Category")
    text = await _pw_snap(a)
    return await _pw_click(a, text, rf'option "{CATEGORY}"', CATEGORY)


def category_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    saved = _pref(apps, "category")
    return saved == CATEGORY, f"saved category={saved}"


# -- how many the filters show -------------------------------------------------------------------


async def count_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    found = await a.call("page_find", {"text": "Showing"})
    with contextlib.suppress(TaskFailed):
        return _number(SHOWING, found)
    return _number(SHOWING, await a.call("page_read", {}))


async def count_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    return _number(r'Showing\s*\n\s*- strong \[ref=\w+\]: "(\d+)"', text)


def count_check(apps: Apps, answer: str) -> tuple[bool, str]:
    """The products the saved filters let through, counted in the database."""
    low = int(_pref(apps, "min_price") or 0)
    stock = _pref(apps, "in_stock") == "1"
    category = _pref(apps, "category") or "All"
    sql = "select count(*) from products where price >= ?" + (" and in_stock = 1" if stock else "") + (" and category = ?" if category != "All" else "")
    count = query(_db(apps), sql, low, *([category] if category != "All" else []))[0][0]
    return answer == str(count), f"answered {answer}, database {count} (min_price {low}, in stock {stock}, {category})"


# -- the form, the dialog, past the fold -----------------------------------------------------------

NEW_NAME, NEW_PRICE = "Harbour Lamp", "42"


async def add_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    steps = [
        {"tool": "page_fill", "arguments": {"text": "Product name", "value": NEW_NAME}},
        {"tool": "page_fill", "arguments": {"text": "Price (USD)", "value": NEW_PRICE}},
        {"tool": "page_click", "arguments": {"text": "Add product"}},
    ]
    return apps.told("fill the form, click Add product", await a.call("page_act", {"steps": steps}), rf"Added {NEW_NAME} at \${NEW_PRICE}")


async def add_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    fields = [
        {"name": "Product name", "type": "textbox", "target": _need(ref_in(text, r'textbox "Product name"'), "Product name"), "value": NEW_NAME},
        {"name": "Price (USD)", "type": "textbox", "target": _need(ref_in(text, r'textbox "Price \(USD\)"'), "Price (USD)"), "value": NEW_PRICE},
    ]
    await a.call("browser_fill_form", {"fields": fields})
    return await a.call("browser_click", {"element": "Add product", "target": _need(_button_paragraph(text, "Add product"), "Add product")})


def add_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(_db(apps), "select price from products where name = ?", NEW_NAME)
    return [r[0] for r in rows] == [int(NEW_PRICE)], f"{NEW_NAME!r} rows: {rows}"


GONE_SKU = "P-0042"


async def remove_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    await apps.act(a, "page_fill", {"text": "SKU to remove", "value": GONE_SKU})
    asked = apps.told("click Remove product (a dialog asks)", await apps.act(a, "page_click", {"text": "Remove product"}), rf"dialog opened|Remove {GONE_SKU}")
    for _ in range(3):
        if re.search(r"Yes, remove it", asked):
            break
        # Neither the answer nor the page shows the dialog yet: the model reads the page again. (A second click on
        # "Remove product" would land on the dialog's backdrop once it opens, and close it.)
        await asyncio.sleep(1)
        asked = await a.call("page_read", {})
    return apps.told("click Yes, remove it", await apps.act(a, "page_click", {"text": "Yes, remove it"}), rf"Removed {GONE_SKU}")


def _button_paragraph(text: str, words: str) -> str | None:
    """The peer's ref of a Streamlit button, whose words are a paragraph inside a nameless ``button``."""
    found = re.search(rf"button \[ref=(\w+)\][^\n]*\n\s*- paragraph \[ref=\w+\]: {re.escape(words)}", text)
    return found.group(1) if found else ref_in(text, rf'button "{re.escape(words)}"')


async def remove_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    await a.call("browser_type", {"element": "SKU to remove", "target": _need(ref_in(text, r'textbox "SKU to remove"'), "SKU to remove"), "text": GONE_SKU})
    await a.call("browser_click", {"element": "Remove product", "target": _need(_button_paragraph(text, "Remove product"), "Remove product")})
    text = await _pw_snap(a)
    return await a.call("browser_click", {"element": "Yes, remove it", "target": _need(_button_paragraph(text, "Yes, remove it"), "Yes, remove it")})


def remove_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    left = query(_db(apps), "select count(*) from products where sku = ?", GONE_SKU)[0][0]
    others = query(_db(apps), "select count(*) from products where sku like 'P-0%'")[0][0]
    return left == 0 and others == len(PRODUCTS) - 1, f"{GONE_SKU} rows: {left}, catalogue rows: {others}"


EMAIL = "ops@example.com"


async def report_actions(a: Agent, apps: Apps) -> str:
    await _open_actions(a, apps)
    steps = [{"tool": "page_fill", "arguments": {"text": "Report email", "value": EMAIL}}, {"tool": "page_click", "arguments": {"text": "Save report settings"}}]
    return apps.told("fill Report email, click Save report settings (past the fold of the app's view)", await a.call("page_act", {"steps": steps}), rf"weekly report goes to {re.escape(EMAIL)}")


async def report_playwright(a: Agent, apps: Apps) -> str:
    text = await _open_playwright(a, apps)
    await a.call("browser_type", {"element": "Report email", "target": _need(ref_in(text, r'textbox "Report email"'), "Report email"), "text": EMAIL})
    return await a.call("browser_click", {"element": "Save report settings", "target": _need(_button_paragraph(text, "Save report settings"), "Save report settings")})


def report_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    saved = _pref(apps, "report_email")
    return saved == EMAIL, f"saved report_email={saved}"


TASKS = [
    AppTask("streamlit-grid-row", f"read the price of {ROW}, row 317 of the canvas data grid (past its first screen)", grid_row_playwright, grid_row_actions, grid_row_check),
    AppTask("streamlit-slider", f"set the slider 'Minimum price' to {PRICE}, taken by the app", slider_playwright, slider_actions, slider_check),
    AppTask("streamlit-stock", "tick the checkbox 'In stock only'", stock_playwright, stock_actions, stock_check),
    AppTask("streamlit-category", f"choose {CATEGORY!r} in the select 'Category'", category_playwright, category_actions, category_check),
    AppTask("streamlit-count", "how many products do the filters show", count_playwright, count_actions, count_check),
    AppTask("streamlit-add", f"add the product {NEW_NAME!r} at ${NEW_PRICE} with the form", add_playwright, add_actions, add_check),
    AppTask("streamlit-remove", f"remove {GONE_SKU} through the confirmation dialog", remove_playwright, remove_actions, remove_check),
    AppTask("streamlit-report", f"set the weekly report's email to {EMAIL}, past the fold of the app's scrolling view", report_playwright, report_actions, report_check),
]

SUITE = Suite("streamlit", TASKS, install, serving)
