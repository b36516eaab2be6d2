"""Runtime and validation limits, as configurable figures.

The validator checks the figures a manifest *declares* against these limits
(``max_items``, a summary's ``max_bytes``, the number of steps, the size of an
expression's source); the interpreter and the projection engine enforce the
byte budgets on the values they produce at run time
(``max_workflow_output_bytes``, ``max_state_bytes``, ``max_projection_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "MAX_IDENTIFIER_LENGTH", "MAX_NESTING_DEPTH", "Limits"]

# Safe identifiers are meant for logs and protocol messages; longer ones are refused.
MAX_IDENTIFIER_LENGTH = 128
# JSON depth (from the manifest root) the validator follows. Real manifests stay far below;
# the bound keeps every recursive check (ours and jsonschema's) inside Python's stack.
MAX_NESTING_DEPTH = 64


@dataclass(frozen=True)
class Limits:
    """Bounds on what a manifest may declare and on what a run may produce."""

    max_steps: int = 25
    max_loop_items: int = 50
    max_expression_bytes: int = 16_000
    # A step argument's slot that only names a value the run already holds (steps.read.output.text)
    # computes nothing: it may be as large as one bridge item, so large values pass unchanged.
    max_reference_bytes: int = 1_048_576
    max_workflow_output_bytes: int = 32_000
    max_state_bytes: int = 48_000
    # A projection expression's result before anything reaches an agent: summaries may
    # condense a state larger than max_state_bytes, within this bound on memory and time.
    max_projection_bytes: int = 1_000_000
    max_summary_bytes: int = 12_000


DEFAULT_LIMITS = Limits()
