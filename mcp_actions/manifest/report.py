"""The report of ``mcp-actions validate``: validate manifest files, as data and as text.

``validate_paths`` validates what the paths name and returns a
``ValidationRun``. It runs the composition ``serve`` runs (``load.plan_path``
and ``load.load_file``: the same storage roots and trust, the same directory
local imports stay inside, the same https fetcher and ``import_uri_forbidden``
rules), so a map whose import ``serve`` refuses is invalid here, with the same
code and path; storage maps a higher scope overrides are validated too, as they
would load on their own. ``human_lines``, ``json_text`` and
``ValidationRun.summary`` render it; ``ValidationRun.exit_status`` is the
command's exit status. The command line (``mcp_actions.cli``) parses the
arguments and writes these to stdout and stderr.

Exit status (docs/cli.md, mcp-actions validate): 0 when every manifest is valid, 1 when any is
invalid, 2 on a usage or I/O error (a path that does not exist, a directory
holding no manifest, a file that cannot be read). A file that is read but is
not JSON is an *invalid manifest* (``invalid_json`` at ``""``), not an I/O
error. Every readable file is reported even when another path fails; the
exit status is then 2.

Human output, all on stdout (so ``validate map > out.txt`` keeps it): one line
per problem (errors and warnings together, in path order); when more than one
file was checked, each file's problems end with its verdict line
(``shop.actions.json: invalid (1 error, 1 warning)``); then one summary line::

    shop.actions.json:/tools/0/name invalid_identifier tool name '1x' is not a safe identifier
    shop.actions.json:/prompt unknown_field warning: manifest: unknown field 'prompt'
    shop.actions.json: invalid_json not JSON: Expecting value: line 1 column 1 (char 0)
    shop.actions.json:/name invalid_json not strict JSON: duplicate key 'name' at /name

The pointer is printed as-is, so a problem of the whole document shows
``file:`` followed by an empty pointer. JSON output is one array instead:
``[{"file", "valid", "errors": [Problem], "warnings": [Problem]}]``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ErrorCode, UsageError
from .fetch import RemoteFetcher
from .load import LoadedManifest, ManifestReport, PlannedFile, load_file, plan_path, storage_root_of
from .problems import Problem, problem_sort_key

__all__ = ["ValidationRun", "format_problem", "human_lines", "json_text", "validate_file", "validate_paths", "verdict_line"]


def validate_file(path: Path, *, reference_only: bool = False, planned: PlannedFile | None = None, fetcher: RemoteFetcher | None = None) -> ManifestReport:
    """Read, validate and compose one file as ``serve`` would load it. Raises ``UsageError`` when it cannot be read.

    ``planned``: how ``serve`` loads it (``load.plan_path``; default: a file given on its own).
    ``reference_only``: also warn about what runtimes written from the reference dictionary alone refuse.
    """
    try:
        loaded = load_file(planned or PlannedFile(path), fetcher=fetcher, reference_only=reference_only)
    except RecursionError:
        # json.loads recurses per nesting level: absurdly nested text is not a manifest.
        return ManifestReport(file=str(path), errors=[Problem("", ErrorCode.INVALID_JSON, "not JSON: nested too deeply to parse")])
    report = loaded.report if isinstance(loaded, LoadedManifest) else loaded
    return ManifestReport(file=str(path), errors=list(report.errors), warnings=list(report.warnings))


def format_problem(file: str, problem: Problem) -> str:
    """One human line: ``file:pointer code message`` (warnings: ``… code warning: message``)."""
    marker = "warning: " if problem.severity == "warning" else ""
    return f"{file}:{problem.path} {problem.code} {marker}{problem.message}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass
class ValidationRun:
    """Every file's report, and the paths that could not be read (messages, in the order met)."""

    reports: list[ManifestReport] = field(default_factory=list)
    path_errors: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """2 when a path could not be read, else 1 when any manifest is invalid, else 0."""
        if self.path_errors:
            return 2
        return 1 if any(not report.valid for report in self.reports) else 0

    def summary(self) -> str:
        """The one summary line (without its newline)."""
        invalid = sum(1 for report in self.reports if not report.valid)
        errors = sum(len(report.errors) for report in self.reports)
        warnings = sum(len(report.warnings) for report in self.reports)
        text = (
            f"checked {_plural(len(self.reports), 'manifest')}: {len(self.reports) - invalid} valid, {invalid} invalid "
            f"({_plural(errors, 'error')}, {_plural(warnings, 'warning')})"
        )
        if self.path_errors:
            text += f"; {_plural(len(self.path_errors), 'path')} could not be read"
        return text


def validate_paths(paths: Sequence[str | Path], *, reference_only: bool = False, fetcher: RemoteFetcher | None = None) -> ValidationRun:
    """Validate every manifest the paths name, composed as ``serve`` composes them; ``reference_only`` as ``validate_file``."""
    run = ValidationRun()
    given = [Path(raw).expanduser() for raw in paths]
    storage_root = storage_root_of(given)
    fetcher = fetcher if fetcher is not None else RemoteFetcher()  # one for the run, as serve's load has
    planned: list[PlannedFile] = []
    for raw, path in zip(paths, given, strict=True):
        try:
            found = plan_path(path, storage_root, shadowed_too=True)
        except UsageError as exc:
            run.path_errors.append(exc.message)
            continue
        if not found:
            run.path_errors.append(f"no actions.json or *.actions.json under {raw}")
        planned.extend(found)
    for entry in planned:
        try:
            run.reports.append(validate_file(entry.path, reference_only=reference_only, planned=entry, fetcher=fetcher))
        except UsageError as exc:
            run.path_errors.append(exc.message)
    return run


def verdict_line(report: ManifestReport) -> str:
    """One file's verdict: ``file: valid`` or ``file: invalid``, with its counts when it has problems."""
    counts = f" ({_plural(len(report.errors), 'error')}, {_plural(len(report.warnings), 'warning')})" if report.errors or report.warnings else ""
    return f"{report.file}: {'valid' if report.valid else 'invalid'}{counts}"


def human_lines(run: ValidationRun) -> list[str]:
    """One line per problem of every file (errors and warnings together, in path order), then the summary.

    With more than one file, each file's problems end with its verdict (``verdict_line``): a file
    that has no problem line still shows that it was checked. One file's verdict is the summary.
    """
    lines: list[str] = []
    for report in run.reports:
        lines.extend(format_problem(report.file, problem) for problem in sorted(report.errors + report.warnings, key=problem_sort_key))
        if len(run.reports) > 1:
            lines.append(verdict_line(report))
    lines.append(run.summary())
    return lines


def json_text(run: ValidationRun) -> str:
    """The ``--json`` output: one array of per-file results (without the final newline)."""
    return json.dumps([report.to_dict() for report in run.reports], indent=2, ensure_ascii=False)
