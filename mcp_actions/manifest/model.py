"""Pydantic models of the actions.json v1 root object and its parts.

The validator (``validate.py``) decides what is acceptable and reports
problems with exact paths; these models give the rest of the code typed
access to a manifest that has passed it. Every model keeps unknown keys
(``extra="allow"``): ``x_*`` extensions and fields such as ``prompt`` survive
a load and are visible in ``model_extra``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Attachment",
    "Check",
    "ContextBlock",
    "Import",
    "Manifest",
    "Projection",
    "Signal",
    "State",
    "Surface",
    "Target",
    "Tool",
    "Transition",
    "Workflow",
    "WorkflowStep",
    "XActions",
]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Target(_Open):
    """Where an action, event, check or attachment applies in the live page."""

    selector: str | None = None
    selectors: list[str] | None = None
    fallback_selectors: list[str] | None = None
    role: str | None = None
    name: str | None = None
    text_equals: str | None = None
    text_contains: str | None = None
    url_contains: str | None = None
    url_matches: str | None = None
    state: str | None = None
    closest: str | None = None
    confidence: str | None = None
    notes: str | None = None


class Surface(_Open):
    """Where the manifest applies; metadata, not execution authority."""

    origin: str | None = None
    name: str | None = None
    kind: str | None = None
    description: str | None = None
    surface_id: str | None = None


class Import(_Open):
    """Another action map composed into this one."""

    id: str
    kind: Literal["website", "local", "storage", "shared", "public", "package"]
    uri: str
    namespace: str | None = None
    trust: Literal["website", "private", "shared", "public", "local", "unknown"] = "unknown"
    enabled: bool = True
    provenance: dict[str, Any] | None = None


class ContextBlock(_Open):
    """Documentation an agent may load when a URL, state, target or task matches."""

    id: str
    title: str | None = None
    body: str | None = None
    load_when: dict[str, Any] | None = None
    available_tools: list[str] = Field(default_factory=list)
    next_states: list[str] = Field(default_factory=list)
    source: dict[str, Any] | None = None


class State(_Open):
    """A named page, component, authorization or runtime condition."""

    name: str
    description: str | None = None
    diagnostics: list[dict[str, Any]] = Field(default_factory=list)
    observables: list[str] = Field(default_factory=list)


class Transition(_Open):
    """Movement between states, performed by a tool or reported by a signal."""

    name: str
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    tool: str | None = None
    signal: str | None = None
    method: str | None = None
    rate_limit_ms: int | None = None


class WorkflowStep(_Open):
    """One step of a workflow: a primitive with JSONata-slotted arguments."""

    id: str
    primitive: str
    args: dict[str, Any] = Field(default_factory=dict)
    when: str | None = None
    for_each: str | None = None
    max_items: int | None = None
    retry_until: str | None = None
    max_attempts: int | None = None
    after_each: dict[str, Any] | None = None
    settle_after: dict[str, Any] | None = None
    on_error: Literal["stop", "continue"] = "stop"
    timeout_ms: int | None = None


class Workflow(_Open):
    """The implemented execution language: steps over dictionary primitives."""

    version: Literal[1]
    expression_language: Literal["jsonata"]
    steps: list[WorkflowStep]
    output: Any = None


class XActions(_Open):
    """Browser-runtime metadata of a tool."""

    direction: str = "agent_to_html"
    handler: str | None = None
    binding: dict[str, Any] | None = None
    scope: str | None = None
    source: dict[str, Any] | None = None
    execution: dict[str, Any] | None = None
    result_schema: dict[str, Any] | None = None
    workflow: Workflow | None = None

    @property
    def bound_arguments(self) -> dict[str, Any]:
        """``binding.arguments``: what a handler naming a primitive runs with, under the call's own arguments."""
        arguments = (self.binding or {}).get("arguments")
        return dict(arguments) if isinstance(arguments, dict) else {}


class Tool(_Open):
    """An action an agent may call."""

    name: str
    description: str
    input_schema: dict[str, Any]
    target: Target | None = None
    requires: list[str] = Field(default_factory=list)
    x_actions: XActions = Field(default_factory=XActions)
    workflow: Workflow | None = None
    result_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None

    @property
    def effective_workflow(self) -> Workflow | None:
        """The tool's workflow, whether declared at the tool or under ``x_actions``."""
        return self.workflow or self.x_actions.workflow

    @property
    def effective_result_schema(self) -> dict[str, Any] | None:
        """The result schema, whether declared at the tool or under ``x_actions``."""
        return self.result_schema or self.x_actions.result_schema


class Signal(_Open):
    """A page-originated event that may be forwarded to an agent after validation."""

    name: str
    description: str | None = None
    direction: str | None = None
    event: str | None = None
    ingestion: str = "disabled_by_default"
    target: Target | None = None
    payload: dict[str, Any] | None = None

    @property
    def enabled(self) -> bool:
        """True when the manifest enables ingestion of this signal."""
        return self.ingestion == "enabled"


class Attachment(_Open):
    """A runtime-installed page affordance."""

    id: str
    kind: str | None = None
    target: Target
    lifecycle: dict[str, Any]
    affordance: dict[str, Any] | None = None
    signals: dict[str, Any] | None = None


class Check(_Open):
    """A drift and safety probe of the live site."""

    id: str
    description: str | None = None
    severity: Literal["info", "minor", "major", "critical"] | None = None
    setup: list[dict[str, Any]] = Field(default_factory=list)
    assertions: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[dict[str, Any]] = Field(default_factory=list)
    expected_result: dict[str, Any] | None = None
    on_fail: dict[str, Any] | None = None


class Projection(_Open):
    """A logical state projection: DOM extraction, JSONata transform, schema, summaries."""

    name: str
    description: str | None = None
    snapshot: dict[str, Any]
    summaries: list[dict[str, Any]] = Field(default_factory=list)


class Manifest(_Open):
    """The actions.json v1 root object."""

    protocol: Literal["actions.json"]
    version: Literal[1]
    tools: list[Tool]
    surface: Surface = Field(default_factory=Surface)
    imports: list[Import] = Field(default_factory=list)
    composition: dict[str, Any] | None = None
    context: list[ContextBlock] = Field(default_factory=list)
    states: list[State] = Field(default_factory=list)
    transitions: list[Transition] = Field(default_factory=list)
    signals: list[Signal] = Field(default_factory=list)
    attachments: list[Attachment] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    provenance: dict[str, Any] | None = None
    state_projections: list[Projection] = Field(default_factory=list)
    primitive_dictionary: dict[str, Any] | None = None
