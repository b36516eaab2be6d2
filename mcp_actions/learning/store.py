"""The learned-maps folder: one map per origin, written by ``actions_save_tool`` and always loaded.

A site's learned tools live in one ``actions.json`` map in the folder
(``--learned-maps DIR``, default ``learned/`` in the user's data directory;
docs/cli.md), named after the origin (``http://127.0.0.1:8765`` →
``http_127.0.0.1_8765.actions.json``) with a namespace derived from the host
(``site-127-0-0-1-8765``, ``todo-example-com``) as its ``surface.surface_id``.
The map carries ``x_actions.learned: true``, which is how the catalogue knows
it never withdraws the page tools on its pages.

Over HTTP each agent session saves into a folder of its own,
``sessions/<session id>/`` (same file names): those maps are that session's
tools alone (``owner_of``; the loader sets ``LoadedManifest.owner``) until the
operator moves a file up into the folder, which makes its tools everyone's
(docs/sessions.md). Saving a tool under a name the map has replaces it, and the tool it replaced
is kept in the map's ``x_actions.history`` (newest last, at most
``HISTORY_CAP`` entries, each ``{"saved_at", "tool"}``): nothing learned is
lost by learning again. The whole map is validated before it is written (a
map that would not load is refused with its problems, ``manifest_invalid``),
and written atomically, so the server's reload never reads half a file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ActionError, ErrorCode
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..manifest.load import ManifestReport, load_document

__all__ = ["HISTORY_CAP", "LEARNED_DESCRIPTION", "LEARNED_TITLE", "SESSIONS_DIR", "LearnedMaps", "SavedTool", "default_learned_dir", "is_learned", "learned_home", "learned_namespace", "open_learned_maps", "origin_of"]

#: Replaced tools kept per map.
HISTORY_CAP = 20
#: What a learned tool's description starts with where it is served (an agent wrote the words, maybe steered by
#: a page), as a page tool's starts with ``[page-supplied description, untrusted] `` (protocols/page_maps.py).
LEARNED_DESCRIPTION = "[agent-written description] "
#: And its display title.
LEARNED_TITLE = "[learned] "
#: The root ``x_actions`` key that marks a learned map.
LEARNED_KEY = "learned"


#: Where an agent session's own saved maps go, one folder per session id (docs/sessions.md).
SESSIONS_DIR = "sessions"
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def default_learned_dir() -> Path:
    """``learned/`` in the user's data directory (platformdirs), the default ``--learned-maps``."""
    import platformdirs

    return platformdirs.user_data_path("mcp-actions", appauthor=False) / "learned"


