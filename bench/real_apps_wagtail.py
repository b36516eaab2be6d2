"""Wagtail, the content management system, as a suite of ``bench_real_apps.py`` (issues 52 and 53).

Wagtail (``WAGTAIL``, from PyPI, with the Django it requires) is installed into a venv of its own
under the bench's cache (``<cache>/venv-wagtail``), never the project's venv. For each server a
project is made at run time with ``wagtail start`` and a few files written over it:

- ``home/models.py``: the home page and a ``BlogPage`` with a rich-text ``body`` (Draftail) and a
  ``related`` page chosen through Wagtail's page chooser modal; a site setting ``BannerSettings``
  (a checkbox, under Settings);
- a seed: the superuser, a handful of named pages under Home, and 30 "Seaside Walk" pages, so the
  Home's listing of child pages (36 rows) runs past the fold of the admin's scrolling panel. The
  page the scroll task opens ("Old Pier Notes", a draft) is the oldest edited, so the listing
  (most recently edited first) puts it last.

It is served by Django's ``runserver`` on a free loopback port, its database copied back from the
seeded one (``pristine.sqlite3``) before each server, and every task is checked in that database
(``wagtailcore_page``, ``wagtailcore_revision``, ``home_blogpage``, ``home_bannersettings``), never
on the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from open_web_kit import Agent, TaskFailed, ref_in
from real_apps_agent import Apps, AppTask, Suite, _need, _number, _pw_click, _pw_open, _pw_snap
from real_apps_kit import ADMIN, free_port, query, serve

__all__ = ["SUITE", "TASKS"]

#: What is installed into the suite's venv (Wagtail 8.0 runs on Python 3.11 with Django 5.2).
WAGTAIL = {"wagtail": "8.0.1"}

_MODELS = """
from django.db import models
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.settings.models import BaseSiteSetting, register_setting
from wagtail.fields import RichTextField
from wagtail.models import Page


class HomePage(Page):
    pass


