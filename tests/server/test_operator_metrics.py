"""``/metrics`` (issue 56, docs/deploying.md "Metrics"): a real server, real MCP calls, Prometheus' own parser.

``serve --transport streamable-http`` runs in a subprocess as the other HTTP tests start it; the
SDK's ``Client`` makes calls that succeed, fail and are denied by the policy, and
``prometheus_client.parser`` reads what the bridge port's ``/metrics`` says of them.
"""

from __future__ import annotations

import json

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families

from .session_servers import free_port, http_serve

TOKEN = "operator-bridge-token"


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every sample by its name (``mcp_actions_calls_total``, ``…_bucket``), with its labels and value."""
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def _value(samples: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    return sum(value for got, value in samples.get(name, []) if all(got.get(k) == v for k, v in labels.items()))


async def test_metrics_count_the_calls_made_by_tool_status_and_decision(tmp_path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "browser.list_tabs", "decision": "deny"}]}))
    bridge = free_port()
    args = ("--browser", "none", "--bridge-port", str(bridge), "--bridge-token", TOKEN, "--policy", str(policy))
    with http_serve(tmp_path / "server", *args) as served:
        metrics_url = f"http://127.0.0.1:{bridge}/metrics"
        async with httpx.AsyncClient() as http:
            refused = await http.get(metrics_url)
            assert refused.status_code == 401  # the bridge token, or nothing
            async with Client(served.url, mode="legacy") as client:
                for _ in range(3):
                    assert not (await client.call_tool("actions_site", {"mode": "list"})).is_error
                for _ in range(2):
                    assert (await client.call_tool("actions_site", {"mode": "nonsense"})).is_error
                assert (await client.call_tool("browser_list_tabs", {})).is_error  # denied by the policy
                during = _samples((await http.get(metrics_url, headers={"Authorization": f"Bearer {TOKEN}"})).text)
            answer = await http.get(metrics_url, params={"token": TOKEN})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")  # Prometheus' text format
    samples = _samples(answer.text)
    assert _value(samples, "mcp_actions_calls_total", tool="actions.site", status="ok", decision="allowed", door="mcp") == 3
    assert _value(samples, "mcp_actions_calls_total", tool="actions.site", status="error", decision="allowed") == 2
    assert _value(samples, "mcp_actions_calls_total", tool="browser.list_tabs", status="error", decision="denied") == 1
    assert _value(samples, "mcp_actions_calls_total") == 6
    # The latency histogram holds every call once, and its +Inf bucket equals its count.
    assert _value(samples, "mcp_actions_call_seconds_count", tool="actions.site") == 5
    assert _value(samples, "mcp_actions_call_seconds_bucket", tool="actions.site", le="+Inf") == 5
    assert _value(samples, "mcp_actions_call_seconds_sum", tool="actions.site") > 0
    # While the client was connected its session was open; no call runs now; the audit log is fine.
    assert _value(during, "mcp_actions_sessions", transport="http", door="mcp") == 1
    assert _value(samples, "mcp_actions_calls_in_flight") == 0
    assert _value(samples, "mcp_actions_audit_write_failures_total") == 0
    assert _value(samples, "mcp_actions_audit_ok") == 1
    # Per replica, no backplane here: no backplane gauge. No URL, argument or token in the text.
    assert "mcp_actions_backplane_connected" not in samples
    for secret in (TOKEN, "nonsense", "http://", "127.0.0.1"):
        assert secret not in answer.text


async def test_a_tool_name_nobody_configured_is_no_label(tmp_path):
    """A tool name the operator did not configure (an unknown tool a client asked for) is counted as ``other``."""
    bridge = free_port()
    with http_serve(tmp_path / "server", "--browser", "none", "--bridge-port", str(bridge), "--bridge-token", TOKEN) as served:
        async with Client(served.url, mode="legacy") as client:
            with pytest.raises(MCPError):  # an unknown tool is a JSON-RPC error
                await client.call_tool("made_up_by_someone_at_https_example_com", {})
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"http://127.0.0.1:{bridge}/metrics", params={"token": TOKEN})).text
    assert "made_up" not in text
    assert _value(_samples(text), "mcp_actions_calls_total", tool="other", door="mcp") == 1


async def test_metrics_on_a_port_of_their_own_need_no_token(tmp_path):
    metrics = free_port()
    with http_serve(tmp_path / "server", "--browser", "none", "--metrics-port", str(metrics)) as served:
        async with Client(served.url, mode="legacy") as client:
            assert not (await client.call_tool("actions_site", {"mode": "list"})).is_error
        async with httpx.AsyncClient() as http:
            answer = await http.get(f"http://127.0.0.1:{metrics}/metrics")
            other = await http.get(f"http://127.0.0.1:{metrics}/")
    assert answer.status_code == 200
    assert _value(_samples(answer.text), "mcp_actions_calls_total", tool="actions.site", status="ok") == 1
    assert other.status_code == 404
