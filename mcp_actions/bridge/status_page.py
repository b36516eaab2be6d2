"""The bridge's local page: what is connected, and how to connect more.

Served at ``GET /?token=…`` on the bridge port (see ``websocket.py``). It is
meant for the person running mcp-actions: it names the agent's browser session
(``runtime.session.name``), lists the connected runtimes
(id, key, url, title, transport, idle time), the calls in flight, each
runtime's tools, the recent calls of the audit log (tool, page, decision,
status, time, with the map's trust and the runtime's authorization id), the
maps that failed to load and why, the port it serves on when the default one
was taken, and offers a
bookmarklet plus a ``<script>`` tag that load the page runtime into any page.
Those two carry the page credential (bridge/credentials.py), never the start
token that opened this page: whatever page they land in may read them.

Everything that came from a runtime (urls, titles, keys) is page-controlled
text, so every value is HTML-escaped. The page runs one script, its own (``/status.js``):
it follows the live updates (server-sent events, ``status_live.py``) and puts the content
the server rendered in place, so the page changes without a reload.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from .registry import RuntimeInfo

__all__ = ["STATUS_SCRIPT", "bookmarklet_url", "render_status_body", "render_status_page", "runtime_script_url"]

# Characters left readable in the javascript: URL. '%' is not among them: a
# javascript: URL is percent-decoded before it runs, so a literal '%' (say in
# an already percent-encoded token) must itself be encoded.
_BOOKMARKLET_SAFE = "()[]{};:=,.'/?&+!*-_~@$"


def runtime_script_url(http_url: str, credential: str) -> str:
    """The URL of the page runtime that carries the credential it presents to the bridge (the page credential)."""
    return f"{http_url}/runtime.js?token={quote(credential, safe='')}"


def bookmarklet_url(script_url: str) -> str:
    """A ``javascript:`` URL that injects ``<script src=script_url>`` into the current page.

    The script URL is embedded as a JSON string literal, so no character of the
    token can break out of it.
    """
    source = (
        "(function(){"
        "var s=document.createElement('script');"
        f"s.src={json.dumps(script_url)};"
        "s.async=true;"
        "(document.head||document.documentElement).appendChild(s);"
        "})();"
    )
    return "javascript:" + quote(source, safe=_BOOKMARKLET_SAFE)


def _cell(value: Any) -> str:
    if value is None or value == "":
        return '<td class="none">—</td>'
    return f"<td>{html.escape(str(value))}</td>"


def _runtime_rows(runtimes: Iterable[RuntimeInfo]) -> str:
    rows = []
    for info in runtimes:
        snap = info.snapshot()
        rows.append(
            "<tr>"
            + _cell(snap["runtime_id"])
            + _cell(snap["runtime_key"])
            + _cell(snap["url"])
            + _cell(snap["title"])
            + _cell(f"{snap['transport']} ({snap['trust']})" + (f" on replica {snap['replica']}" if snap.get("replica") else "") + (f"; session {snap['session']}" if snap.get("session") else ""))
            + _cell(f"{snap['idle_seconds']:.1f} s")
            + _cell(len(snap["capabilities"]))
            + _cell(snap["event_count"])
            + "</tr>"
        )
    if not rows:
        return '<tr><td colspan="8" class="none">No runtime is connected yet.</td></tr>'
    return "\n".join(rows)


def _call_rows(calls: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for entry in reversed(calls):  # newest first
        status = entry.get("status")
        if entry.get("code"):
            status = f"{status} ({entry['code']})"
        rows.append(
            "<tr>"
            + _cell(entry.get("ts"))
            + _cell(entry.get("tool"))
            + _cell(entry.get("origin") or entry.get("runtime_id"))
            + _cell(entry.get("decision"))
            + _cell(status)
            + _cell(entry.get("elapsed_ms"))
            + _cell(" ".join(str(part) for part in (entry.get("user"), entry.get("client"), f"(session {entry['session']})" if entry.get("session") else None) if part) or None)
            + _cell(entry.get("trust"))
            + _cell(entry.get("authorization_id"))
            + "</tr>"
        )
    if not rows:
        return '<tr><td colspan="9" class="none">No call yet.</td></tr>'
    return "\n".join(rows)


def _failed_rows(failed: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for entry in failed:
        problems = "; ".join(f"{p.get('path', '')} {p.get('code', '')}: {p.get('message', '')}" for p in entry.get("errors", [])[:5])
        rows.append("<tr>" + _cell(entry.get("file")) + _cell(problems) + "</tr>")
    if not rows:
        return '<tr><td colspan="2" class="none">Every map loaded.</td></tr>'
    return "\n".join(rows)


def _drifted_rows(drifted: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for entry in drifted:
        items = ", ".join(f"{item.get('kind')} {item.get('id')} ({item.get('severity')})" for item in (entry.get("failed") or [])[:8])
        rows.append("<tr>" + _cell(entry.get("map")) + _cell(entry.get("url")) + _cell(entry.get("checked_at")) + _cell(items) + "</tr>")
    if not rows:
        return '<tr><td colspan="4" class="none">No map\'s last check drifted.</td></tr>'
    return "\n".join(rows)


def _tool_rows(tools: Mapping[str, Sequence[str]]) -> str:
    rows = [f"<tr>{_cell(runtime_id)}{_cell(', '.join(names))}</tr>" for runtime_id, names in tools.items()]
    if not rows:
        return '<tr><td colspan="2" class="none">No runtime is connected yet.</td></tr>'
    return "\n".join(rows)


def _extension_line(url: str | None) -> str:
    # A chrome-extension:// link cannot be followed from a web page: it is shown to be copied into the address bar.
    if not url:
        return ""
    return (
        "<p>With the mcp-actions browser extension loaded (<code>mcp-actions extension</code> says how), "
        f'open its connect page and share tabs one by one: <code id="extension-connect-url">{html.escape(url)}</code></p>\n'
    )


def _session_item(session: Mapping[str, Any], browsers: Mapping[str, Mapping[str, Any]]) -> str:
    """One agent session on the status page: its id, how it was told apart, idle time, its browser's tabs and name."""
    e = html.escape
    browser = browsers.get(str(session.get("id")))
    parts = [e(str(session.get("kind"))), f"idle {session.get('idle_seconds')} s"]
    if session.get("user"):  # the subject of its OAuth token (--oauth-issuer)
        parts.insert(0, f'user <strong class="user">{e(str(session["user"]))}</strong>')
    if browser is not None:
        parts.append(f"{browser.get('tabs', 0)} tab(s)")
        if browser.get("name"):
            parts.append(e(str(browser["name"])))
    return f"<code>{e(str(session.get('id')))}</code> ({', '.join(parts)})"


