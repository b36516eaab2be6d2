"""Running the map tool an attachment's launcher opens, when the user clicks it on the page.

The runtime only says which of its attachments was clicked (``attachment_open``);
the tool and its arguments are the ones the map declared and the bridge
configured for that runtime (``bridge/runtime_config.py``). The call goes
through the same guards as any other (``ActionService.handle``, ``via
"attachment"``): arguments checked, the policy applied, and a tool that needs
the user's confirmation refused, since no MCP client is there to ask. It runs
on the runtime whose launcher was clicked, and it is audited like every call.
Nobody waits for its result: a failure is logged, never raised.
"""

from __future__ import annotations

import logging

from ...bridge.events import AttachmentOpened
from ...errors import ActionError
from .guards import CallContext
from .service import ActionService

__all__ = ["run_attachment_open"]

log = logging.getLogger(__name__)


async def run_attachment_open(service: ActionService, event: AttachmentOpened) -> None:
    """Run the tool ``event``'s attachment opens, on the runtime whose launcher was clicked."""
    opens, runtime_id = event.opens, event.runtime.runtime_id
    binding = next(
        (b for b in service.catalog.tools.values() if b.name == opens.tool and (opens.namespace is None or b.namespace == opens.namespace)),
        None,
    )
    if binding is None:
        log.warning("attachment %s of runtime %s opens %s, which is not loaded", opens.attachment_id, runtime_id, opens.tool)
        return
    arguments = {**opens.arguments, "target_runtime_id": runtime_id}
    try:
        await service.handle(binding.mcp_name, arguments, CallContext(via="attachment", client="page-launcher"))
    except ActionError as exc:
        # The code and the argument's path, not the message: it may quote the arguments (docs/mcp-surface.md, "Notifications").
        log.warning("attachment %s of runtime %s: %s failed: %s %s", opens.attachment_id, runtime_id, opens.tool, exc.code, exc.evidence.get("path") or "")
    except Exception:
        log.exception("attachment %s of runtime %s: %s failed", opens.attachment_id, runtime_id, opens.tool)
    else:
        log.info("attachment %s of runtime %s ran %s", opens.attachment_id, runtime_id, opens.tool)
