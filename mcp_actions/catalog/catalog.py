"""The catalog of exposed tools, built from loaded manifests and runtimes' inline manifests.

Each ``ToolBinding`` is one MCP tool: its unique MCP name, the namespaced
dotted name, the schema its arguments are checked against before anything
reaches a runtime, and how it runs (a page handler, a compiled workflow, or a
built-in). Rebuilding the catalog is cheap and happens when manifests or
inline manifests change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..bridge.routing import surface_matches
from ..bridge.scope import scope_key, visible_to
from ..bridge.signals import SignalSpec
from ..errors import ActionError, ActionsError, ErrorCode
from ..jsonutil import json_pointer
from ..learning.store import LEARNED_DESCRIPTION, LEARNED_TITLE, is_learned, learned_home, learned_namespace
from ..manifest.compose import ToolOrigin
from ..manifest.execution import ExecutionPlan, ToolKind
from ..manifest.load import LoadedManifest
from ..manifest.model import Tool
from ..schema_check import CompiledSchema
from ..workflow.interpreter import CompiledWorkflow
from ..workflow.legacy import execution_steps, translate_execution
from .annotations import confirmation, derive_annotations, tool_title
from .attachments import attachment_configs
from .naming import disambiguated_name, mcp_tool_name
from .routing_fields import with_routing_fields

__all__ = ["META_LEARNED", "META_ORIGIN", "META_PROTOCOL", "META_TOOL", "Catalog", "ToolBinding"]

log = logging.getLogger(__name__)

META_TOOL = "mcp-actions/tool"
#: Where a tool came from: ``actions.json``, ``webmcp``, ``abp`` or ``wab`` (see protocols/registry.py).
META_PROTOCOL = "mcp-actions/protocol"
#: A learned tool's origin: it is listed and runs only on that origin's pages.
META_ORIGIN = "mcp-actions/origin"
#: A learned tool: an agent wrote its description and steps (actions_save_tool), not the operator.
META_LEARNED = "mcp-actions/learned"

@dataclass(frozen=True)
class ToolBinding:
    """One exposed tool and how to run it."""

    mcp_name: str
    name: str
    description: str
    input_schema: dict[str, Any]
    #: How the tool runs, decided once when its map was loaded (``manifest/execution.py``).
    execution: ExecutionPlan
    origin: ToolOrigin
    namespace: str
    surface_origin: str | None = None
    handler: str | None = None
    workflow: CompiledWorkflow | None = None
    #: The legacy ``x_actions.execution`` steps, translated once at load (``workflow/legacy.py``), or, for steps
    #: this server cannot run, the error a call that reaches them answers (``ActionError.to_error()``).
    legacy_workflow: CompiledWorkflow | None = None
    legacy_refusal: dict[str, Any] | None = None
    result_schema: dict[str, Any] | None = None
    runtime_id: str | None = None  # tools of an inline manifest run on the runtime that sent it
    #: The agent session whose tool this is (its map's ``LoadedManifest.owner``): listed and callable in that
    #: session alone (docs/sessions.md). None: everyone's.
    owner: str | None = None
    #: A learned tool's origin (its map's ``surface.origin``): it is listed and runs only on that origin's pages
    #: (``ToolVisibility.listed``, the ``home`` guard). None: a tool bound to no one origin.
    home: str | None = None
    annotations: dict[str, Any] | None = None  # MCP hints, camelCase (see annotations.py)
    title: str | None = None
    confirm: str | None = None  # the question to ask the user before a call, when the map asks for one
    #: ``(projection, summary)`` to read after a successful call and attach to its result (x_actions.result_summary).
    result_summary: tuple[str, str] | None = None
    #: The output's ``image`` (base64, with ``mime_type``) is a picture: the MCP adapter sends it as image content
    #: (``server/media.py``). Set by built-ins that declare it (``browser.screenshot``); never by a map or a page.
    image_output: bool = False
    #: The output is the answer's text itself (a str): the MCP adapter sends it as the one text content, with no
    #: ``structuredContent`` and no ``outputSchema``, so the model is not handed the same data twice. Built-ins only.
    text_output: bool = False
    tool: Tool | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> ToolKind:
        """The tool's kind (its execution plan's)."""
        return self.execution.kind

    @property
    def protocol(self) -> str:
        """Where the tool came from: ``actions.json``, or the neighbouring protocol its page declared it through (from the plan)."""
        return self.execution.protocol or "actions.json"

    @property
    def page_tool(self) -> bool:
        """Whether a page declared the tool (WebMCP, ABP, WAB): its words are the page's, and its protocol's object runs it."""
        return self.execution.kind is ToolKind.PAGE_TOOL

    @cached_property
    def mcp_input_schema(self) -> dict[str, Any]:
        """The MCP inputSchema: the manifest's schema plus the advertised routing fields."""
        return with_routing_fields(self.input_schema)

    @cached_property
    def _input_check(self) -> CompiledSchema:
        return CompiledSchema(self.input_schema, label=f"the input_schema of tool {self.name}")

    @cached_property
    def own_properties(self) -> frozenset[str]:
        """The property names the tool's own input schema declares (they are never routing)."""
        properties = self.input_schema.get("properties") if isinstance(self.input_schema, dict) else None
        return frozenset(properties) if isinstance(properties, dict) else frozenset()

    @cached_property
    def admits_other(self) -> bool:
        """Whether the tool's input schema admits properties it does not declare (an open schema)."""
        schema = self.input_schema if isinstance(self.input_schema, dict) else {}
        return schema.get("additionalProperties", True) is not False and schema.get("unevaluatedProperties", True) is not False

    @cached_property
    def _result_check(self) -> CompiledSchema | None:
        # Built once per tool, not per call: results are checked on every call, and a schema
        # that cannot be compiled is logged once.
        return CompiledSchema(self.result_schema, label=f"the result_schema of tool {self.name}") if isinstance(self.result_schema, dict) else None

    def build_checks(self) -> None:
        """Create the argument and result checks now; each compiles at its first use.

        Compiling every tool's schemas here (metaschema checks included) added
        about 0.1 s to start-up before the first ``tools/list`` for a 17-tool
        catalogue, while a call compiles only its own tool's schemas.
        """
        _ = (self._input_check, self._result_check, self.own_properties, self.admits_other)

    def prepare_checks(self) -> None:
        """Compile the argument and result checks now (the server does it after start, off the first call's path)."""
        self._input_check.prepare()
        if self._result_check is not None:
            self._result_check.prepare()

    def meta(self) -> dict[str, Any]:
        """The MCP tool's ``_meta``: its dotted name and protocol (and the runtime of an inline map's tool).

        Provenance (manifest, source file, trust) and the kind are in ``provenance()``,
        which the ``actions://manifests/{namespace}`` resource shows: a file path or a
        kind in every tool of every ``tools/list`` cost a host's context for nothing.
        """
        meta: dict[str, Any] = {META_TOOL: self.name, META_PROTOCOL: self.protocol}
        if self.runtime_id:
            meta["mcp-actions/runtime_id"] = self.runtime_id
        if self.home is not None:
            meta[META_ORIGIN] = self.home  # the one origin whose pages it is listed and runs on
            meta[META_LEARNED] = True  # an agent wrote it (its description says so too)
        return meta

    def provenance(self) -> dict[str, Any]:
        """Where the tool comes from and how it runs: its manifest namespace, source, trust and kind."""
        return {"manifest": self.namespace, "source": self.origin.source, "trust": self.origin.trust, "kind": self.kind.listed_as}

    def check_arguments(self, arguments: Mapping[str, Any]) -> None:
        """Validate the tool's own arguments; raise ``invalid_input`` naming the offending path.

        An ``input_schema`` that cannot be compiled refuses every call (``invalid_schema``).
        """
        failure = self._input_check.failure(dict(arguments))
        if failure is not None:
            raise ActionError(
                # Named as the host called it (its MCP name), not by the dotted name a page tool's map gives it.
                f"invalid arguments for {self.mcp_name} at {failure.path}: {failure.message}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": failure.path, "errors": failure.errors},
            )

    def check_result(self, output: Any) -> None:
        """Validate an output against ``result_schema``; raise ``invalid_result`` naming the offending path.

        A ``result_schema`` that cannot be compiled refuses every result (``invalid_schema``):
        an output that cannot be checked is not passed on as if it had been.
        """
        check = self._result_check
        if check is None:
            return
        error = check.first_error(output)
        if error is not None:
            pointer = json_pointer(error.absolute_path)
            raise ActionError(
                f"{self.name} returned a result that breaks its result_schema at {pointer}: {error.message}",
                code=ErrorCode.INVALID_RESULT,
                evidence={"path": pointer, "output": output},
            )


