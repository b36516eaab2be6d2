"""Is an embedded JSON Schema itself valid? Metaschema checks, made fast enough for big maps.

``input_schema``, ``payload``, ``result_schema`` and ``output_schema`` must be
objects and must pass the metaschema of the dialect they declare in
``$schema`` (Draft 2020-12 when they declare none). Problems point *inside*
the schema (``/tools/3/input_schema/properties/q/type``).

jsonschema's own 2020-12 metaschema check costs about a millisecond per small
schema (its ``$dynamicRef`` resolution dominates), too slow for a map of a
thousand tools. So for 2020-12 a fast path answers "valid?" first:

* the 2020-12 metaschema is compositional: every vocabulary metaschema is
  ``{"type": ["object", "boolean"], "properties": {keyword: entry}}``, so a
  schema is valid when each keyword it holds passes its entry, and every
  subschema it holds is valid in turn;
* ``_shallow_metaschema()`` builds one jsonschema validator per keyword entry,
  with every subschema position (``$dynamicRef: "#meta"``) reduced to "an
  object or a boolean". It is derived mechanically from jsonschema's bundled
  copies of the metaschemas, so it follows whatever jsonschema ships;
* a keyword's verdict depends only on its value with subschemas replaced by
  ``true``, so verdicts are memoised by that shape (``{"type": "string"}``
  is checked once per process), and whole schemas are memoised too.

The fast path only ever says "valid". Whenever it does not, the official
metaschema runs and *its* errors are reported, so messages and paths are
exactly jsonschema's. Other dialects always use the official check (memoised).

Then every ``pattern`` and ``patternProperties`` key must be a regular
expression RE2 runs: at run time they are searched in page data on RE2 only
(``schema_check``, docs/manifest-language.md, "Regular expressions"), so one RE2
cannot run (a backreference, lookaround) is an ``invalid_schema`` problem at
the pattern, not a schema that fails every check later. This check sits
outside the verdict caches, so a verdict stored before it existed cannot hide it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, exceptions, validators
from jsonschema.protocols import Validator
from jsonschema_specifications import REGISTRY as _SPECIFICATIONS  # type: ignore[import-untyped]  # ships no types, and no stubs exist

from ...errors import ErrorCode
from ...jsonutil import json_pointer
from ...schema_check import unsupported_patterns
from ..limits import MAX_NESTING_DEPTH
from ..problems import Problem, child_pointer, pointer_tokens
from ..verdict_cache import DiskMemo, as_code, digest, is_code
from .base import Checks, depth_of, error, json_type, warning

__all__ = ["check_schema", "fast_schema_valid", "official_schema_problems", "subschema_keywords"]

logger = logging.getLogger(__name__)

_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/"
_DYNAMIC_META = {"$dynamicRef": "#meta"}
_VOCABULARIES = ("core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content")
_MAX_MESSAGE = 200
_MAX_CACHE = 50_000

# (canonical JSON, dialect class, depth in the manifest) of a whole schema -> problems relative to the schema root
_verdicts: dict[tuple[str, str, int], tuple[tuple[str, str, str, str], ...]] = {}


def _valid_verdict(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, list)
        and len(item) == 4
        and isinstance(item[0], str)
        and is_code(item[1])
        and isinstance(item[2], str)
        and item[3] in ("error", "warning")
        for item in value
    )


# The same verdicts on disk (keyed by a digest of the canonical schema), for the next process.
_disk = DiskMemo(
    "schemas",
    valid=_valid_verdict,
    decode=lambda value: tuple((relative, as_code(code), message, severity) for relative, code, message, severity in value),
)
# (keyword, its value's shape) -> passes that keyword's 2020-12 metaschema entry?
_keyword_verdicts: dict[tuple[Any, ...], bool] = {}


def _is_dynamic_meta(node: Any) -> bool:
    return isinstance(node, dict) and node == _DYNAMIC_META


def _rewrite(node: Any) -> Any:
    """Reduce subschema positions to a type check and point every $ref into one merged document."""
    if _is_dynamic_meta(node):
        return {"type": ["object", "boolean"]}
    if isinstance(node, dict):
        rewritten = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and "#" in value:
                rewritten[key] = "#" + value.split("#", 1)[1]
            else:
                rewritten[key] = _rewrite(value)
        return rewritten
    if isinstance(node, list):
        return [_rewrite(item) for item in node]
    return node


def _classify(keyword_schema: Any) -> str | None:
    """How a metaschema keyword holds subschemas: 'single', 'array' (schemaArray), 'map', or None."""
    if not isinstance(keyword_schema, dict):
        return None
    if _is_dynamic_meta(keyword_schema):
        return "single"
    if str(keyword_schema.get("$ref", "")).endswith("#/$defs/schemaArray"):
        return "array"
    values = keyword_schema.get("additionalProperties")
    if _is_dynamic_meta(values):
        return "map"
    if isinstance(values, dict) and any(_is_dynamic_meta(option) for option in values.get("anyOf", ())):
        return "map"  # 'dependencies': a schema or a string array per property
    return None


@dataclass(frozen=True)
class _Shallow:
    """One validator per 2020-12 keyword (its metaschema entry), and which keywords hold subschemas."""

    validators: dict[str, Any]
    kinds: dict[str, str]


@lru_cache(maxsize=1)
def _shallow_metaschema() -> _Shallow:
    """Derive the per-keyword checks from jsonschema's bundled copies of the 2020-12 metaschemas."""
    documents = [_SPECIFICATIONS.contents(_DRAFT_2020_12 + "schema")]
    documents += [_SPECIFICATIONS.contents(f"{_DRAFT_2020_12}meta/{name}") for name in _VOCABULARIES]
    properties: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for document in documents:
        for keyword, keyword_schema in document.get("properties", {}).items():
            if keyword in properties:  # never happens for 2020-12; would break the merge below
                raise RuntimeError(f"metaschema keyword {keyword} is defined twice")
            properties[keyword] = _rewrite(keyword_schema)
            kind = _classify(keyword_schema)
            if kind:
                kinds[keyword] = kind
        for name, definition in document.get("$defs", {}).items():
            if name in definitions:
                raise RuntimeError(f"metaschema definition {name} is defined twice")
            definitions[name] = _rewrite(definition)
    checker = Draft202012Validator.FORMAT_CHECKER
    validators = {}
    for keyword, keyword_schema in properties.items():
        # Every vocabulary metaschema is {"type": ["object", "boolean"], "properties": {...}}, so a node is
        # valid exactly when each keyword it holds passes that keyword's entry.
        schema = {**keyword_schema, "$defs": definitions} if isinstance(keyword_schema, dict) else keyword_schema
        validators[keyword] = Draft202012Validator(schema, format_checker=checker)
    return _Shallow(validators=validators, kinds=kinds)


