"""JSONata expression slots: recognise, compile once, evaluate with bounds.

A slot is a whole string of the form ``{% expression %}``; partial embeds
(``"id-{% x %}"``) are not slots and are refused by validation. Expressions
are compiled once per distinct source text and cached, because compiling is
far slower than evaluating. Evaluation is synchronous and its built-in
timeout is unreliable, so callers bound inputs and we bound output size.

Non-deterministic or code-evaluating functions (``$eval``, ``$random``,
``$now``, ``$millis``) are refused at compile time: a workflow must mean the
same thing every time it runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonata import Jsonata, JException

from ..errors import ActionError, ActionsError, ErrorCode

__all__ = [
    "FORBIDDEN_FUNCTIONS",
    "CompiledExpression",
    "ExpressionSyntaxError",
    "compile_expression",
    "compile_slot",
    "has_partial_slot",
    "json_size",
    "render_args",
    "slot_source",
]

FORBIDDEN_FUNCTIONS = ("$eval", "$random", "$now", "$millis")
_FORBIDDEN_RE = re.compile(r"\$(eval|random|now|millis)(?![A-Za-z0-9_])")
_SLOT_RE = re.compile(r"^\{%(.*)%\}$", re.DOTALL)


class ExpressionSyntaxError(ActionsError):
    """An expression does not compile, or uses a forbidden function."""

    default_code = "expression_invalid"


def slot_source(value: Any) -> str | None:
    """The expression inside a whole ``{% … %}`` slot, or None when ``value`` is not a slot."""
    if not isinstance(value, str):
        return None
    match = _SLOT_RE.match(value.strip())
    return match.group(1).strip() if match else None


def has_partial_slot(value: Any) -> bool:
    """True for a string that embeds ``{%`` or ``%}`` without being one whole slot."""
    return isinstance(value, str) and ("{%" in value or "%}" in value) and slot_source(value) is None


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON: the unit every size limit is counted in."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8"))


@dataclass(frozen=True)
class CompiledExpression:
    """One compiled JSONata expression; evaluate it as often as needed."""

    source: str
    _compiled: Any

    def evaluate(self, data: dict[str, Any], *, max_bytes: int | None = None) -> Any:
        """Evaluate against ``data``; undefined becomes None.

        Raises ``ActionError`` ``expression_failed`` on evaluation errors and
        ``limit_exceeded`` when the result is larger than ``max_bytes``.
        """
        try:
            result = self._compiled.evaluate(data)
        except (JException, RecursionError, ValueError, TypeError, ArithmeticError) as exc:
            raise ActionError(
                f"expression failed: {exc}",
                code=ErrorCode.EXPRESSION_FAILED,
                evidence={"expression": self.source},
            ) from exc
        if max_bytes is not None:
            size = json_size(result)
            if size > max_bytes:
                raise ActionError(
                    f"expression result of {size} bytes exceeds the {max_bytes}-byte limit",
                    code=ErrorCode.LIMIT_EXCEEDED,
                    evidence={"expression": self.source, "bytes": size, "max_bytes": max_bytes},
                )
        return result


@lru_cache(maxsize=4096)
def compile_expression(source: str) -> CompiledExpression:
    """Compile a JSONata expression (cached by source text).

    Raises ``ExpressionSyntaxError`` for syntax errors and forbidden functions.
    """
    forbidden = _FORBIDDEN_RE.search(source)
    if forbidden:
        raise ExpressionSyntaxError(
            f"function ${forbidden.group(1)} is not allowed in expressions",
            code="expression_forbidden_function",
            evidence={"function": f"${forbidden.group(1)}", "position": forbidden.start()},
        )
    try:
        compiled = Jsonata(source)
    except (JException, RecursionError) as exc:
        position = getattr(exc, "location", None)
        raise ExpressionSyntaxError(
            f"JSONata syntax error: {exc}",
            evidence={"position": position} if isinstance(position, int) else None,
        ) from exc
    # Inputs are plain JSON we built ourselves; skipping input validation is ~7x faster.
    compiled.set_validate_input(False)
    return CompiledExpression(source, compiled)


def compile_slot(value: str) -> CompiledExpression:
    """Compile the expression of a whole ``{% … %}`` slot string."""
    source = slot_source(value)
    if source is None:
        raise ExpressionSyntaxError("not a whole {% … %} expression slot", code="expression_partial_slot")
    return compile_expression(source)


def render_args(value: Any, data: dict[str, Any], *, max_bytes: int | None = None) -> Any:
    """Replace every whole-slot string inside ``value`` (recursively) by its evaluated result."""
    source = slot_source(value)
    if source is not None:
        return compile_expression(source).evaluate(data, max_bytes=max_bytes)
    if isinstance(value, dict):
        return {key: render_args(item, data, max_bytes=max_bytes) for key, item in value.items()}
    if isinstance(value, list):
        return [render_args(item, data, max_bytes=max_bytes) for item in value]
    return value
