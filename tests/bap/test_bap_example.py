"""docs/bap.md's client runs as written: the released BAP client sends the guide's contact page a message (issue 57).

The script is the repository's file that docs/bap.md shows whole (checked here, byte for byte), run
as a user runs it, ``python docs/examples/bap/send_message.py TOKEN BAP_URL PAGE_URL``, against a real
``mcp-actions serve --bap-port`` and getting-started.md's contact page on loopback.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.demo.static import StaticSite
from tests.bap.bap_server import TOKEN, _wait_for
from tests.server.session_servers import free_port, http_serve

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "examples" / "bap" / "send_message.py"


def test_the_doc_shows_the_script_whole() -> None:
    text = (ROOT / "docs" / "bap.md").read_text(encoding="utf-8")
    shown = re.search(r"^<!-- file: docs/examples/bap/send_message.py -->\n```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    assert shown is not None and shown.group(1) == SCRIPT.read_text(encoding="utf-8")


def test_the_bap_example_sends_the_message_and_prints_the_answer(tmp_path: Path) -> None:
    port = free_port()
    with StaticSite(ROOT / "docs" / "examples" / "first-map") as site, http_serve(tmp_path / "server", "--bap-port", str(port), "--bap-token", TOKEN):
        _wait_for(port)
        done = subprocess.run([sys.executable, str(SCRIPT), TOKEN, f"ws://127.0.0.1:{port}/", site.url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "Thanks, Ada! We will reply to ada@example.com.", done.stdout