def render_status_body(
    runtimes: Iterable[RuntimeInfo],
    *,
    pending_calls: int,
    bridge_url: str,
    script_url: str,
    active_id: str | None = None,
    port_note: str | None = None,
    recent_calls: Sequence[Mapping[str, Any]] = (),
    failed_maps: Sequence[Mapping[str, Any]] = (),
    drifted_maps: Sequence[Mapping[str, Any]] = (),
    runtime_tools: Mapping[str, Sequence[str]] | None = None,
    policy: Mapping[str, Any] | None = None,
    browser_session: Mapping[str, Any] | None = None,
    extension_connect_url: str | None = None,
    audit_health: Mapping[str, Any] | None = None,
    backplane: Mapping[str, Any] | None = None,
    sessions: Sequence[Mapping[str, Any]] | None = None,
    session_browsers: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """What the status page shows, the part its live updates replace (``<main id="live">``'s content).

    ``port_note``: the sentence saying that the default bridge port was taken and which one serves
    instead, shown under the address (a runtime set up for the default port will not find this bridge).
    ``recent_calls``: audit log entries, oldest first (shown newest first: tool, page, decision,
    status, time, client, the map's trust, the runtime's authorization id); ``failed_maps``:
    ``{file, errors}`` of each map that failed to load; ``drifted_maps``: the last ``mcp-actions check`` of each
    served map that drifted (``{map, url, checked_at, failed}``, operators/last_check.py); ``runtime_tools``: each runtime's tools;
    ``policy``: the policy in force (``{file, rules, reload_error}``), None without one.
    ``browser_session``: the browser host's agent session (``{name, …}``), None while unnamed.
    ``extension_connect_url``: the browser extension's connect page for this bridge (docs/extension.md).
    ``audit_health``: ``AuditLog.health()``; while its file cannot be written, calls are refused and this says why.
    ``backplane``: ``Backplane.status()`` when replicas share a backplane (docs/deploying.md), None alone.
    ``sessions``: the HTTP agent sessions served (``{id, kind, isolated, idle_seconds}``), None over stdio;
    ``session_browsers``: each session's browser context (``{started, tabs, name}`` by session id) (docs/sessions.md).
    """
    runtimes = list(runtimes)
    e = html.escape
    note = f'\n<p id="port-note"><strong>{e(port_note[:1].upper() + port_note[1:])}.</strong></p>' if port_note else ""
    policy_line = ""
    if policy is not None:
        policy_line = f'\n<p id="policy">Policy: <code>{e(str(policy.get("file")))}</code>, {len(policy.get("rules") or [])} rule(s).'
        if policy.get("reload_error"):
            policy_line += f' <strong>Its last edit was refused, the previous rules stay in force: {e(str(policy["reload_error"]))}</strong>'
        policy_line += "</p>"
    if audit_health is not None and not audit_health.get("ok", True):
        policy_line += (
            f'\n<p id="audit-health"><strong>The audit log {e(str(audit_health.get("log_file")))} cannot be written '
            f'({e(str(audit_health.get("problem")))}): calls are refused until it can; '
            f'{audit_health.get("waiting_lines", 0)} line(s) wait in memory.</strong></p>'
        )
    session_line = ""
    if browser_session is not None and browser_session.get("name"):
        session_line = f'\n<p id="browser-session">Browser session: <strong>{e(str(browser_session["name"]))}</strong></p>'
    if backplane is not None:
        others = ", ".join(f"{r.get('replica')} ({r.get('runtimes')} runtime(s))" for r in backplane.get("replicas") or ()) or "none"
        state = "connected: every replica's runtimes are listed and reachable" if backplane.get("connected") else "<strong>unreachable: this replica serves only its own runtimes until it returns</strong>"
        session_line += (
            f'\n<p id="backplane">Replica <code>{e(str(backplane.get("replica")))}</code>; backplane <code>{e(str(backplane.get("url")))}</code> '
            f"{state}. Other replicas: {e(others)}.</p>"
        )
    if sessions is not None:
        listed = "; ".join(_session_item(session, session_browsers or {}) for session in sessions)
        shared = bool(sessions) and not all(s.get("isolated") for s in sessions)
        session_line += f'\n<p id="sessions">{len(sessions)} MCP session(s){" in one shared browser context" if shared else ""}: {listed or "none"}.</p>'
    bookmarklet = bookmarklet_url(script_url)
    script_tag = f'<script src="{script_url}"></script>'
    return f"""<h1>mcp-actions bridge</h1>
<p>Runtimes connect at <code>{e(bridge_url)}</code>.
<span id="summary">{len(runtimes)} runtime(s) connected, {pending_calls} call(s) in flight.</span></p>{note}{session_line}

<h2>Connected runtimes</h2>
<table id="runtimes">
<thead><tr><th>runtime id</th><th>key</th><th>url</th><th>title</th><th>transport (trust)</th><th>idle</th><th>capabilities</th><th>events</th></tr></thead>
<tbody>
{_runtime_rows(runtimes)}
</tbody>
</table>
<p>Active runtime: <code>{e(active_id or "none")}</code></p>

<h2>Each runtime's tools</h2>
<table id="runtime-tools">
<thead><tr><th>runtime id</th><th>tools</th></tr></thead>
<tbody>
{_tool_rows(runtime_tools or {})}
</tbody>
</table>

<h2>Recent calls</h2>{policy_line}
<table id="recent-calls">
<thead><tr><th>time (UTC)</th><th>tool</th><th>page</th><th>decision</th><th>status</th><th>ms</th><th>user, client</th><th>trust</th><th>authorization</th></tr></thead>
<tbody>
{_call_rows(recent_calls)}
</tbody>
</table>

<h2>Maps that failed to load</h2>
<table id="failed-maps">
<thead><tr><th>file</th><th>why</th></tr></thead>
<tbody>
{_failed_rows(failed_maps)}
</tbody>
</table>

<h2>Maps whose last check drifted</h2>
<table id="drifted-maps">
<thead><tr><th>map</th><th>checked against</th><th>when (UTC)</th><th>what failed</th></tr></thead>
<tbody>
{_drifted_rows(drifted_maps)}
</tbody>
</table>

<h2>Connect a page</h2>
<p>Drag this link to your bookmarks bar, then click it on any open page to let the agent act on it:
<a class="bookmarklet" id="bookmarklet" href="{e(bookmarklet, quote=True)}">mcp-actions runtime</a></p>
{_extension_line(extension_connect_url)}<p>Or embed the runtime in a page you own:</p>
<p><code id="script-tag">{e(script_tag)}</code></p>
<p class="none">The link and the tag carry this bridge's page credential, not its start token: a page
that loads them becomes a page runtime, which can take no other runtime's place and is believed only
about its own origin. Share them with pages you want the agent to act on.
Page events reach the agent as untrusted data, never as instructions.</p>
"""


#: The page around ``render_status_body``: its styles, and the one script (``/status.js``, served by the
#: bridge itself) that follows the live updates; nothing is loaded from anywhere else.
_SHELL_HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>mcp-actions bridge</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; vertical-align: top; max-width: 28rem; overflow-wrap: anywhere; }
th { background: #f3f3f3; }
.none { color: #999; }
a.bookmarklet { display: inline-block; padding: .3rem .8rem; border-radius: .3rem; background: #2458d6; color: #fff; text-decoration: none; }
code { background: #f3f3f3; padding: .1rem .3rem; overflow-wrap: anywhere; }
</style>
<script src="/status.js" defer></script>
</head>
<body>
"""


def render_status_page(*args: Any, **kwargs: Any) -> str:
    """The complete HTML of the local status page: ``render_status_body`` (same arguments) in its page."""
    return f'{_SHELL_HEAD}<main id="live">\n{render_status_body(*args, **kwargs)}</main>\n</body>\n</html>\n'


#: The status page's script (``GET /status.js``): it follows ``/status/events`` (server-sent events, with the
#: token the page was opened with) and puts each new content in place, so the page updates without a reload.
#: What it puts there was rendered and escaped by the server (``render_status_body``); ``innerHTML`` runs no script.
STATUS_SCRIPT = """"use strict";
(function () {
  var token = new URLSearchParams(location.search).get("token") || "";
  var source = new EventSource("/status/events?token=" + encodeURIComponent(token));
  source.addEventListener("page", function (event) {
    var live = document.getElementById("live");
    if (live) { live.innerHTML = event.data; live.dataset.version = event.lastEventId; }
  });
})();
"""