def origin_of(url: str) -> str | None:
    """The ``scheme://host[:port]`` of an http(s) URL, its port only when not the scheme's default; None for any other page."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if port == _DEFAULT_PORTS[parts.scheme]:
        port = None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


_DEFAULT_PORTS = {"http": 80, "https": 443}
#: A host whose words give it back: letters, digits and dots, starting with a letter (``todo.example.com``).
_PLAIN_HOST = re.compile(r"^[a-z][a-z0-9]*(?:\.[a-z0-9]+)*$")


def learned_namespace(origin: str) -> str:
    """The namespace of an origin's learned tools: its own alone, the same at every start.

    Readable from the host and port (``https://todo.example.com`` → ``todo-example-com``). The words
    lose the scheme and which separator stood between them (``x-y.example.com`` and ``x.y-example.com``
    give the same words), so every origin but an https one whose host the words give back (letters,
    digits and dots, default port) ends with six hex digits of its digest
    (``http://127.0.0.1:8000`` → ``site-127-0-0-1-8000-<digest>``): no origin can take another's
    namespace, and with it the names of its tools (docs/mcp-surface.md).
    """
    canonical = origin_of(origin) or origin
    parts = urlsplit(canonical)
    words = [w for w in re.split(r"[^A-Za-z0-9]+", parts.hostname or "site") if w]
    if parts.port:
        words.append(str(parts.port))
    namespace = "-".join(words).lower()[:80] or "site"
    namespace = namespace if namespace[0].isalpha() else f"site-{namespace}"
    if parts.scheme == "https" and not parts.port and _PLAIN_HOST.match(parts.hostname or ""):
        return namespace
    return f"{namespace}-{hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:6]}"


def learned_home(document: Any) -> str | None:
    """The origin a learned map's tools belong to (its ``surface.origin``, normalised); None for a map that is not learned."""
    if not is_learned(document):
        return None
    surface = document.get("surface")
    origin = surface.get("origin") if isinstance(surface, dict) else None
    if not isinstance(origin, str):
        return ""  # a learned map without an origin is at home nowhere
    return origin_of(origin) or origin


def _file_name(origin: str) -> str:
    parts = urlsplit(origin)
    name = f"{parts.scheme}_{parts.hostname}" + (f"_{parts.port}" if parts.port else "")
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".actions.json"


def is_learned(document: Any) -> bool:
    """Whether a map document is a learned one (``x_actions.learned: true`` at its root)."""
    extension = document.get("x_actions") if isinstance(document, dict) else None
    return isinstance(extension, dict) and extension.get(LEARNED_KEY) is True


@dataclass(frozen=True)
class SavedTool:
    """Where a learned tool went: the map file, its namespace, and whether it replaced one of the same name."""

    path: Path
    namespace: str
    replaced: bool


class LearnedMaps:
    """The learned-maps folder: writes each origin's map, then lets the server load it again."""

    def __init__(self, directory: str | Path, *, limits: Limits = DEFAULT_LIMITS, on_saved: Callable[[], Awaitable[object]] | None = None) -> None:
        """``on_saved()``: runs after a map was written (the server reloads its maps and announces the tool)."""
        self.directory = Path(directory).expanduser()
        self.limits = limits
        self.on_saved = on_saved
        self._lock = asyncio.Lock()  # one save at a time: two saves to one map must not lose either tool

    def ensure(self) -> None:
        """Create the folder (and its parents) so that it can be loaded and watched; ``OSError`` when it cannot be."""
        self.directory.mkdir(parents=True, exist_ok=True)

    def path_for(self, origin: str, owner: str | None = None) -> Path:
        """The map file of an origin: everyone's, or (``owner``) an agent session's own, in ``sessions/<id>/``."""
        if owner is None:
            return self.directory / _file_name(origin)
        if not _SESSION_ID.match(owner):
            raise ValueError(f"not a session id: {owner!r}")
        return self.directory / SESSIONS_DIR / owner / _file_name(origin)

    def owner_of(self, file: str | Path) -> str | None:
        """The agent session whose map a file of the folder is (``sessions/<id>/…``); None: everyone's, or not in the folder."""
        try:
            parts = Path(file).relative_to(self.directory).parts
        except ValueError:
            return None
        return parts[1] if len(parts) == 3 and parts[0] == SESSIONS_DIR and _SESSION_ID.match(parts[1]) else None

    async def save(self, origin: str, tool: dict[str, Any], *, owner: str | None = None) -> SavedTool:
        """Add (or replace) ``tool`` in the origin's map (``owner``: that agent session's own), validated and written atomically; then ``on_saved``."""
        async with self._lock:
            saved = await asyncio.to_thread(self._write, origin, tool, owner)
        if self.on_saved is not None:
            await self.on_saved()
        return saved

    def _write(self, origin: str, tool: dict[str, Any], owner: str | None = None) -> SavedTool:
        path = self.path_for(origin, owner)
        namespace = learned_namespace(origin)
        document = self._read(path, origin, namespace)
        tools: list[dict[str, Any]] = document["tools"]
        replaced = False
        for i, existing in enumerate(tools):
            if isinstance(existing, dict) and existing.get("name") == tool["name"]:
                history = document["x_actions"].setdefault("history", [])
                history.append({"saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "tool": existing})
                del history[:-HISTORY_CAP]
                tools[i] = tool
                replaced = True
                break
        else:
            tools.append(tool)
        loaded = load_document(document, source=str(path), path=path, limits=self.limits, namespace=namespace)
        if isinstance(loaded, ManifestReport):
            raise ActionError(
                f"the learned map would not validate: {loaded.errors[0].code} at {loaded.errors[0].path}: {loaded.errors[0].message}",
                code=ErrorCode.MANIFEST_INVALID,
                evidence={"path": "/name", "map": str(path), "problems": [p.to_dict() for p in loaded.errors[:10]]},
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        # Atomic: the server's watcher and reload never read half a map.
        fd, temporary = tempfile.mkstemp(prefix=".learning-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return SavedTool(path, namespace, replaced)

    @staticmethod
    def _read(path: Path, origin: str, namespace: str) -> dict[str, Any]:
        """The origin's map as it is, or a new one; a file that is not a learned map of this origin is refused, not overwritten."""
        if not path.exists():
            return {
                "protocol": "actions.json",
                "version": 1,
                "surface": {"origin": origin, "name": f"Learned on {origin}", "surface_id": namespace},
                "tools": [],
                "x_actions": {LEARNED_KEY: True, "history": []},
            }
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ActionError(f"the learned map {path} cannot be read ({exc}); move it away to learn again", code=ErrorCode.MANIFEST_INVALID, evidence={"map": str(path)}) from exc
        if not is_learned(document) or not isinstance(document.get("tools"), list):
            raise ActionError(f"{path} is not a learned map; move it away to learn again", code=ErrorCode.MANIFEST_INVALID, evidence={"map": str(path)})
        document["x_actions"].setdefault("history", [])
        return dict(document)


def open_learned_maps(
    directory: str | Path | None, *, limits: Limits = DEFAULT_LIMITS, on_saved: Callable[[], Awaitable[object]] | None = None
) -> LearnedMaps | None:
    """The learned-maps folder a server serves, made when missing; None when there is none (``--learned-maps off``).

    A folder that cannot be made is None too, said once on stderr (the ``mcp_actions.user`` logger, for the
    person who started the server): the server still starts, and ``actions_save_tool`` says it has no folder.
    """
    if not directory:
        return None
    learned = LearnedMaps(directory, limits=limits, on_saved=on_saved)
    try:
        learned.ensure()
    except OSError as exc:
        logging.getLogger("mcp_actions.user").warning("cannot use the learned-maps folder %s (%s); actions_save_tool is unavailable", learned.directory, exc.strerror or exc)
        return None
    return learned