class BlogPage(Page):
    body = RichTextField(blank=True, features=["bold", "italic", "link"])
    related = models.ForeignKey("wagtailcore.Page", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    content_panels = Page.content_panels + [FieldPanel("body"), FieldPanel("related")]


@register_setting
class BannerSettings(BaseSiteSetting):
    show_banner = models.BooleanField("Show banner", default=False)
    banner_text = models.CharField(max_length=100, blank=True)
"""

_SETTINGS = """
INSTALLED_APPS += ["wagtail.contrib.settings"]
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
WAGTAILADMIN_BASE_URL = "http://127.0.0.1"
# Cookies are per host, not port: Django's admin of the same run is on 127.0.0.1 too.
SESSION_COOKIE_NAME = "wagtail_sessionid"
CSRF_COOKIE_NAME = "wagtail_csrftoken"
# Wagtail 8 autosaves an edited page every half second: a save or publish can meet an autosave's
# write, and SQLite's default 5 s wait for the lock is too short on a busy machine.
DATABASES["default"]["OPTIONS"] = {"timeout": 30}
"""

#: The pages under Home besides the 30 "Seaside Walk" ones (all published but "Old Pier Notes").
NAMED = ["Harbour Guide", "Lighthouse Tours", "Ferry Timetable", "Winter Market", "Fish Auction", "Lantern Festival", "Lantern Museum", "Lantern Repair Shop"]
SEASIDE = [f"Seaside Walk {n:02d}" for n in range(1, 31)]
PAST_FOLD = "Old Pier Notes"

_SEED = """
import json, os
from django.contrib.auth.models import User
from wagtail.models import Page
from home.models import BlogPage
admin_name, admin_password, named, seaside, past_fold = json.loads(os.environ["BENCH_SEED"])
User.objects.create_superuser(admin_name, "admin@example.com", admin_password)
home = Page.objects.get(depth=2).specific
# The oldest edited first: the listing (most recently edited first) shows it last.
old = home.add_child(instance=BlogPage(title=past_fold, live=False, body="<p>Notes about the old pier.</p>"))
old.save_revision()
for title in [*seaside, *named]:
    page = home.add_child(instance=BlogPage(title=title, body=f"<p>About {title}.</p>"))
    page.save_revision().publish()
"""


def install(cache: Path) -> dict[str, str]:
    """Wagtail at its pin in ``<cache>/venv-wagtail`` (created and pip-installed when missing); the versions."""
    venv = cache / "venv-wagtail"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = "import json, django, wagtail; print(json.dumps({'wagtail': wagtail.__version__, 'django': django.get_version()}))"
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=False)
    versions = json.loads(found.stdout) if found.returncode == 0 else {}
    if versions.get("wagtail") != WAGTAIL["wagtail"]:
        print(f"pip install wagtail=={WAGTAIL['wagtail']} into {venv} ...", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"wagtail=={WAGTAIL['wagtail']}"], check=True)
        versions = json.loads(subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout)
    return {"wagtail": versions["wagtail"], "wagtail's django": versions["django"]}


def make_wagtail(cache: Path, work: Path) -> Path:
    """``wagtail start`` a project in ``work``, write the models and settings over it, migrate and seed; its folder."""
    python = cache / "venv-wagtail" / "bin" / "python"
    project = work / "wagtail"
    project.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python.parent / "wagtail"), "start", "benchcms", str(project)], check=True, stdout=subprocess.DEVNULL)
    (project / "home" / "models.py").write_text(textwrap.dedent(_MODELS).lstrip())
    with (project / "benchcms" / "settings" / "dev.py").open("a") as settings:
        settings.write(_SETTINGS)
    (project / "seed.py").write_text(textwrap.dedent(_SEED).lstrip())
    env = {**os.environ, "BENCH_SEED": json.dumps([*ADMIN, NAMED, SEASIDE, PAST_FOLD]), "DJANGO_SETTINGS_MODULE": "benchcms.settings.dev"}
    for command in (["makemigrations", "home"], ["migrate"], ["shell", "-c", "exec(open('seed.py').read())"]):
        subprocess.run([str(python), "manage.py", *command], cwd=project, env=env, check=True, stdout=subprocess.DEVNULL)
    shutil.copyfile(project / "db.sqlite3", project / "pristine.sqlite3")
    return project


@contextlib.contextmanager
def serving(cache: Path, work: Path) -> Iterator[dict[str, Any]]:
    """The project (made once per run, its database fresh for each server) under ``runserver`` on a free port."""
    project = work / "wagtail"
    if not (project / "pristine.sqlite3").exists():
        make_wagtail(cache, work)
    shutil.copyfile(project / "pristine.sqlite3", project / "db.sqlite3")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [str(cache / "venv-wagtail" / "bin" / "python"), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    with serve(command, project, url + "/admin/login/", work / "wagtail.log"):
        yield {"wagtail": url, "wagtail_db": project / "db.sqlite3"}


# -- what the tasks share ---------------------------------------------------------------------


def _url(apps: Apps) -> str:
    return str(apps.more["wagtail"])


def _db(apps: Apps) -> Path:
    return Path(apps.more["wagtail_db"])


def _page(apps: Apps, title: str) -> tuple[Any, ...]:
    """(id, live, has_unpublished_changes, draft_title) of the page titled ``title`` (live title), or ()."""
    rows = query(_db(apps), "select id, live, has_unpublished_changes, draft_title from wagtailcore_page where title = ?", title)
    return rows[0] if rows else ()


def _home_id(apps: Apps) -> int:
    return int(query(_db(apps), "select id from wagtailcore_page where depth = 2")[0][0])


def _explorer(apps: Apps) -> str:
    """The Home page's listing of child pages in the page explorer."""
    return f"{_url(apps)}/admin/pages/{_home_id(apps)}/"


def _edit(apps: Apps, title: str) -> str:
    return f"{_url(apps)}/admin/pages/{_page(apps, title)[0]}/edit/"


def _pw_button(label: str) -> str:
    """A snapshot line of the peer for a button named ``label``: Wagtail's footer buttons hold their words in an ``em``."""
    return rf'button "{label}"|emphasis \[ref=[^\]]+\]: {label}$'


async def _go(a: Agent, url: str) -> str:
    """Ours: open ``url``; when a page left with unsaved changes asks (beforeunload), leave it, as the error says."""
    answer = await a.call("browser_navigate", {"url": url}, may_fail=True)
    if answer.startswith("ERROR dialog_open"):
        await a.call("browser_dismiss_dialog", {"accept": True})
        answer = await a.call("browser_navigate", {"url": url}, may_fail=True)
        if answer.startswith("ERROR dialog_open"):  # accepting "Leave" did not leave: the model opens a new tab
            answer = await a.call("browser_open_tab", {"url": url, "active": True})
    elif answer.startswith("ERROR "):
        raise TaskFailed(f"browser_navigate {url} failed: {answer[:200]}")
    return answer


async def _act_role(a: Agent, apps: Apps, tool: str, arguments: dict[str, Any], role: str) -> str:
    """``apps.act``, and when the text names several elements, the one of ``role`` among the refs the error lists (as a model picks)."""
    answer = await a.call(tool, arguments, may_fail=True)
    if answer.startswith("ERROR multiple_targets"):
        return await a.call(tool, {"ref": _need(ref_in(answer, rf"@e\d+ {role}\b"), f"the {role} among {answer[:200]}")})
    if answer.startswith("ERROR "):
        return await apps.act(a, tool, arguments)
    return answer


async def _look_again(a: Agent, first: str, text: str, pattern: str, what: str) -> str:
    """The ref of ``pattern`` in ``first``, else from ``page_find {text}`` asked again until it is there (at most 8 times).

    Wagtail's choosers load their list from the server after the click has answered. The peer
    waits with ``browser_wait_for``; ours has no such tool, so the model asks again, on its next
    turn (0.5 s later here: a model's turn takes longer). Every look is counted.
    """
    ref = ref_in(first, pattern)
    for _ in range(8):
        if ref:
            return ref
        await asyncio.sleep(0.5)
        ref = ref_in(await a.call("page_find", {"text": text}), pattern)
    return _need(ref, what)


# -- log in -----------------------------------------------------------------------------------


async def login_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _url(apps) + "/admin/")
    fields = [
        {"name": "Username", "type": "textbox", "target": _need(ref_in(text, r'textbox "Username'), "Username"), "value": ADMIN[0]},
        {"name": "Password", "type": "textbox", "target": _need(ref_in(text, r'textbox "Password'), "Password"), "value": ADMIN[1]},
    ]
    await a.call("browser_fill_form", {"fields": fields})
    return await _pw_click(a, text, _pw_button("Sign in"), "Sign in")


