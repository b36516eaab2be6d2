"""``actions.save_tool``: the agent's last acting calls on a tab, saved as a map tool (docs/mcp-surface.md).

Arguments and result as the contract's section on tools learned from a
session: ``name`` (the dotted tool name), ``description``, ``steps`` (the
last N acting calls on this tab; default every one since the last
navigation) and ``parameters`` (argument name -> a value the agent typed or
chose in those steps, or the text of the row a clicked element sits in) and
``secrets`` (the parameters whose values are secret; a value typed into a
password or one-time-code field always is, and becomes an argument, listed
or not: ``learning/secrets.py``). The steps come from the service's journal (``act_journal.py``), the tool is
written by ``learning/workflow.py`` with locators a person would write, and
the map goes to the learned-maps folder for the page's origin
(``learning/store.py``), which reloads the maps so the tool is listed at once.
A step that cannot be repeated robustly refuses the whole save with the
reason, ``invalid_input`` at ``/steps`` (or at the parameter it concerns).
Result: ``{"tool": MCP name, "map": path, "namespace": str}``.
"""

from __future__ import annotations

from typing import Any

from ....bridge.scope import current_session
from ....errors import ActionError, ErrorCode
from ....learning.locators import PARAMETER_NAME, UnlearnableStep
from ....learning.secrets import with_secret_parameters
from ....learning.store import origin_of
from ....learning.workflow import learn_tool
from ....manifest.rules.base import IDENTIFIER_RE
from ...call.service import ActionService
from ...call.targets import TargetRule
from ..tool import BuiltinCall, BuiltinTool, builtin_binding

__all__ = ["SAVE_TOOL"]

#: Argument names a learned tool may not take: every tool's routing fields (contract §3).
RESERVED = frozenset({"target_runtime_id", "target_runtime_key", "target_url_contains", "target_title_contains", "timeout_ms"})

SAVE = builtin_binding(
    "actions.save_tool",
    "Save the acting calls you just made on this tab (page_click/fill/press/select since the last browser_navigate, or the last "
    "`steps`) as a tool for this site, callable now and in later sessions. `parameters` maps each argument name to a value "
    "you typed or chose, or to the text of the row a click was in; that value becomes the argument.",
    {
        "type": "object",
        "required": ["name", "description"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 128, "description": "Dotted tool name, e.g. todos.add."},
            "description": {"type": "string", "minLength": 1, "maxLength": 1000},
            "steps": {"type": "integer", "minimum": 1, "maximum": 40, "description": "The last N acting calls (default: all since the last navigation)."},
            "parameters": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}, "description": "Argument name -> the value it stands for."},
            "secrets": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": 20,
                "description": "Parameters whose values are secret: never written into the map (password fields are always).",
            },
        },
        "additionalProperties": False,
    },
    {"title": "Save as tool", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
    result_schema={
        "type": "object",
        "required": ["tool", "map", "namespace"],
        "properties": {"tool": {"type": "string"}, "map": {"type": "string"}, "namespace": {"type": "string"}, "replaced": {"type": "boolean"}, "secrets": {"type": "array", "items": {"type": "string"}}},
    },
)


def _check_arguments(own: dict[str, Any]) -> dict[str, str]:
    """The name and parameters a map can hold, or ``invalid_input`` at the offending argument."""
    if not IDENTIFIER_RE.match(own["name"]):
        raise ActionError(
            f"name {own['name']!r} is not a dotted tool name (letters, digits, _ and -, dot-separated, each part starting with a letter)",
            code=ErrorCode.INVALID_INPUT,
            evidence={"path": "/name"},
        )
    parameters: dict[str, str] = dict(own.get("parameters") or {})
    for name in parameters:
        if not PARAMETER_NAME.match(name) or name in RESERVED:
            raise ActionError(
                f"parameter name {name!r} must be a plain identifier (letters, digits, _) and not a routing field",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": f"/parameters/{name}"},
            )
    for i, name in enumerate(own.get("secrets") or []):
        if name not in parameters:
            raise ActionError(f"secret {name!r} is not one of the parameters", code=ErrorCode.INVALID_INPUT, evidence={"path": f"/secrets/{i}"})
    return parameters


async def _save(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    parameters = _check_arguments(own)
    learned = service.learned
    if learned is None:
        raise ActionError("this server has no learned-maps folder (--learned-maps)", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"capability": "learned_maps"})
    runtime = call.runtime
    count = own.get("steps")
    steps = service.journal.last(runtime.runtime_id, count) if count else service.journal.since_navigation(runtime.runtime_id)
    acting = sum(not step.boundary for step in steps)
    if count and acting < count:
        raise ActionError(f"only {acting} acting call(s) on this tab succeeded, not {count}", code=ErrorCode.INVALID_INPUT, evidence={"path": "/steps", "available": acting})
    origin = origin_of(steps[-1].url if steps else runtime.url)
    if origin is None:
        raise ActionError("tools are learned on http(s) pages only", code=ErrorCode.INVALID_INPUT, evidence={"path": "/steps", "url": runtime.url})
    if any(origin_of(step.url) != origin for step in steps):  # a navigation step included: it stays on the site
        raise ActionError("these steps ran on more than one site; save them from one", code=ErrorCode.INVALID_INPUT, evidence={"path": "/steps"})
    # A value typed into a password or one-time-code field is an argument, listed or not: never in the map.
    parameters, secrets = with_secret_parameters(steps, parameters, own.get("secrets") or ())
    try:
        tool = learn_tool(steps, name=own["name"], description=own["description"], parameters=parameters, secrets=secrets)
    except UnlearnableStep as exc:
        path = "/steps"
        for name in parameters:
            if str(exc).startswith(f"parameter {name!r}"):
                path = f"/parameters/{name}"
        raise ActionError(str(exc), code=ErrorCode.INVALID_INPUT, evidence={"path": path, "reason": str(exc)}) from None
    # Over HTTP the tool is the saving session's own (its folder of the learned maps) until the operator
    # makes it everyone's; over stdio, with no session, it is everyone's at once (docs/sessions.md).
    session = current_session()
    owner = session.id if session is not None else None
    saved = await learned.save(origin, tool, owner=owner)
    # The tool of this origin (its dotted name is the map's name under the origin's namespace, catalog.py), this session's first.
    found = [b for b in service.catalog.tools.values() if b.home == origin and b.tool is not None and b.tool.name == own["name"]]
    binding = next((b for b in found if b.owner == owner), None) or next(iter(found), None)
    if binding is None:  # written and valid, but not loaded (another map claims the namespace?)
        raise ActionError(
            f"the tool was saved to {saved.path} but is not served; see the server's failed maps",
            code=ErrorCode.MANIFEST_INVALID,
            evidence={"map": str(saved.path), "namespace": saved.namespace},
        )
    answer = {"tool": binding.mcp_name, "map": str(saved.path), "namespace": saved.namespace, "replaced": saved.replaced}
    if secrets:
        answer["secrets"] = sorted(secrets)  # arguments the later calls must pass: their values were not kept
    return answer


#: Listed with the page tools (group ``observe``): it saves what they did.
SAVE_TOOL = BuiltinTool(SAVE, _save, "observe", TargetRule("refs.describe", "reads"))
