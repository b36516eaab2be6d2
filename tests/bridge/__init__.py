"""Tests of mcp_actions.bridge (a package so its module names cannot clash with other test folders)."""