async def login_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _url(apps) + "/admin/")
    await a.call("page_find", {"role": "textbox"})
    steps = [{"tool": "page_fill", "arguments": {"text": "Username", "value": ADMIN[0]}}, {"tool": "page_fill", "arguments": {"text": "Password", "value": ADMIN[1]}}, {"tool": "page_click", "arguments": {"text": "Sign in"}}]
    return apps.told("fill the sign-in form, click Sign in", await a.call("page_act", {"steps": steps}), r"navigated to .*Dashboard")


def login_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    user = query(_db(apps), "select last_login from auth_user where username = ?", ADMIN[0])
    sessions = query(_db(apps), "select count(*) from django_session")[0][0]
    return bool(user and user[0][0] and sessions), f"last_login={user[0][0] if user else None}, sessions={sessions}"


# -- create a page with rich text, a bold word and a link, and publish ------------------------

NEW_PAGE = "Harbour Pilots"
BODY = "Tides change daily"
BOLD = "daily"


async def _pw_publish(a: Agent) -> str:
    """The editor's footer: "More actions" opens the menu whose "Publish" button publishes."""
    text = await _pw_snap(a)
    await _pw_click(a, text, r'button "More actions"', "More actions")
    return await _pw_click(a, await _pw_snap(a), _pw_button("Publish"), "Publish")


async def _publish(a: Agent, apps: Apps, what: str) -> str:
    """Ours: open "More actions", click "Publish"; the answer kept and judged."""
    more = await a.call("page_click", {"text": "More actions"}, may_fail=True)
    if more.startswith("ERROR target_not_visible"):
        # Refused as covered, right after a dialog closed: the model tries again (the peer's click waits for it).
        entry = {"task": apps.task, "server": apps.server, "step": 'page_click {"text": "More actions"}', "answer": more[len("ERROR ") :]}
        apps.said.append({**entry, "expected": ["the click (a retry succeeded)"], "missing": ["the button was there to click"], "misled": True, "no_visible_change": False})
        more = await a.call("page_click", {"text": "More actions"}, may_fail=True)
    if more.startswith("ERROR "):
        await apps.act(a, "page_click", {"text": "More actions"})
    return apps.told(f"click Publish ({what})", await apps.act(a, "page_click", {"text": "Publish"}), r"navigated to", r"message: .*published")


