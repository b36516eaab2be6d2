"""Validation problems as data: a stable code, a JSON Pointer and a short message.

Like python-jsonschema's errors, a ``Problem`` is a value, not an exception:
the validator yields them lazily and ``ValidationReport`` gathers them. Every
code the validator can emit is listed, with its meaning, in ``PROBLEM_CODES``
(tests hold the validator to that list, so documentation can be built from it).

Paths are RFC 6901 JSON Pointers into the manifest (``""`` is the root). A
problem about a *missing* member points where the member belongs (for example
``/tools/0/description``), so its parent always resolves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import codes_in_group, note_code
from ..jsonutil import escape_pointer_token, pointer_tokens

__all__ = [
    "PROBLEM_CODES",
    "Problem",
    "ValidationReport",
    "child_pointer",
    "path_sort_key",
    "pointer_tokens",
    "problem_sort_key",
]

# code -> meaning, a view of the one error vocabulary (``ErrorCode`` members of group "problem").
# Stable: renaming a code is a breaking change for every consumer.
PROBLEM_CODES: dict[str, str] = codes_in_group("problem")


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong (or questionable) with a manifest."""

    path: str
    code: str  # an ErrorCode member (a str): the one error vocabulary
    message: str
    severity: str = "error"

    def __post_init__(self) -> None:
        note_code(self.code)

    def to_dict(self) -> dict[str, str]:
        """The public JSON shape: ``{"code", "path", "message"}`` (docs/cli.md, mcp-actions validate)."""
        return {"code": self.code, "path": self.path, "message": self.message}


@dataclass(frozen=True)
class ValidationReport:
    """Every problem of one manifest, split by severity and sorted by path, then code."""

    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        """True when there are no errors (warnings never make a manifest invalid)."""
        return not self.errors


def child_pointer(pointer: str, token: Any) -> str:
    """The JSON Pointer of member ``token`` (a key or an index) of the node at ``pointer``."""
    return f"{pointer}/{escape_pointer_token(token)}"


def path_sort_key(pointer: str) -> tuple[tuple[int, int, str], ...]:
    """Order pointers as a reader expects: by token, array indices numerically (/tools/2 < /tools/10)."""
    key = []
    for token in pointer.split("/")[1:] if pointer else ():
        if token.isascii() and token.isdigit() and len(token) < 19:  # '²'.isdigit() is True, int('²') fails
            key.append((0, int(token), ""))
        else:
            key.append((1, 0, token))
    return tuple(key)


def problem_sort_key(problem: Problem) -> tuple[Any, ...]:
    """Sort key of the report lists: path (numeric-aware), then code, then message."""
    return (path_sort_key(problem.path), problem.code, problem.message)
