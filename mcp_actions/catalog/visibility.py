"""Which tools exist for a host, which take its calls, which ``tools/list`` shows: one owner for all three.

Three options decide it, and they used to be read in three places:

- ``--tools`` / ``--exclude-tools`` (``ToolSelection``): a tool they refuse is
  not in the catalogue at all, neither listed nor callable by any way in;
- ``--tool-mode site``: the host calls only the built-ins; the maps' tools are
  reached through ``actions.site`` (its ``call`` mode), so they exist but do
  not take direct calls;
- the listed built-ins (``--builtin-tools``, and with ``auto`` the maps and the
  active page; see ``dispatch/builtins/groups.py``): an unlisted built-in still
  answers when called by its name;
- a learned tool (``ToolBinding.home``) is listed only while the active page is
  of its origin (``homes``); a call elsewhere is refused by the ``home`` guard.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..bridge.scope import scope_key
from ..manifest.execution import ToolKind
from .catalog import ToolBinding

__all__ = ["ToolVisibility"]


@dataclass
class ToolVisibility:
    """The visibility rules of one server; ``listed_builtins`` is kept current by whoever computes it."""

    #: ``--tools``/``--exclude-tools`` over dotted names (None: every tool exists).
    selection: Callable[[str], bool] | None = None
    tool_mode: Literal["tools", "site"] = "tools"
    #: Dotted names of the built-ins ``tools/list`` shows now (outside an agent session with a context of its own).
    listed_builtins: frozenset[str] = field(default_factory=frozenset)
    #: What an agent session with a context of its own is shown while its active page is one no map
    #: covers (or one only maps without projections cover), by session id: which page is active in one
    #: session never changes another's list (docs/sessions.md). A session not here has no active page.
    session_builtins: dict[str, frozenset[str]] = field(default_factory=dict)
    #: What a session with a context of its own and no active page is shown.
    idle_builtins: frozenset[str] = field(default_factory=frozenset)
    #: The origin of each scope's active page where learned tools are at home (``ToolBinding.home``), by
    #: scope (None: the shared one, else a session's id): a learned tool is listed only there.
    homes: dict[str | None, str] = field(default_factory=dict)

    def builtins_listed(self) -> frozenset[str]:
        """The built-ins ``tools/list`` shows the current agent session."""
        scope = scope_key()
        if scope is None:
            return self.listed_builtins
        return self.session_builtins.get(scope, self.idle_builtins)

    def exists(self, dotted: str) -> bool:
        """Whether a tool of this dotted name may be in the catalogue at all (``--tools``/``--exclude-tools``)."""
        return self.selection is None or self.selection(dotted)

    def takes_calls(self, binding: ToolBinding) -> bool:
        """Whether a host's direct call of this tool is taken: in site mode only built-ins are (``actions.site`` reaches the rest)."""
        return self.tool_mode != "site" or binding.kind is ToolKind.BUILTIN

    def listed(self, binding: ToolBinding) -> bool:
        """Whether ``tools/list`` shows this tool: it takes calls, and a built-in is one of the listed ones."""
        if not self.takes_calls(binding):
            return False
        if binding.home is not None:  # a learned tool: while its own origin's page is the active one
            return self.homes.get(scope_key()) == binding.home
        return binding.kind is not ToolKind.BUILTIN or binding.name in self.builtins_listed()
