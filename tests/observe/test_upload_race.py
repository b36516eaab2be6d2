"""Uploads read only what is under the root at the moment of reading (issue 41): a swapper racing the reads never wins.

With write access inside an upload root, a process can swap a name between a
regular file and a symbolic link to a file outside, or a folder between a real
one and a link to a folder outside, while ``page_fill {files}`` runs. On
5735e83 a path checked inside the root was then read through the link within
5 to 14 calls. Here a real process swaps both in a tight loop while the page
tool (real Chromium, the server's own tab) and the reader under it are called
many times (the swapper is another process, as an attacker is): not one byte of the outside files reaches the page or the reader's
answer, and the calls that lost the race are ``permission_denied`` or
``storage_file_not_found``, never a crash.
"""

from __future__ import annotations

import base64
import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from mcp_actions.dispatch.builtins.acting.page_files import read_uploads
from mcp_actions.errors import ActionError

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

GOT = "() => [...document.querySelectorAll('#got li')].map((li) => li.textContent)"
OUTSIDE = b"OUTSIDE-THE-ROOT"


#: The swapper: another process, as an attacker with write access inside the root would be (a thread of
#: this one would mostly wait for the GIL while the reader works, and seldom race it at all).
SWAPPER = """
import os, sys
root, outside = sys.argv[1], sys.argv[2]
doc, folder = os.path.join(root, "doc.txt"), os.path.join(root, "dir")
n = 0
while True:
    # doc.txt: a regular file, then a link to the outside file, each put in place atomically.
    with open(os.path.join(root, ".fresh"), "wb") as f:
        f.write(b"inside")
    os.replace(os.path.join(root, ".fresh"), doc)
    try:
        os.unlink(os.path.join(root, ".link"))
    except FileNotFoundError:
        pass
    os.symlink(os.path.join(outside, "doc.txt"), os.path.join(root, ".link"))
    os.replace(os.path.join(root, ".link"), doc)
    # dir: a real folder holding doc.txt, then a link to the outside folder.
    try:
        os.unlink(folder)
    except FileNotFoundError:
        pass
    os.mkdir(os.path.join(root, ".dir"))
    with open(os.path.join(root, ".dir", "doc.txt"), "wb") as f:
        f.write(b"inside")
    os.rename(os.path.join(root, ".dir"), folder)
    os.unlink(os.path.join(folder, "doc.txt"))
    os.rmdir(folder)
    os.symlink(os.path.join(outside, "dir"), folder)
    n += 1
    if n % 100 == 0:
        with open(os.path.join(outside, "swaps"), "w") as f:
            f.write(str(n))
"""


@contextlib.contextmanager
def swapping(root: Path, outside: Path) -> Iterator[Callable[[], int]]:
    """A process that swaps ``root/doc.txt`` (file ↔ link to an outside file) and ``root/dir`` (folder ↔ link to an outside folder) in a loop."""
    (outside / "dir").mkdir()
    (outside / "doc.txt").write_bytes(OUTSIDE)
    (outside / "dir" / "doc.txt").write_bytes(OUTSIDE)
    process = subprocess.Popen([sys.executable, "-c", SWAPPER, str(root), str(outside)])

    def swaps() -> int:
        with contextlib.suppress(OSError, ValueError):
            return int((outside / "swaps").read_text())
        return 0

    try:
        while swaps() == 0:  # under way
            assert process.poll() is None, "the swapper stopped"
            time.sleep(0.01)
        yield swaps
    finally:
        process.kill()
        process.wait(5)


def test_the_reader_never_reads_through_a_swapped_link(tmp_path: Path) -> None:
    """2,000 reads of each name while the swapper runs: every answer is the inside bytes or a refusal."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    read = {"inside": 0, "refused": 0}
    with swapping(root, outside) as swaps:
        for _ in range(2000):
            for name in ("doc.txt", "dir/doc.txt"):
                try:
                    [got] = read_uploads([str(root / name)], [root])
                except ActionError as exc:
                    assert exc.code in ("permission_denied", "storage_file_not_found"), exc
                    read["refused"] += 1
                    continue
                data = base64.b64decode(got["data"])
                assert data == b"inside", f"read {data!r} from outside the root after {swaps()} swaps"
                read["inside"] += 1
        assert read["inside"] > 0 and read["refused"] > 0 and swaps() >= 100, (read, swaps())  # the race was run, both ways


async def test_no_byte_from_outside_the_root_reaches_the_page(chromium: Browser, pages_url: str, tmp_path: Path) -> None:
    """300 page_fill {files} calls into a real page while the swapper runs: the page never gets the outside bytes."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    async with hosted("browser", chromium) as host:
        host.service.upload_roots = (root,)
        page = await host.open(f"{pages_url}/frames/upload.html")
        landed = 0
        with swapping(root, outside):
            for n in range(300):
                name = "doc.txt" if n % 2 else "dir/doc.txt"
                try:
                    await host.call("page_fill", {"text": "CV", "files": [str(root / name)]})
                    landed += 1
                except ActionError as exc:
                    assert exc.code in ("permission_denied", "storage_file_not_found"), exc
        got = " ".join(await page.evaluate(GOT))
        assert OUTSIDE.decode() not in got, got
        assert landed > 0 and '"inside"' in got, got
