"""Cross-references: the names a manifest declares, and references that must resolve to them.

``Index.build`` collects the declared names of the kinds references are
checked against (``shape.REFERABLE_KINDS``: tools, states, signals,
attachments, state projections, declared where ``shape.DECLARED_KINDS`` says)
tolerantly: malformed entries are simply not indexed, their own problems are
reported elsewhere. ``check_references`` checks the members ``shape.REFERENCES``
lists for an entry. A reference that names
nothing declared is an ``unknown_<kind>`` error naming the declared names close
to it (``did you mean 'board_ready'?``), with two exceptions that keep
problems about causes rather than symptoms:

* when the declaring list itself is malformed (``"states": {}``), references
  to it are not checked, since every one of them would be a false alarm;
* a name inside an enabled import's namespace (``example.search`` with an
  import whose namespace is ``example``) comes from a map composed at load
  time, which a static check cannot see.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import ErrorCode
from ...jsonutil import json_pointer
from ..problems import child_pointer
from ..shape import DECLARED_KINDS, REFERABLE_KINDS, Reference, locate
from .base import Checks, Rules, error, json_type
from .hints import did_you_mean

__all__ = ["UNKNOWN_CODES", "Index", "check_reference", "check_reference_list", "check_references"]

_DECLARING = {kind: DECLARED_KINDS[kind] for kind in REFERABLE_KINDS}
#: The code of a reference to an undeclared name, by kind (one per ``shape.REFERABLE_KINDS``).
UNKNOWN_CODES: dict[str, ErrorCode] = {
    "tool": ErrorCode.UNKNOWN_TOOL,
    "state": ErrorCode.UNKNOWN_STATE,
    "signal": ErrorCode.UNKNOWN_SIGNAL,
    "attachment": ErrorCode.UNKNOWN_ATTACHMENT,
    "projection": ErrorCode.UNKNOWN_PROJECTION,
}


@dataclass(frozen=True)
class Index:
    """Names declared by one manifest, by kind (``tool``, ``state``, ``signal``, ``attachment``, ``projection``)."""

    names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    unchecked_kinds: frozenset[str] = frozenset()
    namespaces: tuple[str, ...] = ()

    @classmethod
    def build(cls, document: Any) -> Index:
        """Index the declared names of ``document`` (any value; non-objects declare nothing)."""
        if not isinstance(document, dict):
            return cls(unchecked_kinds=frozenset(_DECLARING))
        names: dict[str, frozenset[str]] = {}
        unchecked: set[str] = set()
        for kind, (list_key, name_key) in _DECLARING.items():
            entries = document.get(list_key, [])
            if not isinstance(entries, list):
                unchecked.add(kind)
                continue
            names[kind] = frozenset(
                entry[name_key] for entry in entries if isinstance(entry, dict) and isinstance(entry.get(name_key), str)
            )
        namespaces = []
        imports = document.get("imports")
        if isinstance(imports, list):
            if any(
                isinstance(entry, dict) and entry.get("enabled", True) is not False and not entry.get("namespace")
                for entry in imports
            ):
                unchecked.update(_DECLARING)  # an un-namespaced import may declare any name at all
            # A disabled import composes nothing, so its namespace declares nothing either.
            namespaces = [
                entry["namespace"]
                for entry in imports
                if isinstance(entry, dict)
                and isinstance(entry.get("namespace"), str)
                and entry["namespace"]
                and entry.get("enabled", True) is not False
            ]
        elif imports is not None:
            unchecked.update(_DECLARING)  # imports we cannot read may declare anything
        return cls(names=names, unchecked_kinds=frozenset(unchecked), namespaces=tuple(namespaces))

    def declares(self, kind: str, name: str) -> bool:
        """True when ``name`` is declared (or cannot be judged statically) for ``kind``."""
        if kind in self.unchecked_kinds or name in self.names.get(kind, ()):
            return True
        return any(name.startswith(namespace + ".") for namespace in self.namespaces)


def check_reference(value: Any, path: str, kind: str, index: Index) -> Checks:
    """``value`` is a string naming a declared ``kind``."""
    if not isinstance(value, str):
        yield error(path, ErrorCode.INVALID_TYPE, f"a {kind} reference must be a string, got {json_type(value)}")
    elif not index.declares(kind, value):
        hint = did_you_mean(value, index.names.get(kind, ()))
        yield error(path, UNKNOWN_CODES[kind], f"{kind} {value!r} is not declared in this manifest{hint}")


def check_reference_list(obj: Mapping[str, Any], key: str, path: str, kind: str, index: Index) -> Checks:
    """``obj[key]``, when present, is an array of references to declared ``kind``s."""
    if key not in obj:
        return
    where = child_pointer(path, key)
    value = obj[key]
    if not isinstance(value, list):
        yield error(where, ErrorCode.INVALID_TYPE, f"'{key}' must be an array, got {json_type(value)}")
        return
    for position, item in enumerate(value):
        yield from check_reference(item, child_pointer(where, position), kind, index)


def check_references(entry: Any, where: str, references: Iterable[Reference], rules: Rules, *, skip: int = 0) -> Checks:
    """Every member of ``entry`` the ``references`` reach (their paths less the first ``skip`` tokens) names a declared kind."""
    for reference in references:
        for obj, key, tokens in locate(entry, reference.path[skip:]):
            if reference.form == "names":
                yield from check_reference_list(obj, key, where + json_pointer(tokens[:-1]), reference.kind, rules.index)
            elif reference.form == "values":
                if isinstance(obj[key], dict):
                    for name_key, value in obj[key].items():
                        yield from check_reference(value, where + json_pointer((*tokens, name_key)), reference.kind, rules.index)
            else:
                yield from check_reference(obj[key], where + json_pointer(tokens), reference.kind, rules.index)
