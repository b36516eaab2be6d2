"""Keeping the listed built-ins current: recomputed when the maps load and when the active page moves.

``groups.py`` says which built-ins ``tools/list`` shows for a given
``--builtin-tools`` choice, maps and active page; ``BuiltinListing`` is the
one place that asks it again and stores the answer in ``ToolVisibility``
(its one owner, ``catalog/visibility.py``). The server calls ``relist``
after each load of the map files (before what a host sees is compared, so
the load's own announcement covers it) and on every runtime change (a page
no map covers may have become active, or stopped being so), and a change is
announced through ``changed`` (a ``tools/list_changed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...bridge.registry import RuntimeInfo
from ...catalog.catalog import Catalog
from ...catalog.visibility import ToolVisibility
from ...learning.store import origin_of
from .groups import listed_builtins

__all__ = ["BuiltinListing"]


class BuiltinListing:
    """Recomputes the built-ins ``tools/list`` shows into ``visibility.listed_builtins``."""

    def __init__(
        self,
        visibility: ToolVisibility,
        catalog: Catalog,
        *,
        choice: Sequence[str],
        map_server: bool,
        actives: Callable[[], Mapping[str | None, RuntimeInfo]],
        changed: Callable[[frozenset[str] | None], None],
    ) -> None:
        """``choice``: ``--builtin-tools``; ``map_server``: maps were given with ``--manifests`` (only those make the
        server a map server: the learned-maps folder alone does not); ``actives()``: each scope's active runtime
        now (``RuntimeRegistry.actives``: None is the shared scope, else an agent session's id);
        ``changed(sessions)``: announces a change of what is listed to those sessions (None: to everyone)."""
        self.visibility = visibility
        self.catalog = catalog
        self.choice = tuple(choice)
        self.map_server = map_server
        self.actives = actives
        self.changed = changed

    def relist(self, *, announce: bool = True) -> bool:
        """Recompute the listed built-ins of every scope; True (and announced, unless ``announce`` is false) when any changed.

        With ``auto`` they depend on the maps and on whether the active page is one no map covers; each
        agent session with a context of its own has its own active page, and so its own list.
        """
        maps = [loaded.model for loaded in self.catalog.manifests.values()] if self.map_server else []

        def listed_for(active: RuntimeInfo | None) -> frozenset[str]:
            return listed_builtins(
                self.choice,
                maps=maps,
                uncovered_page=self.catalog.uncovered(active),
                unprojected_page=self.catalog.unprojected(active),
                tool_mode=self.visibility.tool_mode,
            )

        actives = self.actives()
        shared, idle = listed_for(actives.get(None)), listed_for(None)
        sessions = {scope: listed_for(active) for scope, active in actives.items() if scope is not None}
        sessions = {scope: listed for scope, listed in sessions.items() if listed != idle}
        # Learned tools are listed on their own origin's pages alone: each scope's active origin, where it has any.
        learned = {b.home for b in self.catalog.every_binding() if b.home}
        homes = {scope: origin for scope, active in actives.items() if (origin := origin_of(active.url)) in learned}
        visibility = self.visibility
        everyone = shared != visibility.listed_builtins or idle != visibility.idle_builtins or homes.get(None) != visibility.homes.get(None)
        moved = frozenset(
            scope
            for scope in {*sessions, *visibility.session_builtins, *homes, *visibility.homes}
            if scope is not None and (sessions.get(scope, idle) != visibility.session_builtins.get(scope, idle) or homes.get(scope) != visibility.homes.get(scope))
        )
        if not everyone and not moved:
            return False
        visibility.listed_builtins, visibility.idle_builtins, visibility.session_builtins, visibility.homes = shared, idle, sessions, homes
        if announce:
            self.changed(None if everyone else moved)
        return True
