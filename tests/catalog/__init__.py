"""Tests of mcp_actions.catalog (a package so its module names cannot clash with other test folders)."""
