"""mcp-actions: an MCP server that operates websites through the actions their actions.json manifests declare.

``__version__`` is the installed distribution's version, which the build takes from git tags
(hatch-vcs; docs/releasing.md): ``mcp-actions --version`` prints it and the MCP handshake sends it.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

try:
    __version__ = _distribution_version("mcp-actions")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0.0.0"
