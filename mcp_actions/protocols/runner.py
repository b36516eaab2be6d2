"""Running tools that pages declare through a page protocol (WebMCP, ABP, WAB).

``PageToolRunner.run`` is what dispatch calls for a tool whose plan is of
kind ``page_tool`` (``manifest/execution.py``), after the arguments passed
the page's own schema. It finds the tool's protocol by the plan's
``protocol`` in the registry (``registry.py``) and hands the call to that
protocol's runner (``PageProtocol.make_runner``, one per application). The
page's tool name comes from the plan's bound arguments and travels apart
from the call's arguments, so a page parameter can never rename the tool.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..bridge.bridge import Bridge
from ..bridge.registry import RuntimeInfo
from ..catalog.catalog import ToolBinding
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from ..workflow.progress import ProgressCallback
from .page_protocol import Elicit, PageProtocol, PageRunner, PageToolCall
from .registry import PAGE_PROTOCOLS

__all__ = ["PageToolRunner"]

log = logging.getLogger(__name__)


class PageToolRunner:
    """Runs page-declared tools through the bridge, each by its protocol's runner; one per application."""

    def __init__(self, bridge: Bridge, protocols: Mapping[str, PageProtocol] = PAGE_PROTOCOLS) -> None:
        self.bridge = bridge
        self.protocols = dict(protocols)
        self._runners: dict[str, PageRunner] = {name: protocol.make_runner(bridge) for name, protocol in self.protocols.items()}

    def runner(self, protocol: str) -> PageRunner | None:
        """The runner of the protocol named ``protocol`` (None: no such protocol)."""
        return self._runners.get(protocol)

    async def run(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        runtime: RuntimeInfo,
        deadline: Deadline,
        *,
        progress: ProgressCallback | None = None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
        origin: str | None = None,
    ) -> Any:
        """Run one checked call of a page-declared tool on ``runtime``; its output or ``ActionError``.

        ``progress`` hears the page's progress, ``elicit`` asks the user what the page asks
        (None: the caller cannot ask), ``request_id`` is the caller's id of the call, ``origin``
        the origin the policy judged it for (a page now elsewhere refuses it: ``permission_denied``).
        """
        name = binding.execution.protocol
        protocol = self.protocols.get(name) if name is not None else None
        if protocol is None:
            raise ActionError(
                f"{binding.name} comes from {binding.protocol}, which this runtime cannot run",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"tool": binding.name, "capability": binding.protocol},
            )
        call = PageToolCall(
            binding=binding,
            page_name=protocol.page_name(binding),
            own=own,
            runtime=runtime,
            deadline=deadline,
            progress=progress,
            elicit=elicit,
            request_id=request_id,
            origin=origin,
        )
        return await self._runners[protocol.name].run(call)