def subschema_keywords() -> dict[str, str]:
    """Keywords of Draft 2020-12 that hold subschemas, derived from the metaschema: keyword -> kind."""
    return dict(_shallow_metaschema().kinds)


def _canonical(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None  # not plain JSON (odd types, NaN, mixed key types): no memo, official check only


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


def _shape(value: Any, kind: str | None) -> Any:
    """The keyword's value with each subschema replaced by ``true``: all its metaschema entry looks at."""
    if kind == "single":
        return True if _is_schema(value) else value
    if kind == "array" and isinstance(value, list):
        return [True if _is_schema(member) else member for member in value]
    if kind == "map" and isinstance(value, dict):
        return {key: True if _is_schema(member) else member for key, member in value.items()}
    return value


def _members(value: Any, kind: str) -> Iterable[Any]:
    if kind == "single":
        members: Iterable[Any] = (value,)
    elif kind == "array":
        members = value if isinstance(value, list) else ()
    else:
        members = value.values() if isinstance(value, dict) else ()
    return (member for member in members if _is_schema(member))


def _memo_key(keyword: str, shape: Any) -> tuple[Any, ...] | None:
    if isinstance(shape, (str, int, float, bool)) or shape is None:
        return (keyword, type(shape).__name__, shape)  # the type keeps true and 1 apart
    canonical = _canonical(shape)
    return (keyword, "json", canonical) if canonical is not None else None


def _node_valid(node: Any, shallow: _Shallow, depth: int) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict) or depth > MAX_NESTING_DEPTH:
        return False
    for keyword, value in node.items():
        validator = shallow.validators.get(keyword) if isinstance(keyword, str) else None
        if validator is None:
            continue  # keywords the metaschema does not define are allowed
        kind = shallow.kinds.get(keyword)
        shape = _shape(value, kind)
        key = _memo_key(keyword, shape)
        verdict = _keyword_verdicts.get(key) if key is not None else None
        if verdict is None:
            verdict = validator.is_valid(shape)
            if key is not None:
                if len(_keyword_verdicts) > _MAX_CACHE:
                    _keyword_verdicts.clear()
                _keyword_verdicts[key] = verdict
        if not verdict:
            return False
        if kind and not all(_node_valid(member, shallow, depth + 1) for member in _members(value, kind)):
            return False
    return True


def fast_schema_valid(schema: Any) -> bool:
    """True only when ``schema`` certainly passes the Draft 2020-12 metaschema (False: ask the official check)."""
    try:
        return _node_valid(schema, _shallow_metaschema(), 0)
    except Exception:
        return False


@lru_cache(maxsize=16)
def _official_validator(cls: type[Validator]) -> Validator:
    return cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)


