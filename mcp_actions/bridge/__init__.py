"""The bridge: where browser runtimes connect and every call reaches exactly one of them.

Runtimes (a page with the page runtime, a browser tab driven by the browser
host, a runtime written by anyone from the Actions Bridge Protocol text)
connect over a transport and announce themselves with ``runtime_ready``. The
``Bridge`` keeps the registry of connected runtimes, routes each call to
exactly one (``Route``; ``runtime_not_found`` / ``ambiguous_runtime``
otherwise), checks a dictionary primitive against what the runtime announced
and the primitive's ``input_schema`` before sending it, and ends every call
exactly once: the runtime's output (plain, or the spec's ``{ok, result}``
envelope unwrapped), its structured error, ``handler_timeout`` or
``transport_failed``. Page events (``dom_event``) are accepted only as
declared signals, as untrusted data.

``BridgeServer`` serves the bridge over WebSocket on one port, together with
``/runtime.js`` (supplied by the caller), a local status page and
``/healthz``. In-process runtimes use ``Bridge.connect`` directly.

Public surface:

- ``Bridge`` — connect runtimes, ``call`` them, ``resolve`` a ``Route``;
  its ``events`` hub publishes a ``RuntimeEvent`` for each change:
  ``RuntimeArrived``, ``RuntimeUpdated``, ``RuntimeActive``, ``RuntimeGone``, ``PageEvent``.
- ``BridgeServer`` — the WebSocket port in front of a ``Bridge``.
- ``RuntimeSession`` / ``RuntimeLink`` — what an in-process transport feeds and provides.
- ``RuntimeInfo`` / ``RuntimeRegistry`` — what is known of each connected runtime.
- ``Route`` — what a call asks of its runtime (id, key, url, title, surface).
- ``SignalSpec`` — one declared page signal, as the catalogue hands it to the bridge.

Modules: ``bridge`` (lifecycle and the call entry point), ``calls`` (call
correlation), ``session`` (one connection), ``items`` (the protocol's items),
``events`` (what the bridge tells observers),
``envelope`` (reading ``action_call_output``), ``registry``, ``routing``,
``signals``, ``websocket`` and ``http_routes`` (the port), ``status_page``,
``responses`` (Responses-style function-call mapping).
"""

from .bridge import Bridge
from .events import PageEvent, RuntimeActive, RuntimeArrived, RuntimeEvent, RuntimeGone, RuntimeUpdated
from .registry import RuntimeInfo, RuntimeRegistry
from .routing import Route
from .session import RuntimeLink, RuntimeSession
from .signals import SignalSpec
from .websocket import BridgeServer

__all__ = [
    "Bridge",
    "BridgeServer",
    "PageEvent",
    "Route",
    "RuntimeActive",
    "RuntimeEvent",
    "RuntimeGone",
    "RuntimeInfo",
    "RuntimeLink",
    "RuntimeArrived",
    "RuntimeRegistry",
    "RuntimeSession",
    "RuntimeUpdated",
    "SignalSpec",
]
