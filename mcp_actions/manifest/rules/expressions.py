"""JSONata expressions at validation time: whole slots, partial embeds, compiling, size.

Two shapes occur in a manifest:

* *expression fields* (``when``, ``for_each``, ``retry_until``, a
  projection's ``expression``, a summary's ``expression``) must be exactly one
  whole ``{% … %}`` slot;
* *templated values* (step ``args``, ``after_each.args``, a workflow's
  ``output``) are any JSON in which every string containing ``{%`` or ``%}``
  is one whole slot.

Every slot's expression is compiled with ``manifest.expressions.compile_expression``,
the same compiler the workflow interpreter runs (so ``$eval``/``$random``/``$now``/``$millis`` are
refused exactly as at run time). The verdict per distinct source text is
memoised here, because ``compile_expression``'s cache is bounded and a big
map would otherwise recompile on every validation.
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..expressions import ExpressionSyntaxError, compile_expression, slot_source
from ..problems import child_pointer
from ..verdict_cache import DiskMemo, as_code, digest, is_code
from .base import Checks, Rules, error, json_type

__all__ = ["check_expression_field", "check_templated", "is_slot"]

_MAX_MESSAGE = 200
_MAX_CACHE = 100_000
# expression source -> None (compiles) or (code, message)
_outcomes: dict[str, tuple[str, str] | None] = {}


def is_slot(value: Any) -> bool:
    """True for a string that is one whole ``{% … %}`` slot."""
    return isinstance(value, str) and "{%" in value and slot_source(value) is not None


def _valid_outcome(value: Any) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 2 and is_code(value[0]) and isinstance(value[1], str))


# The same verdicts on disk, for the next process: compiling is most of a cold validation.
_disk = DiskMemo("expressions", valid=_valid_outcome, decode=lambda value: None if value is None else (as_code(value[0]), value[1]))


def _compile_outcome(source: str) -> tuple[str, str] | None:
    if source in _outcomes:
        return _outcomes[source]
    key = digest(source)
    known, stored = _disk.get(key)
    if known:
        remembered: tuple[str, str] | None = stored
        _outcomes[source] = remembered
        return remembered
    outcome: tuple[str, str] | None = None
    try:
        compile_expression(source)
    except ExpressionSyntaxError as exc:
        outcome = (exc.code, exc.message)
    except Exception as exc:
        outcome = (ErrorCode.EXPRESSION_INVALID, f"JSONata syntax error: {type(exc).__name__}: {exc}")
    message = " ".join(outcome[1].split()) if outcome else ""
    if outcome and len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 1] + "…"
    result = (outcome[0], message) if outcome else None
    if len(_outcomes) > _MAX_CACHE:
        _outcomes.clear()
    _outcomes[source] = result
    _disk.put(key, None if result is None else [str(result[0]), result[1]])
    return result


def _check_source(source: str, path: str, what: str, rules: Rules) -> Checks:
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > rules.limits.max_expression_bytes:
        yield error(
            path,
            ErrorCode.LIMIT_EXPRESSION_BYTES_EXCEEDED,
            f"{what}: expression of {size} bytes exceeds the {rules.limits.max_expression_bytes}-byte limit",
        )
        return
    outcome = _compile_outcome(source)
    if outcome is not None:
        yield error(path, outcome[0], f"{what}: {outcome[1]}")


def check_expression_field(value: Any, path: str, what: str, rules: Rules) -> Checks:
    """An expression field: one whole ``{% … %}`` slot whose expression compiles."""
    if not isinstance(value, str):
        yield error(path, ErrorCode.INVALID_TYPE, f"{what} must be a {{% … %}} expression string, got {json_type(value)}")
        return
    source = slot_source(value)
    if source is None:
        code = ErrorCode.EXPRESSION_PARTIAL_SLOT if ("{%" in value or "%}" in value) else ErrorCode.EXPRESSION_NOT_SLOT
        yield error(path, code, f"{what} must be one whole {{% … %}} expression slot")
        return
    yield from _check_source(source, path, what, rules)


def check_templated(value: Any, path: str, what: str, rules: Rules, depth: int) -> Checks:
    """A templated value: every string with ``{%``/``%}`` is a whole slot that compiles.

    ``depth`` is the JSON depth of ``value`` in the manifest; deeper than the limit is reported, not followed.
    """
    # An explicit stack: templated values are arbitrary JSON and may be arbitrarily deep.
    stack: list[tuple[Any, str, int]] = [(value, path, depth)]
    while stack:
        node, where, level = stack.pop()
        if isinstance(node, str):
            if "{%" in node or "%}" in node:
                source = slot_source(node)
                if source is None:
                    yield error(where, ErrorCode.EXPRESSION_PARTIAL_SLOT, f"{what}: embeds {{% … %}} without being one whole slot")
                else:
                    yield from _check_source(source, where, what, rules)
            continue
        if isinstance(node, dict):
            members: Any = node.items()
        elif isinstance(node, list):
            members = enumerate(node)
        else:
            continue
        children = [(child, child_pointer(where, key)) for key, child in members]
        if level + 1 > rules.max_depth and any(isinstance(child, (dict, list)) for child, _ in children):
            first = next(child_path for child, child_path in children if isinstance(child, (dict, list)))
            yield error(first, ErrorCode.NESTING_TOO_DEEP, f"nested deeper than {rules.max_depth} levels")
            children = [(child, child_path) for child, child_path in children if not isinstance(child, (dict, list))]
        stack.extend((child, child_path, level + 1) for child, child_path in reversed(children))
