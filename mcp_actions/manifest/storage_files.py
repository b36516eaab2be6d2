"""The files beside a map: what ``storage.read_file`` and overlay templates may read.

A map loaded from a storage root (``storage.py``) owns its *site directory*
in every scope: ``<root>/scopes/<scope>/sites/<site key>/``. It may read the
text files there in the scopes its trust sees (``scopes_visible_from``: a
private map all three, a shared map shared and public, a public map public
only), so a public map can never read a private file. A map loaded from a
plain file (trust ``local``) owns the folder it sits in. A map fetched from a
website, or sent inline by a page, owns no files.

Files are named by:

- a storage path of our layout, ``scopes/<scope>/sites/<site key>/<file>``;
- ``sites/<site key>/<file>`` or a path relative to the site directory,
  found through the scope precedence (private, then shared, then public);
- an ``id``: the file's path relative to the site directory, or its bare
  name when exactly one file has it (``storage_file_ambiguous_id`` otherwise),
  again through the scope precedence.

The reference's named shared scopes (``scopes/shared/<name>/sites/…``) have
no place in this layout and are not found.

A name comes from a call's arguments, so it is checked before it meets the
file system (``check_name``): a string of at most ``MAX_NAME_CHARS``
characters, segments of at most ``MAX_SEGMENT_BYTES`` bytes, no control
character, NUL byte or lone surrogate; anything else is ``invalid_input``.
Every error's ``evidence.path`` is the JSON Pointer of the argument (``/path``,
``/id``, ``/template/path``…), which a log may show; the storage path it named
is ``evidence.storage_path``, for the caller only (docs/transfer-and-storage.md).
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import ActionError, ErrorCode
from ..jsonutil import strict_loads
from .front_matter import parse_front_matter
from .storage import SCOPES, is_inside, scope_dir, scopes_visible_from

__all__ = ["DEFAULT_READ_BYTES", "MAX_ASSET_BYTES", "MAX_LISTED_FILES", "MAX_NAME_CHARS", "MAX_SEGMENT_BYTES", "SiteFiles", "StoredFile", "check_name"]

#: What ``storage.read_file`` returns without ``max_bytes`` (the dictionary's default).
DEFAULT_READ_BYTES = 64_000
#: An overlay template or data file is used whole, so it must fit in one bridge item.
MAX_ASSET_BYTES = 512 * 1024
#: A listing stops here (a site directory is a handful of files, not a tree to crawl).
MAX_LISTED_FILES = 500
#: The longest storage path or id accepted, in characters (a site directory's files are named far shorter).
MAX_NAME_CHARS = 1024
#: The longest segment of one, in UTF-8 bytes: what file systems allow for one name.
MAX_SEGMENT_BYTES = 255
#: How much of a refused name an error message quotes.
_QUOTED_CHARS = 120
_KINDS = {".html": "template", ".htm": "template", ".json": "data", ".md": "markdown", ".txt": "text", ".css": "style", ".js": "script"}
_MIME_FALLBACK = {".md": "text/markdown", ".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml"}


@dataclass(frozen=True)
class StoredFile:
    """One readable file: where it is, how it is named, in which scope."""

    file: Path
    scope: str
    relative_path: str  # inside the site directory (or the map's folder)
    path: str  # the canonical storage path (our layout), or relative_path for a map outside a storage root

    @property
    def kind(self) -> str:
        """``skill`` (SKILL.md), ``template``, ``data``, ``markdown``, ``text``…"""
        if self.file.name.upper() == "SKILL.MD":
            return "skill"
        return _KINDS.get(self.file.suffix.lower(), "text")

    @property
    def mime_type(self) -> str:
        """The file's media type from its extension (text/plain when unknown)."""
        suffix = self.file.suffix.lower()
        return _MIME_FALLBACK.get(suffix) or mimetypes.guess_type(self.file.name)[0] or "text/plain"

    def describe(self) -> dict[str, Any]:
        """What a listing shows of the file."""
        return {"id": self.relative_path, "path": self.path, "relative_path": self.relative_path, "scope": self.scope,
                "kind": self.kind, "mime_type": self.mime_type, "bytes": self.file.stat().st_size}


