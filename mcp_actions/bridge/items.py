"""The six items of the Actions Bridge Protocol as strict pydantic models, plus our call messages.

Call messages (an addition, docs/bridge-protocol.md, "Call messages"): while a call runs, its
runtime may send ``call_progress`` and ``input_request``; the bridge answers
an input request with ``input_response`` and tells a runtime a call was
cancelled with ``action_cancel`` (both bridge → runtime only).

Bridge → runtime items are built from these models too (``RuntimeConfig``,
which tells a runtime the declared DOM events to forward, is one of ours) and
leave through ``dump()``: the fields given, in the order declared here (the
order of the wire), optional fields left unset left out. ``OutgoingItem``
names what a runtime link is handed.

Frames arrive as JSON text; ``parse_item`` turns one frame into one item or
raises ``ActionError`` with code ``invalid_item`` (or ``item_too_large``) whose
evidence says what was wrong, so a bad frame is answered, never fatal. A frame
is strict JSON (``jsonutil.strict_loads``), as a map file is: a repeated key or
a non-finite number (an inline manifest's ``"name"`` twice, a ``NaN``) is
``invalid_item`` with ``evidence.path`` its pointer in the item.
Unknown extra fields are kept (``extra="allow"``): adapters may add fields,
and the contract adds ``title``, ``capabilities`` and ``manifest`` to
``runtime_ready``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ..errors import ActionError, ErrorCode
from ..jsonutil import StrictJsonError, strict_loads

__all__ = [
    "DEFAULT_MAX_ITEM_BYTES",
    "ActionCall",
    "ActionCancel",
    "CallProgress",
    "InputRequest",
    "InputResponse",
    "ActionCallOutput",
    "ActionErrorItem",
    "AttachmentOpen",
    "BridgeItem",
    "DomEvent",
    "ErrorBody",
    "ListenEntry",
    "OutgoingItem",
    "RuntimeConfig",
    "RuntimeReady",
    "RuntimeStatus",
    "error_body",
    "parse_item",
]

#: Frames larger than this are refused before JSON parsing (bytes of UTF-8 text).
DEFAULT_MAX_ITEM_BYTES = 1_048_576

NonEmpty = Annotated[str, StringConstraints(min_length=1, max_length=512)]


class _Item(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    #: Fields sent even when None: there None is a value (a call's output), not an absent field.
    _kept_when_none: ClassVar[tuple[str, ...]] = ()

    def dump(self) -> dict[str, Any]:
        """The item as a dict for a link to send, without unset optional fields.

        Values stay as they were given (the transport encodes them: the WebSocket
        link as compact JSON), so what leaves is what a literal dict would have been.
        """
        data = self.model_dump(exclude_none=True)
        for name in self._kept_when_none:
            if name not in data:
                data[name] = None
        return data


class RuntimeReady(_Item):
    """First item a runtime sends: who it is, where it is, what it can do."""

    type: Literal["runtime_ready"]
    runtime_id: NonEmpty
    url: str
    runtime_key: NonEmpty | None = None
    authorization_id: str | None = None
    extension_version: str | None = None
    title: str | None = None
    capabilities: list[str] | None = None
    manifest: dict[str, Any] | None = None
    #: Wire addition: true when the runtime is a frame inside a page, not a top-level document
    #: (routing by a map's surface prefers top-level documents; see bridge/routing.py).
    frame: bool | None = None
    host: str | None = None  # the kind of host (page, playwright, …), an addition like title

    @property
    def inline_manifest(self) -> dict[str, Any] | None:
        """``manifest`` when it is a full actions.json to expose: only an object with ``tools`` is one."""
        return self.manifest if self.manifest is not None and "tools" in self.manifest else None

    @property
    def manifest_summary(self) -> dict[str, Any] | None:
        """``manifest`` when it is the spec's summary of the loaded map (``{"protocol", "version"}``, no ``tools``)."""
        return self.manifest if self.manifest is not None and "tools" not in self.manifest else None


