"""page_fill {files}: a file input takes files the server read from the upload roots, on both hosts.

Fixture: tests/fixtures/pages/frames/upload.html (a plain CV input, and a multiple input hidden
behind its "Attach photos" label; the page reads each file it was given and lists it). Paths
outside the upload roots — plainly, or through a symlink inside a root — are permission_denied
and the page is not touched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

GOT = "() => [...document.querySelectorAll('#got li')].map((li) => li.textContent)"


@pytest.mark.parametrize("kind", KINDS)
async def test_files_from_the_upload_root_reach_the_page_and_others_are_refused(kind: str, chromium: Browser, pages_url: str, tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "cv.txt").write_text("Jane Doe, engineer\n")
    (allowed / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (allowed / "b.png").write_bytes(b"\x89PNG\r\n\x1a\nB")
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the page")
    (allowed / "link.txt").symlink_to(secret)
    async with hosted(kind, chromium) as host:
        host.service.upload_roots = (allowed,)
        page = await host.open(f"{pages_url}/frames/upload.html")
        answer = await host.call("page_fill", {"text": "CV", "files": [str(allowed / "cv.txt")]})
        assert answer.startswith('set @e') and 'file input to "cv.txt"' in answer, answer
        assert '+ "cv: cv.txt (text/plain, 19 bytes) \\"Jane Doe, engineer\\\\n\\""' in answer, answer
        # The hidden multiple input, through its label's text; the bytes arrive whole (binary too).
        photos = await host.call("page_fill", {"text": "Attach photos", "files": [str(allowed / "a.png"), str(allowed / "b.png")]})
        assert '"a.png", "b.png"' in photos, photos
        assert [line.split(" (")[0] for line in await page.evaluate(GOT)] == ["cv: cv.txt", "photos: a.png", "photos: b.png"]
        assert "photos: a.png (image/png, 264 bytes)" in (await page.evaluate(GOT))[1]

        async def refused(arguments: dict[str, object]) -> ActionError:
            with pytest.raises(ActionError) as caught:
                await host.call("page_fill", arguments)
            return caught.value

        outside = await refused({"text": "CV", "files": [str(secret)]})
        assert outside.code == "permission_denied" and outside.evidence["path"] == "/files/0", outside
        through_link = await refused({"text": "CV", "files": [str(allowed / "cv.txt"), str(allowed / "link.txt")]})
        assert through_link.code == "permission_denied" and through_link.evidence["path"] == "/files/1"
        relative = await refused({"text": "CV", "files": ["cv.txt"]})
        assert relative.code == "invalid_input"
        missing = await refused({"text": "CV", "files": [str(allowed / "none.txt")]})
        assert missing.code == "storage_file_not_found"
        two = await refused({"text": "CV", "files": [str(allowed / "a.png"), str(allowed / "b.png")]})
        assert two.code == "invalid_input" and "one file" in str(two)
        not_a_file_input = await refused({"text": "Attach photos", "value": "x", "files": [str(allowed / "a.png")]})
        assert not_a_file_input.code == "invalid_input"
        assert len(await page.evaluate(GOT)) == 3  # nothing refused reached the page
        host.service.upload_roots = ()
        none = await refused({"text": "CV", "files": [str(allowed / "cv.txt")]})
        assert none.code == "permission_denied" and "--upload-root" in str(none)
