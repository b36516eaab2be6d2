"""Which built-in tools ``tools/list`` shows: groups of built-ins and ``--builtin-tools``.

Every tool in ``tools/list`` is paid for in the host's context on every turn.
When maps are loaded, those maps' tools are the interface, and a dozen generic
browser tools beside them would cost more than the maps themselves; without
maps, the server is a general browser server and lists every built-in. So the
default, ``auto``, lists with maps only the built-ins they leave a need for (and without
maps every built-in but ``actions.site``, whose list and state modes read maps only):

- ``navigate``, always: a map's ``surface.origin`` is the site's origin
  (scheme, host, port), not the page its tools work on (the search results,
  the board, the checkout), so the agent must be able to reach that page.
  The server still opens a map's origin by itself for a call that finds no
  tab there; that is a convenience, not a way to every page.
- ``observe`` (look at a page and act on what is there), while the active tab
  shows a web page (http or https) that no loaded map covers: an agent with
  maps still visits other pages. On a blank tab, or a page a map covers,
  the map's own tools are the interface and ``observe`` is withdrawn. The
  caller re-evaluates this as tabs move and announces each change.
- ``page.read`` alone, while the active tab shows a page that maps cover but
  none of them projects into state: what a model needs to read there is
  then still reachable without a screenshot, for the price of one tool. A
  map that declares projections is read through ``actions_site``'s state
  modes (the ``site`` group), so a mapped page like the board keeps its
  ``tools/list`` as small as before.
- ``site`` (the contract's one-tool facade), when a map declares state
  projections or context blocks: its state and list modes are the only tool
  that reads them; the maps' own tools are listed one by one anyway.

"Maps" are the valid maps actually loaded from the user's ``--manifests``: a
folder with no valid map in it lists every built-in, as no maps do; the
sample map bundled with the package (served when no ``--manifests`` is
given) does not make the server a map server.

Groups: ``navigate`` (``browser.navigate``), ``tabs`` (list, open, activate,
close), ``capture`` (screenshot), ``dialogs`` (answer a JavaScript dialog),
``observe`` (``page.observe``, the readers, ``page.extract`` and the act-on-ref tools), ``site``
(``actions.site``); ``all`` and ``none`` say what they mean. An unlisted
built-in still answers when called by its name: listing is about the
host's context, not about permission (``--exclude-tools`` is).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...errors import ActionError, ErrorCode
from .registry import BUILTIN_TOOLS

if TYPE_CHECKING:
    from ...manifest.model import Manifest

__all__ = ["AUTO", "BUILTIN_GROUPS", "GROUPS", "READ_ON_MAPPED_PAGE", "listed_builtins"]

#: The groups, in the order docs/mcp-surface.md lists them.
GROUPS: tuple[str, ...] = ("navigate", "tabs", "capture", "dialogs", "observe", "site")
#: Built-in tools by group, read from the registry of built-ins (each tool names its own group).
BUILTIN_GROUPS: dict[str, tuple[str, ...]] = {group: tuple(tool.name for tool in BUILTIN_TOOLS if tool.group == group) for group in GROUPS}
#: The one page tool ``auto`` lists on a mapped page whose maps project nothing (see the module's docstring).
READ_ON_MAPPED_PAGE = "page.read"
#: The default choice: every group without maps; with them, what the maps leave a need for.
AUTO = "auto"
_WORDS = frozenset({AUTO, "all", "none"})


def listed_builtins(
    choice: Iterable[str],
    *,
    maps: Sequence[Manifest],
    uncovered_page: bool = False,
    unprojected_page: bool = False,
    tool_mode: str = "tools",
) -> frozenset[str]:
    """The dotted names of the built-ins ``tools/list`` shows for ``--builtin-tools choice``.

    ``choice`` holds group names, ``all``, ``none`` or ``auto`` (empty = ``auto``).
    ``maps`` are the valid maps loaded (empty: ``auto`` is every group but ``site``);
    ``uncovered_page`` says whether the active tab shows an http(s) page that
    none of them covers (``auto`` then lists ``observe``); ``unprojected_page``
    whether it shows one they cover without projecting it (``auto`` then lists
    ``page.read``).
    In site mode (``--tool-mode site``) ``auto`` is every group and ``actions.site``
    is always listed, since it is then the only way to the maps' tools.
    Raises ``invalid_input`` naming an unknown group.
    """
    words = [w.strip() for w in choice if w.strip()] or [AUTO]
    unknown = [w for w in words if w not in BUILTIN_GROUPS and w not in _WORDS]
    if unknown:
        raise ActionError(
            f"unknown built-in tool group(s) {', '.join(unknown)}; choose from {', '.join([*BUILTIN_GROUPS, *sorted(_WORDS)])}",
            code=ErrorCode.INVALID_INPUT,
            evidence={"groups": unknown, "known": [*BUILTIN_GROUPS, *sorted(_WORDS)]},
        )
    groups: set[str] = set()
    extra: set[str] = set()
    for word in words:
        if word == "all" or (word == AUTO and tool_mode == "site"):
            groups.update(BUILTIN_GROUPS)
        elif word == AUTO and not maps:
            # A general browser server: every group but ``site``, which has nothing to say without maps.
            groups.update(group for group in BUILTIN_GROUPS if group != "site")
        elif word == AUTO:
            groups.update(_needed_by(maps, uncovered_page=uncovered_page))
            if unprojected_page:
                extra.add(READ_ON_MAPPED_PAGE)
        elif word != "none":
            groups.add(word)
    if tool_mode == "site":
        groups.add("site")
    return frozenset({name for group in groups for name in BUILTIN_GROUPS[group]} | extra)


def _needed_by(maps: Sequence[Manifest], *, uncovered_page: bool) -> set[str]:
    """The groups ``auto`` lists beside these maps' tools (see the module's docstring)."""
    needed = {"navigate"}
    if uncovered_page:
        needed.add("observe")
    if any(m.state_projections or m.context for m in maps):
        needed.add("site")
    return needed
