"""The root object: protocol, version, its documented keys, surface, imports and composition.

Unknown root keys are warnings (the published simple-form map carries a
``prompt``), ``x_*`` keys are extensions; an unsupported protocol or version
is an error, since nothing else about the document can be trusted then.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import COMPOSITION_FIELDS, IMPORT_FIELDS, IMPORT_KINDS, PROTOCOL, ROOT_FIELDS, SURFACE_TEXT_FIELDS, TRUST_LEVELS, VERSION
from .base import (
    Checks,
    Rules,
    check_enum,
    check_identifier,
    check_keys,
    check_required_identifier,
    check_string,
    check_unique_names,
    error,
    expect_type,
    json_type,
    missing_member,
    object_entries,
    warning,
)
from .hints import spell

__all__ = ["check_imports", "check_root"]



def check_root(document: dict[str, Any], rules: Rules) -> Checks:
    """protocol, version, unknown root keys, surface, provenance."""
    if "protocol" not in document:
        yield missing_member("", "protocol", PROTOCOL)
    else:
        problem = expect_type(document["protocol"], "string", "/protocol")
        if problem:
            yield problem
        elif document["protocol"] != PROTOCOL:
            yield error("/protocol", ErrorCode.UNSUPPORTED_PROTOCOL, f"protocol must be {spell(PROTOCOL)}")
    if "version" not in document:
        yield missing_member("", "version", VERSION)
    else:
        problem = expect_type(document["version"], "integer", "/version")
        if problem:
            yield problem
        elif document["version"] != VERSION:
            yield error("/version", ErrorCode.UNSUPPORTED_VERSION, f"version must be {spell(VERSION)}")
    document = yield from check_keys(document, "", ROOT_FIELDS, rules, subject="manifest")
    if "$schema" in document:
        yield from check_string(document, "$schema", "")
    if "surface" in document:
        surface = document["surface"]
        if not isinstance(surface, dict):
            yield error("/surface", ErrorCode.INVALID_TYPE, f"surface must be an object, got {json_type(surface)}")
        else:
            # The spec lists surface's "common fields" only: other keys are fine here.
            for key in SURFACE_TEXT_FIELDS:
                yield from check_string(surface, key, "/surface")
            if isinstance(surface.get("origin"), str):
                yield from _check_origin(surface["origin"])
    if "provenance" in document and not isinstance(document["provenance"], dict):
        yield error("/provenance", ErrorCode.INVALID_TYPE, f"provenance must be an object, got {json_type(document['provenance'])}")


def _check_origin(origin: str) -> Checks:
    """Warn when a web ``surface.origin`` is more than an origin (the spec: scheme, host and port).

    A map's tools work on pages of its site, and the server routes and opens by
    the origin alone, so a path there would be silently ignored; the warning
    says what to write instead, and that the page is reached with navigation.
    """
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return
    extra = [what for what, present in (("a path", parts.path not in ("", "/")), ("a query", bool(parts.query)), ("a fragment", bool(parts.fragment))) if present]
    if extra:
        fix = f"{parts.scheme}://{parts.netloc}"
        yield warning(
            "/surface/origin",
            ErrorCode.ORIGIN_NOT_AN_ORIGIN,
            f"surface.origin {origin!r} has {' and '.join(extra)}; an origin is scheme://host[:port]: write {fix!r} "
            "(the server opens and matches the origin only; agents reach the tools' page with browser_navigate)",
        )


def check_imports(document: dict[str, Any], rules: Rules) -> Checks:
    """imports (id, kind, uri, namespace, trust, enabled) and the composition policy."""
    composition = document.get("composition")
    # "Namespace imported maps unless a composition policy explicitly allows another behavior."
    namespace_required = True
    if "composition" in document:
        if not isinstance(composition, dict):
            yield error("/composition", ErrorCode.INVALID_TYPE, f"composition must be an object, got {json_type(composition)}")
        else:
            composition = yield from check_keys(composition, "/composition", COMPOSITION_FIELDS, rules, subject="composition")
            # Its values (prefer_local, prefer_import, error) are the composer's to judge: it reports
            # invalid_value at this same pointer when it composes the map.
            yield from check_string(composition, "default_conflict_policy", "/composition", non_empty=True)
            if "namespace_required" in composition:
                problem = expect_type(composition["namespace_required"], "boolean", "/composition/namespace_required")
                if problem:
                    yield problem
                namespace_required = composition["namespace_required"] is not False
    imports = yield from object_entries(document, "imports", "", what="an import")
    for where, entry in imports:
        entry = yield from check_keys(entry, where, IMPORT_FIELDS, rules, subject="import")
        yield from check_required_identifier(entry, "id", where, missing="import: 'id' is required", what="import id")
        if "kind" not in entry:
            yield missing_member(where, "kind", IMPORT_KINDS, subject="import")
        yield from check_enum(entry, "kind", where, IMPORT_KINDS)
        yield from check_string(entry, "uri", where, required=True, non_empty=True)
        if "namespace" in entry:
            yield from check_identifier(entry["namespace"], child_pointer(where, "namespace"), "import namespace")
        elif namespace_required and entry.get("enabled", True) is not False:
            # Same code and pointer as the composer reports, so a map reads the same in both.
            message = "an enabled import needs a namespace (composition.namespace_required is true by default)"
            yield error(child_pointer(where, "namespace"), ErrorCode.IMPORT_NAMESPACE_REQUIRED, message)
        yield from check_enum(entry, "trust", where, TRUST_LEVELS)
        if "enabled" in entry:
            problem = expect_type(entry["enabled"], "boolean", child_pointer(where, "enabled"))
            if problem:
                yield problem
        if "provenance" in entry and not isinstance(entry["provenance"], dict):
            yield error(child_pointer(where, "provenance"), ErrorCode.INVALID_TYPE, f"provenance must be an object, got {json_type(entry['provenance'])}")
    yield from check_unique_names(imports, "id", "import id")
