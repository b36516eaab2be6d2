"""One BAP server for the tests of tests/bap/ (tests/bap/bap_server.py): starting Chromium once is most of their time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")

from tests.bap.bap_server import Server, bap_server  # after the skip


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with bap_server(tmp_path_factory.mktemp("bap")) as served:
        yield served
