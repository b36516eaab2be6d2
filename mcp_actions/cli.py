"""The ``mcp-actions`` command line: ``serve`` (the default), ``validate``, ``check``, ``convert``, ``init``, ``demo``, ``extension``.

In stdio mode nothing but MCP JSON-RPC may reach stdout, so every message of
``serve`` goes to stderr and logging is configured onto stderr before anything
else runs; the other commands write their report (``validate``'s problems,
verdicts and summary) on stdout and their errors on stderr. Each ``serve`` option can also come from the environment variable
named in its help.

A port (``--bridge-port``, ``--port``) left to its default may give way to a
free one when another program (often a second mcp-actions) holds it; a port
given by option or environment variable may not, and a taken one ends the
command with one line naming the way out (exit 2).

Why one file of about 600 lines: it is the command line's one table of every
command and option with its environment variable and help (what docs/cli.md and
its test are held to), and the small translation of each into the options the
commands take; the commands' work lives in their packages, imported only when run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from . import __version__
from .defaults import DEFAULT_BRIDGE_PORT, DEFAULT_EVENT_LOG_SIZE, DEFAULT_MCP_PORT, DEFAULT_TIMEOUT_MS
from .errors import ActionError, UsageError
from .url_secrets import shown_url

if TYPE_CHECKING:  # imported where used: validate and check never pay for the server
    from .actions_app import AppOptions
    from .backplane.connection import BackplaneConnection
    from .manifest.limits import Limits
    from .operators.tokens import OAuthSettings
from .manifest.report import human_lines, json_text, validate_paths
from .ports import PortInUse

__all__ = ["build_parser", "main", "run_validate"]

_TRANSPORTS = ("stdio", "sse", "streamable-http")

#: Workflow and projection limits (manifest.limits.Limits fields): flag, env var, help.
_LIMIT_OPTIONS = (
    ("--max-steps", "MCP_ACTIONS_MAX_STEPS", "most steps a workflow may declare (default 25)"),
    ("--max-loop-items", "MCP_ACTIONS_MAX_LOOP_ITEMS", "most items a for_each may visit (default 50)"),
    ("--max-expression-bytes", "MCP_ACTIONS_MAX_EXPRESSION_BYTES", "longest JSONata source (default 16000)"),
    ("--max-workflow-output-bytes", "MCP_ACTIONS_MAX_WORKFLOW_OUTPUT_BYTES", "largest workflow output (default 32000)"),
    ("--max-state-bytes", "MCP_ACTIONS_MAX_STATE_BYTES", "largest projected state (default 48000)"),
    ("--max-summary-bytes", "MCP_ACTIONS_MAX_SUMMARY_BYTES", "largest projection summary (default 12000)"),
)


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _env_int(name: str, default: int) -> int:
    value = _env(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise UsageError(f"{name} must be an integer, not {value!r}") from exc


def _port(flag: str, given: int | None, env: str, default: int) -> tuple[int, str | None]:
    """The port and where it was chosen: ``flag``, ``env``, or None when it is the default (which may give way)."""
    if given is not None:
        port, source = given, flag
    elif _env(env) is not None:
        port, source = _env_int(env, default), env
    else:
        return default, None
    if not 0 <= port <= 65535:
        raise UsageError(f"{source} must be a port between 0 and 65535 (0: any free port), not {port}")
    return port, source


def _port_in_use(exc: PortInUse, sources: dict[str, tuple[str, str, str | None]]) -> str:
    """The one line for a chosen port that is taken: what is taken and how to choose another."""
    flag, env, source = sources.get(exc.service, ("", "", None))
    if not flag:
        return exc.message
    how = f"with {flag}" if source != env else f"with {env} or {flag}"
    return f"{exc.message}; choose another {how}, or 0 for any free port"


def _builtin_groups(value: str) -> list[str]:
    """``--builtin-tools`` words, checked now so that a typo is a usage error, not a silent default."""
    from .dispatch.builtins.groups import listed_builtins  # serve only: validate and check never pay for dispatch

    words = [w.strip() for w in value.split(",") if w.strip()]
    try:
        listed_builtins(words, maps=[])
    except ActionError as exc:
        raise argparse.ArgumentTypeError(exc.message) from exc
    return words


def _builtin_groups_from_env() -> list[str]:
    """``MCP_ACTIONS_BUILTIN_TOOLS`` (default ``auto``), refused as a usage error when it names no group."""
    try:
        return _builtin_groups(_env("MCP_ACTIONS_BUILTIN_TOOLS", "") or "auto")
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"MCP_ACTIONS_BUILTIN_TOOLS: {exc}") from exc


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more (init --explore-budget)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"give a number of seconds, 0 or more, not {text!r}")
    return value


def _env_list(name: str, separator: str = ",") -> list[str]:
    return [item for item in (_env(name) or "").split(separator) if item]


def _add_serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", choices=_TRANSPORTS, default=_env("MCP_ACTIONS_TRANSPORT", "stdio"), help="MCP transport [MCP_ACTIONS_TRANSPORT] (default stdio)")
    parser.add_argument("--host", default=_env("MCP_ACTIONS_HOST", "127.0.0.1"), help="HTTP host for sse/streamable-http [MCP_ACTIONS_HOST]")
    parser.add_argument("--port", type=int, default=None, help=f"HTTP port for sse/streamable-http, 0 for any free port [MCP_ACTIONS_PORT] (default {DEFAULT_MCP_PORT}, or a free port when that one is taken)")
    parser.add_argument(
        "--manifests",
        action="append",
        metavar="PATH",
        help="manifest file, or directory searched for actions.json and *.actions.json; repeatable [MCP_ACTIONS_MANIFESTS, ':'-separated] (default: none; the demo's map belongs to 'mcp-actions demo')",
    )
    parser.add_argument("--bridge-host", default=_env("MCP_ACTIONS_BRIDGE_HOST", "127.0.0.1"), help="bridge WebSocket host [MCP_ACTIONS_BRIDGE_HOST]")
    parser.add_argument("--bridge-port", type=int, default=None, help=f"bridge WebSocket port, 0 for any free port [MCP_ACTIONS_BRIDGE_PORT] (default {DEFAULT_BRIDGE_PORT}, or a free port when that one is taken)")
    parser.add_argument("--bridge-token", default=_env("MCP_ACTIONS_BRIDGE_TOKEN"), help="token runtimes must present [MCP_ACTIONS_BRIDGE_TOKEN] (default: generated per start, printed to stderr)")
    parser.add_argument("--allowed-origins", action="append", metavar="ORIGIN", help="only accept runtimes whose Origin is one of these; repeatable [MCP_ACTIONS_ALLOWED_ORIGINS, ','-separated]")
    parser.add_argument("--browser", choices=("auto", "launch", "none"), default=_env("MCP_ACTIONS_BROWSER", "auto"), help="auto: launch lazily when a call needs a runtime; launch: at start; none: never [MCP_ACTIONS_BROWSER]")
    parser.add_argument("--browser-path", default=_env("MCP_ACTIONS_BROWSER_PATH"), help="Chromium/Chrome executable [MCP_ACTIONS_BROWSER_PATH] (default: detect)")
    parser.add_argument("--cdp-endpoint", default=_env("MCP_ACTIONS_CDP_ENDPOINT"), help="attach to a running browser at this CDP URL instead of launching [MCP_ACTIONS_CDP_ENDPOINT]")
    parser.add_argument("--cdp-header", action="append", metavar="'NAME: VALUE'", help="header sent with the --cdp-endpoint connection (a remote browser's authorization); repeatable")
    parser.add_argument(
        "--browser-endpoint",
        default=_env("MCP_ACTIONS_BROWSER_ENDPOINT"),
        metavar="WS_URL",
        help="connect to a Playwright browser server (launchServer / run-server) instead of launching; over HTTP one connection per session [MCP_ACTIONS_BROWSER_ENDPOINT]",
    )
    parser.add_argument(
        "--shared-browser-context",
        action="store_true",
        default=_env("MCP_ACTIONS_SHARED_BROWSER_CONTEXT") in ("1", "true"),
        help="over HTTP, every MCP session shares one browser context and sees every tab (default: a context per session) [MCP_ACTIONS_SHARED_BROWSER_CONTEXT=1]",
    )
    parser.add_argument("--max-sessions", type=int, default=None, metavar="N", help="HTTP sessions served at once; the one beyond is refused [MCP_ACTIONS_MAX_SESSIONS] (default: no limit)")
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="an HTTP session idle this long is ended: its browser context closes, its runtimes end [MCP_ACTIONS_SESSION_IDLE_TIMEOUT] (default 1800)",
    )
    headed = parser.add_mutually_exclusive_group()
    headed.add_argument("--headless", dest="headless", action="store_true", default=None, help="run the browser headless [MCP_ACTIONS_HEADLESS=1] (default: headed when a display exists)")
    headed.add_argument("--headed", dest="headless", action="store_false", help="run the browser with a window")
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument("--user-data-dir", default=_env("MCP_ACTIONS_USER_DATA_DIR"), help="persistent browser profile directory [MCP_ACTIONS_USER_DATA_DIR]")
    profile.add_argument("--isolated", action="store_true", default=_env("MCP_ACTIONS_ISOLATED") in ("1", "true"), help="use a fresh temporary profile [MCP_ACTIONS_ISOLATED=1]")
    parser.add_argument(
        "--allow-file-urls",
        action="store_true",
        default=_env("MCP_ACTIONS_ALLOW_FILE_URLS") in ("1", "true"),
        help="let agents open and read local files (file: URLs); without it a navigation to one is refused [MCP_ACTIONS_ALLOW_FILE_URLS=1]",
    )
    parser.add_argument("--upload-root", dest="upload_roots", action="append", metavar="DIR", help=f"a directory page_fill {{files}} may read; repeatable [MCP_ACTIONS_UPLOAD_ROOTS, '{os.pathsep}'-separated]; none: uploads refused")
    parser.add_argument("--timeout-ms", type=int, default=None, help=f"default call timeout [MCP_ACTIONS_TIMEOUT_MS] (default {DEFAULT_TIMEOUT_MS})")
    parser.add_argument("--event-log-size", type=int, default=None, metavar="N", help=f"page events kept per runtime, oldest dropped first [MCP_ACTIONS_EVENT_LOG_SIZE] (default {DEFAULT_EVENT_LOG_SIZE})")
    parser.add_argument("--tool-mode", choices=("tools", "site"), default=_env("MCP_ACTIONS_TOOL_MODE", "tools"), help="tools: every tool; site: only actions.site and the browser tools [MCP_ACTIONS_TOOL_MODE]")
    parser.add_argument("--tools", action="append", metavar="GLOB", help="expose only tools whose dotted name matches; repeatable [MCP_ACTIONS_TOOLS, ','-separated]")
    parser.add_argument("--exclude-tools", action="append", metavar="GLOB", help="never expose tools whose dotted name matches; repeatable [MCP_ACTIONS_EXCLUDE_TOOLS, ','-separated]")
    parser.add_argument(
        "--builtin-tools",
        action="append",
        metavar="GROUPS",
        type=_builtin_groups,
        help="built-in tools tools/list shows: auto (default; with valid maps from --manifests: navigate, observe while the "
        "active tab shows a page no map covers, and site when a map has state projections or context; else all), all, none, "
        "or groups among navigate, tabs, capture, dialogs, observe, site; repeatable or ','-separated; unlisted built-ins "
        "still answer by name [MCP_ACTIONS_BUILTIN_TOOLS]",
    )
    parser.add_argument("--http-token", default=_env("MCP_ACTIONS_HTTP_TOKEN"), help="bearer token the HTTP transports require [MCP_ACTIONS_HTTP_TOKEN] (default: none)")
    parser.add_argument(
        "--oauth-issuer",
        metavar="URL",
        default=_env("MCP_ACTIONS_OAUTH_ISSUER"),
        help="MCP authorization over HTTP: accept bearer tokens this OAuth issuer signed (its JWKS), each token's sub is the session's user; "
        "--http-token stays the operator's [MCP_ACTIONS_OAUTH_ISSUER] (default: off); docs/deploying.md",
    )
    parser.add_argument(
        "--oauth-audience",
        metavar="AUD",
        default=_env("MCP_ACTIONS_OAUTH_AUDIENCE"),
        help="the audience (resource) tokens must name [MCP_ACTIONS_OAUTH_AUDIENCE] (default: the server's own /mcp URL; behind a proxy, its public URL)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        default=None,
        help="also serve /metrics (Prometheus) on this port, without a token (the bridge port serves it with the bridge token) [MCP_ACTIONS_METRICS_PORT] (default: off)",
    )
    parser.add_argument("--metrics-host", default=_env("MCP_ACTIONS_METRICS_HOST", "127.0.0.1"), help="interface --metrics-port listens on [MCP_ACTIONS_METRICS_HOST] (default 127.0.0.1)")
    parser.add_argument("--oauth-scopes", metavar="S1,S2", default=_env("MCP_ACTIONS_OAUTH_SCOPES"), help="scopes every token must carry [MCP_ACTIONS_OAUTH_SCOPES] (default: none)")
    parser.add_argument(
        "--backplane",
        default=_env("MCP_ACTIONS_BACKPLANE"),
        metavar="URL",
        help="NATS URL (nats://HOST:PORT or tls://HOST:PORT) shared by replicas started with the same --bridge-token, --http-token and "
        "--backplane-secret-file behind one load balancer: they act as one server (needs pip install 'mcp-actions[nats]'; docs/deploying.md) [MCP_ACTIONS_BACKPLANE]",
    )
    parser.add_argument(
        "--backplane-secret-file",
        metavar="FILE",
        default=_env("MCP_ACTIONS_BACKPLANE_SECRET_FILE"),
        help="the secret the replicas share (at least 32 bytes: openssl rand -hex 32 > FILE): every message between them is sealed "
        "and authenticated with it; required with --backplane [MCP_ACTIONS_BACKPLANE_SECRET_FILE]",
    )
    parser.add_argument("--backplane-creds", metavar="FILE", default=_env("MCP_ACTIONS_BACKPLANE_CREDS"), help="NATS user credentials file (JWT and nkey seed) [MCP_ACTIONS_BACKPLANE_CREDS]")
    parser.add_argument("--backplane-nkey", metavar="FILE", default=_env("MCP_ACTIONS_BACKPLANE_NKEY"), help="file holding a NATS user nkey seed [MCP_ACTIONS_BACKPLANE_NKEY]")
    parser.add_argument("--backplane-tls-ca", metavar="FILE", default=_env("MCP_ACTIONS_BACKPLANE_TLS_CA"), help="CA certificate(s) the NATS server's certificate is checked against [MCP_ACTIONS_BACKPLANE_TLS_CA]")
    parser.add_argument("--backplane-tls-cert", metavar="FILE", default=_env("MCP_ACTIONS_BACKPLANE_TLS_CERT"), help="client certificate for mutual TLS with NATS [MCP_ACTIONS_BACKPLANE_TLS_CERT]")
    parser.add_argument("--backplane-tls-key", metavar="FILE", default=_env("MCP_ACTIONS_BACKPLANE_TLS_KEY"), help="private key of --backplane-tls-cert [MCP_ACTIONS_BACKPLANE_TLS_KEY]")
    parser.add_argument("--http-allowed-hosts", action="append", metavar="HOST", help="Host headers the HTTP transports accept besides loopback ('name:*' for any port); repeatable [MCP_ACTIONS_HTTP_ALLOWED_HOSTS]")
    parser.add_argument("--bap-port", type=int, default=None, metavar="PORT", help="also speak BAP (Browser Agent Protocol, JSON-RPC over WebSocket) on this port, 0 for any free port [MCP_ACTIONS_BAP_PORT] (default: off); docs/bap.md")
    parser.add_argument("--bap-host", default=_env("MCP_ACTIONS_BAP_HOST", "127.0.0.1"), help="interface the BAP port listens on [MCP_ACTIONS_BAP_HOST] (default 127.0.0.1)")
    parser.add_argument("--bap-token", default=_env("MCP_ACTIONS_BAP_TOKEN"), help="token BAP clients must present (?token= or X-BAP-Token) [MCP_ACTIONS_BAP_TOKEN] (default: generated per start, printed to stderr)")
    parser.add_argument("--http-allowed-origins", action="append", metavar="ORIGIN", help="browser Origins that may call the HTTP transports (CORS), loopback pages included (none by default); repeatable [MCP_ACTIONS_HTTP_ALLOWED_ORIGINS]")
    parser.add_argument("--no-watch", dest="watch", action="store_false", default=_env("MCP_ACTIONS_WATCH", "1") not in ("0", "false", "no"), help="do not reload the catalogue when a manifest file changes [MCP_ACTIONS_WATCH=0]")
    for flag, env, help_text in _LIMIT_OPTIONS:
        parser.add_argument(flag, type=int, default=None, metavar="N", help=f"{help_text} [{env}]")
    parser.add_argument(
        "--audit-log",
        metavar="PATH|off",
        default=_env("MCP_ACTIONS_AUDIT_LOG"),
        help="append one JSON line per tool call here, rotated by size; off: no file [MCP_ACTIONS_AUDIT_LOG] (default: audit.jsonl in the user's state directory)",
    )
    parser.add_argument(
        "--policy",
        metavar="FILE",
        default=_env("MCP_ACTIONS_POLICY"),
        help="JSON rules allowing, denying or asking before calls, reloaded when it changes [MCP_ACTIONS_POLICY] (default: every call allowed)",
    )
    parser.add_argument(
        "--learned-maps",
        metavar="DIR",
        default=_env("MCP_ACTIONS_LEARNED_MAPS"),
        help="where actions_save_tool writes the tools an agent saves, one map per site, always loaded; off: none [MCP_ACTIONS_LEARNED_MAPS] (default: learned/ in the user's data directory)",
    )
    parser.add_argument("--log-level", default=_env("MCP_ACTIONS_LOG_LEVEL", "WARNING"), help="stderr log level [MCP_ACTIONS_LOG_LEVEL]")
    parser.add_argument(
        "--verbose",
        action="store_true",
        default=bool(_env("MCP_ACTIONS_VERBOSE")),
        help="say more on stderr: the bridge token on a line of its own, and the log at INFO (--log-level info) [MCP_ACTIONS_VERBOSE]",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every sub-command."""
    parser = argparse.ArgumentParser(
        prog="mcp-actions",
        usage="mcp-actions [serve options] | mcp-actions COMMAND ...",
        description="Operate websites through the actions their actions.json maps declare, as an MCP server.",
        # Host configurations run the bare command with serve's options (docs/cli.md): say so here.
        epilog="With no command, mcp-actions is 'mcp-actions serve' over stdio and takes serve's options "
        "(mcp-actions --manifests DIR --headless); 'mcp-actions serve --help' lists them.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-actions {__version__}")
    # prog: a command's usage line is "mcp-actions init …", not the whole usage above with the command after it.
    sub = parser.add_subparsers(dest="command", prog="mcp-actions")
    serve = sub.add_parser("serve", help="run the MCP server (the default command)")
    _add_serve_options(serve)
    validate = sub.add_parser("validate", help="validate actions.json manifests")
    validate.add_argument("paths", nargs="+", metavar="PATH", help="manifest files or directories")
    validate.add_argument("--json", action="store_true", help="print one JSON array of per-file results")
    validate.add_argument(
        "--reference-only",
        action="store_true",
        help="also warn about what runtimes written from the reference dictionary alone refuse (non_reference_argument)",
    )
    check = sub.add_parser("check", help="drift report of a map against a live page (checks, states, projections, tool targets)")
    check.add_argument("manifest", metavar="MANIFEST", help="the actions.json to check")
    check.add_argument("--url", required=True, help="the live page to check it against")
    check.add_argument("--json", action="store_true", help="print the report as one JSON object (see docs/cli.md)")
    check.add_argument("--fail-on", choices=("minor", "major", "critical"), default="major", help="lowest severity that makes the exit status 1 (default major)")
    check.add_argument("--browser-path", default=_env("MCP_ACTIONS_BROWSER_PATH"), help="Chromium/Chrome executable (default: detect)")
    convert = sub.add_parser("convert", help="write an actions.json map from a WAB discovery document or an ABP manifest")
    convert.add_argument("source", metavar="FILE|URL", help="the document to convert")
    convert.add_argument("-o", "--output", metavar="OUT", help="write the map here instead of stdout")
    init = sub.add_parser("init", help="draft a map of a live page: its forms and main controls as tools")
    init.add_argument("url", metavar="URL", help="the page to draft a map of (http or https)")
    init.add_argument("-o", "--output", metavar="OUT", help="write the map here instead of stdout")
    init.add_argument("--browser-path", default=_env("MCP_ACTIONS_BROWSER_PATH"), help="Chromium/Chrome executable (default: detect)")
    exploring = init.add_mutually_exclusive_group()
    exploring.add_argument("--explore-budget", metavar="SECONDS", type=_seconds, default=None, help="how long init acts on its own tab to reveal controls that appear later (default 20)")
    exploring.add_argument("--no-explore", action="store_true", help="draft only what the page shows at load time")
    demo = sub.add_parser("demo", help="run the whole loop on the bundled demo site in a headless browser")
    demo.add_argument("--browser-path", default=_env("MCP_ACTIONS_BROWSER_PATH"), help="Chromium/Chrome executable (default: detect)")
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    extension = sub.add_parser("extension", help="where the shipped browser extension is (id, version) and how to load it")
    extension.add_argument("--json", action="store_true", help='print {"path", "id", "version"} as JSON')
    extension.add_argument("--pairings", action="store_true", help="list the browsers paired with this user's servers")
    extension.add_argument("--forget", metavar="ID", help="revoke the pairing ID (or all): its shared tabs are disconnected")
    digest = sub.add_parser("audit-digest", help="the arguments_sha256 an audit line carries for these arguments (keyed with the log's own key)")
    digest.add_argument(
        "arguments", metavar="-|JSON", help="-: read the call's arguments (a JSON object) from standard input, where no other user sees them; or the JSON itself, visible in ps"
    )
    digest.add_argument("--audit-log", default=_env("MCP_ACTIONS_AUDIT_LOG"), help="the audit log whose key to use (default: audit.jsonl in the user's state directory)")
    return parser