def _quoted(name: str) -> str:
    """``name`` as an error message quotes it: escaped, and cut when long."""
    return repr(name if len(name) <= _QUOTED_CHARS else name[:_QUOTED_CHARS] + "…")


def check_name(value: Any, pointer: str) -> str:
    """``value`` when it can name a storage file; else ``invalid_input`` at ``pointer``, the value not quoted.

    Checked before the name meets the file system, where a 5,000-character name was an
    ``OSError`` (and a JSON-RPC -32603 with a traceback quoting it).
    """
    def refuse(why: str, reason: str, **more: Any) -> ActionError:
        return ActionError(f"invalid arguments at {pointer}: {why}", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer, "reason": reason, **more})

    if not isinstance(value, str) or not value:
        raise refuse("must be a non-empty string", "not_a_name")
    if len(value) > MAX_NAME_CHARS:
        raise refuse(f"{len(value)} characters; a storage name has at most {MAX_NAME_CHARS}", "too_long", length=len(value), max_length=MAX_NAME_CHARS)
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise refuse("a storage name has no NUL byte or control character", "control_character")
    try:
        encoded = [segment.encode("utf-8") for segment in value.replace("\\", "/").split("/")]
    except UnicodeEncodeError:
        raise refuse("a storage name is text (it has a lone surrogate)", "lone_surrogate") from None
    if any(len(segment) > MAX_SEGMENT_BYTES for segment in encoded):
        raise refuse(f"a segment of a storage name has at most {MAX_SEGMENT_BYTES} bytes", "segment_too_long", max_segment_bytes=MAX_SEGMENT_BYTES)
    return value


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False when the file system cannot even look (a name too long for it, no permission)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _clean(path: str, code: ErrorCode, pointer: str) -> PurePosixPath:
    """A relative path with no empty, '.' or '..' segment, else ``code``."""
    pure = PurePosixPath(path.replace("\\", "/"))
    if not path or pure.is_absolute() or any(part in ("", ".", "..") for part in path.replace("\\", "/").split("/")):
        raise ActionError(f"{_quoted(path)} is not a plain relative path", code=code, evidence={"path": pointer, "storage_path": path, "reason": "absolute_or_climbing"})
    return pure


