"""Converters from neighbouring protocols' documents to actions.json maps.

``mcp-actions convert`` reads a WAB discovery document or an ABP manifest (a
file or an ``https://`` URL) and writes an actions.json map that is valid
under ``mcp-actions validate``, so a site owner can move to the richer
format and keep what they already declared. The converted tools call the
page through the product's protocol adapters (primitives ``wab.execute`` and
``abp.call``), with the command or capability name bound as an argument.
"""

from __future__ import annotations

from .abp import abp_to_actions, is_abp_manifest
from .detect import convert_document, read_document
from .wab import is_wab_discovery, wab_to_actions

__all__ = [
    "abp_to_actions",
    "convert_document",
    "is_abp_manifest",
    "is_wab_discovery",
    "read_document",
    "wab_to_actions",
]
