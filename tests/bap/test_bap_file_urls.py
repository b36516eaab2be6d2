"""BAP's ``page/navigate`` and ``page/create`` to a local file are refused, as MCP's are (issue 51, finding 9).

The shared server of tests/bap/ (tests/bap/bap_server.py) is started without ``--allow-file-urls``:
a ``file:`` URL (or ``view-source:`` of one) is ``DomainNotAllowed`` naming the file, nothing is
opened, and the page's content never shows the file. The released client, as an agent connects it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol.errors import BAPError  # after the skip

from tests.bap.bap_server import Server, client

SECRET = "BAP-LOCAL-FILE-SECRET"


async def test_a_local_file_is_refused_over_bap(server: Server, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    async with client(server, "files") as c:
        page = await c.create_page(url=server.site)
        for url in (secret.as_uri(), f"view-source:{secret.as_uri()}"):
            with pytest.raises(BAPError) as caught:
                await c.navigate(url)
            assert caught.value.code == -32041, caught.value  # DomainNotAllowed
            assert caught.value.details is not None and caught.value.details["domain"] == secret.as_uri(), caught.value.details
        with pytest.raises(BAPError) as caught:
            await c.create_page(url=secret.as_uri())
        assert caught.value.code == -32041, caught.value
        pages = (await c.list_pages())["pages"]
        assert [p["id"] for p in pages] == [page.id] and not any(str(p["url"]).startswith("file:") for p in pages)
        assert SECRET not in (await c.content()).content
