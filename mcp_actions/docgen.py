"""The generated parts of ``docs/``: the primitive reference and the table of error codes.

Two pages of the documentation are partly written by this module, so that
they say what the code says:

* ``docs/primitives.md``: every primitive of the bundled dictionary
  (``runtimes/dictionary.json``, read through ``primitive_dictionary``):
  its summary, capabilities, arguments with their types and whether they are
  required, output fields and errors (``primitives_reference``);
* ``docs/errors.md``: every member of ``errors.ErrorCode`` with its groups and
  meaning (``errors_reference``).

Each page holds its generated text between two marker lines,
``<!-- BEGIN GENERATED <name> ... -->`` and ``<!-- END GENERATED <name> -->``;
the rest of the page is written by hand and left alone. ``GENERATED`` maps
each page to its region's name and text. ``refresh`` rewrites the regions of
the pages in a docs folder, ``stale`` names the pages whose regions differ
from what the code says now (the test suite fails on any), and ``main`` is
the command: from a clone, ``python -m mcp_actions.docgen`` regenerates
``docs/`` beside the package, ``--check`` only reports (exit 1 when stale).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import ErrorCode
from .primitive_dictionary import dictionary_document

__all__ = ["GENERATED", "errors_reference", "main", "primitives_reference", "refresh", "stale"]

#: ``docs/`` of a clone: beside the package directory.
DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"

_COMMAND = "python -m mcp_actions.docgen"


def _begin(name: str) -> str:
    return f"<!-- BEGIN GENERATED {name}: do not edit by hand; regenerate with `{_COMMAND}` -->"


def _end(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def _html_safe(text: str) -> str:
    """Text whose ``<`` and ``>`` Markdown shows as written (``<select>`` is not an element)."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _cell(text: str) -> str:
    """Text fit for one Markdown table cell."""
    return _html_safe(" ".join(text.split())).replace("|", "\\|")


def _code_list(values: Sequence[str]) -> str:
    return ", ".join(f"`{value}`" for value in values) if values else "none"


def _literal(value: Any) -> str:
    import json

    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _children(schema: Any) -> tuple[str, Mapping[str, Any]] | None:
    """The members listed below a member: an object's properties (``.``), an array's items' (``[].``)."""
    if not isinstance(schema, Mapping):
        return None
    if isinstance(schema.get("properties"), Mapping) and schema["properties"]:
        return ".", schema
    items = schema.get("items")
    if isinstance(items, Mapping) and isinstance(items.get("properties"), Mapping) and items["properties"]:
        return "[].", items
    return None


def _type(schema: Any) -> str:
    """A schema's type in a few words: ``string``, ``"left" | "right"``, ``array of string``, ``any``."""
    if not isinstance(schema, Mapping) or not schema:
        return "any"
    if "enum" in schema:
        return " | ".join(_literal(value) for value in schema["enum"])
    declared = schema.get("type")
    types = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
    words = []
    for kind in types or ["any"]:
        if kind == "array" and isinstance(schema.get("items"), Mapping) and schema["items"]:
            words.append(f"array of {_type(schema['items'])}")
        else:
            words.append(str(kind))
    return " or ".join(words)


def _notes(schema: Mapping[str, Any], needs: Sequence[str] = ()) -> str:
    """What else the schema of one member says: its description, bounds, default, needed capabilities."""
    notes = [schema["description"].rstrip(".")] if isinstance(schema.get("description"), str) else []
    for key, template in (
        ("minimum", "≥ {}"), ("maximum", "≤ {}"), ("minLength", "at least {} characters"),
        ("maxLength", "at most {} characters"), ("maxItems", "at most {} items"), ("pattern", "pattern `{}`"),
    ):  # fmt: skip
        if key in schema:
            notes.append(template.format(schema[key]))
    if "default" in schema:
        notes.append(f"default {_literal(schema['default'])}")
    if needs:
        notes.append(f"sent only to runtimes announcing {_code_list(needs)}")
    return "; ".join(notes)


def _member_rows(schema: Mapping[str, Any], prefix: str, needs: Mapping[str, Sequence[str]], depth: int = 0) -> list[str]:
    """One table row per member of an object schema, then its own members (``a.b``, ``a[].b``) below it."""
    rows = []
    required = set(schema.get("required") or ())
    for name, member in schema["properties"].items():
        member = member if isinstance(member, Mapping) else {}
        notes = _notes(member, needs.get(name, ()) if not prefix else ())
        rows.append(f"| `{prefix}{name}` | {_cell(_type(member))} | {'yes' if name in required else ''} | {_cell(notes)} |")
        below = _children(member)
        if below is not None and depth < 4:
            separator, child = below
            rows += _member_rows(child, f"{prefix}{name}{separator}", needs, depth + 1)
    return rows


