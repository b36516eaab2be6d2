"""``python -m mcp_actions`` runs the command line, like the ``mcp-actions`` script."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
