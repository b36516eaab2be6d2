"""``/metrics``: how one replica is doing, in Prometheus' text format (docs/deploying.md, "Metrics").

Calls are counted from the audit log's lines (``CallCounts.heard``, an ``AuditLog`` listener):
every call that ends is one line, whichever door it came through, so the counts match the log.
Everything else is read from the running parts at each scrape (``render``): calls in flight,
sessions, runtimes, the audit log's write failures, the backplane. Counting keeps plain Python
numbers; ``prometheus_client`` is imported at the first scrape only, and its families are built
from those numbers then (a custom collector), so a server nobody scrapes never loads it.

Labels carry only what the operator configured or a fixed word: a tool's name when the tool is a
built-in or comes from a map file the operator serves (``named``), else ``other`` (a page's own
tools and a session's learned or inline maps are named by pages and agents); never a URL, an
argument or a user name.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUCKETS", "CallCounts", "ScrapeSources", "render"]

#: Latency buckets (seconds): a built-in answers in milliseconds, a workflow on a slow page in tens of seconds.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: The label of a tool whose name the operator did not configure.
OTHER_TOOL = "other"


def door_of_session(session_id: str | None) -> str:
    """Which door an agent session came through (``SessionKey`` ids: ``b-`` is BAP's); ``none`` outside any session."""
    if not session_id:
        return "none"
    return "bap" if session_id.startswith("b-") else "mcp"


def door_of_entry(entry: Mapping[str, Any]) -> str:
    """The door of an audit line: BAP names its clients ``bap:<name>``; every other call came through MCP (or Python)."""
    client = entry.get("client")
    if isinstance(client, str) and client.startswith("bap:"):
        return "bap"
    return door_of_session(entry.get("session")) if entry.get("session") else "mcp"


@dataclass
class _Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    total: float = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds

    def cumulative(self) -> list[tuple[str, float]]:
        running, out = 0, []
        for bound, count in zip([*(repr(b) for b in BUCKETS), "+Inf"], self.counts, strict=True):
            running += count
            out.append((bound, float(running)))
        return out


class CallCounts:
    """Calls that ended, by tool, status, decision and door, and their latency by tool: an ``AuditLog`` listener."""

    def __init__(self, named: Callable[[str], bool] = lambda _tool: True) -> None:
        """``named(tool)``: whether the tool's name may be a label (a built-in or an operator's map tool)."""
        self._named = named
        self._lock = threading.Lock()  # calls end on several threads
        self.calls: dict[tuple[str, str, str, str], int] = {}
        self.latency: dict[tuple[str, str], _Histogram] = {}

    def heard(self, entry: Mapping[str, Any]) -> None:
        """One audit line: one call ended."""
        tool = str(entry.get("tool") or "")
        label = tool if tool and self._named(tool) else OTHER_TOOL
        door = door_of_entry(entry)
        key = (label, str(entry.get("status") or "error"), str(entry.get("decision") or "allowed"), door)
        elapsed = entry.get("elapsed_ms")
        with self._lock:
            self.calls[key] = self.calls.get(key, 0) + 1
            if isinstance(elapsed, (int, float)):
                self.latency.setdefault((label, door), _Histogram()).observe(float(elapsed) / 1000.0)


@dataclass
class ScrapeSources:
    """What a scrape reads besides the call counts; each a callable, so parts made later (sessions, doors) are found."""

    calls: CallCounts
    #: Doors of the calls running now (one entry per call).
    in_flight: Callable[[], Iterable[str]]
    #: Open sessions as ``(transport, door)`` (one entry per session).
    sessions: Callable[[], Iterable[tuple[str, str]]]
    #: Connected runtimes as ``(kind, door)``.
    runtimes: Callable[[], Iterable[tuple[str, str]]]
    #: ``AuditLog``: its ``write_failures``, ``lost`` and ``health()``.
    audit: Any
    #: The backplane's ``metrics()`` (``{connected, sent, taken}``), None alone.
    backplane: Callable[[], Mapping[str, Any] | None]


def _counted(pairs: Iterable[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    counted: dict[tuple[str, ...], int] = {}
    for pair in pairs:
        counted[pair] = counted.get(pair, 0) + 1
    return counted


class _Collector:
    """A ``prometheus_client`` custom collector over ``ScrapeSources`` (built at the first scrape)."""

    def __init__(self, sources: ScrapeSources) -> None:
        self.sources = sources

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        s = self.sources
        with s.calls._lock:
            calls, latency = dict(s.calls.calls), {k: (list(h.cumulative()), h.total) for k, h in s.calls.latency.items()}
        family = CounterMetricFamily("mcp_actions_calls", "Tool calls that ended, by tool, status, decision and door.", labels=["tool", "status", "decision", "door"])
        for labels, value in sorted(calls.items()):
            family.add_metric(list(labels), value)
        yield family
        histogram = HistogramMetricFamily("mcp_actions_call_seconds", "How long tool calls took, by tool and door.", labels=["tool", "door"])
        for (tool, door), (buckets, total) in sorted(latency.items()):
            histogram.add_metric([tool, door], buckets, total)
        yield histogram
        yield self._gauge("mcp_actions_calls_in_flight", "Tool calls running now, by door.", ["door"], _counted((door,) for door in s.in_flight()), always=[("mcp",), ("bap",)])
        yield self._gauge("mcp_actions_sessions", "Agent sessions open now, by transport and door.", ["transport", "door"], _counted(s.sessions()))
        yield self._gauge("mcp_actions_runtimes", "Runtimes connected now, by kind (their transport) and the door of their session.", ["kind", "door"], _counted(s.runtimes()))
        yield CounterMetricFamily("mcp_actions_audit_write_failures", "Writes of the audit log that failed (the line waited in memory).", value=getattr(s.audit, "write_failures", 0))
        yield CounterMetricFamily("mcp_actions_audit_lines_lost", "Audit lines given up (the backlog overflowed).", value=getattr(s.audit, "lost", 0))
        health = s.audit.health()
        yield GaugeMetricFamily("mcp_actions_audit_ok", "1 while the audit log takes lines (calls run), 0 while calls are refused.", value=1 if health.get("ok") else 0)
        backplane = s.backplane()
        if backplane is not None:
            yield GaugeMetricFamily("mcp_actions_backplane_connected", "1 while this replica reaches the backplane.", value=1 if backplane.get("connected") else 0)
            routed = CounterMetricFamily("mcp_actions_routed_calls", "Calls routed through the backplane: sent to another replica, or taken from one.", labels=["direction"])
            routed.add_metric(["sent"], backplane.get("sent", 0))
            routed.add_metric(["taken"], backplane.get("taken", 0))
            yield routed

    @staticmethod
    def _gauge(name: str, documentation: str, labels: list[str], values: Mapping[tuple[str, ...], int], always: Iterable[tuple[str, ...]] = ()) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(name, documentation, labels=labels)
        merged = {**{key: 0 for key in always}, **values}
        for key, value in sorted(merged.items()):
            family.add_metric(list(key), value)
        return family


def render(sources: ScrapeSources) -> tuple[bytes, str]:
    """The text a scrape reads, and its content type (imports ``prometheus_client`` the first time)."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(sources))
    return generate_latest(registry), CONTENT_TYPE_LATEST
