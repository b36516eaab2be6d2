"""Benchmark: moving a page's text into another tab's editor, through the transfer buffer or through the model.

One ``ActionsApp`` with its own headless Chromium and the SDK ``Client`` in
process. A report page holds a block of text of ``--kb`` kilobytes; a notes
page holds a textarea. Two ways of the same task, each run ``--runs`` times,
interleaved:

- ``transfer``: ``report_copy`` (the page's text into the transfer buffer,
  ``transfer.write``) in the report's tab, then ``notes_paste``
  (``transfer.insert`` into the textarea) in the notes' tab: the model sees
  two small results and sends two small argument objects;
- ``model``: ``report_read`` returns the text to the model, which sends it
  back as ``notes_write``'s argument (``text.insert``): the payload crosses the
  model's context twice. A report larger than a tool result may be
  (``--max-workflow-output-bytes``, 32,000 by default) is refused here, and the
  run says so.

Counted per run: the bytes the model receives (each result's text content and
``structuredContent``) and sends (the arguments' JSON), and the wall time of
the two calls. The textarea's value is checked after each run.

Usage: ``.venv/bin/python bench/bench_transfer.py [--kb 1 --kb 20 --kb 100] [--runs 5] [--json PATH]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.demo.static import StaticSite
from mcp_actions.server.mcp_server import build_server

__all__ = ["main"]

EMPTY = {"type": "object", "properties": {}, "additionalProperties": False}


def _workflow(*steps: dict[str, Any], output: str) -> dict[str, Any]:
    return {"version": 1, "expression_language": "jsonata", "steps": list(steps), "output": output}


def report_map(origin: str) -> dict[str, Any]:
    """The map of both pages: copy/paste through the buffer, and read/write through the model."""
    read = {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#report"}}}
    tools = [
        {"name": "report.copy", "description": "Copy the report into the transfer buffer.", "input_schema": EMPTY,
         "workflow": _workflow(read, {"id": "keep", "primitive": "transfer.write", "args": {"label": "report", "format": "text/plain", "value": "{% steps.read.output.text %}"}},
                               output="{% {'label': steps.keep.output.label, 'size_bytes': steps.keep.output.size_bytes} %}")},
        {"name": "notes.paste", "description": "Paste the copied report into the notes.", "input_schema": EMPTY,
         "workflow": _workflow({"id": "insert", "primitive": "transfer.insert", "args": {"label": "report", "target": {"selector": "#notes"}, "mode": "replace"}},
                               output="{% {'inserted_bytes': steps.insert.output.inserted_bytes} %}")},
        {"name": "report.read", "description": "Read the report.", "input_schema": EMPTY, "workflow": _workflow(read, output="{% {'text': steps.read.output.text} %}")},
        {"name": "notes.write", "description": "Write text into the notes.", "input_schema": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}, "additionalProperties": False},
         "workflow": _workflow({"id": "insert", "primitive": "text.insert", "args": {"target": {"selector": "#notes"}, "text": "{% input.text %}", "mode": "replace"}},
                               output="{% {'inserted': steps.insert.output.inserted} %}")},
    ]  # fmt: skip
    return {"protocol": "actions.json", "version": 1, "surface": {"origin": origin}, "tools": tools}


def write_site(folder: Path, kb: int) -> str:
    """The two pages; returns the report's text."""
    line = "Quarterly figures, region by region, with their notes and the totals that follow them. "
    text = (line * (kb * 1024 // len(line) + 1))[: kb * 1024]
    (folder / "report.html").write_text(f"<!doctype html><title>Report</title><pre id=report>{text}</pre>")
    (folder / "notes.html").write_text("<!doctype html><title>Notes</title><textarea id=notes rows=20 cols=80></textarea>")
    return text


def _bytes(result: Any) -> int:
    """What the model receives of a call: its text content and its structuredContent."""
    text = sum(len(getattr(c, "text", "").encode()) for c in result.content)
    return text + (len(json.dumps(result.structured_content).encode()) if result.structured_content is not None else 0)


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[int, int]:
    result = await client.call_tool(name, arguments)
    if result.is_error:
        raise RuntimeError(f"{name} failed: {result.content}")
    return _bytes(result), len(json.dumps(arguments).encode())


async def measure(kb: int, runs: int) -> dict[str, list[dict[str, Any]]]:
    """Per-run bytes in and out and wall time of both ways, for a report of ``kb`` kilobytes."""
    with tempfile.TemporaryDirectory(prefix="bench-transfer-") as work:
        site_dir, maps = Path(work) / "site", Path(work) / "maps"
        site_dir.mkdir()
        maps.mkdir()
        text = write_site(site_dir, kb)
        with StaticSite(site_dir) as site:
            origin = "{0.scheme}://{0.netloc}".format(urlsplit(site.url))
            (maps / "report.actions.json").write_text(json.dumps(report_map(origin)))
            app = ActionsApp(AppOptions(manifests=[str(maps)], headless=True, isolated=True, serve_bridge=False))
            async with Client(build_server(app)) as client:
                report = (await client.call_tool("browser_navigate", {"url": site.url.rstrip("/") + "/report.html"})).structured_content
                notes = (await client.call_tool("browser_navigate", {"url": site.url.rstrip("/") + "/notes.html", "new_tab": True})).structured_content
                assert report and notes
                in_report, in_notes = {"target_runtime_id": report["runtime_id"]}, {"target_runtime_id": notes["runtime_id"]}
                assert app.browser is not None
                notes_tab = app.browser.tab(notes["runtime_id"])
                assert notes_tab is not None
                results: dict[str, list[dict[str, Any]]] = {"transfer": [], "model": []}
                for _ in range(runs + 1):  # the first round warms both ways and is not kept
                    rows: dict[str, dict[str, Any]] = {}
                    for way in ("transfer", "model"):
                        await notes_tab.page.fill("#notes", "")
                        started = time.perf_counter()
                        if way == "transfer":
                            first = await _call(client, "report_copy", in_report)
                            second = await _call(client, "notes_paste", in_notes)
                        else:
                            read = await client.call_tool("report_read", in_report)
                            if read.is_error:  # a tool result is bounded (--max-workflow-output-bytes): this way cannot
                                rows[way] = {"refused": str(read.structured_content["error"]["code"]) if read.structured_content else "error"}
                                continue
                            first = (_bytes(read), len(json.dumps(in_report).encode()))
                            second = await _call(client, "notes_write", {"text": read.structured_content["text"], **in_notes})
                        elapsed = (time.perf_counter() - started) * 1000
                        if await notes_tab.page.input_value("#notes") != text:
                            raise RuntimeError(f"{way}: the notes do not hold the report")
                        rows[way] = {"received": first[0] + second[0], "sent": first[1] + second[1], "ms": elapsed}
                    if _ > 0:
                        for way, row in rows.items():
                            results[way].append(row)
                return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=int, action="append", help="report size in KB (repeatable; default 1, 20 and 100)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write every run here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    sizes = args.kb or [1, 20, 100]
    record: dict[str, Any] = {}
    print("| report | way | model receives | model sends | time (median) |\n|---:|---|---:|---:|---:|")
    for kb in sizes:
        runs = asyncio.run(measure(kb, args.runs))
        record[f"{kb}kb"] = runs
        for way, rows in runs.items():
            if any("refused" in r for r in rows):
                print(f"| {kb} KB | {way} | refused: {rows[0].get('refused')} | | |")
                continue
            received = statistics.median(r["received"] for r in rows)
            sent = statistics.median(r["sent"] for r in rows)
            ms = statistics.median(r["ms"] for r in rows)
            print(f"| {kb} KB | {way} | {received / 1024:.1f} KB | {sent / 1024:.2f} KB | {ms:.0f} ms |")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
