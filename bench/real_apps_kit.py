"""The real applications of ``bench_real_apps.py``: installed from PyPI, set up and served on loopback.

- ``apps_python``: a venv of the bench's own under a cache folder outside the repository
  (``~/.cache/mcp-actions-bench/real-apps/venv``, ``--cache`` moves it), never the project's
  venv, with the pinned ``APPS`` installed by pip (kept and reused across runs);
- ``make_django``: a Django project written at run time (``benchsite``) with a tiny app of
  authors and books (``library``: models, admin registration, migrations made by
  ``makemigrations``), ``migrate``, a superuser, a user to change, and seeded rows; the database
  as it is then is kept as ``pristine.sqlite3`` so each server starts from the same rows;
- ``make_datasette``: a SQLite database with a ``facetable`` like Datasette's own test
  fixture's (state, city, neighbourhood), and metadata that facets it by state;
- ``serve``: a process on a free loopback port, waited for until it answers, stopped after;
- ``query``: one read of an application's own database with ``sqlite3`` (how each task is checked).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["APPS", "ADMIN", "DEFAULT_CACHE", "apps_python", "make_datasette", "make_django", "query", "serve"]

#: What is installed into the apps' venv (Django 5.2 is the last line that runs on Python 3.11).
APPS = {"django": "5.2.20", "datasette": "0.65.5"}
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcp-actions-bench" / "real-apps"
#: The superuser the login task uses.
ADMIN = ("admin", "bench-admin-pw-1")

#: Authors and their books; Boris Petrov (9 books) is the one the delete task removes.
AUTHORS = {
    "Ada Castillo": ["The Copper Key", "Salt and Silence", "Northern Lights"],
    "Boris Petrov": [f"Volga Stories {n}" for n in range(1, 10)],
    "Chen Wei": ["River Maps", "The Paper Bridge", "Autumn Ledger", "Quiet Harbour"],
    "Dora Mendes": ["Open Windows", "Lisbon at Noon"],
}
USERS = ["maria", "tom"]


def apps_python(cache: Path) -> tuple[Path, dict[str, str]]:
    """The apps' venv's python (created and pip-installed when missing or not at the pins); the installed versions."""
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = "import json, django, datasette.version as d; print(json.dumps({'django': django.get_version(), 'datasette': d.__version__}))"
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=False)
    versions = json.loads(found.stdout) if found.returncode == 0 else {}
    if versions != APPS:
        print(f"pip install {' '.join(f'{k}=={v}' for k, v in APPS.items())} into {venv} ...", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *(f"{k}=={v}" for k, v in APPS.items())], check=True)
        versions = json.loads(subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout)
    return python, versions


# -- Django ------------------------------------------------------------------------------

_SETTINGS = """
from pathlib import Path
BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = "bench-only-not-secret"
DEBUG = True
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles", "library",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "benchsite.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [], "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request", "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
WSGI_APPLICATION = "benchsite.wsgi.application"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}
AUTH_PASSWORD_VALIDATORS = []
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
"""

_URLS = """
from django.contrib import admin
from django.urls import path
urlpatterns = [path("admin/", admin.site.urls)]
"""

_WSGI = """
import os
from django.core.wsgi import get_wsgi_application
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings")
application = get_wsgi_application()
"""

_MANAGE = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings")
from django.core.management import execute_from_command_line
execute_from_command_line(sys.argv)
"""

_MODELS = """
from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100, unique=True)

    def __str__(self):
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    published = models.DateField(null=True, blank=True)

    def __str__(self):
        return self.title
"""

_ADMIN = """
from django.contrib import admin
from .models import Author, Book


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "published"]
    list_filter = ["author"]
    search_fields = ["title"]
"""

_APPS = """
from django.apps import AppConfig


class LibraryConfig(AppConfig):
    name = "library"
"""

_SEED = """
import datetime, json, os
from django.contrib.auth.models import User
from library.models import Author, Book
admin_name, admin_password, authors, users = json.loads(os.environ["BENCH_SEED"])
User.objects.create_superuser(admin_name, "admin@example.com", admin_password)
for name in users:
    User.objects.create_user(name, f"{name}@example.com", "bench-user-pw-1", first_name=name.title())
day = datetime.date(2020, 1, 1)
for name, titles in authors.items():
    author = Author.objects.create(name=name)
    for n, title in enumerate(titles):
        Book.objects.create(title=title, author=author, published=day + datetime.timedelta(days=37 * n))
"""