def _binding_for(tool: Tool, *, manifest: LoadedManifest, runtime_id: str | None, protocol: str = "actions.json") -> ToolBinding:
    workflow_model = tool.effective_workflow
    declared = manifest.executions.get(tool.name)
    if protocol != "actions.json":
        # A page's own tool is a kind of its own, whatever its converted map says: the protocol's object runs it.
        execution = ExecutionPlan.page_tool(protocol, declared)
    else:
        # Decided at load. A tool with no way to run (none passes validation) is one a runtime may provide by its name.
        execution = declared or ExecutionPlan(ToolKind.HOST_NATIVE, primitive=tool.name, declared_primitive=False)
    workflow = None
    raw = tool.workflow if tool.workflow is not None else tool.x_actions.workflow
    if workflow_model is not None and raw is not None:
        workflow = CompiledWorkflow.compile(raw.model_dump(mode="json", by_alias=True, exclude_none=True))
    legacy_workflow, legacy_refusal = _legacy_steps(tool)
    home = learned_home(manifest.document) if runtime_id is None else None
    # A learned tool's dotted name starts with its origin's namespace, which no other origin can have:
    # two sites' ``notes.send`` are two tools, and neither takes the other's name (learning/store.py).
    name = f"{learned_namespace(home)}.{tool.name}" if home is not None else tool.name
    # An agent wrote a learned tool's words (a page may have steered it): marked so where they are served.
    description, title = (LEARNED_DESCRIPTION + tool.description, _marked_title(tool_title(tool))) if home is not None else (tool.description, tool_title(tool))
    return ToolBinding(
        mcp_name=mcp_tool_name(name),
        name=name,
        description=description,
        input_schema=tool.input_schema,
        execution=execution,
        origin=manifest.origins.get(tool.name, ToolOrigin(source=manifest.source, trust="local")),
        namespace=manifest.namespace,
        surface_origin=manifest.model.surface.origin,
        handler=tool.x_actions.handler,
        workflow=workflow,
        legacy_workflow=legacy_workflow,
        legacy_refusal=legacy_refusal,
        result_schema=tool.effective_result_schema,
        runtime_id=runtime_id,
        owner=manifest.owner,
        home=home,
        annotations=derive_annotations(tool, manifest.model),
        title=title,
        confirm=confirmation(tool, manifest.model),
        result_summary=_result_summary(tool),
        tool=tool,
    )


