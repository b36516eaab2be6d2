"""The actions.json v1 validator: every problem of a manifest, in one pass, as data.

    iter_problems(document)   lazy stream of Problem (errors and warnings)
    check_manifest(document)  ValidationReport: errors and warnings, sorted by path then code
    validate(document)        raises ManifestError(problems=errors) when there are errors

``reference_only=True`` also reports what runs on mcp-actions' runtimes but
not on one written from the reference dictionary alone
(``non_reference_argument``: ``mcp-actions validate --reference-only``); the
default, which the server's load path uses, judges the map for our runtimes.

Messages say how to fix what they report (``rules.hints``): a missing member
with fixed values names them, an unknown name or field names the close ones,
an unknown argument the accepted ones. A camelCase key that stands for a
known snake_case one is one error telling to rename it; the rules read the
object under the snake_case key (``rules.base.check_keys``) and the problems
found there are pointed back at the key as written.

The rules live in the ``rules`` subpackage, one module per concept
(``rules.root``, ``rules.tools``, ``rules.workflow``, ``rules.projection``,
``rules.states``, ``rules.context``, ``rules.signals``, ``rules.checks``,
``rules.sources``; shared pieces in ``rules.base``, ``rules.refs``,
``rules.targets``, ``rules.schema``, ``rules.expressions``). Every code is an
``ErrorCode`` member listed in ``problems.PROBLEM_CODES``.

The validator never raises and never hangs, whatever it is given: each rule
checks types before it looks inside, generic walks are iterative and bounded
by ``limits.MAX_NESTING_DEPTH``, and, as a last line of defence, a rule group
that fails anyway yields ``validator_internal_error`` (the manifest is then
refused, and the failure is logged) instead of propagating.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from dataclasses import replace
from typing import Any

from ..errors import ErrorCode, ManifestError
from .dictionary import host_primitives, map_primitives
from .limits import DEFAULT_LIMITS, Limits
from .problems import Problem, ValidationReport, problem_sort_key
from .rules.base import Rules, error, json_type, snake_case_view
from .rules.checks import check_checks
from .rules.context import check_context
from .rules.dictionary import check_primitive_dictionary
from .rules.projection import check_state_projections
from .rules.refs import Index
from .rules.root import check_imports, check_root
from .rules.signals import check_attachments, check_signals
from .rules.sources import check_sources
from .rules.states import check_states, check_transitions
from .rules.tools import check_tools
from .shape import ROOT_FIELDS
from .verdict_cache import flush_all

__all__ = ["check_manifest", "iter_problems", "validate"]

logger = logging.getLogger(__name__)

# Document order, roughly: a lazy consumer sees the root's problems first.
_RULE_GROUPS: tuple[Callable[[dict[str, Any], Rules], Iterator[Problem]], ...] = (
    check_root,
    check_primitive_dictionary,
    check_imports,
    check_context,
    check_states,
    check_transitions,
    check_tools,
    check_signals,
    check_attachments,
    check_checks,
    check_state_projections,
    check_sources,
)


def _rules(document: dict[str, Any], limits: Any, primitives: Collection[str] | None, reference_only: bool) -> Rules:
    schemas = host_primitives()
    names = frozenset(schemas) if primitives is None else frozenset(name for name in primitives if isinstance(name, str))
    return Rules(
        limits=limits if isinstance(limits, Limits) else DEFAULT_LIMITS,
        primitives=names,
        primitive_schemas=schemas,
        index=Index.build(document),
        map_primitives=map_primitives(document),
        host_published=isinstance(document.get("primitive_dictionary"), dict),
        reference_only=reference_only,
    )


def _in_document(problem: Problem, renamed: dict[str, str]) -> Problem:
    """``problem`` pointing into the document: a member checked under its snake_case key is where its camelCase key is."""
    path = problem.path
    for checked_at in sorted(renamed, key=len, reverse=True):  # inner renames first: their pointers lie below the outer ones'
        if path == checked_at or path.startswith(checked_at + "/"):
            path = renamed[checked_at] + path[len(checked_at) :]
    return problem if path == problem.path else replace(problem, path=path)


def iter_problems(
    document: Any, *, limits: Limits = DEFAULT_LIMITS, primitives: Collection[str] | None = None, reference_only: bool = False
) -> Iterator[Problem]:
    """Every problem of ``document`` (errors and warnings), lazily, in document order.

    ``primitives`` are the primitive names step and ``after_each`` may use
    (default: the names of the bundled dictionary). ``reference_only``: also
    the warnings about what a runtime written from the reference dictionary
    alone refuses. Never raises.
    """
    if not isinstance(document, dict):
        yield error("", ErrorCode.INVALID_TYPE, f"a manifest must be a JSON object, got {json_type(document)}")
        return
    try:
        # Every rule group reads the root under its snake_case keys (check_root reports the renames).
        document = snake_case_view(document, ROOT_FIELDS)
        rules = _rules(document, limits, primitives, reference_only)
    except Exception as exc:
        logger.exception("manifest validator could not start")
        yield error("", ErrorCode.VALIDATOR_INTERNAL_ERROR, f"validator failed to start: {type(exc).__name__}")
        return
    seen: set[Problem] = set()
    for group in _RULE_GROUPS:
        try:
            for found in group(document, rules):
                problem = _in_document(found, rules.renamed) if rules.renamed else found
                if problem not in seen:  # two walks may meet the same node (nesting, shared targets)
                    seen.add(problem)
                    yield problem
        except Exception as exc:
            logger.exception("manifest validator rule %s failed", group.__name__)
            yield error("", ErrorCode.VALIDATOR_INTERNAL_ERROR, f"{group.__name__} failed: {type(exc).__name__}")
    # New verdicts go to disk once per manifest, so the next process starts warm (verdict_cache.py).
    flush_all()


def check_manifest(
    document: Any, *, limits: Limits = DEFAULT_LIMITS, primitives: Collection[str] | None = None, reference_only: bool = False
) -> ValidationReport:
    """All problems of ``document`` in one pass; errors and warnings each sorted by path, then code.

    Paths sort token by token with array indices compared as numbers (``/tools/2`` before ``/tools/10``).
    """
    errors: list[Problem] = []
    warnings: list[Problem] = []
    for problem in iter_problems(document, limits=limits, primitives=primitives, reference_only=reference_only):
        (warnings if problem.severity == "warning" else errors).append(problem)
    return ValidationReport(
        errors=tuple(sorted(errors, key=problem_sort_key)),
        warnings=tuple(sorted(warnings, key=problem_sort_key)),
    )


def validate(document: Any, *, limits: Limits = DEFAULT_LIMITS, primitives: Collection[str] | None = None) -> None:
    """Raise ``ManifestError`` (``problems`` = the errors, sorted) when ``document`` is not a valid manifest."""
    report = check_manifest(document, limits=limits, primitives=primitives)
    if report.valid:
        return
    first = report.errors[0]
    count = len(report.errors)
    raise ManifestError(
        f"invalid manifest: {count} error{'s' if count != 1 else ''}; first at {first.path or '/'}: {first.code}: {first.message}",
        problems=list(report.errors),
        evidence={"error_count": count, "first": first.to_dict()},
    )
