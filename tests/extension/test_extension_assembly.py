"""The page engine exists once (runtimes/page/); the extension the user loads is assembled from it (extension/bundle.py).

An MV3 extension may only inject code it ships, so the folder "Load unpacked" points at holds
``engine.js``; the repository and the package do not: ``refresh_extension`` writes it, with the
package's own extension files, into the assembled folder, and only what differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_actions.extension import extension_dir, extension_info, refresh_extension
from mcp_actions.extension.bundle import ENGINE_FILE, EXTENSION_DIR_ENV, package_dir
from mcp_actions.runtimes.page_script import engine_js


def test_the_engine_is_not_copied_into_the_package() -> None:
    assert not (package_dir() / ENGINE_FILE).exists()
    assert (package_dir() / "manifest.json").is_file()


def test_the_assembled_extension_holds_the_current_engine_and_every_file_of_the_package() -> None:
    folder = extension_dir()
    assert (folder / ENGINE_FILE).read_text(encoding="utf-8") == engine_js()
    for shipped in package_dir().iterdir():
        assert (folder / shipped.name).read_bytes() == shipped.read_bytes(), shipped.name
    assert extension_info()["path"] == str(folder)


def test_refreshing_writes_only_what_differs_and_removes_what_the_package_no_longer_ships(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTENSION_DIR_ENV, str(tmp_path / "ext"))
    assert refresh_extension() is True
    assert refresh_extension() is False  # nothing differs: nothing written, the browser's copy untouched
    engine = tmp_path / "ext" / ENGINE_FILE
    engine.write_text("// an engine of an older version", encoding="utf-8")
    (tmp_path / "ext" / "gone.js").write_text("// a file an older version shipped", encoding="utf-8")
    assert refresh_extension() is True
    assert engine.read_text(encoding="utf-8") == engine_js() and not (tmp_path / "ext" / "gone.js").exists()
