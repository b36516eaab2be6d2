"""``mcp-actions check MANIFEST --url URL``: a drift report of a map against a live page.

Loads and validates the map, opens the URL in headless Chromium (the browser
host, one tab), waits for the page to settle and for what the map expects to
be there (``wait_until_expected``, at most ``READY_TIMEOUT_MS``: a page that
renders late is judged once rendered), and runs ``drift_report``.
Prints one line per item (or, with ``--json``, the report object documented
in docs/cli.md) and returns the exit status: 0 when nothing at or above
``--fail-on`` (default major) failed or could not be checked, 1 when
something did, 2 on a usage or I/O error (no such file, an invalid map, a
browser that does not start, a URL that does not load). Every error line
names its ``ErrorCode``: ``mcp-actions check: <code>: <message>``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, TextIO

from ..errors import ActionError, ActionsError, ErrorCode
from ..manifest.load import load_paths
from ..operators.last_check import record_check
from ..projection.extract import EXTRACT_PRIMITIVE
from ..projection.project import CompiledProjection
from ..projection.service import ProjectionService
from ..runtimes.headless import headless_tab
from .drift import SEVERITY_ORDER, drift_report, failing
from .tool_targets import wait_until_expected

__all__ = ["CHECK_TIMEOUT_MS", "FAIL_ON_CHOICES", "READY_TIMEOUT_MS", "format_report", "run_check_command"]

log = logging.getLogger(__name__)

FAIL_ON_CHOICES = ("minor", "major", "critical")
#: Bound on each primitive call of the check (a page that never answers must not hang CI).
CHECK_TIMEOUT_MS = 15_000
# A page that renders after load (fetching its data) gets this long to become quiet.
_SETTLE = {"quiet_ms": 200, "timeout_ms": 3000}
_SETTLE_FALLBACK_S = 0.5
#: How long the check waits, in all, for what the map expects on the page (a client-rendered page's
#: data, a form that arrives late) before judging; a drifted page costs at most this much more.
READY_TIMEOUT_MS = 5_000

_MARKS = {"pass": "ok  ", "warn": "warn", "fail": "FAIL", "error": "ERR "}


def format_report(report: dict[str, Any], manifest: str) -> str:
    """The human-readable report: one line per item, warnings and evidence where something drifted."""
    lines = [f"mcp-actions check: {manifest} against {report['url']}"]
    for item in report["items"]:
        # A pass that only informs (a state not current now, a step that runs after the action) reads as such.
        mark = "info" if item["status"] == "pass" and item.get("note") else _MARKS[item["status"]]
        lines.append(f"  {mark} {item['kind']:<10} {item['id']}  [{item['severity']}]  {item['message']}")
        if item["status"] in ("fail", "error"):
            evidence = json.dumps(item["evidence"], ensure_ascii=False, separators=(",", ":"), default=str)
            lines.append(f"         evidence: {evidence[:400]}{'…' if len(evidence) > 400 else ''}")
        for warning in item["warnings"]:
            if warning != item["message"]:
                lines.append(f"         warning: {warning}")
    s = report["summary"]
    verdict = "OK" if report["ok"] else f"DRIFT at or above {report['fail_on']}"
    lines.append(f"{s['pass']} passed, {s['warn']} warnings, {s['fail']} failed, {s['error']} errors: {verdict}")
    return "\n".join(lines)


async def _run(manifest_path: str, url: str, *, fail_on: str, browser_path: str | None) -> dict[str, Any]:
    result = load_paths([manifest_path])
    if result.failures or not result.manifests:
        problems = [f"{r.file}:{p.path} {p.code} {p.message}" for r in result.failures for p in r.errors]
        raise ActionsError("the map is not valid: " + ("; ".join(problems) or "no manifest found"), code=ErrorCode.MANIFEST_INVALID)
    manifest = result.manifests[0].model
    projections = [CompiledProjection(p) for p in manifest.state_projections]
    async with headless_tab(browser_path=browser_path, timeout_ms=CHECK_TIMEOUT_MS, url=url) as (bridge, tab):
        runtime_id = tab.runtime_id
        info = bridge.registry.get(runtime_id)
        # What the tab can do is RuntimeInfo.provides' one answer, as for every call of the server.
        provides = info.provides if info is not None else (lambda _name: False)

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            # A wait bounds itself (timeout_ms): leave it room to answer before the call's own bound.
            bound = CHECK_TIMEOUT_MS + int(arguments.get("timeout_ms") or 0) if name == "locator.wait_for" else CHECK_TIMEOUT_MS
            return await bridge.call(name, arguments, runtime_id=runtime_id, timeout_ms=bound)

        async def settle() -> None:
            if provides("dom.settle"):
                await call("dom.settle", dict(_SETTLE))
            else:
                await asyncio.sleep(_SETTLE_FALLBACK_S)

        await settle()
        ready = await wait_until_expected(call, manifest, url=tab.page.url, timeout_ms=READY_TIMEOUT_MS)
        if ready["waited_ms"] > _SETTLE["quiet_ms"]:
            await settle()  # it rendered late: let the rest of it land too

        async def extract(rid: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
            if not provides(EXTRACT_PRIMITIVE):
                raise ActionError(f"this browser host cannot run {EXTRACT_PRIMITIVE}", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"capability": EXTRACT_PRIMITIVE})
            return await bridge.call(EXTRACT_PRIMITIVE, arguments, runtime_id=rid, timeout_ms=timeout_ms or CHECK_TIMEOUT_MS)

        service = ProjectionService(extract=extract, projections_for=lambda _rid: {p.name: p for p in projections})
        final_url = tab.page.url
        report = await drift_report(
            manifest,
            call,
            lambda wanted: service.observe_all(runtime_id, wanted),
            projections,
            url=final_url,
            fail_on=fail_on,
        )
        report["ready"] = ready
        return report


def run_check_command(manifest: str, url: str, *, as_json: bool, fail_on: str, out: TextIO, err: TextIO, browser_path: str | None = None) -> int:
    """Run ``mcp-actions check`` and return its exit status (0, 1 or 2)."""
    if fail_on not in FAIL_ON_CHOICES:
        print(f"mcp-actions check: {ErrorCode.USAGE_ERROR}: --fail-on must be one of {', '.join(FAIL_ON_CHOICES)}", file=err)
        return 2
    if not Path(manifest).is_file():
        print(f"mcp-actions check: {ErrorCode.PATH_NOT_FOUND}: no such manifest file: {manifest}", file=err)
        return 2
    try:
        report = asyncio.run(_run(manifest, url, fail_on=fail_on, browser_path=browser_path))
    except ActionsError as exc:
        print(f"mcp-actions check: {exc.code}: {exc.message}", file=err)
        return 2
    except OSError as exc:
        print(f"mcp-actions check: {ErrorCode.IO_ERROR}: {exc}", file=err)
        return 2
    report["manifest"] = manifest
    record_check(manifest, report, failing(report, fail_on))  # for the status page of a server serving this map
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2, default=str), file=out)
    else:
        print(format_report(report, manifest), file=out)
    return 1 if failing(report, fail_on) else 0


assert set(FAIL_ON_CHOICES) <= set(SEVERITY_ORDER)
