"""Checks and drift reports: does a live page still match its map?

``runner`` runs a manifest's ``checks`` (assertions against the live page,
results with severity, evidence and ``drift_detected``); ``drift`` builds the
whole report of ``mcp-actions check`` (checks, state diagnostics, projections,
tool targets); ``command`` is that command.
"""
