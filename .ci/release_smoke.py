"""The release check's last step (.ci/release_check): the installed wheel alone serves MCP over stdio.

Run with the clean venv's Python, from outside the source tree, so that ``mcp_actions`` can only
be the installed wheel: it checks that the package, the browser extension and the page engine are
inside that install, then starts the venv's ``mcp-actions`` with the bundled demo map and makes one
``tools/list`` through the MCP SDK's client. Prints one line per check; exits non-zero on the first
that fails.
"""

from __future__ import annotations

import asyncio
import sys
import sysconfig
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client


def _check(ok: bool, what: str) -> None:
    print(f"release check: {'ok' if ok else 'FAILED'}: {what}", flush=True)
    if not ok:
        raise SystemExit(1)


def check_install() -> Path:
    """The package, the extension, the page engine and the demo map are the install's; returns the map."""
    import mcp_actions
    from mcp_actions.extension import extension_version
    from mcp_actions.extension.bundle import extension_dir, package_dir
    from mcp_actions.manifest.paths import bundled_manifests_dir
    from mcp_actions.runtimes.page_script import engine_js, runtime_js

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    package = Path(mcp_actions.__file__).resolve().parent
    _check(package.is_relative_to(site), f"mcp_actions {mcp_actions.__version__} is imported from the install ({package})")
    shipped = package_dir()
    _check(shipped.is_relative_to(package) and (shipped / "manifest.json").is_file(), f"the browser extension {extension_version()} is inside it ({shipped})")
    extension = Path(extension_dir()).resolve()
    assembled = (extension / "engine.js").read_text(encoding="utf-8") if (extension / "engine.js").is_file() else ""
    _check(assembled == engine_js() and (extension / "manifest.json").is_file(), f"and is assembled with the page engine for Load unpacked ({extension})")
    _check(len(runtime_js()) > 10_000, f"the page engine is inside it ({len(runtime_js())} characters)")
    demo_map = bundled_manifests_dir() / "demo" / "actions.json"
    _check(demo_map.is_file() and demo_map.resolve().is_relative_to(package), f"the bundled demo map is inside it ({demo_map})")
    return demo_map


async def list_tools(command: str, demo_map: Path) -> None:
    """One stdio ``tools/list`` through the SDK's client against ``command`` serving the demo map."""
    params = StdioServerParameters(command=command, args=["--browser", "none", "--manifests", str(demo_map), "--no-watch", "--audit-log", "off"])
    async with Client(stdio_client(params), read_timeout_seconds=60) as client:
        tools = (await client.list_tools()).tools
    names = sorted(tool.name for tool in tools)
    _check("demo_add_task" in names and all("mcp-actions/tool" in (tool.meta or {}) for tool in tools), f"tools/list over stdio through the SDK client: {len(names)} tools ({', '.join(names[:4])}, ...)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: release_smoke.py PATH/TO/mcp-actions")
    asyncio.run(list_tools(sys.argv[1], check_install()))
