"""workflow package."""
