"""One rooted error tree and one error vocabulary for mcp-actions.

Every error that reaches a user carries a stable ``code``, a member of
``ErrorCode`` (the Actions Bridge Protocol's codes where one fits), so agents
and site owners can react programmatically. Foreign errors (pydantic, httpx,
Playwright, websockets) are translated at the boundary with ``raise ... from exc``.

    ActionsError                 code, message, severity, recoverable, evidence
    ├── ManifestError            a manifest failed to load or validate (carries problems)
    │   └── ExpressionSyntaxError  a JSONata expression does not compile
    ├── ActionError              a call failed: routing, runtime, handler, timeout, result
    │   ├── UnknownTool          the called tool is not in the catalogue
    │   └── WorkflowError        a workflow step failed (evidence names the step)
    └── UsageError               bad command-line usage or configuration

``ActionError.to_error()`` gives the ``error`` object of an ``action_error``
item, so one exception type travels from a runtime through the bridge to MCP.

``ErrorCode`` members are strings (``ErrorCode.TARGET_NOT_FOUND ==
"target_not_found"``), each with a ``meaning`` and the ``groups`` it belongs to: the bridge's
spec codes, protocol hygiene, workflow, primitive, manifest problem, import,
and usage codes. Validation problem tables are views of this one enum.
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "ActionError",
    "ActionsError",
    "ErrorCode",
    "ExpressionSyntaxError",
    "ManifestError",
    "UnknownTool",
    "UsageError",
    "WorkflowError",
    "codes_in_group",
    "note_code",
    "unlisted_codes",
]


class ErrorCode(enum.StrEnum):
    """Every stable code a user can see, with its meaning and the group it belongs to."""

    meaning: str
    groups: frozenset[str]

    def __new__(cls, value: str, groups: str, meaning: str) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.groups = frozenset(groups.split())  # a code may belong to several groups
        member.meaning = meaning
        return member

    # -- the Actions Bridge Protocol's stable codes
    UNKNOWN_ACTION = "unknown_action", "bridge", "no tool or primitive of that name"
    INVALID_INPUT = "invalid_input", "bridge", "arguments fail the input schema"
    RUNTIME_NOT_READY = "runtime_not_ready", "bridge", "the runtime has not announced itself yet"
    PERMISSION_DENIED = "permission_denied", "bridge", "the call is not allowed (policy, user declined, permission)"
    AMBIGUOUS_RUNTIME = "ambiguous_runtime", "bridge", "several runtimes match the routing; candidates listed"
    RUNTIME_NOT_FOUND = "runtime_not_found", "bridge", "no runtime matches the routing"
    CAPABILITY_UNAVAILABLE = "capability_unavailable", "bridge", "the runtime's host lacks a needed capability"
    MISSING_HANDLER = "missing_handler", "bridge", "the page has no function at the handler's dotted path"
    HANDLER_FAILED = "handler_failed", "bridge", "the handler or primitive threw or reported failure"
    HANDLER_TIMEOUT = "handler_timeout", "bridge", "the call did not finish within timeout_ms"
    INVALID_RESULT = "invalid_result", "bridge", "the output fails result_schema"
    TARGET_NOT_FOUND = "target_not_found", "bridge primitive", "no element matches the locator"
    STATE_MISMATCH = "state_mismatch", "bridge", "the page is not in the state the tool needs, or a postcondition failed"
    DRIFT_DETECTED = "drift_detected", "bridge", "the page no longer matches its map"
    UNSAFE_STATE = "unsafe_state", "bridge", "acting now could do harm"
    ORIGIN_MISMATCH = "origin_mismatch", "audit", "a tool learned on one origin was routed to a page of another (it runs only on its own origin's pages)"
    TRANSPORT_FAILED = "transport_failed", "bridge", "the runtime's connection dropped or its tab crashed"
    RATE_LIMITED = "rate_limited", "bridge workflow", "called too soon: a transition's rate_limit_ms or a site's command budget; the evidence says when to retry"
    # -- how a call ended, beside the codes above (the audit log's ``code``)
    CANCELLED = "cancelled", "audit", "the call did not end: the caller cancelled it (MCP notifications/cancelled) or the server shut down while it ran"
    AUDIT_UNAVAILABLE = "audit_unavailable", "audit", "the audit log cannot be written (disk full, file size limit, write error): the call was refused before it reached a page"
    INTERNAL_ERROR = "internal_error", "audit", "an unexpected failure inside mcp-actions (a bug: its traceback is logged)"
    # -- protocol hygiene on the bridge
    INVALID_ITEM = "invalid_item", "hygiene", "a bridge item is malformed"
    DUPLICATE_CALL_ID = "duplicate_call_id", "hygiene", "a call id is already in flight"
    ITEM_TOO_LARGE = "item_too_large", "hygiene", "a bridge item exceeds the size cap"
    UNKNOWN_SIGNAL = "unknown_signal", "hygiene problem", "a dom_event or a reference names a signal the map does not declare"
    INVALID_EVENT = "invalid_event", "hygiene", "a dom_event's payload fails its schema or size cap"
    # -- workflows, projections and states
    LIMIT_EXCEEDED = "limit_exceeded", "workflow", "a workflow or expression limit was exceeded"
    EXPRESSION_FAILED = "expression_failed", "workflow", "a JSONata expression failed while evaluating"
    RETRY_EXHAUSTED = "retry_exhausted", "workflow", "retry_until never held within max_attempts"
    STATE_PAYLOAD_TOO_LARGE = "state_payload_too_large", "workflow", "a projection or summary exceeds its byte budget"
    MANIFEST_INVALID = "manifest_invalid", "workflow", "a manifest failed to load or validate"
    WORKFLOW_INVALID = "workflow_invalid", "workflow", "a workflow's shape is wrong where the interpreter compiles it"
    # -- primitives (the reference dictionary's error names)
    INVALID_LOCATOR = "invalid_locator", "primitive", "a locator has no usable locating field"
    INVALID_KEY = "invalid_key", "primitive", "a key or key chord is not recognised"
    MULTIPLE_TARGETS = "multiple_targets", "primitive", "several visible elements match; candidates listed"
    TARGET_NOT_VISIBLE = "target_not_visible", "primitive", "the element exists but is not visible"
    TARGET_NOT_EDITABLE = "target_not_editable", "primitive", "the element cannot take text"
    POINT_OUT_OF_VIEWPORT = "point_out_of_viewport", "primitive", "a pointer point lies outside the viewport"
    INSERT_FAILED = "insert_failed", "primitive", "text could not be inserted"
    CAPTURE_FAILED = "capture_failed", "primitive", "a screenshot could not be taken"
    DRAG_FAILED = "drag_failed", "primitive", "a drag could not be performed"
    SCROLL_FAILED = "scroll_failed", "primitive", "scrolling failed"
    CLOSE_FAILED = "close_failed", "primitive", "a tab could not be closed"
    DIALOG_OPEN = "dialog_open", "primitive", "a JavaScript dialog (confirm, prompt, beforeunload) blocks the tab; answer it with browser.dismiss_dialog"
    TIMEOUT = "timeout", "primitive", "a primitive's own wait ran out"
    IMPLICIT_SUBMISSION = "implicit_submission", "primitive", "typing would submit a form implicitly"
    # -- the reference dictionary's other primitive errors (runtimes written by others answer with them)
    CAPABILITY_UNSUPPORTED = "capability_unsupported", "primitive", "the host knows the capability but cannot provide it here"
    CLIPBOARD_PERMISSION_DENIED = "clipboard_permission_denied", "primitive", "the browser refused clipboard access"
    SOURCE_TAB_UNAUTHORIZED = "source_tab_unauthorized", "primitive", "a cross-tab transfer's source tab is not authorised"
    DESTINATION_TAB_UNAUTHORIZED = "destination_tab_unauthorized", "primitive", "a cross-tab transfer's destination tab is not authorised"
    TRANSFER_LABEL_NOT_FOUND = "transfer_label_not_found", "primitive", "no transfer item has that label or id"
    TRANSFER_EXPIRED = "transfer_expired", "primitive", "the transfer item is no longer available"
    TRANSFER_FORMAT_UNSUPPORTED = "transfer_format_unsupported", "primitive", "the transfer format is not supported"
    TRANSFER_APPEND_INCOMPATIBLE = "transfer_append_incompatible", "primitive", "an append does not fit the existing transfer item"
    TRANSFER_PAYLOAD_TOO_LARGE = "transfer_payload_too_large", "primitive", "the transfer payload exceeds its size cap"
    STORAGE_FILE_NOT_FOUND = "storage_file_not_found", "primitive", "no storage file at that path or id"
    STORAGE_FILE_AMBIGUOUS_ID = "storage_file_ambiguous_id", "primitive", "several storage files match that id"
    STORAGE_FILE_NOT_TEXT = "storage_file_not_text", "primitive", "the storage file is not text"
    STORAGE_FILE_TOO_LARGE = "storage_file_too_large", "primitive", "the storage file exceeds the read cap"
    STORAGE_FILE_PATH_UNAUTHORIZED = "storage_file_path_unauthorized", "primitive", "the storage path is outside what may be read"
    UNSAFE_PATH = "unsafe_path", "primitive", "a path climbs out of its root or is otherwise unsafe"
    ASSET_NOT_FOUND = "asset_not_found", "primitive", "an overlay asset does not exist"
    RENDER_FAILED = "render_failed", "primitive", "an overlay could not be rendered"
    LAUNCHER_FAILED = "launcher_failed", "primitive", "an overlay launcher could not be registered or opened"
    # -- manifest validation problems (Problem.code); paths are JSON Pointers
    INVALID_JSON = "invalid_json", "problem", "the file is not strict JSON text: not JSON (path ''), or a repeated key or a NaN/Infinity (path: where)"
    MANIFEST_TOO_LARGE = "manifest_too_large", "problem", "the file is larger than the loader reads (reported when reading a file, path '')"
    INVALID_TYPE = "invalid_type", "problem", "a value has the wrong JSON type (message names the expected type)"
    MISSING_FIELD = "missing_field", "problem", "a required member is absent; the path points where it belongs"
    UNKNOWN_FIELD = "unknown_field", "problem", "warning: an undocumented key in an open object (x_* keys are always allowed)"
    FIELD_NOT_ALLOWED = "field_not_allowed", "problem", (
        "a key outside a closed key set (workflow, step, after_each, settle_after, extract entry, field, projection, summary), "
        "or a camelCase spelling of a snake_case key (the message names the key to write)"
    )
    INVALID_VALUE = "invalid_value", "problem import", "a value outside its allowed set or range (enums, non-negative integers, empty strings)"
    NESTING_TOO_DEEP = "nesting_too_deep", "problem", "the document nests deeper than the validator follows; the node at the limit is reported"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol", "problem", "protocol is not 'actions.json'"
    UNSUPPORTED_VERSION = "unsupported_version", "problem", "version is not 1 (manifest, workflow or snapshot)"
    INVALID_IDENTIFIER = "invalid_identifier", "problem", "a name, id, namespace or handler is not a safe identifier or is longer than 128 characters"
    INVALID_STEP_ID = "invalid_step_id", "problem", "a workflow step id does not match ^[A-Za-z_][A-Za-z0-9_]*$ (it must work as steps.<id>)"
    DUPLICATE_NAME = "duplicate_name", "problem", "a name or id is already used earlier in the same namespace"
    UNKNOWN_TOOL = "unknown_tool", "problem", "a reference names a tool the manifest does not declare"
    UNKNOWN_STATE = "unknown_state", "problem", "a reference names a state the manifest does not declare"
    UNKNOWN_ATTACHMENT = "unknown_attachment", "problem", "a reference names an attachment the manifest does not declare"
    UNKNOWN_PROJECTION = "unknown_projection", "problem", "a reference names a state projection the manifest does not declare"
    IMPORT_NAMESPACE_REQUIRED = "import_namespace_required", "problem import", "an enabled import has no namespace while composition.namespace_required is true (the default)"
    SCHEMA_NOT_OBJECT = "schema_not_object", "problem", "input_schema, payload, result_schema or output_schema is present but not an object"
    INVALID_SCHEMA = "invalid_schema", "problem hygiene", (
        "a schema fails its metaschema (as a problem, the path points inside the schema); "
        "at run time, what a schema that cannot be compiled should check is refused with this code"
    )
    UNKNOWN_SCHEMA_DIALECT = "unknown_schema_dialect", "problem", "warning: $schema names a dialect jsonschema does not know; checked as Draft 2020-12"
    TOOL_NOT_EXECUTABLE = "tool_not_executable", "problem", (
        "an agent-callable tool has no x_actions.handler, no workflow, no x_actions.execution.steps, "
        "and its name is no primitive of the host's dictionary or the map's primitive_dictionary"
    )
    HOST_NATIVE_UNDECLARED = "host_native_undeclared", "problem", (
        "warning: a tool of a map that carries its own primitive_dictionary has no handler or workflow and its name is in "
        "no primitive dictionary; it runs only on the host that publishes the map (elsewhere: capability_unavailable)"
    )
    ORIGIN_NOT_AN_ORIGIN = "origin_not_an_origin", "problem", (
        "warning: surface.origin holds a path, query or fragment; an origin is scheme://host[:port], and the server relies on nothing else there"
    )
    INVALID_SELECTOR = "invalid_selector", "problem", "a selector field is not a non-empty string (or, for list fields, an array of them)"
    INVALID_TARGET = "invalid_target", "problem", "a target is not a target descriptor object with at least one locating field"
    UNSAFE_SOURCE_PATH = "unsafe_source_path", "problem", "a source.files entry is absolute, a URL, or climbs above the root with '..'"
    EMPTY_STEPS = "empty_steps", "problem", "a workflow's steps array is empty"
    UNKNOWN_PRIMITIVE = "unknown_primitive", "problem", "a step or after_each names a primitive that is not in the dictionary"
    PRIMITIVE_ARGS_INVALID = "primitive_args_invalid", "problem", "literal step arguments fail the primitive's input_schema from the dictionary"
    NON_REFERENCE_ARGUMENT = "non_reference_argument", "problem", (
        "warning of validate --reference-only: a step passes an argument that mcp-actions' dictionary adds to the reference one "
        "(pointer.click's target); only runtimes announcing its capability take it (ours do), the others refuse the step with capability_unavailable"
    )
    UNPAIRED_FIELD = "unpaired_field", "problem", "a field whose companion is absent (max_items without for_each, state without locator, ...)"
    CONFLICTING_FIELDS = "conflicting_fields", "problem", "two fields that exclude each other are both present"
    UNSUPPORTED_EXPRESSION_LANGUAGE = "unsupported_expression_language", "problem", "expression_language (or projection.language) is not 'jsonata'"
    EXPRESSION_NOT_SLOT = "expression_not_slot", "problem", "a field that must be an expression is not one whole {% ... %} slot"
    EXPRESSION_PARTIAL_SLOT = "expression_partial_slot", "problem", "a string embeds {% or %} without being one whole {% ... %} slot"
    EXPRESSION_INVALID = "expression_invalid", "problem", "an expression does not compile (JSONata syntax error)"
    EXPRESSION_FORBIDDEN_FUNCTION = "expression_forbidden_function", "problem", "an expression calls $eval, $random, $shuffle, $now or $millis"
    LIMIT_STEPS_EXCEEDED = "limit_steps_exceeded", "problem", "a workflow has more steps than limits.max_steps"
    LIMIT_LOOP_ITEMS_EXCEEDED = "limit_loop_items_exceeded", "problem", "max_items is larger than limits.max_loop_items"
    LIMIT_SUMMARY_BYTES_EXCEEDED = "limit_summary_bytes_exceeded", "problem", "a summary's max_bytes is larger than limits.max_summary_bytes"
    LIMIT_EXPRESSION_BYTES_EXCEEDED = "limit_expression_bytes_exceeded", "problem", "an expression's source is larger than limits.max_expression_bytes"
    VALIDATOR_INTERNAL_ERROR = "validator_internal_error", "problem", "the validator failed on this part of the document (a bug: please report it)"
    # -- imports and composition (Problem.code at the import's pointer)
    IMPORT_NOT_FOUND = "import_not_found", "import", "the imported file, bundled manifest or storage site does not exist"
    IMPORT_FETCH_FAILED = "import_fetch_failed", "import", "fetching the import failed (network error, timeout, HTTP status other than 200)"
    IMPORT_TOO_LARGE = "import_too_large", "import", "the import is larger than the size cap"
    IMPORT_INVALID_JSON = "import_invalid_json", "import", "the import is not strict JSON (UTF-8, no NaN/Infinity, no duplicate keys)"
    IMPORT_URI_FORBIDDEN = "import_uri_forbidden", "import", (
        "the URI is not allowed here: a path escaping its root, a local file named by a fetched map, "
        "plain http to a non-loopback host, an unknown scheme, or private storage named by a public map"
    )
    IMPORT_INVALID = "import_invalid", "import", "the imported manifest has errors of its own (the message names its file, pointer and code)"
    IMPORT_CYCLE = "import_cycle", "import", "the import leads back to a manifest that is already being composed (at any depth, or itself)"
    IMPORT_LIMIT_EXCEEDED = "import_limit_exceeded", "import", "more imports in one composition than the composer follows"
    NAME_CONFLICT = "name_conflict", "import", "an imported name is already declared (warning under prefer_local/prefer_import, error under error)"
    COMPOSITION_INVALID = "composition_invalid", "import", "the composed document does not validate (a bug: please report it)"
    # -- the MCP surface
    RESOURCE_NOT_FOUND = "resource_not_found", "server", "no actions:// resource at that URI (or the runtime or projection it names is gone)"
    # -- command line and configuration
    USAGE_ERROR = "usage_error", "usage", "bad command-line usage or configuration"
    PATH_NOT_FOUND = "path_not_found", "usage", "a manifest path does not exist"
    IO_ERROR = "io_error", "usage", "a file could not be read or written"
    ERROR = "error", "usage", "an error without a more specific code (a bug: please report it)"


def codes_in_group(*groups: str) -> dict[str, str]:
    """``code -> meaning`` of every member in ``groups`` (the tables docs and tests are built from)."""
    wanted = set(groups)
    return {member.value: member.meaning for member in ErrorCode if member.groups & wanted}


_UNLISTED_CODES: set[str] = set()


def note_code(code: str) -> None:
    """Remember ``code`` when it is not an ``ErrorCode`` member: our own code must never produce one.

    Every error and problem we create passes through here; the test suite
    fails when any unlisted code was produced during the run, which keeps
    the vocabulary whole. Codes a foreign runtime sends are not noted.
    """
    if code not in ErrorCode._value2member_map_:
        _UNLISTED_CODES.add(code)


def unlisted_codes() -> frozenset[str]:
    """The codes ``note_code`` saw that are not ``ErrorCode`` members."""
    return frozenset(_UNLISTED_CODES)


class ActionsError(Exception):
    """Root of every error mcp-actions raises on purpose."""

    default_code: ErrorCode = ErrorCode.ERROR

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        severity: str = "major",
        recoverable: bool = True,
        evidence: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = str(code or self.default_code)
        note_code(self.code)
        self.message = message
        self.severity = severity
        self.recoverable = recoverable
        self.evidence = dict(evidence or {})

    def to_error(self) -> dict[str, Any]:
        """The structured ``error`` object of an ``action_error`` item."""
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "severity": self.severity,
            "recoverable": self.recoverable,
        }
        if self.evidence:
            error["evidence"] = self.evidence
        return error

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class ManifestError(ActionsError):
    """A manifest could not be loaded or is invalid; ``problems`` lists why."""

    default_code = ErrorCode.MANIFEST_INVALID

    def __init__(self, message: str, *, problems: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.problems = list(problems or [])


class ExpressionSyntaxError(ManifestError):
    """A JSONata expression does not compile; ``evidence`` holds the expression and position."""

    default_code = ErrorCode.EXPRESSION_INVALID


class ActionError(ActionsError):
    """A call failed: it was refused, could not be routed, or the runtime reported failure."""

    default_code = ErrorCode.HANDLER_FAILED

    @classmethod
    def from_error(cls, error: dict[str, Any]) -> ActionError:
        """Rebuild an ``ActionError`` from the ``error`` object of an ``action_error`` item.

        The code is the runtime's own: runtimes written by others may use
        codes of their dictionaries that are not ours, so it is not noted.
        """
        rebuilt = cls(
            str(error.get("message") or error.get("code") or "action failed"),
            severity=str(error.get("severity") or "major"),
            recoverable=bool(error.get("recoverable", True)),
            evidence=error.get("evidence") if isinstance(error.get("evidence"), dict) else None,
        )
        rebuilt.code = str(error.get("code") or ErrorCode.HANDLER_FAILED)
        return rebuilt


class UnknownTool(ActionError):
    """The called tool is not in the catalogue (a protocol error at the MCP layer, not a tool failure)."""

    default_code = ErrorCode.UNKNOWN_ACTION


class WorkflowError(ActionError):
    """A workflow step failed; ``evidence['step']`` names it."""


class UsageError(ActionsError):
    """Bad command-line usage or configuration."""

    default_code = ErrorCode.USAGE_ERROR