def _marked_title(title: str | None) -> str | None:
    return LEARNED_TITLE + title if title else None


def _named_apart(bindings: Iterable[ToolBinding], taken: Mapping[str, ToolBinding]) -> dict[str, ToolBinding]:
    """``bindings`` by MCP name, each named apart from the others and from ``taken`` (a clash: the later gets a suffix)."""
    tools: dict[str, ToolBinding] = {}
    for binding in bindings:
        name = binding.mcp_name
        if name in tools or name in taken:
            holder = tools.get(name) or taken[name]
            key = f"{binding.name}@{binding.runtime_id}" if binding.runtime_id else binding.name
            name, n = disambiguated_name(key), 2
            while name in tools or name in taken:  # a third tool of the same name (or one named like a second name): the next one
                name, n = disambiguated_name(f"{key}#{n}"), n + 1
            log.warning("tool %s would be named %s, which %s already has; exposing it as %s", binding.name, binding.mcp_name, holder.name, name)
            binding = replace(binding, mcp_name=name)
        binding.build_checks()
        tools[name] = binding
    return tools


def _legacy_steps(tool: Tool) -> tuple[CompiledWorkflow | None, dict[str, Any] | None]:
    """The tool's legacy execution steps as a workflow, or why they cannot run (no steps: neither)."""
    execution = tool.x_actions.execution
    if not execution_steps(execution) or not isinstance(execution, dict):
        return None, None
    try:
        return translate_execution(execution), None
    except ActionError as exc:
        # Decided here, said when a call reaches them: handler_first runs its handler before.
        return None, exc.to_error()


