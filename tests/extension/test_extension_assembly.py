"""The page engine exists once (runtimes/page/); the extension the user loads is assembled from it (extension/bundle.py).

An MV3 extension may only inject code it ships, so the folder "Load unpacked" points at holds
``engine.js``; the repository and the package do not: ``refresh_extension`` writes it, with the
package's own extension files, into the assembled folder, and only what differs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_actions import __version__
from mcp_actions.extension import extension_dir, extension_info, refresh_extension
from mcp_actions.extension.bundle import ENGINE_FILE, EXTENSION_DIR_ENV, package_dir
from mcp_actions.extension.identity import chrome_version
from mcp_actions.runtimes.page_script import engine_js


def test_the_engine_is_not_copied_into_the_package() -> None:
    assert not (package_dir() / ENGINE_FILE).exists()
    assert (package_dir() / "manifest.json").is_file()


def test_the_assembled_extension_holds_the_current_engine_and_every_file_of_the_package() -> None:
    folder = extension_dir()
    assert (folder / ENGINE_FILE).read_text(encoding="utf-8") == engine_js()
    for shipped in package_dir().iterdir():
        if shipped.name != "manifest.json":  # written with the package's version (below)
            assert (folder / shipped.name).read_bytes() == shipped.read_bytes(), shipped.name
    assert extension_info()["path"] == str(folder)


def test_the_extension_carries_the_packages_version() -> None:
    # One version everywhere: the extension a build writes is that build's (Chrome's form, and the package's own as its name).
    written = json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    shipped = json.loads((package_dir() / "manifest.json").read_text(encoding="utf-8"))
    assert written["version_name"] == __version__ and written["version"] == chrome_version(__version__)
    assert {k: v for k, v in written.items() if not k.startswith("version")} == {k: v for k, v in shipped.items() if not k.startswith("version")}
    info = extension_info()
    assert (info["version"], info["version_name"]) == (written["version"], __version__)


@pytest.mark.parametrize(
    ("package", "chrome"),
    [("0.2.0", "0.2.0"), ("0.0.1.dev915+g3b11e40c3", "0.0.1.915"), ("0.2.1.dev3+gabc.d20261207", "0.2.1.3"), ("1.2", "1.2"), ("0.3.0rc1", "0.3.0"), ("0.0.0", "0.0.0")],
)
def test_chromes_form_of_a_version_is_integers_and_grows_with_each_build(package: str, chrome: str) -> None:
    assert chrome_version(package) == chrome


def test_refreshing_writes_only_what_differs_and_removes_what_the_package_no_longer_ships(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTENSION_DIR_ENV, str(tmp_path / "ext"))
    assert refresh_extension() is True
    assert refresh_extension() is False  # nothing differs: nothing written, the browser's copy untouched
    engine = tmp_path / "ext" / ENGINE_FILE
    engine.write_text("// an engine of an older version", encoding="utf-8")
    (tmp_path / "ext" / "gone.js").write_text("// a file an older version shipped", encoding="utf-8")
    assert refresh_extension() is True
    assert engine.read_text(encoding="utf-8") == engine_js() and not (tmp_path / "ext" / "gone.js").exists()
