"""Which tools a host sees: allow and deny globs over dotted names (``--tools``, ``--exclude-tools``).

A tool is exposed when it matches at least one ``include`` glob (or there
are none) and no ``exclude`` glob. Globs are ``fnmatch`` patterns matched
case-sensitively against the namespaced dotted name, built-ins included
(``browser.navigate``, ``actions.site``): ``--tools 'shop.*' --tools
'browser.*'`` keeps the shop's tools and the browser's.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

__all__ = ["ToolSelection"]


@dataclass(frozen=True)
class ToolSelection:
    """Allow/deny globs; calling it answers whether a dotted name is exposed."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def __call__(self, dotted: str) -> bool:
        if self.include and not any(fnmatchcase(dotted, glob) for glob in self.include):
            return False
        return not any(fnmatchcase(dotted, glob) for glob in self.exclude)
