"""What each runtime is told to do on its own: the page events to forward and the attachments to install.

A runtime learns both from one ``runtime_config`` item (an addition to the
protocol's six, docs/bridge-protocol.md "Runtime configuration"). What it gets
depends on the maps that cover its page, so the configuration is worked out
again, and sent only when it changed, whenever:

- the runtime announces itself (``runtime_ready``);
- its page moves (a ``runtime_status`` with another ``url``): a tab that
  starts blank and then opens a mapped site must start forwarding that
  site's signals and installing its attachments;
- the maps change (``refresh_all``).

A page runtime's ``runtime_config`` also carries ``runtime_secret``, the
secret the bridge gave it (``session.runtime_secret``): presented in a later
``runtime_ready``, it alone takes the runtime's identity back (``identity.py``).
The first one sent to a connection whose announced id or key belonged to
another credential says so in ``renamed`` (its ``runtime_id`` is the id it got).

The last configuration sent is kept per runtime: an ``attachment_open`` item
names an attachment, and the tool it opens is looked up here, never taken
from the runtime (a page cannot choose which tool its launcher runs).

An attachment may name lifecycle signals (schema v1: ``"signals":
{"attached": "attachment.attached", "reattached": …, "drifted": …}``, names the
runtime defines). When the states a runtime reports move, ``lifecycle`` turns
each move into an event record under that name, kept like any page event (and
marked untrusted: the state is the page's report): ``attached`` the first time
an attachment is installed on the runtime, ``reattached`` when it is installed
again after it went, ``removed`` when its target went, ``drifted`` when it
cannot be installed (``failed``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..audit_log import utc_timestamp
from ..errors import ActionError, ErrorCode
from .items import ListenEntry, RuntimeConfig
from .registry import RuntimeInfo
from .session import RuntimeSession
from .signals import SignalSpec, page_event_record

__all__ = ["AttachmentSource", "ConfiguredOpen", "RuntimeConfigurator", "attachment_states"]

log = logging.getLogger(__name__)

#: Given a runtime, the attachments of the maps covering it, as ``runtime_config`` carries them.
AttachmentSource = Callable[[RuntimeInfo], Sequence[Mapping[str, Any]]]
#: States a runtime may report for an attachment (anything else is kept as ``unknown``).
ATTACHMENT_STATES = frozenset({"attached", "waiting", "removed", "failed", "disabled"})
#: At most this many attachment states are kept per runtime (a runtime cannot grow our memory).
MAX_ATTACHMENT_STATES = 64


@dataclass(frozen=True)
class ConfiguredOpen:
    """What an attachment's launcher opens, as configured for one runtime: a map tool and its arguments."""

    attachment_id: str
    namespace: str | None
    tool: str
    arguments: Mapping[str, Any]


def attachment_states(reported: Any) -> list[dict[str, str]]:
    """A runtime's ``attachments`` report reduced to ``[{id, state}]`` (bad entries dropped, states checked)."""
    if not isinstance(reported, list):
        return []
    states: list[dict[str, str]] = []
    for entry in reported[:MAX_ATTACHMENT_STATES]:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
            state = entry.get("state")
            states.append({"id": entry["id"][:200], "state": state if state in ATTACHMENT_STATES else "unknown"})
    return states