async def create_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, f"{_url(apps)}/admin/pages/add/home/blogpage/{_home_id(apps)}/")
    await a.call("browser_type", {"element": "Title", "target": _need(ref_in(text, r'textbox "Title'), "Title"), "text": NEW_PAGE})
    body = _need(ref_in(text, r'textbox "Body|- textbox \[ref='), "the Body editor")
    await a.call("browser_type", {"element": "Body", "target": body, "text": BODY})
    await a.call("browser_press_key", {"key": "Shift+Control+ArrowLeft"})
    await a.call("browser_press_key", {"key": "Control+b"})
    # The selected word keeps its floating toolbar: its Link button opens the link chooser, which loads its list.
    await _pw_click(a, await _pw_snap(a), r'button "Link', "Link")
    await a.call("browser_wait_for", {"text": "Internal link"})
    await _pw_click(a, await _pw_snap(a), r'link "Home"', "Home (in the link chooser)")
    return await _pw_publish(a)


async def create_actions(a: Agent, apps: Apps) -> str:
    await _go(a, f"{_url(apps)}/admin/pages/add/home/blogpage/{_home_id(apps)}/")
    found = await a.call("page_find", {"role": "textbox"})
    await apps.act(a, "page_fill", {"text": "Title", "value": NEW_PAGE})
    body = _need(ref_in(found, r"textbox \"Body|in: Body"), "the Body editor")
    apps.told("fill the Body (Draftail)", await a.call("page_fill", {"ref": body, "value": BODY}), rf'"{BODY}"')
    selected = await a.call("page_press", {"ref": body, "key": "Shift+Control+ArrowLeft"})
    apps.told(f"press Control+b on the selected {BOLD!r}", await a.call("page_press", {"ref": body, "key": "Control+b"}), r"Control\+[bB]", rf"\b{BOLD}\b")
    link = ref_in(selected, r'button "Link') or _need(ref_in(await a.call("page_find", {"text": "Link", "role": "button"}), r'button "Link'), "the toolbar's Link")
    opened = apps.told("click the toolbar's Link: the link chooser opens", await a.call("page_click", {"ref": link}), r"dialog opened", r'link "Home"')
    # Not told of the chooser's list: the model looks at what changed since (the chooser loads its list from the server).
    home = await _look_again(a, opened, "Home", r'link "Home"', "Home in the chooser")
    apps.told("click Home in the link chooser: the selected word becomes a link", await a.call("page_click", {"ref": home}), r"dialog closed|gone", rf'"{BOLD}"')
    return await _publish(a, apps, "the new page")


def create_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    # Wagtail 8 autosaves a new page as a draft while it is edited; the check wants a live one with the body.
    rows = query(_db(apps), "select p.id, p.live, b.body from wagtailcore_page p join home_blogpage b on b.page_ptr_id = p.id where p.title = ? order by p.live desc", NEW_PAGE)
    if not rows:
        return False, f"no page {NEW_PAGE!r}"
    _id, live, body = rows[0]
    bold = bool(re.search(rf"<(b|strong)>(<a [^>]*>)?{BOLD}", body))
    link = bool(re.search(rf'<a [^>]*linktype="page"[^>]*id="{_home_id(apps)}"|<a [^>]*id="{_home_id(apps)}"[^>]*linktype="page"', body))
    return bool(live and bold and link), f"pages titled so: {len(rows)}, live={live}, bold={bold}, link={link}, body={body[:160]!r}"


# -- edit a title and save a draft ----------------------------------------------------------

DRAFTED, DRAFT_TITLE = "Ferry Timetable", "Ferry Timetable 2027"


async def draft_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _edit(apps, DRAFTED))
    title = _need(ref_in(text, r'textbox "Title'), "Title")
    await a.call("browser_fill_form", {"fields": [{"name": "Title", "type": "textbox", "target": title, "value": DRAFT_TITLE}]})
    return await _pw_click(a, text, _pw_button("Save draft"), "Save draft")


async def draft_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _edit(apps, DRAFTED))
    await apps.act(a, "page_fill", {"text": "Title", "value": DRAFT_TITLE})
    return apps.told("click Save draft", await apps.act(a, "page_click", {"text": "Save draft"}), r"navigated to|reloaded", r"message: ")


def draft_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    page = _page(apps, DRAFTED)
    return bool(page and page[1] == 1 and page[2] == 1 and page[3] == DRAFT_TITLE), f"{DRAFTED!r}: live={page[1:2]}, unpublished changes={page[2:3]}, draft title={page[3:4]}"


# -- delete a page through its confirmation --------------------------------------------------

DELETED = "Lighthouse Tours"


async def delete_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _explorer(apps))
    await _pw_click(a, text, rf"button \"More options for '{DELETED}'\"", "More options")
    await _pw_click(a, await _pw_snap(a), r'link "Delete"', "Delete")
    return await _pw_click(a, await _pw_snap(a), _pw_button("Yes, delete it"), "Yes, delete it")