def _result_summary(tool: Tool) -> tuple[str, str] | None:
    """``x_actions.result_summary`` as ``(projection, summary)``, when the map asks for one."""
    spec = tool.x_actions.result_summary
    if isinstance(spec, dict) and isinstance(spec.get("projection"), str) and isinstance(spec.get("summary"), str):
        return spec["projection"], spec["summary"]
    return None


class Catalog:
    """Every exposed tool by MCP name, and the signals declared for each surface."""

    def __init__(self, builtins: Iterable[ToolBinding] = (), *, allow: Callable[[str], bool] | None = None) -> None:
        self._builtins = list(builtins)
        self._allow = allow  # --tools / --exclude-tools: a tool it refuses is neither listed nor callable
        self.manifests: dict[str, LoadedManifest] = {}
        self.inline: dict[str, LoadedManifest] = {}  # by runtime id
        self.page_tools: dict[tuple[str, str], LoadedManifest] = {}  # by (runtime id, protocol)
        #: Maps that failed to load and expose nothing, as ``{file, errors}`` (set by whoever loads them):
        #: an agent asking what exists (``actions.site`` ``list``) hears of them too.
        self._failed_maps: list[tuple[str | None, dict[str, Any]]] = []
        #: Tools of maps that failed on their first load, by MCP name: ``{file, error}`` (the map's first problem),
        #: so a call of one answers why it is missing rather than "unknown tool" (catalog/maps.py).
        self.failed_tools: dict[str, dict[str, Any]] = {}
        #: Everyone's tools by MCP name, and each agent session's own (``ToolBinding.owner``) by session id,
        #: named apart from everyone's but not from another session's: what one session's page declares
        #: never renames, shadows or shows in another's list (docs/sessions.md).
        self._shared: dict[str, ToolBinding] = {}
        self._owned: dict[str, dict[str, ToolBinding]] = {}
        # Each map's attachments as runtimes get them (files read once per loaded map), by map identity.
        self._attachments: dict[int, tuple[LoadedManifest, list[dict[str, Any]]]] = {}
        self._rebuild()

    def set_manifests(self, manifests: Iterable[LoadedManifest]) -> None:
        """Replace the file-loaded manifests."""
        self.manifests = {}
        for manifest in manifests:
            home = learned_home(manifest.document)
            if home is not None:  # a learned map's namespace is its origin's, whatever its file says
                manifest.namespace = learned_namespace(home)
            namespace, n = manifest.namespace, 2
            while namespace in self.manifests:  # two files with one namespace: keep both, distinctly
                namespace, n = f"{manifest.namespace}-{n}", n + 1
            manifest.namespace = namespace
            self.manifests[namespace] = manifest
        self._rebuild()

    def set_inline(self, runtime_id: str, manifest: LoadedManifest | None) -> bool:
        """Expose (or withdraw, with None) a runtime's inline manifest; True when tools changed."""
        before = self._names()
        if manifest is None:
            if self.inline.pop(runtime_id, None) is None:
                return False
        else:
            self.inline[runtime_id] = manifest
        self._rebuild()
        return self._names() != before or manifest is not None

    def set_page_tools(self, runtime_id: str, protocol: str, manifest: LoadedManifest | None) -> bool:
        """Expose (or withdraw, with None) the tools a runtime's page declares through ``protocol``.

        True when the exposed tools changed (names, schemas or descriptions).
        """
        key = (runtime_id, protocol)
        before = {b.mcp_name: (b.input_schema, b.description, b.annotations) for b in self.every_binding() if b.runtime_id == runtime_id and b.protocol == protocol}
        if manifest is None:
            if self.page_tools.pop(key, None) is None:
                return False
        else:
            self.page_tools[key] = manifest
        self._rebuild()
        after = {b.mcp_name: (b.input_schema, b.description, b.annotations) for b in self.every_binding() if b.runtime_id == runtime_id and b.protocol == protocol}
        return before != after

    def owner_of_runtime(self, runtime_id: str) -> str | None:
        """The agent session whose tools a runtime's inline map and page tools are (None: everyone's, or none)."""
        found = [self.inline[runtime_id]] if runtime_id in self.inline else []
        found += [m for (rid, _), m in self.page_tools.items() if rid == runtime_id]
        return next((m.owner for m in found if m.owner is not None), None)

    def drop_runtime(self, runtime_id: str) -> bool:
        """Withdraw every tool a gone runtime exposed (inline map and page tools); True when any was."""
        keys = [key for key in self.page_tools if key[0] == runtime_id]
        had = runtime_id in self.inline or bool(keys)
        self.inline.pop(runtime_id, None)
        for key in keys:
            del self.page_tools[key]
        if had:
            self._rebuild()
        return had

    def _rebuild(self) -> None:
        live = {id(m) for m in [*self.manifests.values(), *self.inline.values()]}
        self._attachments = {key: value for key, value in self._attachments.items() if key in live}
        bindings: list[ToolBinding] = list(self._builtins)
        sources = [(m, None, "actions.json") for m in self.manifests.values()] + [(m, rid, "actions.json") for rid, m in self.inline.items()]
        sources += [(m, rid, protocol) for (rid, protocol), m in self.page_tools.items()]
        for manifest, runtime_id, protocol in sources:
            try:
                bindings.extend(
                    [
                        _binding_for(tool, manifest=manifest, runtime_id=runtime_id, protocol=protocol)
                        for tool in manifest.model.tools
                        # Page-originated entries describe what the page does; an agent cannot call them.
                        if tool.x_actions.direction != "html_to_agent"
                    ]
                )
            except ActionsError as exc:
                # A manifest the interpreter cannot run exposes nothing; the others keep serving.
                log.error("manifest %s exposes nothing: %s (%s)", manifest.source, exc.message, exc.code)
        if self._allow is not None:
            bindings = [b for b in bindings if self._allow(b.name)]
        # Sorting by dotted name makes the winner of a name clash independent of load order.
        ordered = sorted(bindings, key=lambda b: (b.kind is not ToolKind.BUILTIN, b.name, b.runtime_id or ""))
        self._shared = _named_apart([b for b in ordered if b.owner is None], {})
        owners = sorted({b.owner for b in ordered if b.owner is not None})
        self._owned = {owner: _named_apart([b for b in ordered if b.owner == owner], self._shared) for owner in owners}

    @property
    def tools(self) -> dict[str, ToolBinding]:
        """The tools the current agent session has, by MCP name: everyone's and its own (docs/sessions.md).

        Outside a session with a context of its own (stdio, the operator, a shared context) every tool,
        each agent session's included (a name two sessions both use: the first session's).
        """
        scope = scope_key()
        if scope is not None:
            return {**self._shared, **self._owned.get(scope, {})}
        every = dict(self._shared)
        for owned in self._owned.values():
            for name, binding in owned.items():
                every.setdefault(name, binding)
        return every

    def _names(self) -> set[tuple[str | None, str]]:
        return {(b.owner, b.mcp_name) for b in self.every_binding()}

    def every_binding(self) -> list[ToolBinding]:
        """Every tool of every session (background work: compiling checks, say)."""
        return [*self._shared.values(), *(b for owned in self._owned.values() for b in owned.values())]

    @property
    def failed_maps(self) -> list[dict[str, Any]]:
        """The maps that failed to load that the current agent session may hear of (another session's runtimes' are its own)."""
        return [entry for owner, entry in self._failed_maps if visible_to(owner)]

    def set_failed_maps(self, failed: Iterable[tuple[str | None, dict[str, Any]]]) -> None:
        """Set the maps that failed, each with the agent session whose map it was (None: everyone's)."""
        self._failed_maps = list(failed)

    def get(self, mcp_name: str) -> ToolBinding | None:
        """The tool with this MCP name that the current agent session has (see ``tools``)."""
        found = self._shared.get(mcp_name)
        if found is not None:
            return found
        scope = scope_key()
        if scope is not None:
            return self._owned.get(scope, {}).get(mcp_name)
        return next((owned[mcp_name] for owned in self._owned.values() if mcp_name in owned), None)

    def find(self, dotted: str) -> ToolBinding | None:
        """The tool with this dotted actions.json name (``actions.site`` call mode uses it)."""
        for binding in self.tools.values():
            if binding.name == dotted:
                return binding
        return self.tools.get(dotted)

    def manifests_for(self, runtime: RuntimeInfo) -> list[LoadedManifest]:
        """The manifests that apply to a runtime: those whose surface it is on, then its inline one."""
        found = [m for m in self.manifests.values() if m.model.surface.origin and surface_matches(m.model.surface.origin, runtime.url)]
        if runtime.runtime_id in self.inline:
            found.append(self.inline[runtime.runtime_id])
        return found

    def uncovered(self, runtime: RuntimeInfo | None) -> bool:
        """Whether ``runtime`` shows an http(s) page that no map but learned ones covers (observe tools help there); False for None."""
        if runtime is None or not runtime.url.startswith(("http://", "https://")) or runtime.runtime_id in self.inline:
            return False
        # A learned map (actions_save_tool) adds tools to its pages but never withdraws the page tools there.
        return not any(not is_learned(loaded.document) for loaded in self.manifests_for(runtime))

    def unprojected(self, runtime: RuntimeInfo | None) -> bool:
        """Whether ``runtime`` shows an http(s) page that maps cover but none of them projects into state.

        There a model has no way to read the page but ``page_read`` (``listed_builtins`` lists it);
        a page whose maps declare projections is read through ``actions_site``'s state modes.
        """
        if runtime is None or not runtime.url.startswith(("http://", "https://")):
            return False
        covering = [loaded for loaded in self.manifests_for(runtime) if not is_learned(loaded.document)]
        return bool(covering) and not any(loaded.model.state_projections for loaded in covering)

    def runtime_tools(self, runtimes: Iterable[RuntimeInfo]) -> dict[str, list[str]]:
        """Each runtime's tools by runtime id: those of the maps covering its page and those it brought itself."""
        tools: dict[str, list[str]] = {}
        bindings = list(self.tools.values())
        for runtime in runtimes:
            namespaces = {loaded.namespace for loaded in self.manifests_for(runtime)}
            tools[runtime.runtime_id] = sorted(
                b.name for b in bindings if b.kind is not ToolKind.BUILTIN and (b.runtime_id == runtime.runtime_id or (b.runtime_id is None and b.namespace in namespaces))
            )
        return tools

    def all_manifests(self) -> dict[str, LoadedManifest]:
        """Every exposed manifest by namespace, file-loaded and inline, that the current agent session has (see ``tools``)."""
        # Everyone's (owner None) as ``tools`` shows them: ``visible_to(None)`` is about runtimes (the operator's), not maps.
        return {ns: m for ns, m in {**self.manifests, **{m.namespace: m for m in self.inline.values()}}.items() if m.owner is None or visible_to(m.owner)}

    def signals_for(self, runtime: RuntimeInfo) -> dict[str, SignalSpec]:
        """The signals declared for a runtime: its inline manifest's and those of manifests whose surface it is on."""
        specs: dict[str, SignalSpec] = {}
        for manifest in self.manifests_for(runtime):
            for signal in manifest.model.signals:
                specs[signal.name] = SignalSpec(signal.name, signal.event, signal.enabled, signal.payload)
        return specs

    def attachments_for(self, runtime: RuntimeInfo) -> list[dict[str, Any]]:
        """The attachments a runtime installs: those of the maps covering its page (``runtime_config``)."""
        found: list[dict[str, Any]] = []
        for manifest in self.manifests_for(runtime):
            if not manifest.model.attachments:
                continue
            cached = self._attachments.get(id(manifest))
            if cached is None or cached[0] is not manifest:
                cached = self._attachments[id(manifest)] = (manifest, attachment_configs(manifest))
            found.extend(cached[1])
        return found
