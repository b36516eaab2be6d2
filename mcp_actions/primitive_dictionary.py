"""The primitive dictionary as data: names, capabilities and input shapes of primitives.

The dictionary (``runtimes/dictionary.json``, documented in docs/primitives.md) is data that ships
beside the runtimes that implement it. This module is the one reader of that
file: it reads it as a package resource of ``mcp_actions`` without importing
``runtimes``, so the bridge can check a primitive call (is it provided by the
runtime? are its arguments of the declared shape?) before the call leaves the
bridge, and lower layers can use it without pointing up.

Views of the one document, each built once:

* ``load_dictionary()``: typed entries with compiled input checks (the bridge);
* ``host_dictionary()``, ``host_primitives()``, ``host_argument_capabilities()``:
  the raw entries by name, their input schemas, the arguments that need a
  capability (the manifest validator, runtimes and built-in tools);
* ``dictionary_names()``: every name in document order (the page runtime's
  script is given them, so the JavaScript engine keeps no copy);
* ``dictionary_bytes()``: the file as shipped (the validator's verdict cache
  fingerprints it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .errors import ActionError, ErrorCode
from .jsonutil import json_pointer
from .schema_check import CompiledSchema

__all__ = [
    "DICTIONARY_RESOURCE",
    "Primitive",
    "PrimitiveDictionary",
    "dictionary_bytes",
    "dictionary_document",
    "dictionary_names",
    "host_argument_capabilities",
    "host_dictionary",
    "host_primitives",
    "load_dictionary",
]

#: Where the dictionary lives, relative to the ``mcp_actions`` package.
DICTIONARY_RESOURCE = ("runtimes", "dictionary.json")


@dataclass(frozen=True)
class Primitive:
    """One dictionary entry.

    ``argument_capabilities`` (our addition to the reference entry's fields) names, per
    argument, the capabilities a runtime must announce to be sent that argument: an
    argument the reference dictionary does not have, such as ``pointer.click``'s
    ``target``, means nothing to a runtime written from the reference alone.
    """

    name: str
    summary: str
    capabilities: tuple[str, ...]
    portable: bool
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    errors: tuple[str, ...]
    argument_capabilities: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _input: CompiledSchema = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_input", CompiledSchema(self.input_schema, label=f"the dictionary input_schema of {self.name}"))

    def provided_by(self, announced: Collection[str]) -> bool:
        """Does a runtime announcing ``announced`` provide this primitive?

        It does when it names the primitive, or every capability the primitive needs.
        """
        return self.name in announced or bool(self.capabilities) and all(c in announced for c in self.capabilities)

    def missing(self, announced: Collection[str]) -> list[str]:
        """The capabilities of this primitive a runtime announcing ``announced`` lacks."""
        return [c for c in self.capabilities if c not in announced]

    def unsupported_arguments(self, arguments: Mapping[str, Any], announced: Collection[str]) -> dict[str, list[str]]:
        """The given arguments a runtime announcing ``announced`` was not said to understand, with the capabilities each needs."""
        return {
            argument: [c for c in needed if c not in announced]
            for argument, needed in self.argument_capabilities.items()
            if argument in arguments and any(c not in announced for c in needed)
        }

    def prepare(self) -> None:
        """Compile the input check now, so that the first call using this primitive does not."""
        self._input.prepare()

    def check_input(self, arguments: Any) -> None:
        """Raise ``invalid_input`` (evidence: JSON Pointer ``path``) when ``arguments`` break ``input_schema``."""
        error = self._input.first_error(arguments)
        if error is not None:
            pointer = json_pointer(error.absolute_path)
            raise ActionError(
                f"invalid arguments for {self.name} at {pointer or 'the top level'}: {error.message}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"primitive": self.name, "path": pointer},
            )


class PrimitiveDictionary:
    """The dictionary's entries by name."""

    def __init__(self, entries: Mapping[str, Primitive], *, version: Any = None, source: str | None = None) -> None:
        self._entries = dict(entries)
        self.version = version
        self.source = source

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, name: str) -> Primitive | None:
        """The entry named ``name``, or None."""
        return self._entries.get(name)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PrimitiveDictionary:
        """Build from the dictionary's JSON document (``{"version", "source", "primitives": [...]}``)."""
        entries: dict[str, Primitive] = {}
        for raw in data.get("primitives", []):
            entries[raw["name"]] = Primitive(
                name=raw["name"],
                summary=raw.get("summary", ""),
                capabilities=tuple(raw.get("capabilities") or ()),
                portable=bool(raw.get("portable", False)),
                input_schema=raw.get("input_schema") or {"type": "object"},
                output_schema=raw.get("output_schema"),
                errors=tuple(raw.get("errors") or ()),
                argument_capabilities={arg: tuple(caps) for arg, caps in (raw.get("argument_capabilities") or {}).items()},
            )
        return cls(entries, version=data.get("version"), source=data.get("source"))


@functools.cache
def dictionary_bytes() -> bytes:
    """The bundled dictionary file as shipped, read once. A missing file is a packaging bug and raises."""
    return resources.files("mcp_actions").joinpath(*DICTIONARY_RESOURCE).read_bytes()


@functools.cache
def dictionary_document() -> dict[str, Any]:
    """The bundled dictionary's JSON document, parsed once (treat as read-only). A malformed file is a packaging bug and raises."""
    document = json.loads(dictionary_bytes().decode("utf-8"))
    if not isinstance(document, dict):
        raise TypeError(f"{'/'.join(DICTIONARY_RESOURCE)} is not a JSON object")
    return document


@functools.cache
def host_dictionary() -> dict[str, dict[str, Any]]:
    """Every entry of the bundled dictionary by name (entries without a string name skipped); treat as read-only."""
    entries = dictionary_document().get("primitives", [])
    return {entry["name"]: entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("name"), str)}


@functools.cache
def dictionary_names() -> tuple[str, ...]:
    """Every primitive name of the bundled dictionary, in document order."""
    return tuple(host_dictionary())


@functools.cache
def host_primitives() -> dict[str, Any]:
    """The primitives of the bundled dictionary: name -> input_schema (None when an entry has none)."""
    return {name: entry.get("input_schema") for name, entry in host_dictionary().items()}


def host_argument_capabilities(primitive: str) -> dict[str, list[str]]:
    """Arguments of ``primitive`` that the bundled dictionary adds to the reference one, with the capabilities each needs."""
    entry = host_dictionary().get(primitive) or {}
    added = entry.get("argument_capabilities")
    return dict(added) if isinstance(added, dict) else {}


@functools.cache
def load_dictionary() -> PrimitiveDictionary:
    """The bundled dictionary with compiled input checks, built once."""
    return PrimitiveDictionary.from_json(dictionary_document())