def _short(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


def official_schema_problems(schema: Any, cls: type[Validator] = Draft202012Validator) -> list[tuple[str, str]]:
    """jsonschema's own metaschema errors as ``(relative pointer, message)``, most relevant sub-error each."""
    found = []
    for top in _official_validator(cls).iter_errors(schema):
        best = exceptions.best_match([top]) or top
        found.append((json_pointer(best.absolute_path), _short(f"{best.message} (metaschema keyword '{best.validator}')")))
    return sorted(set(found))


def _dialect(schema: dict[str, Any]) -> tuple[type[Validator], bool]:
    """The validator class for the schema's ``$schema``, and whether that dialect is known."""
    declared = schema.get("$schema")
    if declared is None or not isinstance(declared, str):
        return Draft202012Validator, True  # a non-string $schema is reported by the metaschema itself
    if declared.rstrip("#") == _DRAFT_2020_12 + "schema":
        return Draft202012Validator, True
    cls: type[Validator] | None = validators.validator_for(schema, default=None)  # type: ignore[arg-type]  # jsonschema returns the default as given (None: an unknown $schema); its stubs allow only a class
    if cls is None:
        return Draft202012Validator, False
    return cls, True


def _verdict(schema: dict[str, Any], cls: type[Validator], base_depth: int) -> tuple[tuple[str, str, str, str], ...]:
    """Problems of one schema relative to its root: ``(pointer, code, message, severity)``."""
    deepest, tokens = depth_of(schema, MAX_NESTING_DEPTH - base_depth)
    if deepest > MAX_NESTING_DEPTH - base_depth:
        where = ""
        for token in tokens:
            where = child_pointer(where, token)
        return ((where, ErrorCode.NESTING_TOO_DEEP, f"nested deeper than {MAX_NESTING_DEPTH} levels", "error"),)
    if cls is Draft202012Validator and fast_schema_valid(schema):
        return ()
    try:
        found = official_schema_problems(schema, cls)
    except RecursionError:
        return (("", ErrorCode.NESTING_TOO_DEEP, "schema nests too deeply to check", "error"),)
    except Exception as exc:
        logger.debug("metaschema check failed", exc_info=True)
        return (("", ErrorCode.INVALID_SCHEMA, _short(f"schema cannot be checked: {type(exc).__name__}"), "error"),)
    return tuple((relative, ErrorCode.INVALID_SCHEMA, message, "error") for relative, message in found)


def _stored_or_computed(schema: dict[str, Any], cls: type[Validator], base_depth: int, canonical: str | None) -> tuple[tuple[str, str, str, str], ...]:
    """The verdict the disk cache holds for the schema, else a new one (remembered there)."""
    disk_key = digest(canonical, cls.__name__, str(base_depth)) if canonical is not None else None
    if disk_key is not None:
        known, stored = _disk.get(disk_key)
        if known:
            remembered: tuple[tuple[str, str, str, str], ...] = stored
            return remembered
    verdict = _verdict(schema, cls, base_depth)
    if disk_key is not None:
        _disk.put(disk_key, [[relative, str(code), message, severity] for relative, code, message, severity in verdict])
    return verdict


def check_schema(value: Any, path: str, what: str) -> Checks:
    """``value`` (found at ``path``) is an object and a valid JSON Schema of its declared dialect."""
    if not isinstance(value, dict):
        yield error(path, ErrorCode.SCHEMA_NOT_OBJECT, f"{what} must be a JSON Schema object, got {json_type(value)}")
        return
    cls, known = _dialect(value)
    if not known:
        yield warning(child_pointer(path, "$schema"), ErrorCode.UNKNOWN_SCHEMA_DIALECT, f"{what}: unknown $schema; checked as Draft 2020-12")
    base_depth = len(pointer_tokens(path))
    canonical = _canonical(value)
    key = (canonical, cls.__name__, base_depth) if canonical is not None else None
    verdict = _verdicts.get(key) if key is not None else None
    if verdict is None:
        verdict = _stored_or_computed(value, cls, base_depth, canonical)
        if key is not None:
            if len(_verdicts) > _MAX_CACHE:
                _verdicts.clear()
            _verdicts[key] = verdict
    for relative, code, message, severity in verdict:
        yield Problem(path + relative, code, f"{what}: {message}", severity)
    if canonical is None or '"pattern' in canonical:  # most schemas hold no pattern: skip the walk
        reported = {relative for relative, *_ in verdict}
        for relative, problem in unsupported_patterns(value):
            # Not a regular expression at all: the metaschema said so already, there or at the patternProperties holding it.
            if not any(relative == where or (where and relative.startswith(where + "/")) for where in reported):
                yield Problem(path + relative, ErrorCode.INVALID_SCHEMA, f"{what}: {_short(problem)}", "error")

