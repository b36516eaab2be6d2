"""Responses-style mapping: bridge items to and from function-call items.

The Actions Bridge Protocol keeps the semantics of OpenAI Responses items so
an adapter can sit between a model and the bridge without losing correlation:

    function_call          {type, call_id, name, arguments: "<JSON text>"}
        ⇅  action_call     {type, call_id, name, arguments: {…}[, runtime_id, timeout_ms]}
    function_call_output   {type, call_id, output: "<JSON text>"}
        ⇅  action_call_output {type, call_id, runtime_id, output: …}
           action_error       {type, call_id, error: {code, message, …}}

The ``call_id`` is preserved both ways. Arguments and outputs stay structured
inside the bridge and are serialised (compact JSON) only at this boundary. An
``action_error`` travels as a ``function_call_output`` whose output is the JSON
of ``{"error": …}``; going back, an output that is exactly such an object (a
single ``error`` key holding ``code`` and ``message`` strings) becomes an
``action_error`` again. The bridge items that come out are built from the
models of ``items.py`` (``dump()``), so they are valid items: what could not
be one is refused with the function's error code and the offending ``path``.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import ActionError, ErrorCode
from ..jsonutil import strict_loads
from .items import ActionCall, ActionCallOutput, ActionErrorItem, ErrorBody

__all__ = [
    "action_call_from_function_call",
    "action_call_output_from_function_call_output",
    "function_call_from_action_call",
    "function_call_output_from",
]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _require_type(item: Any, expected: tuple[str, ...], code: str) -> str:
    if not isinstance(item, dict):
        raise ActionError(f"expected a {' or '.join(expected)} item, not {type(item).__name__}", code=code, evidence={"path": ""})
    item_type = item.get("type")
    if not isinstance(item_type, str) or item_type not in expected:
        raise ActionError(
            f"expected a {' or '.join(expected)} item, not {item_type!r}",
            code=code,
            evidence={"path": "/type", "type": item_type if isinstance(item_type, str) else None},
        )
    return item_type


M = TypeVar("M", bound=BaseModel)


def _build(model: type[M], code: str, fields: dict[str, Any]) -> M:
    """``model(**fields)``, a field it refuses reported as ``code`` with its JSON Pointer ``path``."""
    try:
        return model(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        path = "/" + "/".join(str(part) for part in first["loc"])
        raise ActionError(f"{fields['type']} item at {path}: {first['msg']}", code=code, evidence={"path": path, "call_id": fields["call_id"]}) from exc


def _require_string(item: dict[str, Any], key: str, code: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise ActionError(
            f"{item.get('type')} item needs a non-empty string {key!r}",
            code=code,
            evidence={"path": f"/{key}", "call_id": item.get("call_id") if isinstance(item.get("call_id"), str) else None},
        )
    return value


def action_call_from_function_call(
    item: dict[str, Any], *, runtime_id: str | None = None, timeout_ms: int | None = None
) -> dict[str, Any]:
    """Turn a Responses ``function_call`` into a bridge ``action_call``.

    ``arguments`` (JSON text; an already-decoded object and the empty string
    are tolerated) must decode to a JSON object. Raises ``ActionError`` with
    ``invalid_input`` and the offending ``path`` otherwise.
    """
    code = ErrorCode.INVALID_INPUT
    _require_type(item, ("function_call",), code)
    call_id = _require_string(item, "call_id", code)
    name = _require_string(item, "name", code)
    raw = item.get("arguments", "")
    evidence = {"call_id": call_id, "name": name, "path": "/arguments"}
    if isinstance(raw, dict):
        arguments = raw
    elif isinstance(raw, str):
        if not raw.strip():
            arguments = {}  # models emit "" for a function without parameters
        else:
            try:
                arguments = strict_loads(raw)  # a repeated key or a NaN: readers would disagree on the arguments
            except (ValueError, RecursionError) as exc:  # RecursionError: nested past the stack
                raise ActionError(f"arguments of {name} are not valid JSON: {exc}", code=code, evidence=evidence) from exc
    else:
        raise ActionError(f"arguments of {name} must be JSON text", code=code, evidence=evidence)
    if not isinstance(arguments, dict):
        raise ActionError(
            f"arguments of {name} must be a JSON object, not {type(arguments).__name__}",
            code=code,
            evidence=evidence,
        )
    return _build(ActionCall, code, {"type": "action_call", "call_id": call_id, "runtime_id": runtime_id, "name": name, "arguments": arguments, "timeout_ms": timeout_ms}).dump()


def function_call_from_action_call(item: dict[str, Any]) -> dict[str, Any]:
    """Turn a bridge ``action_call`` into a Responses ``function_call`` (arguments as compact JSON)."""
    code = ErrorCode.INVALID_ITEM
    _require_type(item, ("action_call",), code)
    call_id = _require_string(item, "call_id", code)
    name = _require_string(item, "name", code)
    arguments = item.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ActionError("action_call arguments must be an object", code=code, evidence={"path": "/arguments", "call_id": call_id})
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": _compact(arguments)}


def function_call_output_from(item: dict[str, Any]) -> dict[str, Any]:
    """Turn an ``action_call_output`` or call-scoped ``action_error`` into a ``function_call_output``.

    The output is compact JSON text: the call's output, or ``{"error": …}``.
    A runtime-scoped ``action_error`` (no ``call_id``) answers no function
    call and is refused with ``invalid_item``.
    """
    code = ErrorCode.INVALID_ITEM
    item_type = _require_type(item, ("action_call_output", "action_error"), code)
    call_id = _require_string(item, "call_id", code)
    if item_type == "action_call_output":
        if "output" not in item:
            raise ActionError("action_call_output needs 'output'", code=code, evidence={"path": "/output", "call_id": call_id})
        output = item["output"]
    else:
        error = item.get("error")
        if not isinstance(error, dict):
            raise ActionError("action_error needs an 'error' object", code=code, evidence={"path": "/error", "call_id": call_id})
        output = {"error": error}
    return {"type": "function_call_output", "call_id": call_id, "output": _compact(output)}


def _as_error(value: Any) -> ErrorBody | None:
    if isinstance(value, dict) and set(value) == {"error"}:
        error = value["error"]
        if isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
            return ErrorBody.model_validate(error)
    return None


def action_call_output_from_function_call_output(item: dict[str, Any], *, runtime_id: str) -> dict[str, Any]:
    """Turn a ``function_call_output`` back into a bridge item for ``runtime_id``.

    JSON output text is decoded (other text stays a string). An output that is
    exactly ``{"error": {code, message, …}}`` becomes an ``action_error``;
    anything else an ``action_call_output``.
    """
    code = ErrorCode.INVALID_ITEM
    _require_type(item, ("function_call_output",), code)
    call_id = _require_string(item, "call_id", code)
    raw = item.get("output")
    if isinstance(raw, str):
        try:
            output: Any = strict_loads(raw)
        except (ValueError, RecursionError):
            output = raw  # a plain-text tool result is still a result
    else:
        output = raw
    try:
        error = _as_error(output)
    except ValidationError as exc:
        first = exc.errors()[0]
        path = "/output/error/" + "/".join(str(part) for part in first["loc"])
        raise ActionError(f"the error in the output is not a structured error: {path} {first['msg']}", code=code, evidence={"path": path, "call_id": call_id}) from exc
    if error is not None:
        return _build(ActionErrorItem, code, {"type": "action_error", "call_id": call_id, "runtime_id": runtime_id, "error": error}).dump()
    return _build(ActionCallOutput, code, {"type": "action_call_output", "call_id": call_id, "runtime_id": runtime_id, "output": output}).dump()
