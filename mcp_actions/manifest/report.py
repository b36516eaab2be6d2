"""The ``mcp-actions validate PATH... [--json]`` command: validate manifest files, report, exit.

Exit status (CONTRACT §1): 0 when every manifest is valid, 1 when any is
invalid, 2 on a usage or I/O error (no paths, a path that does not exist, a
directory holding no manifest, a file that cannot be read). A file that is
read but is not JSON is an *invalid manifest* (``invalid_json`` at ``""``),
not an I/O error. Every readable file is reported even when another path
fails; the exit status is then 2.

Human output, one line per problem on ``out`` (errors and warnings together,
in path order), then one summary line on ``err``::

    shop.actions.json:/tools/0/name invalid_identifier tool name '1x' is not a safe identifier
    shop.actions.json:/prompt unknown_field warning: manifest: unknown field 'prompt'
    shop.actions.json: invalid_json not JSON: Expecting value: line 1 column 1 (char 0)

The pointer is printed as-is, so a problem of the whole document shows
``file:`` followed by an empty pointer. ``--json`` prints one array instead:
``[{"file", "valid", "errors": [Problem], "warnings": [Problem]}]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ..errors import UsageError
from .load import ManifestReport, discover, read_document
from .problems import Problem, problem_sort_key
from .validate import check_manifest

__all__ = ["format_problem", "main", "run_validate", "validate_file"]


def validate_file(path: Path) -> ManifestReport:
    """Read, parse and validate one file. Raises ``UsageError`` when it cannot be read."""
    try:
        document, problems = read_document(path)
    except RecursionError:
        # json.loads recurses per nesting level: absurdly nested text is not a manifest.
        document, problems = None, [Problem("", "invalid_json", "not JSON: nested too deeply to parse")]
    if problems:
        return ManifestReport(file=str(path), errors=list(problems))
    report = check_manifest(document)
    return ManifestReport(file=str(path), errors=list(report.errors), warnings=list(report.warnings))


def format_problem(file: str, problem: Problem) -> str:
    """One human line: ``file:pointer code message`` (warnings: ``… code warning: message``)."""
    marker = "warning: " if problem.severity == "warning" else ""
    return f"{file}:{problem.path} {problem.code} {marker}{problem.message}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def run_validate(paths: Sequence[str], *, as_json: bool, out: TextIO, err: TextIO) -> int:
    """Validate the manifests named by ``paths``; write the report; return the exit status."""
    if not paths:
        err.write("usage: mcp-actions validate PATH... [--json]\n")
        return 2
    failed_paths = 0
    files: list[Path] = []
    for raw in paths:
        try:
            found = discover([raw])
        except UsageError as exc:
            err.write(f"error: {exc.message}\n")
            failed_paths += 1
            continue
        if not found:
            err.write(f"error: no actions.json or *.actions.json under {raw}\n")
            failed_paths += 1
        files.extend(found)
    reports: list[ManifestReport] = []
    for path in files:
        try:
            reports.append(validate_file(path))
        except UsageError as exc:
            err.write(f"error: {exc.message}\n")
            failed_paths += 1
    if as_json:
        out.write(json.dumps([report.to_dict() for report in reports], indent=2, ensure_ascii=False) + "\n")
    else:
        for report in reports:
            for problem in sorted(report.errors + report.warnings, key=problem_sort_key):
                out.write(format_problem(report.file, problem) + "\n")
    invalid = sum(1 for report in reports if not report.valid)
    errors = sum(len(report.errors) for report in reports)
    warnings = sum(len(report.warnings) for report in reports)
    summary = (
        f"checked {_plural(len(reports), 'manifest')}: {len(reports) - invalid} valid, {invalid} invalid "
        f"({_plural(errors, 'error')}, {_plural(warnings, 'warning')})"
    )
    if failed_paths:
        summary += f"; {_plural(failed_paths, 'path')} could not be read"
    err.write(summary + "\n")
    if failed_paths:
        return 2
    return 1 if invalid else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mcp_actions.manifest.report PATH... [--json]`` (the CLI wires the same function)."""
    parser = argparse.ArgumentParser(prog="mcp-actions validate", description="Validate actions.json manifests.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a manifest file, or a directory to search")
    parser.add_argument("--json", action="store_true", help="print one JSON array of results")
    arguments = parser.parse_args(argv)
    return run_validate(arguments.paths, as_json=arguments.json, out=sys.stdout, err=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
