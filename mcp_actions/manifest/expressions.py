"""JSONata expression slots: recognise, compile once, evaluate with bounds.

The manifest defines the expression language, so the compiler lives here:
the validator compiles every slot with it, and the workflow interpreter
(``mcp_actions.workflow``) imports it to evaluate them.

A slot is a whole string of the form ``{% expression %}``; partial embeds
(``"id-{% x %}"``) are not slots and are refused by validation. Expressions
are compiled once per distinct source text and cached, because compiling is
far slower than evaluating. Evaluation is synchronous and its built-in
timeout is unreliable, so each evaluation gets its own wall-clock budget,
callers bound inputs, and we bound output size.

A slot that only names a value (``steps.read.output.text``, ``input.body``,
``$item.title``: a *reference*) computes nothing: ``render_args`` may give such
slots a larger bound (``reference_max_bytes``) than computed ones, so that a
workflow can hand a large value it already holds (a page's text, a report) to
the next primitive (``transfer.write``, ``text.insert``) unchanged.

Non-deterministic or code-evaluating functions (``$eval``, ``$random``,
``$shuffle``, ``$now``, ``$millis``) are refused at compile time: a workflow must mean the
same thing every time it runs.

Regex literals (``/…/``) are compiled on RE2 (``expression_regex``), so a search
in page text is linear in the text; the wall-clock budget could not interrupt a
backtracking one. A literal RE2 cannot run is a compile error here
(docs/manifest-language.md, "Regular expressions").
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..bounded_regex import UnsupportedPattern
from ..errors import ActionError, ErrorCode, ExpressionSyntaxError
from ..jsonutil import json_size
from .expression_regex import regex_engine

# jsonata is imported where an expression is compiled: a server with no expression to
# compile never loads it (issue 55; tests/manifest/test_package.py names it).

__all__ = [
    "EVALUATION_BUDGET_S",
    "FORBIDDEN_FUNCTIONS",
    "CompiledExpression",
    "ExpressionSyntaxError",
    "compile_expression",
    "compile_slot",
    "has_partial_slot",
    "is_reference",
    "render_args",
    "slot_source",
]

FORBIDDEN_FUNCTIONS = ("$eval", "$random", "$shuffle", "$now", "$millis")
_FORBIDDEN_RE = re.compile(r"\$(eval|random|shuffle|now|millis)(?![A-Za-z0-9_])")
_SLOT_RE = re.compile(r"^\{%(.*)%\}$", re.DOTALL)
# A name, then .names and [integer] indexes: a path to a value, nothing computed.
_REFERENCE_RE = re.compile(r"^\$?[A-Za-z_][A-Za-z0-9_]*(?:\s*(?:\.\s*[A-Za-z_][A-Za-z0-9_]*|\[\s*\d+\s*\]))*$")
# Wall-clock budget of one evaluation. jsonata-python's own timeout counts from
# compile time (useless for cached expressions) and tail calls never hit the
# recursion limit, so `($f := function($x){$f($x)}; $f(1))` would otherwise
# block the event loop forever.
EVALUATION_BUDGET_S = 1.0


def slot_source(value: Any) -> str | None:
    """The expression inside a whole ``{% … %}`` slot, or None when ``value`` is not a slot."""
    if not isinstance(value, str):
        return None
    match = _SLOT_RE.match(value.strip())
    return match.group(1).strip() if match else None


def is_reference(source: str) -> bool:
    """True for an expression that only names a value (a path of names and integer indexes)."""
    return bool(_REFERENCE_RE.match(source.strip()))


def has_partial_slot(value: Any) -> bool:
    """True for a string that embeds ``{%`` or ``%}`` without being one whole slot."""
    return isinstance(value, str) and ("{%" in value or "%}" in value) and slot_source(value) is None


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
            # Bindings make jsonata-python evaluate in a fresh frame; without them a
            # top-level `$x := …` (and the input itself) stays bound on the shared, cached
            # compiled object and leaks into the next evaluation. The entry hook, called
            # on every node, enforces the per-evaluation budget (~3% overhead).
            result = self._compiled.evaluate(data, {"__evaluate_entry": _budget_guard(EVALUATION_BUDGET_S)})
        # jsonata-python lets plain Python errors escape its built-ins (e.g. KeyError from
        # $parseInteger("x", "w")); every one of them is this expression failing.
        except Exception as exc:
            raise ActionError(
                f"expression failed: {exc}",
                code=ErrorCode.EXPRESSION_FAILED,
                evidence={"expression": self.source},
            ) from exc
        if max_bytes is not None:
            try:
                size = json_size(result)
            except (TypeError, ValueError) as exc:  # e.g. a JSONata function, which is not data
                raise ActionError(
                    "expression result is not JSON data",
                    code=ErrorCode.EXPRESSION_FAILED,
                    evidence={"expression": self.source},
                ) from exc
            if size > max_bytes:
                raise ActionError(
                    f"expression result of {size} bytes exceeds the {max_bytes}-byte limit",
                    code=ErrorCode.LIMIT_EXCEEDED,
                    evidence={"expression": self.source, "bytes": size, "max_bytes": max_bytes},
                )
        return result


def _budget_guard(budget_s: float) -> Any:
    """An evaluate-entry hook that fails the evaluation once ``budget_s`` has passed."""
    from jsonata import JException

    give_up = time.monotonic() + budget_s

    def check(_node: Any, _input: Any, _environment: Any) -> None:
        if time.monotonic() > give_up:
            raise JException("D1012", -1, int(budget_s * 1000))  # JSONata's own "evaluation timeout"

    return check


@lru_cache(maxsize=4096)
def compile_expression(source: str) -> CompiledExpression:
    """Compile a JSONata expression (cached by source text).

    Raises ``ExpressionSyntaxError`` for syntax errors, forbidden functions and
    regex literals RE2 cannot run.
    """
    forbidden = _FORBIDDEN_RE.search(source)
    if forbidden:
        raise ExpressionSyntaxError(
            f"function ${forbidden.group(1)} is not allowed in expressions",
            code=ErrorCode.EXPRESSION_FORBIDDEN_FUNCTION,
            evidence={"function": f"${forbidden.group(1)}", "position": forbidden.start()},
        )
    from jsonata import JException, Jsonata

    try:
        compiled = Jsonata(source, regex_engine)
    except UnsupportedPattern as exc:
        raise ExpressionSyntaxError(
            f"regular expression /{exc.pattern}/ cannot be used: {exc.reason}; expressions run regexes on RE2, "
            "which has no backreferences or lookaround (docs/manifest-language.md, \"Regular expressions\")",
            evidence={"pattern": exc.pattern},
        ) from exc
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
        raise ExpressionSyntaxError("not a whole {% … %} expression slot", code=ErrorCode.EXPRESSION_PARTIAL_SLOT)
    return compile_expression(source)


def render_args(value: Any, data: dict[str, Any], *, max_bytes: int | None = None, reference_max_bytes: int | None = None) -> Any:
    """Replace every whole-slot string inside ``value`` (recursively) by its evaluated result.

    Results are bounded by ``max_bytes``; a reference slot's by ``reference_max_bytes`` when given.
    """
    source = slot_source(value)
    if source is not None:
        bound = reference_max_bytes if reference_max_bytes is not None and is_reference(source) else max_bytes
        return compile_expression(source).evaluate(data, max_bytes=bound)
    if isinstance(value, dict):
        return {key: render_args(item, data, max_bytes=max_bytes, reference_max_bytes=reference_max_bytes) for key, item in value.items()}
    if isinstance(value, list):
        return [render_args(item, data, max_bytes=max_bytes, reference_max_bytes=reference_max_bytes) for item in value]
    return value
