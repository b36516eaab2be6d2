"""From a transfer item to the text an editable element receives.

``select_items`` narrows the value first (``item_selector``): ``pointer`` (a
JSON Pointer into the value), ``index`` (an array element, negative from the
end), ``where`` (the array elements of objects whose fields equal the given
values). ``render_item`` then turns it into text (``render``):

- no ``render``: text is inserted as is; a URI list one URI a line; JSON as
  its string when it is one, else pretty-printed (two-space indent);
- ``{"as": "json"}`` compact JSON, ``{"as": "pretty"}`` pretty JSON,
  ``{"as": "text"}`` the default above;
- ``{"template": "…{{title}} ({{url}})…"}``: the template filled from the
  value, once per element when the value is an array, joined by
  ``separator`` (default a newline); ``{{a.b}}`` follows object members and
  array indices, ``{{.}}`` is the element itself; a missing field is empty,
  a non-string one its compact JSON;
- ``prefix`` / ``suffix`` wrap the result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["render_item", "select_items"]

#: ``{{ path }}``. The spaces around the path are stripped in ``_fill``, not matched here: a lazy
#: group between two ``\s*`` backtracks in time cubic in a run of spaces (``"{{" + " " * 5000``
#: held the server for minutes), and a template may be built from page text. This form scans each
#: ``{{`` once, up to the next brace.
_PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")
_RENDER_KEYS = frozenset({"as", "template", "separator", "prefix", "suffix"})
_SELECTOR_KEYS = frozenset({"pointer", "index", "where"})


def _bad(message: str, path: str) -> ActionError:
    return ActionError(message, code=ErrorCode.INVALID_INPUT, evidence={"path": path})


def _pointer(value: Any, pointer: str) -> Any:
    if pointer == "":
        return value
    if not pointer.startswith("/"):
        raise _bad("item_selector.pointer is a JSON Pointer ('' or starting with '/')", "/item_selector/pointer")
    current = value
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, Mapping) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            raise ActionError(f"the transfer item has nothing at {pointer}", code=ErrorCode.TARGET_NOT_FOUND, evidence={"pointer": pointer})
    return current


def select_items(value: Any, selector: Mapping[str, Any] | None) -> Any:
    """The part of ``value`` that ``selector`` (an ``item_selector``) names; the whole value without one."""
    if not selector:
        return value
    unknown = set(selector) - _SELECTOR_KEYS
    if unknown:
        raise _bad(f"item_selector takes {', '.join(sorted(_SELECTOR_KEYS))}, not {', '.join(sorted(unknown))}", f"/item_selector/{sorted(unknown)[0]}")
    picked = _pointer(value, selector["pointer"]) if isinstance(selector.get("pointer"), str) else value
    where = selector.get("where")
    if where is not None:
        if not isinstance(where, Mapping) or not isinstance(picked, list):
            raise _bad("item_selector.where is an object of field values, applied to an array", "/item_selector/where")
        picked = [entry for entry in picked if isinstance(entry, Mapping) and all(entry.get(k) == v for k, v in where.items())]
    index = selector.get("index")
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, int) or not isinstance(picked, list):
            raise _bad("item_selector.index is an integer, applied to an array", "/item_selector/index")
        if not -len(picked) <= index < len(picked):
            raise ActionError(f"the transfer item has no element {index}", code=ErrorCode.TARGET_NOT_FOUND, evidence={"index": index, "length": len(picked)})
        picked = picked[index]
    return picked


def _field(item: Any, path: str) -> Any:
    if path in ("", "."):
        return item
    current = item
    for part in path.split("."):
        if isinstance(current, Mapping):
            current = current.get(part)
        elif isinstance(current, list) and part.lstrip("-").isdigit() and -len(current) <= int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _fill(template: str, item: Any) -> str:
    return _PLACEHOLDER.sub(lambda match: _text(_field(item, match.group(1).strip())), template)


def render_item(fmt: str, value: Any, render: Mapping[str, Any] | None = None) -> str:
    """The text to insert for ``value`` of format ``fmt`` under ``render`` (see the module docstring)."""
    render = render or {}
    unknown = set(render) - _RENDER_KEYS
    if unknown:
        raise _bad(f"render takes {', '.join(sorted(_RENDER_KEYS))}, not {', '.join(sorted(unknown))}", f"/render/{sorted(unknown)[0]}")
    for key in ("template", "separator", "prefix", "suffix", "as"):
        if key in render and not isinstance(render[key], str):
            raise _bad(f"render.{key} must be a string", f"/render/{key}")
    separator = str(render.get("separator", "\n"))
    template = render.get("template")
    style = render.get("as", "text")
    body: str
    if template is not None:
        items = value if isinstance(value, list) else [value]
        body = separator.join(_fill(template, item) for item in items)
    elif style == "json":
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    elif style == "pretty":
        body = json.dumps(value, ensure_ascii=False, indent=2)
    elif style == "text":
        if isinstance(value, str):
            body = value
        elif fmt == "text/uri-list" and isinstance(value, list):
            body = separator.join(_text(v) for v in value)
        else:
            body = json.dumps(value, ensure_ascii=False, indent=2)
    else:
        raise _bad("render.as is text, json or pretty", "/render/as")
    return str(render.get("prefix", "")) + body + str(render.get("suffix", ""))