async def delete_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _explorer(apps))
    menu = apps.told("open the row's menu", await apps.act(a, "page_click", {"text": f"More options for '{DELETED}'"}), r"expanded|Delete")
    delete = ref_in(menu, r'link "Delete"') or _need(ref_in(await a.call("page_find", {"text": "Delete", "role": "link"}), r'"Delete"'), "Delete")
    apps.told("click Delete (to the confirmation page)", await a.call("page_click", {"ref": delete}), r"navigated to .*[Dd]elete")
    return apps.told("click Yes, delete it", await apps.act(a, "page_click", {"text": "Yes, delete it"}), r"navigated to", r"message: .*deleted")


def delete_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    left = query(_db(apps), "select count(*) from wagtailcore_page where title = ?", DELETED)[0][0]
    others = query(_db(apps), "select count(*) from wagtailcore_page where title like 'Seaside Walk %'")[0][0]
    return left == 0 and others == len(SEASIDE), f"{DELETED!r} rows: {left}, Seaside Walk pages: {others}"


# -- open the page past the fold of the listing and publish it --------------------------------


async def fold_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _explorer(apps))
    await _pw_click(a, text, rf'link "{PAST_FOLD}"', PAST_FOLD)
    return await _pw_publish(a)


async def fold_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _explorer(apps))
    apps.told(f"click {PAST_FOLD!r} (the listing's last row)", await apps.act(a, "page_click", {"text": PAST_FOLD}), rf"navigated to .*{PAST_FOLD}")
    return await _publish(a, apps, PAST_FOLD)


def fold_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    page = _page(apps, PAST_FOLD)
    return bool(page and page[1] == 1), f"{PAST_FOLD!r}: live={page[1:2]}"


# -- unpublish through the confirmation ------------------------------------------------------

UNPUBLISHED = "Winter Market"


async def unpublish_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _explorer(apps))
    await _pw_click(a, text, rf"button \"More options for '{UNPUBLISHED}'\"", "More options")
    await _pw_click(a, await _pw_snap(a), r'link "Unpublish"', "Unpublish")
    return await _pw_click(a, await _pw_snap(a), _pw_button("Yes, unpublish it"), "Yes, unpublish it")


async def unpublish_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _explorer(apps))
    menu = apps.told("open the row's menu", await apps.act(a, "page_click", {"text": f"More options for '{UNPUBLISHED}'"}), r"expanded|Unpublish")
    unpublish = ref_in(menu, r'link "Unpublish"') or _need(ref_in(await a.call("page_find", {"text": "Unpublish", "role": "link"}), r'"Unpublish"'), "Unpublish")
    apps.told("click Unpublish (to the confirmation page)", await a.call("page_click", {"ref": unpublish}), r"navigated to .*[Uu]npublish")
    return apps.told("click Yes, unpublish it", await apps.act(a, "page_click", {"text": "Yes, unpublish it"}), r"navigated to", r"message: .*unpublished")


def unpublish_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    page = _page(apps, UNPUBLISHED)
    return bool(page and page[1] == 0), f"{UNPUBLISHED!r}: live={page[1:2]}"


# -- choose a related page in the page chooser modal -------------------------------------------

CHOOSING, CHOSEN = "Fish Auction", "Harbour Guide"


async def chooser_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _edit(apps, CHOOSING))
    await _pw_click(a, text, r'button "Choose a page"', "Choose a page")
    text = await _pw_snap(a)
    search = _need(ref_in(text, r'textbox "Search term'), "the chooser's search")
    await a.call("browser_type", {"element": "Search term", "target": search, "text": "Harbour"})
    await a.call("browser_wait_for", {"text": CHOSEN})  # the results come from the server a moment later
    text = await _pw_snap(a)
    await _pw_click(a, text, rf'link "{CHOSEN}"', CHOSEN)
    return await _pw_publish(a)


async def chooser_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _edit(apps, CHOOSING))
    opened = apps.told("click Choose a page: the chooser modal opens", await apps.act(a, "page_click", {"text": "Choose a page"}), r"dialog opened")
    search = await _look_again(a, opened, "Search term", r'textbox "Search term', "the chooser's search")
    typed = await a.call("page_fill", {"ref": search, "value": "Harbour"})
    chosen = await _look_again(a, typed, CHOSEN, rf'link "{CHOSEN}"', CHOSEN)
    apps.told(f"click {CHOSEN!r} in the chooser: it closes, the field shows the page", await a.call("page_click", {"ref": chosen}), r"dialog closed|gone", CHOSEN)
    return await _publish(a, apps, CHOOSING)


