"""Tests of mcp_actions.resources (a package so its module names cannot clash with other test folders)."""
