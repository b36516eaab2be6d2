"""``PageProtocol``: everything mcp-actions knows of one neighbouring protocol a page declares tools through.

WebMCP, ABP and WAB pages declare their own tools. Each protocol is one
``PageProtocol`` object (in its module: ``webmcp.WEBMCP``, ``abp.ABP``,
``wab.WAB``), gathered in ``registry.PAGE_PROTOCOLS``. The object holds
every piece of the protocol on the host side:

- **discovery** (``Discovery``): under which key of ``runtime_ready`` /
  ``runtime_status`` ``page_tools`` the page engine reports the page's tools
  (``bridge/page_tools.py`` checks the wire shape), and whether its site also
  publishes a discovery document (WAB: ``wab_discovery.py`` finds it);
- **exposure** (``maps``): the actions.json map of what was discovered, as
  candidates in order of preference (``exposure.PageToolExposure`` loads the
  first that is valid as the runtime's map of this protocol);
- **naming** (``tool_name``, ``namespace``, ``source``, ``page_name``): the
  one naming rule of ``naming.py``, the runtime's map's namespace and source,
  and where the page's own tool name is bound (``name_key``);
- **running** (``make_runner``): one ``PageRunner`` per application, which
  runs a checked call through the protocol's page primitive (``primitive``);
- **conversion** (``convert``): a published document of the protocol as an
  actions.json map (``mcp_actions.convert``, what ``mcp-actions convert``
  uses), None when the protocol has no documents.

The catalogue gives every tool of such a map the plan kind ``page_tool`` with
the protocol's name (``manifest/execution.py``); dispatch hands that plan to
``runner.PageToolRunner``, which finds the object by that name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from ..bridge.bridge import Bridge
from ..bridge.registry import RuntimeInfo
from ..catalog.catalog import ToolBinding
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from ..workflow.progress import ProgressCallback
from .naming import page_tool_name

__all__ = ["Discovery", "Elicit", "ElicitAnswer", "MapBuilder", "PageProtocol", "PageRunner", "PageToolCall", "SiteDocument"]


class ElicitAnswer(NamedTuple):
    """The user's answer to one question: ``action`` accept, decline or cancel, and the form's content."""

    action: str
    content: dict[str, Any] | None = None


#: Asks the user ``message`` with a flat form ``schema`` (an object of primitive properties).
Elicit = Callable[[str, dict[str, Any]], Awaitable[ElicitAnswer]]

#: A site's discovery document as found: ``{"url": str, "document": dict}``.
SiteDocument = Mapping[str, Any]


class MapBuilder(Protocol):
    """The candidate actions.json maps of a runtime's page tools (and its site's document), best first."""

    def __call__(self, page_tools: list[dict[str, Any]] | None, *, url: str | None, site_document: SiteDocument | None = None) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Discovery:
    """Where a protocol's tools are found.

    ``page_tools``: the page engine reports the page's tools under the protocol's name in
    ``page_tools``; ``site_document``: the site also publishes a discovery document (found in the
    background by ``wab_discovery.py``, which then hands both on to exposure).
    """

    page_tools: bool = True
    site_document: bool = False


@dataclass(frozen=True)
class PageToolCall:
    """One checked call of a page's tool, as its protocol's runner gets it."""

    binding: ToolBinding
    #: The page's own name of the tool (``PageProtocol.page_name``): never renamed by an argument.
    page_name: str
    own: dict[str, Any]
    runtime: RuntimeInfo
    deadline: Deadline
    progress: ProgressCallback | None = None
    #: Asks the user what the page asks (None: the caller cannot ask).
    elicit: Elicit | None = None
    #: The caller's id of the call (ABP passes it to the app as its ``callId``).
    request_id: str | None = None
    #: The origin the policy judged the call for (None: its decision does not depend on the page). The
    #: runner's call carries it (``action_call.origin``), so a page that moved meanwhile is not sent it.
    origin: str | None = None


class PageRunner(Protocol):
    """Runs one protocol's tools through the bridge (one per application: it may keep state, such as WAB's rate budget)."""

    async def run(self, call: PageToolCall) -> Any: ...


@dataclass(frozen=True)
class PageProtocol:
    """One neighbouring protocol: discovery, exposure, naming, running and conversion (see the module docstring)."""

    #: Its key in ``page_tools``, the plan's ``protocol`` and ``_meta["mcp-actions/protocol"]``.
    name: str
    #: How users know it (``WebMCP``), for messages and docs.
    title: str
    #: The page primitive its tools run through (``webmcp.call``).
    primitive: str
    #: The bound argument (``x_actions.binding.arguments``) holding the page's own tool name.
    name_key: str
    discovery: Discovery
    maps: MapBuilder
    make_runner: Callable[[Bridge], PageRunner]
    #: A published document of the protocol -> an actions.json map (``mcp_actions.convert``); None: it has none.
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def tool_name(self, url: str | None, own: str) -> str:
        """The dotted name of the page's tool ``own`` on the page at ``url`` (the one rule of ``naming.py``)."""
        return page_tool_name(url, own)

    def namespace(self, runtime_id: str) -> str:
        """The namespace of a runtime's map of this protocol's tools."""
        return f"runtime-{runtime_id}-{self.name}"

    def source(self, runtime_id: str) -> str:
        """Where a runtime's map of this protocol's tools comes from (reports name it)."""
        return f"runtime:{runtime_id}#{self.name}"

    def page_name(self, binding: ToolBinding) -> str:
        """The page's own name of ``binding``'s tool, read from its plan's bound arguments (``manifest_invalid`` if absent)."""
        name = binding.execution.bound_arguments.get(self.name_key)
        if not isinstance(name, str):
            raise ActionError(f"{binding.name} does not name its page tool", code=ErrorCode.MANIFEST_INVALID, evidence={"tool": binding.name, "field": self.name_key})
        return name
