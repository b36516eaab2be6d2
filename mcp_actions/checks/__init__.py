"""Checks and drift reports: does a live page still match its map?

``run_check`` runs one of a manifest's ``checks`` (assertions against the live
page; a result with severity, evidence and ``drift_detected``);
``drift_report`` builds the whole report of ``mcp-actions check`` (checks,
state diagnostics, projections, tool targets). The command itself lives in
``mcp_actions.checks.command``, which launches a browser and so is imported
only by the command line.
"""

from .drift import drift_report
from .runner import run_check

__all__ = ["drift_report", "run_check"]