class SiteFiles:
    """The files one map may read (see the module docstring)."""

    def __init__(self, *, base: Path | None, trust: str, storage_root: Path | None = None, site_key: str | None = None, scope: str | None = None) -> None:
        self.base = base
        self.trust = trust
        self.storage_root = storage_root
        self.site_key = site_key
        self.scope = scope

    @classmethod
    def of_map(cls, source: str, trust: str) -> SiteFiles:
        """The files of the map loaded from ``source`` (its file path) with ``trust``."""
        path = Path(source) if source else None
        if path is None or not path.is_absolute() or not path.is_file() or trust == "website":
            return cls(base=None, trust=trust)
        parts = path.parts
        # <root>/scopes/<scope>/sites/<site key…>/actions.json: the last such run of segments wins.
        for i in range(len(parts) - 4, -1, -1):
            if parts[i] == "scopes" and parts[i + 1] in SCOPES and parts[i + 2] == "sites" and i + 3 < len(parts) - 1:
                return cls(base=path.parent, trust=trust, storage_root=Path(*parts[:i]), site_key="/".join(parts[i + 3 : -1]), scope=parts[i + 1])
        return cls(base=path.parent, trust=trust)

    # -- what may be read ------------------------------------------------------------

    @property
    def visible_scopes(self) -> tuple[str, ...]:
        """The scopes this map may read, in precedence order."""
        if self.storage_root is None:
            return ()
        # A storage map's own scope bounds it even when an import gave it a looser trust.
        allowed = scopes_visible_from(self.trust)
        own = scopes_visible_from(self.scope or "public")
        return tuple(s for s in SCOPES if s in allowed and s in own)

    def _site_dir(self, scope: str) -> Path:
        assert self.storage_root is not None and self.site_key is not None
        return scope_dir(self.storage_root, scope) / "sites" / self.site_key

    def _refuse(self, why: str, pointer: str, **evidence: Any) -> ActionError:
        return ActionError(why, code=ErrorCode.STORAGE_FILE_PATH_UNAUTHORIZED, evidence={"path": pointer, "trust": self.trust, "site_key": self.site_key, **evidence})

    def _no_files(self, pointer: str) -> None:
        if self.base is None:
            raise self._refuse("this map was not loaded from a local file or storage root, so it has no files to read", pointer)

    def _entry(self, file: Path, scope: str, relative: PurePosixPath) -> StoredFile:
        rel = relative.as_posix()
        path = f"scopes/{scope}/sites/{self.site_key}/{rel}" if self.storage_root is not None else rel
        return StoredFile(file, scope, rel, path)

    def _in_scopes(self, relative: PurePosixPath, scopes: tuple[str, ...], pointer: str) -> StoredFile | None:
        """The file at ``relative`` in the first of ``scopes`` (site directories) or the map's folder that has it."""
        if self.storage_root is None:
            assert self.base is not None
            candidate = self.base / relative
            return self._entry(candidate, "local", relative) if _is_file(candidate) and is_inside(candidate, self.base) else None
        for scope in scopes:
            site = self._site_dir(scope)
            candidate = site / relative
            if _is_file(candidate):
                if not is_inside(candidate, site):  # a symlink out of the site directory
                    raise self._refuse(f"{_quoted(relative.as_posix())} leads out of its site directory", pointer, storage_path=relative.as_posix(), reason="symlink")
                return self._entry(candidate, scope, relative)
        return None

    def resolve_path(self, path: str, pointer: str = "/path") -> StoredFile:
        """The file a ``storage.read_file`` ``path`` names (see the module docstring); ``pointer``: the argument's."""
        check_name(path, pointer)
        self._no_files(pointer)
        pure = _clean(path, ErrorCode.STORAGE_FILE_PATH_UNAUTHORIZED, pointer)
        parts = pure.parts
        scopes = self.visible_scopes
        if self.storage_root is None:
            if parts[0] in ("scopes", "sites"):
                raise self._refuse(f"{_quoted(path)} is a storage path, and this map was not loaded from a storage root", pointer, storage_path=path)
            found = self._in_scopes(pure, (), pointer)
        else:
            if parts[0] == "scopes":
                if len(parts) < 3 or parts[1] not in SCOPES or parts[2] != "sites":
                    raise ActionError(f"{_quoted(path)} is not a storage path of this layout (scopes/<scope>/sites/<site>/<file>)", code=ErrorCode.STORAGE_FILE_NOT_FOUND,
                                      evidence={"path": pointer, "storage_path": path})
                if parts[1] not in scopes:
                    raise self._refuse(f"a map trusted as {self.trust!r} may not read {parts[1]} storage", pointer, storage_path=path, scope=parts[1], visible_scopes=list(scopes))
                scopes, parts = (parts[1],), parts[2:]
            if parts[0] == "sites":
                site_parts = PurePosixPath(self.site_key or "").parts
                if tuple(parts[1 : 1 + len(site_parts)]) != site_parts or len(parts) <= 1 + len(site_parts):
                    raise self._refuse(f"{_quoted(path)} is outside this map's site directory (sites/{self.site_key}/)", pointer, storage_path=path)
                parts = parts[1 + len(site_parts) :]
            found = self._in_scopes(PurePosixPath(*parts), scopes, pointer)
        if found is None:
            raise ActionError(f"no storage file at {_quoted(path)}", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"path": pointer, "storage_path": path, "scopes": list(scopes)})
        return found

    def files(self) -> list[StoredFile]:
        """Every readable file, a higher scope's shadowing a lower one's of the same relative path."""
        if self.base is None:
            return []
        chosen: dict[str, StoredFile] = {}
        roots = [(scope, self._site_dir(scope)) for scope in self.visible_scopes] if self.storage_root is not None else [("local", self.base)]
        for scope, root in roots:
            if not root.is_dir():
                continue
            for file in sorted(root.rglob("*")):
                relative = file.relative_to(root)
                if len(chosen) >= MAX_LISTED_FILES:
                    break
                if not file.is_file() or any(part.startswith(".") for part in relative.parts) or not is_inside(file, root):
                    continue
                chosen.setdefault(relative.as_posix(), self._entry(file, scope, PurePosixPath(relative.as_posix())))
        return sorted(chosen.values(), key=lambda f: f.relative_path)

    def resolve_id(self, file_id: str, pointer: str = "/id") -> StoredFile:
        """The file an ``id`` names: its relative path, or a bare name exactly one file has; ``pointer``: the argument's."""
        check_name(file_id, pointer)
        self._no_files(pointer)
        files = self.files()
        exact = [f for f in files if f.relative_path == file_id]
        if exact:
            return exact[0]
        named = [f for f in files if f.file.name == file_id]
        if len(named) > 1:
            raise ActionError(f"{len(named)} files are named {_quoted(file_id)}; give the id as a relative path", code=ErrorCode.STORAGE_FILE_AMBIGUOUS_ID,
                              evidence={"path": pointer, "id": file_id, "candidates": [f.relative_path for f in named]})
        if not named:
            raise ActionError(f"no storage file has id {_quoted(file_id)}", code=ErrorCode.STORAGE_FILE_NOT_FOUND,
                              evidence={"path": pointer, "id": file_id, "ids": [f.relative_path for f in files][:50]})
        return named[0]

    # -- reading ---------------------------------------------------------------------

    def read(self, stored: StoredFile, max_bytes: int = DEFAULT_READ_BYTES) -> dict[str, Any]:
        """``storage.read_file``'s output for ``stored``: its text (at most ``max_bytes``), front matter and description."""
        try:
            size = stored.file.stat().st_size
            with stored.file.open("rb") as handle:
                data = handle.read(max_bytes + 1)
        except OSError as exc:  # gone since it was found, or unreadable: its name is the caller's, not the log's
            raise _unreadable(stored) from exc
        truncated = len(data) > max_bytes
        text = _decode(data[:max_bytes], stored, truncated=truncated)
        out: dict[str, Any] = {
            "path": stored.path, "relative_path": stored.relative_path, "id": stored.relative_path, "scope": stored.scope,
            "kind": stored.kind, "mime_type": stored.mime_type, "bytes": size, "truncated": truncated,
        }  # fmt: skip
        front, _ = parse_front_matter(text)
        if front is not None:
            out["front_matter"] = front
        out["text"] = text
        return out

    # -- overlay references ------------------------------------------------------------

    def reference(self, ref: Any, label: str) -> StoredFile:
        """The file an overlay ``template`` / ``data`` reference ``{scope, path}`` names.

        ``path`` is inside the scope (``sites/<site key>/…``) for a storage
        map, inside the map's folder otherwise. Raises ``unsafe_path``,
        ``storage_file_path_unauthorized`` (a scope the map may not read, or
        another site's directory) or ``asset_not_found``.
        """
        if not isinstance(ref, dict) or not isinstance(ref.get("path"), str) or not isinstance(ref.get("scope"), str):
            raise ActionError(f"{label} is {{scope, path}}", code=ErrorCode.INVALID_INPUT, evidence={"path": f"/{label}"})
        scope, path = check_name(ref["scope"], f"/{label}/scope"), check_name(ref["path"], f"/{label}/path")
        pointer = f"/{label}/path"
        self._no_files(pointer)
        pure = _clean(path, ErrorCode.UNSAFE_PATH, pointer)
        if self.storage_root is None:
            found = self._in_scopes(pure, (), pointer)
        else:
            if scope not in SCOPES:
                raise ActionError(f"{label}.scope {_quoted(scope)} is not a scope of this storage ({', '.join(SCOPES)})", code=ErrorCode.ASSET_NOT_FOUND,
                                  evidence={"path": f"/{label}/scope", "scope": scope, "storage_path": path})
            try:
                found = self.resolve_path(f"scopes/{scope}/{path}", pointer)
            except ActionError as exc:
                if exc.code != ErrorCode.STORAGE_FILE_NOT_FOUND:
                    raise
                found = None
        if found is None:
            raise ActionError(f"the overlay {label} {scope}:{_quoted(path)} does not exist", code=ErrorCode.ASSET_NOT_FOUND,
                              evidence={"path": pointer, "scope": scope, "storage_path": path, "reference": label})
        if found.file.stat().st_size > MAX_ASSET_BYTES:
            raise ActionError(f"the overlay {label} {_quoted(path)} is larger than {MAX_ASSET_BYTES} bytes", code=ErrorCode.STORAGE_FILE_TOO_LARGE,
                              evidence={"path": pointer, "storage_path": path, "bytes": found.file.stat().st_size, "max_bytes": MAX_ASSET_BYTES})
        return found

    def resolve_overlay_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Overlay arguments with ``template`` (+ ``data``) replaced by ``html`` (+ ``data_json``).

        Arguments without ``template`` pass unchanged (inline ``html``; ``data``
        without a template is refused). Raises ``unsafe_path``, ``asset_not_found``,
        ``invalid_json``, ``storage_file_path_unauthorized``.
        """
        if "template" not in arguments:
            if "data" in arguments:
                raise ActionError("data is injected into a template; give template too", code=ErrorCode.INVALID_INPUT, evidence={"path": "/data"})
            return arguments
        if "html" in arguments:
            raise ActionError("give html or template, not both", code=ErrorCode.INVALID_INPUT, evidence={"path": "/template"})
        html, data = self.overlay_assets(arguments["template"], arguments.get("data"))
        resolved = {k: v for k, v in arguments.items() if k not in ("template", "data")}
        resolved["html"] = html
        if "data" in arguments:
            resolved["data_json"] = data
        return resolved

    def overlay_assets(self, template: Any, data: Any = None) -> tuple[str, Any]:
        """``(html, data_json)`` for an overlay's ``template`` and optional ``data`` references (``invalid_json`` for bad data)."""
        html_file = self.reference(template, "template")
        html = _decode(_read_all(html_file), html_file, truncated=False)
        if data is None:
            return html, None
        data_file = self.reference(data, "data")
        try:
            parsed = strict_loads(_read_all(data_file))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise ActionError(f"the overlay data {data_file.path} is not JSON: {exc}", code=ErrorCode.INVALID_JSON, evidence={"path": "/data/path", "storage_path": data_file.path}) from exc
        return html, parsed


def _unreadable(stored: StoredFile) -> ActionError:
    return ActionError(f"{stored.path} cannot be read", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"storage_path": stored.path, "reason": "unreadable"})


def _read_all(stored: StoredFile) -> bytes:
    """The whole file (an overlay asset, already bounded by ``MAX_ASSET_BYTES``)."""
    try:
        return stored.file.read_bytes()
    except OSError as exc:
        raise _unreadable(stored) from exc


def _decode(data: bytes, stored: StoredFile, *, truncated: bool) -> str:
    """UTF-8 text, or ``storage_file_not_text``; a cut at ``max_bytes`` may split the last character, which is dropped."""
    if b"\x00" in data:
        raise ActionError(f"{stored.path} is not a text file", code=ErrorCode.STORAGE_FILE_NOT_TEXT, evidence={"storage_path": stored.path, "reason": "nul_byte"})
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        raise ActionError(f"{stored.path} is not UTF-8 text", code=ErrorCode.STORAGE_FILE_NOT_TEXT, evidence={"storage_path": stored.path, "reason": "not_utf8"}) from exc