class RuntimeStatus(_Item):
    """Heartbeat or state report of a connected runtime."""

    type: Literal["runtime_status"]
    runtime_id: NonEmpty
    url: str | None = None
    title: str | None = None
    states: list[str] | None = None
    attachments: list[dict[str, Any]] | None = None
    observed_at: str | None = None


class ActionCall(_Item):
    """A request to run one primitive or tool on one runtime (fields in the order the bridge sends them)."""

    type: Literal["action_call"]
    call_id: NonEmpty
    runtime_id: str | None = None
    name: NonEmpty
    arguments: dict[str, Any]
    timeout_ms: int | None = Field(default=None, ge=0)
    handler: str | None = None
    target: dict[str, Any] | None = None
    #: The origin the policy judged the call for (ours, docs/bridge-protocol.md): a runtime whose page
    #: shows another refuses it with ``permission_denied`` (``evidence.reason: "origin_changed"``).
    origin: str | None = None


class ActionCallOutput(_Item):
    """A runtime's successful answer to one call."""

    type: Literal["action_call_output"]
    call_id: NonEmpty
    runtime_id: NonEmpty
    output: Any
    _kept_when_none = ("output",)  # an action may return nothing: "output": null


class ErrorBody(BaseModel):
    """The ``error`` object of an ``action_error`` item."""

    model_config = ConfigDict(extra="allow")

    code: NonEmpty
    message: str
    severity: Literal["info", "minor", "major", "critical"] | None = None
    recoverable: bool | None = None
    evidence: dict[str, Any] | None = None


def error_body(error: ActionError) -> ErrorBody:
    """The ``error`` object that carries ``error`` (``ActionError.to_error``) in an item."""
    return ErrorBody.model_validate(error.to_error())


class ActionErrorItem(_Item):
    """A structured failure, call-scoped (``call_id``) or runtime-scoped."""

    type: Literal["action_error"]
    error: ErrorBody
    call_id: str | None = None
    runtime_id: str | None = None


class DomEvent(_Item):
    """A page-originated signal, validated by the runtime and again by the bridge."""

    type: Literal["dom_event"]
    event_id: NonEmpty
    runtime_id: NonEmpty
    name: NonEmpty
    payload: Any
    event: str | None = None
    url: str | None = None
    previous_call_id: str | None = None
    observed_at: str | None = None


class CallProgress(_Item):
    """Runtime → bridge: how far a running call is (becomes the caller's progress notification)."""

    type: Literal["call_progress"]
    call_id: NonEmpty
    progress: float
    total: float | None = None
    message: Annotated[str, StringConstraints(max_length=1000)] | None = None
    runtime_id: str | None = None


class InputRequest(_Item):
    """Runtime → bridge: a running call asks its caller (the user) for input; ``request`` is the page's question."""

    type: Literal["input_request"]
    call_id: NonEmpty
    request_id: NonEmpty
    request: dict[str, Any]
    runtime_id: str | None = None


class InputResponse(_Item):
    """Bridge → runtime: the answer to one ``input_request`` (``response``) or why there is none (``error``)."""

    type: Literal["input_response"]
    call_id: NonEmpty
    request_id: NonEmpty
    runtime_id: str | None = None
    response: Any = None
    error: ErrorBody | None = None

    def dump(self) -> dict[str, Any]:
        """As every item, and ``response`` is sent whenever ``error`` is not, even as null (the answer may be null)."""
        data = super().dump()
        if self.error is None and "response" not in data:
            data["response"] = None
        return data


class ActionCancel(_Item):
    """Bridge → runtime: the caller gave up on a call; the runtime should stop it (its answer is not awaited)."""

    type: Literal["action_cancel"]
    call_id: NonEmpty
    runtime_id: str | None = None
    reason: str | None = None


class ListenEntry(BaseModel):
    """One declared DOM event a runtime should forward: the signal's ``name`` and its DOM ``event``."""

    model_config = ConfigDict(strict=True)

    name: str
    event: str