def run_audit_digest(arguments: str, log_file: str | None, *, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    """``mcp-actions audit-digest -|JSON [--audit-log PATH]``: print the digest a line of that log carries for these arguments.

    The digest is keyed with the log's key file (``audit_log.py``), which only the operator reads:
    this is how they match a line to a call they know. ``-`` reads the JSON from ``stdin``: a
    command line is readable by every local user (``/proc/<pid>/cmdline``, ``ps``), and the
    arguments are the secret (a PIN) the keyed digest protects. Exit 2 when the JSON or the key
    cannot be read.
    """
    from pathlib import Path

    from .audit_log import arguments_digest, load_audit_key

    path = _audit_log(log_file)
    if path is None:
        err.write("mcp-actions: --audit-log off keeps no key: its digests cannot be matched after the server stops\n")
        return 2
    if arguments == "-":
        arguments = (stdin or sys.stdin).read()
    try:
        given = json.loads(arguments)
    except (ValueError, RecursionError) as exc:  # the message names a place, never the text
        err.write(f"mcp-actions: the arguments are not JSON: {exc}\n")
        return 2
    if not isinstance(given, dict):
        err.write("mcp-actions: the arguments must be a JSON object, as a tool call's are\n")
        return 2
    try:
        key = load_audit_key(Path(path), create=False)
    except OSError as exc:
        err.write(f"mcp-actions: cannot read the key of {path}: {exc.strerror or exc}\n")
        return 2
    out.write(arguments_digest(key, given) + "\n")
    return 0


def run_validate(paths: Sequence[str], *, as_json: bool, out: TextIO, err: TextIO, reference_only: bool = False) -> int:
    """``mcp-actions validate PATH... [--json] [--reference-only]``: write the report (``manifest.report``); return the exit status.

    ``reference_only``: the map is judged for any runtime written from the
    reference dictionary alone, not only for mcp-actions' own runtimes.

    The report goes to ``out``: problem lines, per-file verdicts and the summary line
    (``manifest.report.human_lines``), so ``validate map > out.txt`` holds it; with ``as_json``
    ``out`` holds only the JSON array and the summary goes to ``err``. Unreadable paths go to ``err``.
    """
    if not paths:
        err.write("usage: mcp-actions validate PATH... [--json] [--reference-only]\n")
        return 2
    run = validate_paths(paths, reference_only=reference_only)
    for message in run.path_errors:
        err.write(f"error: {message}\n")
    if as_json:
        out.write(json_text(run) + "\n")
        err.write(run.summary() + "\n")  # stdout stays one JSON document
    else:
        for line in human_lines(run):
            out.write(line + "\n")
    return run.exit_status


def _limits(args: argparse.Namespace) -> Limits:
    from dataclasses import replace

    from .manifest.limits import DEFAULT_LIMITS

    values: dict[str, int] = {}
    for flag, env, _ in _LIMIT_OPTIONS:
        field_name = flag[2:].replace("-", "_")
        given = getattr(args, field_name)
        value = given if given is not None else _env_int(env, getattr(DEFAULT_LIMITS, field_name))
        if value < 1:
            raise UsageError(f"{flag} must be at least 1, not {value}")
        values[field_name] = value
    return replace(DEFAULT_LIMITS, **values)


def _audit_log(given: str | None) -> str | None:
    """The audit log's file: the one given, the default in the user's state directory, or None for ``off``."""
    if given is not None and given.strip().lower() == "off":
        return None
    if given:
        return given
    from .audit_log import default_audit_path

    return str(default_audit_path())


def _learned_maps(given: str | None) -> str | None:
    """The learned-maps folder: the one given, the default in the user's data directory, or None for ``off``."""
    if given is not None and given.strip().lower() == "off":
        return None
    if given:
        return given
    from .learning.store import default_learned_dir

    return str(default_learned_dir())


def _policy(given: str | None) -> str | None:
    """The policy file, read now so a bad one refuses to start (one line: the file, the rule, what is wrong)."""
    if not given:
        return None
    from .dispatch.call.policy import Policy, PolicyError

    try:
        Policy.load(given)
    except PolicyError as exc:
        raise UsageError(f"bad policy: {exc}") from exc
    return given


def _oauth(args: argparse.Namespace) -> OAuthSettings | None:
    """``--oauth-issuer`` and its audience and scopes, checked: HTTP transports only, an https issuer (http on loopback, for a test)."""
    if not args.oauth_issuer:
        if args.oauth_audience or args.oauth_scopes:
            raise UsageError("--oauth-audience and --oauth-scopes need --oauth-issuer")
        return None
    from urllib.parse import urlsplit

    from .operators.tokens import OAuthSettings

    if args.transport == "stdio":
        raise UsageError("--oauth-issuer is for the HTTP transports (--transport streamable-http or sse): over stdio the host that starts the server is its user")
    issuer = urlsplit(args.oauth_issuer)
    if issuer.scheme != "https" and not (issuer.scheme == "http" and issuer.hostname in ("127.0.0.1", "localhost", "::1")):
        raise UsageError(f"--oauth-issuer {args.oauth_issuer!r} is not an https URL (http only on loopback)")
    scopes = tuple(scope.strip() for scope in (args.oauth_scopes or "").split(",") if scope.strip())
    return OAuthSettings(issuer=args.oauth_issuer, audience=args.oauth_audience or None, scopes=scopes)


def _backplane(args: argparse.Namespace) -> BackplaneConnection | None:
    """``--backplane`` and its options, checked: a NATS URL, the client installed, the tokens and the secret every replica
    shares, NATS's credentials and TLS files (user and password only from the environment: a command line is seen by all)."""
    if not args.backplane:
        return None
    from .backplane import check_backplane_url, require_client
    from .backplane.connection import BackplaneConnection, read_secret

    check_backplane_url(args.backplane)
    require_client()
    if not args.bridge_token:
        raise UsageError("--backplane needs --bridge-token (the same on every replica): a token generated per start differs on each")
    missing = [name for name, given in (("--http-token", args.http_token), ("--backplane-secret-file", args.backplane_secret_file)) if not given]
    if missing:
        raise UsageError(
            f"--backplane needs {' and '.join(missing)} (the same on every replica): without them anyone who reaches NATS or the HTTP port could act as a replica or a client (docs/deploying.md)"
        )
    connection = BackplaneConnection(
        url=args.backplane,
        secret=read_secret(args.backplane_secret_file),
        creds=args.backplane_creds,
        nkey=args.backplane_nkey,
        user=_env("MCP_ACTIONS_BACKPLANE_USER"),
        password=_env("MCP_ACTIONS_BACKPLANE_PASSWORD"),
        tls_ca=args.backplane_tls_ca,
        tls_cert=args.backplane_tls_cert,
        tls_key=args.backplane_tls_key,
    )
    connection.check()
    return connection


def _session_options(args: argparse.Namespace) -> dict[str, Any]:
    """The many-agents options (docs/sessions.md), checked: remote browsers, the context per session, its limits."""
    from .app_options import parse_cdp_headers

    headers = args.cdp_header or []
    try:
        parse_cdp_headers(headers)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if headers and not args.cdp_endpoint:
        raise UsageError("--cdp-header goes with --cdp-endpoint")
    endpoint = args.browser_endpoint or None
    if endpoint and not endpoint.startswith(("ws://", "wss://")):
        raise UsageError(f"--browser-endpoint must be a ws:// or wss:// URL (a Playwright browser server's wsEndpoint), not {shown_url(endpoint)!r}")
    if endpoint and args.cdp_endpoint:
        raise UsageError("give --browser-endpoint or --cdp-endpoint, not both")
    max_sessions = args.max_sessions if args.max_sessions is not None else _env_int("MCP_ACTIONS_MAX_SESSIONS", 0) or None
    if max_sessions is not None and max_sessions < 1:
        raise UsageError(f"--max-sessions must be at least 1, not {max_sessions}")
    idle = args.session_idle_timeout
    if idle is None:
        text = _env("MCP_ACTIONS_SESSION_IDLE_TIMEOUT")
        try:
            idle = float(text) if text else 1800.0
        except ValueError as exc:
            raise UsageError(f"MCP_ACTIONS_SESSION_IDLE_TIMEOUT must be a number of seconds, not {text!r}") from exc
    if not (0 < idle < float("inf")):
        raise UsageError(f"--session-idle-timeout must be a positive number of seconds, not {idle:g}")
    return {
        "cdp_headers": tuple(headers),
        "browser_endpoint": endpoint,
        "shared_browser_context": bool(args.shared_browser_context),
        "max_sessions": max_sessions,
        "session_idle_timeout": idle,
    }


def _serve_options(args: argparse.Namespace) -> tuple[AppOptions, str, str, int | None, dict[str, tuple[str, str, str | None]]]:
    """``AppOptions``, transport, HTTP host and port (None: the default, which may give way), and where each port came from."""
    from .actions_app import AppOptions

    manifests = args.manifests or [p for p in (_env("MCP_ACTIONS_MANIFESTS") or "").split(":") if p]
    origins = args.allowed_origins or [o for o in (_env("MCP_ACTIONS_ALLOWED_ORIGINS") or "").split(",") if o]
    headless = args.headless
    if headless is None and _env("MCP_ACTIONS_HEADLESS") is not None:
        headless = _env("MCP_ACTIONS_HEADLESS") in ("1", "true", "yes")
    event_log_size = args.event_log_size if args.event_log_size is not None else _env_int("MCP_ACTIONS_EVENT_LOG_SIZE", DEFAULT_EVENT_LOG_SIZE)
    if event_log_size < 1:
        raise UsageError(f"--event-log-size must be at least 1, not {event_log_size}")
    bridge_port, bridge_source = _port("--bridge-port", args.bridge_port, "MCP_ACTIONS_BRIDGE_PORT", DEFAULT_BRIDGE_PORT)
    http_port, http_source = _port("--port", args.port, "MCP_ACTIONS_PORT", DEFAULT_MCP_PORT)
    options = AppOptions(
        manifests=manifests,
        bridge_host=args.bridge_host,
        bridge_port=bridge_port,
        bridge_port_fallback=bridge_source is None,  # only a default gives way; a chosen port is a promise
        bridge_token=args.bridge_token,
        allowed_origins=origins,
        browser=args.browser,
        browser_path=args.browser_path,
        cdp_endpoint=args.cdp_endpoint,
        **_session_options(args),
        headless=headless,
        user_data_dir=args.user_data_dir,
        allow_file_urls=bool(args.allow_file_urls),
        upload_roots=args.upload_roots or _env_list("MCP_ACTIONS_UPLOAD_ROOTS", os.pathsep),
        isolated=args.isolated,
        default_timeout_ms=args.timeout_ms if args.timeout_ms is not None else _env_int("MCP_ACTIONS_TIMEOUT_MS", DEFAULT_TIMEOUT_MS),
        event_log_size=event_log_size,
        tool_mode=args.tool_mode,
        tools=args.tools or _env_list("MCP_ACTIONS_TOOLS"),
        exclude_tools=args.exclude_tools or _env_list("MCP_ACTIONS_EXCLUDE_TOOLS"),
        builtin_tools=[w for words in args.builtin_tools for w in words] if args.builtin_tools else _builtin_groups_from_env(),
        watch=args.watch,
        limits=_limits(args),
        audit_log=_audit_log(args.audit_log),
        policy=_policy(args.policy),
        learned_maps=_learned_maps(args.learned_maps),
        backplane=_backplane(args),
        http_token=args.http_token,
        bap_port=args.bap_port if args.bap_port is not None else (_env_int("MCP_ACTIONS_BAP_PORT", 0) if _env("MCP_ACTIONS_BAP_PORT") else None),
        bap_host=args.bap_host,
        bap_token=args.bap_token,
        oauth=_oauth(args),
        metrics_port=args.metrics_port if args.metrics_port is not None else (_env_int("MCP_ACTIONS_METRICS_PORT", 0) if _env("MCP_ACTIONS_METRICS_PORT") else None),
        metrics_host=args.metrics_host,
    )
    sources = {"bridge": ("--bridge-port", "MCP_ACTIONS_BRIDGE_PORT", bridge_source), "HTTP": ("--port", "MCP_ACTIONS_PORT", http_source)}
    sources["BAP"] = ("--bap-port", "MCP_ACTIONS_BAP_PORT", "--bap-port" if args.bap_port is not None else "MCP_ACTIONS_BAP_PORT")
    sources["metrics"] = ("--metrics-port", "MCP_ACTIONS_METRICS_PORT", "--metrics-port" if args.metrics_port is not None else "MCP_ACTIONS_METRICS_PORT")
    return options, args.transport, args.host, http_port if http_source is not None else None, sources


def _run_convert(source: str, output: str | None) -> int:
    import json

    from .convert import convert_document, read_document

    manifest = convert_document(read_document(source), source=source)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
    print(f"mcp-actions: wrote {len(manifest['tools'])} tools to {output}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["serve", *argv]
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        if args.command == "validate":
            return run_validate(args.paths, as_json=args.json, out=sys.stdout, err=sys.stderr, reference_only=args.reference_only)
        if args.command == "check":
            from .checks.command import run_check_command

            return run_check_command(args.manifest, args.url, as_json=args.json, fail_on=args.fail_on, out=sys.stdout, err=sys.stderr, browser_path=args.browser_path)
        if args.command == "convert":
            return _run_convert(args.source, args.output)
        if args.command == "init":
            from .authoring.explore import DEFAULT_BUDGET_S
            from .authoring.init import run_init_command

            budget = 0.0 if args.no_explore else DEFAULT_BUDGET_S if args.explore_budget is None else args.explore_budget
            return run_init_command(args.url, args.output, out=sys.stdout, err=sys.stderr, browser_path=args.browser_path, explore_budget_s=budget)
        if args.command == "extension":
            from .extension.command import run_extension_command, run_pairings_command

            if args.pairings or args.forget is not None:
                return run_pairings_command(as_json=args.json, forget=args.forget, out=sys.stdout, err=sys.stderr)
            return run_extension_command(as_json=args.json, out=sys.stdout)
        if args.command == "audit-digest":
            return run_audit_digest(args.arguments, args.audit_log, out=sys.stdout, err=sys.stderr, stdin=sys.stdin)
        if args.command == "demo":
            from .demo.run import run_demo

            return asyncio.run(run_demo(browser_path=args.browser_path, headless=not args.headed))
        level = args.log_level.upper()
        numeric = logging.getLevelName(level)
        if args.verbose and isinstance(numeric, int) and numeric > logging.INFO:  # --verbose is at least INFO; a lower level stays
            level = "INFO"
        logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        options, transport, host, port, sources = _serve_options(args)
        from .launcher import serve

        try:
            asyncio.run(
                serve(
                    options,
                    transport=transport,
                    host=host,
                    port=port,
                    http_token=args.http_token,
                    allowed_hosts=args.http_allowed_hosts or _env_list("MCP_ACTIONS_HTTP_ALLOWED_HOSTS"),
                    allowed_origins=args.http_allowed_origins or _env_list("MCP_ACTIONS_HTTP_ALLOWED_ORIGINS"),
                )
            )
        except PortInUse as exc:
            print(f"mcp-actions: {_port_in_use(exc, sources)}", file=sys.stderr)
            return 2
        return 0
    except UsageError as exc:
        print(f"mcp-actions: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