def chooser_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(_db(apps), "select r.title from home_blogpage b join wagtailcore_page p on p.id = b.page_ptr_id left join wagtailcore_page r on r.id = b.related_id where p.title = ?", CHOOSING)
    return bool(rows and rows[0][0] == CHOSEN), f"{CHOOSING!r}.related = {rows[0][0] if rows else None!r}"


# -- search pages: how many match -----------------------------------------------------------

SEARCHED = "Lantern"
MATCHES = r"(?:There (?:is|are) )?(\d+) match(?:es|ing)"


async def search_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _url(apps) + "/admin/pages/")
    box = _need(ref_in(text, r'(?:searchbox|textbox) "Search'), "Search")
    await a.call("browser_type", {"element": "Search", "target": box, "text": SEARCHED, "submit": True})
    return _number(MATCHES, await _pw_snap(a))


async def search_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _url(apps) + "/admin/pages/")
    searched = apps.told(f"fill Search with {SEARCHED!r} and submit", await apps.act(a, "page_fill", {"text": "Search", "value": SEARCHED, "submit": True}), r"navigated to|match")
    with contextlib.suppress(TaskFailed):
        return _number(MATCHES, searched)
    return _number(MATCHES, await a.call("page_read", {}))


def search_check(apps: Apps, answer: str) -> tuple[bool, str]:
    count = query(_db(apps), "select count(*) from wagtailcore_page where title like ?", f"%{SEARCHED}%")[0][0]
    return answer == str(count), f"answered {answer}, database {count}"


# -- a site setting's checkbox ------------------------------------------------------------


async def setting_playwright(a: Agent, apps: Apps) -> str:
    text = await _pw_open(a, _url(apps) + "/admin/settings/home/bannersettings/")
    await _pw_click(a, text, r'checkbox "Show banner"', "Show banner")
    return await _pw_click(a, text, _pw_button("Save"), "Save")


async def setting_actions(a: Agent, apps: Apps) -> str:
    await _go(a, _url(apps) + "/admin/settings/home/bannersettings/")
    apps.told("click Show banner", await _act_role(a, apps, "page_click", {"text": "Show banner"}, "checkbox"), r'checkbox "Show banner" checked')
    return apps.told("click Save", await apps.act(a, "page_click", {"text": "Save"}), r"navigated to|reloaded", r"message: ")


def setting_check(apps: Apps, _answer: str) -> tuple[bool, str]:
    rows = query(_db(apps), "select show_banner from home_bannersettings")
    return bool(rows and rows[0][0] == 1), f"show_banner rows: {rows}"


TASKS = [
    AppTask("wagtail-login", "sign in to Wagtail's admin", login_playwright, login_actions, login_check),
    AppTask("wagtail-create-page", f"add a page {NEW_PAGE!r} under Home, its Draftail body {BODY!r} with {BOLD!r} bold and a link to Home (the link chooser), and publish it", create_playwright, create_actions, create_check),
    AppTask("wagtail-draft", f"rename {DRAFTED!r} to {DRAFT_TITLE!r} and save a draft (not published)", draft_playwright, draft_actions, draft_check),
    AppTask("wagtail-delete", f"delete {DELETED!r} from the listing's row menu through its confirmation", delete_playwright, delete_actions, delete_check),
    AppTask("wagtail-past-fold", f"open {PAST_FOLD!r}, the last row of Home's 39 child pages (past the fold of the admin's scrolling panel), and publish it", fold_playwright, fold_actions, fold_check),
    AppTask("wagtail-unpublish", f"unpublish {UNPUBLISHED!r} from the listing's row menu through its confirmation", unpublish_playwright, unpublish_actions, unpublish_check),
    AppTask("wagtail-chooser", f"set {CHOOSING!r}'s related page to {CHOSEN!r} through the page chooser modal (searching it), and publish", chooser_playwright, chooser_actions, chooser_check),
    AppTask("wagtail-search", f"search the pages for {SEARCHED!r}: how many match", search_playwright, search_actions, search_check),
    AppTask("wagtail-setting", "tick the site setting 'Show banner' and save", setting_playwright, setting_actions, setting_check),
]

SUITE = Suite("wagtail", TASKS, install, serving)
