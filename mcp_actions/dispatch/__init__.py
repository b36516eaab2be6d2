"""Dispatch: run a tool call from checked arguments to a checked result."""
