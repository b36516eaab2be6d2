"""WebMCP on the host side: a tool's ``requestUserInteraction`` as a question to the user.

A page tool's ``execute(input, client)`` may call
``client.requestUserInteraction(callback)``: the page wants to involve the
user (a confirmation dialog, a choice in its own UI) before it goes on. The
page engine (``runtimes/page/webmcp_call.js``) sends that wish as an
``input_request`` ``{protocol: "webmcp", method: "requestUserInteraction",
tool}`` of the running call; ``UserInteractionBridge`` asks the user through
the caller's ``Elicit`` (MCP elicitation) whether the page may do so, worded
``<site> (<tool>) …``, and answers ``{"granted": true}`` when they accept,
after which the page runs its callback. A decline or a cancel answers
``{"granted": false, "reason": "declined" | "cancelled"}``, a client without
elicitation (``elicit`` None) ``{"granted": false, "reason":
"no_elicitation"}``: the page's promise rejects with a ``NotAllowedError``,
and a tool that lets it end its execute fails ``permission_denied`` with that
``evidence.reason``.
"""

from __future__ import annotations

import logging
from typing import Any

from .abp import Elicit

__all__ = ["INTERACTION_SCHEMA", "UserInteractionBridge"]

log = logging.getLogger(__name__)

#: The one field the user answers: whether the page may ask them now.
INTERACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"allow": {"type": "boolean", "title": "Let the page ask you", "default": True}},
    "required": ["allow"],
}


def _refusal(reason: str, message: str) -> dict[str, Any]:
    return {"granted": False, "reason": reason, "message": message}


class UserInteractionBridge:
    """Answers one WebMCP call's ``requestUserInteraction`` wishes (the bridge's ``on_input`` for ``webmcp.call``)."""

    def __init__(self, elicit: Elicit | None, *, tool: str, site: str) -> None:
        self.elicit = elicit
        self.tool = tool
        self.site = site

    async def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        """``{"granted": true}`` when the user lets the page ask them; a refusal with its reason otherwise."""
        if request.get("method") != "requestUserInteraction":
            return _refusal("unsupported", f"the agent does not answer WebMCP {request.get('method')!r} requests")
        if self.elicit is None:
            return _refusal("no_elicitation", "the agent's client cannot ask the user (no elicitation)")
        message = (
            f"{self.site} ({self.tool}) wants to ask you something on its page before it goes on. "
            "Allow it, then answer on the page."
        )
        answer = await self.elicit(message, INTERACTION_SCHEMA)
        if answer.action != "accept":
            log.info("the user answered %s to %s's wish to ask (%s)", answer.action, self.site, self.tool)
            reason = "cancelled" if answer.action == "cancel" else "declined"
            return _refusal(reason, f"the user chose {answer.action}")
        if (answer.content or {}).get("allow") is False:
            return _refusal("declined", "the user answered no")
        return {"granted": True}