class RuntimeConfigurator:
    """Works out, sends and remembers each runtime's ``runtime_config``."""

    def __init__(self, signals: Callable[[RuntimeInfo], Mapping[str, SignalSpec]], attachments: AttachmentSource | None) -> None:
        self._signals = signals
        self._attachments = attachments
        self._sent: dict[str, RuntimeConfig] = {}
        self._ever_attached: dict[str, set[str]] = {}  # runtime id -> attachment ids installed there at least once

    def config_for(self, info: RuntimeInfo) -> RuntimeConfig:
        """The configuration a runtime should have now."""
        listen = [ListenEntry(name=spec.name, event=spec.event) for spec in self._signals(info).values() if spec.enabled and spec.event]
        attachments = [dict(a) for a in self._attachments(info)] if self._attachments else []
        return RuntimeConfig(type="runtime_config", runtime_id=info.runtime_id, listen=listen, attachments=attachments or None)

    async def send(self, session: RuntimeSession, info: RuntimeInfo, *, force: bool = False, renamed: Mapping[str, str] | None = None) -> None:
        """Send the runtime its configuration, unless it already has exactly this one (``force``: send anyway).

        The connection's ``runtime_secret`` (a page runtime's) goes with every one sent; ``renamed``
        (what it announced and could not have) with this one only.
        """
        config = self.config_for(info)
        if not force and self._sent.get(info.runtime_id) == config:
            return
        additions: dict[str, Any] = {}
        if session.runtime_secret:
            additions["runtime_secret"] = session.runtime_secret
        if renamed:
            additions["renamed"] = dict(renamed)
        outgoing = RuntimeConfig.model_validate({**config.dump(), **additions}) if additions else config
        try:
            await session.send(outgoing)
        except Exception as exc:
            log.warning("runtime_config was not delivered to runtime %s (it forwards no page events, installs no attachments): %s", info.runtime_id, exc)
            return
        self._sent[info.runtime_id] = config

    def forget(self, runtime_id: str) -> None:
        """The runtime left: drop what it was sent."""
        self._sent.pop(runtime_id, None)
        self._ever_attached.pop(runtime_id, None)

    def lifecycle(self, info: RuntimeInfo, before: Sequence[Mapping[str, str]], after: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
        """Event records for the attachments' lifecycle signals, from the states before and after a report."""
        config = self._sent.get(info.runtime_id)
        signals = {a["id"]: a["signals"] for a in (config.attachments or []) if isinstance(a.get("signals"), dict)} if config else {}
        previous = {s["id"]: s["state"] for s in before}
        ever = self._ever_attached.setdefault(info.runtime_id, set())
        records = []
        for entry in after:
            attachment_id, state = entry["id"], entry["state"]
            if previous.get(attachment_id) == state:
                continue
            if state == "attached":
                moment = "reattached" if attachment_id in ever else "attached"
                ever.add(attachment_id)
            else:
                moment = {"removed": "removed", "failed": "drifted"}.get(state, "")
            name = signals.get(attachment_id, {}).get(moment)
            if isinstance(name, str) and name:
                records.append(
                    page_event_record(
                        event_id=f"att-{uuid.uuid4().hex[:16]}",
                        name=name,
                        event=None,
                        url=info.url,
                        payload={"attachment_id": attachment_id, "state": state},
                        previous_call_id=None,
                        observed_at=utc_timestamp(),
                    )
                )
        return records

    def opened(self, info: RuntimeInfo, attachment_id: str) -> ConfiguredOpen:
        """The map tool an attachment of this runtime opens; ``ActionError`` when it has no such attachment or opens no tool."""
        config = self._sent.get(info.runtime_id)
        for attachment in (config.attachments or []) if config else ():
            if attachment.get("id") != attachment_id:
                continue
            affordance = attachment.get("affordance")
            opens = affordance.get("opens") if isinstance(affordance, dict) else None
            if isinstance(opens, dict) and opens.get("kind") == "tool" and isinstance(opens.get("tool"), str):
                arguments = opens.get("arguments")
                namespace = attachment.get("namespace")
                return ConfiguredOpen(
                    attachment_id, namespace if isinstance(namespace, str) else None, opens["tool"], arguments if isinstance(arguments, dict) else {}
                )
            raise ActionError(
                f"attachment {attachment_id!r} does not open a map tool",
                code=ErrorCode.INVALID_ITEM,
                evidence={"attachment_id": attachment_id, "runtime_id": info.runtime_id},
            )
        raise ActionError(
            f"runtime {info.runtime_id!r} was given no attachment {attachment_id!r}",
            code=ErrorCode.INVALID_ITEM,
            evidence={"attachment_id": attachment_id, "runtime_id": info.runtime_id},
        )
