"""The browser extension shipped inside the package: the user's own Chrome as a runtime host.

The unpacked Manifest V3 extension lives in ``chrome/`` (package data, nothing
downloaded at run time). ``identity.py`` reads its manifest: ``extension_id``
(computed from the manifest's public ``key``, stable), ``extension_version``,
``extension_origin`` (its ``chrome-extension://`` origin) and ``connect_url``,
the connect link ``serve`` shows. ``bundle.py`` says where it is
(``extension_dir``, ``extension_info`` for ``mcp-actions extension``): a folder
assembled from ``chrome/`` and the page engine, which exists once, in
``runtimes/page/`` (``refresh_extension`` writes it).
"""

from __future__ import annotations

from .bundle import extension_dir, extension_info, refresh_extension
from .identity import connect_url, extension_id, extension_origin, extension_version

__all__ = [
    "connect_url",
    "extension_dir",
    "extension_id",
    "extension_info",
    "extension_origin",
    "extension_version",
    "refresh_extension",
]
