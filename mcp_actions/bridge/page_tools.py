"""``page_tools``: the tools a page declares through a neighbouring protocol, as runtimes report them.

An addition to the Actions Bridge Protocol: ``runtime_ready`` and
``runtime_status`` may carry ``"page_tools": {"<protocol>": [descriptor, ...]}``
with the *whole* current list per protocol (``webmcp``, ``abp``, ``wab``); a
protocol absent from the object has no tools now. A descriptor is
``{"name": str, "description": str, "inputSchema": object, ...}`` plus
protocol-specific fields (``annotations``, ``kind``). The bridge checks the
shape here (page-originated data is validated before use) and keeps the last
report on the runtime; each protocol's object (``protocols/registry.py``) turns it into per-runtime tools
(``protocols/exposure.py``). Which protocol names are known is the registry's word: the composition
root hands them to the bridge (``protocols.registry.PAGE_TOOL_KEYS``), which sits below the protocols
layer; a bridge given none takes any well-formed name (nothing exposes a name no protocol knows).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from ..errors import ActionError, ErrorCode
from ..jsonutil import json_size

__all__ = ["MAX_PAGE_TOOLS", "MAX_PAGE_TOOLS_BYTES", "parse_page_tools"]

#: A protocol name a runtime may report when the bridge was given no list of known ones.
_PROTOCOL_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
#: At most this many tools per protocol and this many bytes for the whole report.
MAX_PAGE_TOOLS = 200
MAX_PAGE_TOOLS_BYTES = 512 * 1024


def _invalid(message: str, path: str) -> ActionError:
    return ActionError(message, code=ErrorCode.INVALID_ITEM, evidence={"path": path, "field": "page_tools"})


def parse_page_tools(value: Any, protocols: Collection[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The checked ``page_tools`` object; ``invalid_item`` naming the offending path otherwise.

    ``protocols``: the names a runtime may report tools under (None: any well-formed name).
    """
    if not isinstance(value, dict):
        raise _invalid("page_tools must be an object of protocol -> tool list", "/page_tools")
    if json_size(value) > MAX_PAGE_TOOLS_BYTES:
        raise _invalid(f"page_tools exceeds {MAX_PAGE_TOOLS_BYTES} bytes", "/page_tools")
    out: dict[str, list[dict[str, Any]]] = {}
    for protocol, tools in value.items():
        base = f"/page_tools/{protocol}"
        if protocols is not None and protocol not in protocols:
            raise _invalid(f"unknown page tool protocol {protocol!r} (one of {', '.join(protocols)})", base)
        if not isinstance(protocol, str) or not _PROTOCOL_NAME.match(protocol):
            raise _invalid(f"{protocol!r} is not a protocol name", base)
        if not isinstance(tools, list) or len(tools) > MAX_PAGE_TOOLS:
            raise _invalid(f"{protocol} tools must be a list of at most {MAX_PAGE_TOOLS}", base)
        checked: list[dict[str, Any]] = []
        for index, tool in enumerate(tools):
            where = f"{base}/{index}"
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"] or len(tool["name"]) > 200:
                raise _invalid("a page tool needs a name (a non-empty string of at most 200 characters)", where)
            if not isinstance(tool.get("description", ""), str):
                raise _invalid("description must be a string", f"{where}/description")
            if not isinstance(tool.get("inputSchema", {}), dict):
                raise _invalid("inputSchema must be an object", f"{where}/inputSchema")
            checked.append(tool)
        out[protocol] = checked
    return out