def _members_table(schema: Any, heading: str, needs: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """A table of an object schema's members (nested ones as ``a.b`` and ``a[].b``): name, type, required, notes."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping) or not schema["properties"]:
        return []
    return [f"| {heading} | type | required | notes |", "| --- | --- | --- | --- |", *_member_rows(schema, "", needs or {})]


def _constraints(schema: Mapping[str, Any]) -> list[str]:
    """What an input schema says across its members (``anyOf`` of required sets, ``dependentRequired``)."""
    said = []
    alternatives = schema.get("anyOf")
    if isinstance(alternatives, list):
        sets = [" and ".join(f"`{name}`" for name in option.get("required", ())) for option in alternatives if isinstance(option, Mapping)]
        said.append("at least one of " + ", ".join(sets))
    dependent = schema.get("dependentRequired")
    if isinstance(dependent, Mapping):
        said.extend(f"`{name}` needs {_code_list(others)}" for name, others in dependent.items())
    return [f"Constraints: {'; '.join(said)}."] if said else []


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + ("." if dot else "")


def primitives_reference() -> str:
    """The generated region of ``docs/primitives.md``: an index, then every primitive of the bundled dictionary."""
    document = dictionary_document()
    entries = [entry for entry in document.get("primitives", []) if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)]
    lines = [
        f"The bundled dictionary (version {document.get('version')}) has {len(entries)} primitives: "
        f"{sum(1 for e in entries if e.get('origin') != 'mcp-actions')} of the reference dictionary and "
        f"{sum(1 for e in entries if e.get('origin') == 'mcp-actions')} added by mcp-actions.",
        "",
        "| primitive | origin | portable | summary |",
        "| --- | --- | --- | --- |",
    ]
    for entry in entries:
        anchor = entry["name"].replace(".", "")
        origin = "mcp-actions" if entry.get("origin") == "mcp-actions" else "reference"
        lines.append(f"| [`{entry['name']}`](#{anchor}) | {origin} | {'yes' if entry.get('portable') else 'no'} | {_cell(_first_sentence(str(entry.get('summary', ''))))} |")
    for entry in entries:
        given, added = entry.get("input_schema"), entry.get("argument_capabilities")
        schema: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        needs: Mapping[str, Sequence[str]] = added if isinstance(added, Mapping) else {}
        origin = "an addition of mcp-actions" if entry.get("origin") == "mcp-actions" else "the reference dictionary's"
        lines += [
            "",
            f"### {entry['name']}",
            "",
            _html_safe(str(entry.get("summary", "")).strip()),
            "",
            f"- Capabilities: {_code_list(entry.get('capabilities') or [])}",
            f"- Portable: {'yes' if entry.get('portable') else 'no'}; origin: {origin}",
            f"- Errors: {_code_list(entry.get('errors') or [])}",
            "",
        ]
        arguments = _members_table(schema, "argument", needs)
        lines += arguments or ["No arguments."]
        if schema.get("additionalProperties") is False and arguments:
            lines += ["", "No other argument is accepted."]
        constraints = _constraints(schema)
        if constraints:
            lines += ["", *constraints]
        output = _members_table(entry.get("output_schema"), "output")
        lines += ["", *output] if output else ["", f"Output: {_type(entry.get('output_schema'))}."]
    return "\n".join(lines)


def errors_reference() -> str:
    """The generated region of ``docs/errors.md``: every ``ErrorCode`` with its groups and meaning, in declaration order."""
    lines = [f"{len(ErrorCode)} codes.", "", "| code | groups | meaning |", "| --- | --- | --- |"]
    for member in ErrorCode:
        lines.append(f"| `{member.value}` | {', '.join(sorted(member.groups))} | {_cell(member.meaning)} |")
    return "\n".join(lines)


#: Each generated page (relative to ``docs/``): its region's name and what writes it.
GENERATED: dict[str, tuple[str, Callable[[], str]]] = {
    "primitives.md": ("primitives", primitives_reference),
    "errors.md": ("errors", errors_reference),
}


def _regenerated(text: str, name: str, body: str, page: str) -> str:
    """``text`` with its region ``name`` holding ``body``; a page without the markers is an error."""
    begin, end = _begin(name), _end(name)
    start = text.find(begin)
    stop = text.find(end, start + len(begin)) if start >= 0 else -1
    if start < 0 or stop < 0:
        raise ValueError(f"{page} has no region {name!r}: add the lines {begin!r} and {end!r} where it belongs")
    return text[:start] + begin + "\n\n" + body + "\n\n" + text[stop:]


def _pages(docs: Path) -> dict[Path, str]:
    """Every generated page of ``docs`` with the text it should have now."""
    wanted = {}
    for page, (name, write) in GENERATED.items():
        path = docs / page
        wanted[path] = _regenerated(path.read_text(encoding="utf-8"), name, write(), str(path))
    return wanted


def stale(docs: Path = DOCS_DIR) -> list[Path]:
    """The generated pages of ``docs`` whose generated regions are not what the code says now."""
    return [path for path, text in _pages(docs).items() if path.read_text(encoding="utf-8") != text]


def refresh(docs: Path = DOCS_DIR) -> list[Path]:
    """Rewrite the generated regions of the pages of ``docs``; return the pages that changed."""
    changed = []
    for path, text in _pages(docs).items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mcp_actions.docgen [--check] [--docs DIR]``: regenerate (or check) the generated parts of the docs."""
    parser = argparse.ArgumentParser(prog=_COMMAND, description="Regenerate the generated parts of docs/ (primitives.md, errors.md).")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a generated part is out of date")
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help=f"the docs folder (default {DOCS_DIR})")
    args = parser.parse_args(argv)
    try:
        paths = stale(args.docs) if args.check else refresh(args.docs)
    except (OSError, ValueError) as exc:
        print(f"{_COMMAND}: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"{'out of date' if args.check else 'regenerated'}: {path}", file=sys.stderr)
    return 1 if args.check and paths else 0


if __name__ == "__main__":
    sys.exit(main())
