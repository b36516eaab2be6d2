"""Keeping the listed built-ins current: recomputed when the maps load and when the active page moves.

``builtin_groups.py`` says which built-ins ``tools/list`` shows for a given
``--builtin-tools`` choice, maps and active page; ``BuiltinListing`` is the
one place that asks it again and stores the answer in ``ToolVisibility``
(its one owner, ``catalog/visibility.py``). The server calls ``relist``
after each load of the map files (before what a host sees is compared, so
the load's own announcement covers it) and on every runtime change (a page
no map covers may have become active, or stopped being so), and a change is
announced through ``changed`` (a ``tools/list_changed``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..bridge.registry import RuntimeInfo
from ..catalog.catalog import Catalog
from ..catalog.visibility import ToolVisibility
from .builtin_groups import listed_builtins

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
        active: Callable[[], RuntimeInfo | None],
        changed: Callable[[], None],
    ) -> None:
        """``choice``: ``--builtin-tools``; ``map_server``: maps were given with ``--manifests`` (only those make the
        server a map server: the learned-maps folder alone does not); ``active()``: the active runtime now;
        ``changed()``: announces a change of what is listed."""
        self.visibility = visibility
        self.catalog = catalog
        self.choice = tuple(choice)
        self.map_server = map_server
        self.active = active
        self.changed = changed

    def relist(self, *, announce: bool = True) -> bool:
        """Recompute the listed built-ins; True (and announced, unless ``announce`` is false) when they changed.

        With ``auto`` they depend on the maps and on whether the active page is one no map covers.
        """
        maps = [loaded.model for loaded in self.catalog.manifests.values()] if self.map_server else []
        active = self.active()
        listed = listed_builtins(
            self.choice,
            maps=maps,
            uncovered_page=self.catalog.uncovered(active),
            unprojected_page=self.catalog.unprojected(active),
            tool_mode=self.visibility.tool_mode,
        )
        if listed == self.visibility.listed_builtins:
            return False
        self.visibility.listed_builtins = listed
        if announce:
            self.changed()
        return True