def make_django(python: Path, workdir: Path) -> Path:
    """Write the Django project, make its migrations, migrate and seed it; its folder (``pristine.sqlite3`` beside ``db.sqlite3``)."""
    project = workdir / "django"
    files = {
        "manage.py": _MANAGE,
        "benchsite/__init__.py": "",
        "benchsite/settings.py": _SETTINGS,
        "benchsite/urls.py": _URLS,
        "benchsite/wsgi.py": _WSGI,
        "library/__init__.py": "",
        "library/apps.py": _APPS,
        "library/models.py": _MODELS,
        "library/admin.py": _ADMIN,
        "library/migrations/__init__.py": "",
        "seed.py": _SEED,
    }
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(textwrap.dedent(text).lstrip())
    env = {**os.environ, "BENCH_SEED": json.dumps([*ADMIN, AUTHORS, USERS])}
    for command in (["makemigrations", "library"], ["migrate"], ["shell", "-c", "exec(open('seed.py').read())"]):
        subprocess.run([str(python), "manage.py", *command], cwd=project, env=env, check=True, stdout=subprocess.DEVNULL)
    shutil.copyfile(project / "db.sqlite3", project / "pristine.sqlite3")
    return project


def django_command(python: Path, project: Path, port: int) -> list[str]:
    """Django's own development server on loopback, one process (no autoreloader), threaded as by default."""
    return [str(python), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]


# -- Datasette ---------------------------------------------------------------------------

#: facetable's rows: (state, city, neighborhood, on_earth), like Datasette's own test fixture's.
FACET_ROWS = [
    ("CA", "San Francisco", "Mission", 1),
    ("CA", "San Francisco", "Dogpatch", 1),
    ("CA", "San Francisco", "SOMA", 1),
    ("CA", "San Francisco", "Tenderloin", 1),
    ("CA", "San Francisco", "Bernal Heights", 1),
    ("CA", "San Francisco", "Hayes Valley", 1),
    ("CA", "Los Angeles", "Hollywood", 1),
    ("CA", "Los Angeles", "Downtown", 1),
    ("CA", "Los Angeles", "Los Feliz", 1),
    ("CA", "Los Angeles", "Koreatown", 1),
    ("MI", "Detroit", "Downtown", 1),
    ("MI", "Detroit", "Greektown", 1),
    ("MI", "Detroit", "Corktown", 1),
    ("MI", "Detroit", "Mexicantown", 1),
    ("MC", "Memnonia", "Arcadia Planitia", 0),
    ("TX", "Austin", "Zilker", 1),
    ("TX", "Austin", "Hyde Park", 1),
]


def make_datasette(workdir: Path) -> tuple[Path, Path]:
    """``bench.db`` with ``facetable`` (and ``facet_cities``) and a metadata file faceting it by state."""
    folder = workdir / "datasette"
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "bench.db"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("create table facet_cities (id integer primary key, name text)")
        cities = sorted({row[1] for row in FACET_ROWS})
        conn.executemany("insert into facet_cities (id, name) values (?, ?)", list(enumerate(cities, 1)))
        conn.execute("create table facetable (pk integer primary key, created text, planet_int integer, on_earth integer, state text, _city_id integer references facet_cities(id), _neighborhood text)")
        rows = [(n, f"2019-01-{1 + n % 28:02d} 08:00:00", 1 if earth else 2, earth, state, cities.index(city) + 1, hood) for n, (state, city, hood, earth) in enumerate(FACET_ROWS, 1)]
        conn.executemany("insert into facetable values (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.commit()
    metadata = folder / "metadata.json"
    metadata.write_text(json.dumps({"databases": {"bench": {"tables": {"facetable": {"facets": ["state", "_city_id"]}}}}}))
    return db, metadata


def datasette_command(python: Path, db: Path, metadata: Path, port: int) -> list[str]:
    return [str(python), "-m", "datasette", "serve", str(db), "--metadata", str(metadata), "--host", "127.0.0.1", "--port", str(port)]


# -- serving and checking ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serve(command: list[str], cwd: Path, probe_url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` until the block ends; yields once ``probe_url`` answers (any HTTP status)."""
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"{command[:4]} exited with {process.returncode}; see {log}")
                try:
                    urllib.request.urlopen(probe_url, timeout=2).close()
                    break
                except OSError as exc:
                    if getattr(exc, "code", None):  # an HTTP error status: the server answers
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{probe_url} never answered; see {log}") from exc
                    time.sleep(0.2)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of one read of an application's database (opened read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute(sql, params).fetchall()