class RuntimeConfig(_Item):
    """Bridge → runtime (an addition to the six items): the declared DOM events to forward as
    ``dom_event``, and the attachments to install (docs/bridge-protocol.md, "Runtime configuration").

    Sent after ``runtime_ready``, again when the maps change and when the
    runtime's page moves to a surface other maps cover. A runtime never sends
    one, so ``parse_item`` does not know the type. ``attachments`` are the
    maps' attachment objects as declared, each with its ``namespace``, and
    ``affordance.opens.kind`` saying whether ``opens.tool`` is a ``primitive``
    the runtime runs itself or a map ``tool`` it asks the bridge to run
    (``attachment_open``).
    """

    type: Literal["runtime_config"]
    runtime_id: NonEmpty
    listen: list[ListenEntry]
    #: Left out when no map covering the runtime declares one.
    attachments: list[dict[str, Any]] | None = None


class AttachmentOpen(_Item):
    """Runtime → bridge (an addition): the user clicked an attachment's launcher whose ``opens`` names a map tool.

    The bridge runs that tool on the runtime, as configured for it; the
    runtime only names the attachment (it cannot choose the tool or its arguments).
    """

    type: Literal["attachment_open"]
    runtime_id: str | None = None
    attachment_id: NonEmpty
    launcher_id: str | None = None


#: What the bridge sends a runtime (``RuntimeLink.send`` gets its ``dump()``).
OutgoingItem = ActionCall | ActionCancel | ActionErrorItem | InputResponse | RuntimeConfig


BridgeItem = Annotated[
    RuntimeReady
    | RuntimeStatus
    | ActionCall
    | ActionCallOutput
    | ActionErrorItem
    | DomEvent
    | CallProgress
    | InputRequest
    | InputResponse
    | ActionCancel
    | AttachmentOpen,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(BridgeItem)
ITEM_TYPES = (
    "runtime_ready",
    "runtime_status",
    "action_call",
    "action_call_output",
    "action_error",
    "dom_event",
    "call_progress",
    "input_request",
    "input_response",
    "action_cancel",
    "attachment_open",
)


def parse_item(frame: str | bytes | dict[str, Any], *, max_bytes: int = DEFAULT_MAX_ITEM_BYTES) -> Any:
    """Parse one frame (JSON text or an already-decoded dict) into a bridge item.

    Raises ``ActionError`` with ``invalid_item`` or ``item_too_large``; the
    evidence carries the item ``type`` and the offending field ``path`` when known.
    """
    if isinstance(frame, (str, bytes)):
        size = len(frame.encode("utf-8") if isinstance(frame, str) else frame)
        if size > max_bytes:
            raise ActionError(
                f"frame of {size} bytes exceeds the {max_bytes}-byte limit",
                code=ErrorCode.ITEM_TOO_LARGE,
                evidence={"bytes": size, "max_bytes": max_bytes},
            )
        try:
            data = strict_loads(frame)
        except StrictJsonError as exc:
            # A repeated key or a NaN (docs/bridge-protocol.md): readers disagree on them, so no item has them.
            raise ActionError(f"frame is not strict JSON: {exc}", code=ErrorCode.INVALID_ITEM, evidence={"path": exc.pointer, "reason": exc.reason}) from exc
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            # RecursionError: JSON nested deeper than the interpreter's stack (e.g. "[[[[…").
            raise ActionError(f"frame is not JSON: {exc}", code=ErrorCode.INVALID_ITEM) from exc
    else:
        data = frame
    if not isinstance(data, dict):
        raise ActionError(
            f"an item must be a JSON object, not {type(data).__name__}",
            code=ErrorCode.INVALID_ITEM,
            evidence={"json_type": type(data).__name__},
        )
    item_type = data.get("type")
    if item_type not in ITEM_TYPES:
        raise ActionError(
            f"unknown item type {item_type!r}; expected one of {', '.join(ITEM_TYPES)}",
            code=ErrorCode.INVALID_ITEM,
            evidence={"type": item_type if isinstance(item_type, str) else None},
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        # The discriminator is the first location element; the rest is the field path.
        path = "/" + "/".join(str(part) for part in first["loc"][1:])
        raise ActionError(
            f"invalid {item_type} item at {path}: {first['msg']}",
            code=ErrorCode.INVALID_ITEM,
            evidence={"type": item_type, "path": path, "call_id": data.get("call_id")},
        ) from exc
