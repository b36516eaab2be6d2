"""The release build (issue 34, item 11; docs/releasing.md): the version from git tags, what the wheel
holds, ``--version``, and the metadata a release ships (CHANGELOG.md, server.json).

Each build runs hatchling (with hatch-vcs) on a copy of this tree, as the release does, without
build isolation: a tagged commit, a commit with no tag, and a tree with no git at all. The end-to-end
check from a clean venv (uvx, ``mcp-actions demo``, stdio ``tools/list``) is ``.ci/release_check``,
which CI runs once.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What the build reads (pyproject.toml's wheel and sdist targets).
_SOURCES = ("pyproject.toml", "README.md", "CHANGELOG.md", "server.json", "mcp_actions", "manifests")


def _copy_tree(to: Path) -> Path:
    to.mkdir()
    for name in _SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, to / name)
    return to


def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=release test", "-c", "user.email=release@test.invalid", "-c", "commit.gpgsign=false", *args], cwd=tree, check=True, capture_output=True, timeout=60)


def _build(tree: Path, kind: str = "wheel") -> Path:
    """Build the wheel (or the sdist) of ``tree`` with hatchling, as a release does; returns the file."""
    out = tree.parent / f"{tree.name}-dist"
    script = f"import sys; from hatchling.build import build_{kind}; print(build_{kind}(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", script, str(out)], cwd=tree, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out / done.stdout.strip().splitlines()[-1]


def _wheel_version(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        return re.search(r"^Version: (.+)$", archive.read(metadata).decode(), re.MULTILINE).group(1)


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a copy of this tree committed and tagged v9.8.7."""
    tree = _copy_tree(tmp_path_factory.mktemp("release") / "tagged")
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "release")
    _git(tree, "tag", "v9.8.7")
    return tree


def test_a_tag_is_the_version_and_mcp_actions_version_prints_it(tagged: Path) -> None:
    wheel = _build(tagged)
    assert _wheel_version(wheel) == "9.8.7"
    # The wheel alone (nothing of this tree on the path): the command prints the installed version.
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "--version"], cwd=wheel.parent, env={"PYTHONPATH": str(wheel), "PATH": ""}, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "mcp-actions 9.8.7\n"), done.stderr


def test_the_wheel_holds_the_extension_the_page_engine_and_the_demo(tagged: Path) -> None:
    with zipfile.ZipFile(_build(tagged)) as archive:
        names = set(archive.namelist())
    extension = {p.relative_to(ROOT).as_posix() for p in (ROOT / "mcp_actions" / "extension" / "chrome").iterdir() if p.is_file()}
    page = {p.relative_to(ROOT).as_posix() for p in (ROOT / "mcp_actions" / "runtimes" / "page").glob("*.js")}
    # The extension's own files and the engine's modules, once: the folder a user loads is assembled from both (extension/bundle.py).
    assert "mcp_actions/extension/chrome/manifest.json" in extension and "mcp_actions/extension/chrome/engine.js" not in names
    assert extension <= names and page and page <= names
    assert {"mcp_actions/_bundled_manifests/demo/actions.json", "mcp_actions/demo/site/index.html"} <= names
    assert not any("__pycache__" in name or name.startswith(("tests/", "bench/")) for name in names)


def test_an_sdist_keeps_the_tag_version_without_git(tagged: Path, tmp_path: Path) -> None:
    sdist = _build(tagged, "sdist")
    assert sdist.name == "mcp_actions-9.8.7.tar.gz"
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    unpacked = tmp_path / "mcp_actions-9.8.7"
    assert not (unpacked / ".git").exists() and (unpacked / "CHANGELOG.md").is_file() and (unpacked / "server.json").is_file()
    assert _wheel_version(_build(unpacked)) == "9.8.7"  # read from the sdist's PKG-INFO


def test_a_clone_without_tags_still_builds(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "untagged")
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "no tag")
    assert re.fullmatch(r"0\.0\.1\.dev1\+g[0-9a-f]+", _wheel_version(_build(tree)))


def test_a_tree_without_git_builds_with_the_fallback_version(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "archive")
    assert _wheel_version(_build(tree)) == "0.0.0"


# -- what a release ships beside the code

#: The MCP registry's server.json, as far as this file uses it (the registry's schema of 2025-12-11:
#: name in reverse-DNS form with one slash, a description of at most 100 characters, an exact version,
#: packages with registryType, identifier, version and transport). docs/releasing.md links the schema.
SERVER_JSON_SHAPE = {
    "type": "object",
    "required": ["$schema", "name", "description", "version", "packages"],
    "properties": {
        "$schema": {"const": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"},
        "name": {"type": "string", "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", "minLength": 3, "maxLength": 200},
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255, "not": {"pattern": r"^[\^~<>=]|\.x$|\*|^latest$"}},
        "websiteUrl": {"type": "string", "format": "uri"},
        "repository": {"type": "object", "required": ["url", "source"], "properties": {"url": {"type": "string", "format": "uri"}, "source": {"type": "string"}}},
        "packages": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "registryType": {"enum": ["npm", "pypi", "nuget", "oci", "mcpb"]},
                    "registryBaseUrl": {"type": "string", "format": "uri"},
                    "identifier": {"type": "string", "minLength": 1},
                    "version": {"type": "string", "minLength": 1, "not": {"const": "latest"}},
                    "runtimeHint": {"type": "string"},
                    "transport": {"type": "object", "required": ["type"], "properties": {"type": {"enum": ["stdio", "streamable-http", "sse"]}}},
                    "packageArguments": {"type": "array"},
                    "environmentVariables": {
                        "type": "array",
                        "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "isRequired": {"type": "boolean"}, "isSecret": {"type": "boolean"}}},
                    },
                },
            },
        },
    },
}


def _released_versions() -> list[str]:
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.MULTILINE)


def test_server_json_follows_the_registry_format_and_names_this_package() -> None:
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(SERVER_JSON_SHAPE, format_checker=jsonschema.FormatChecker()).validate(server)
    [package] = server["packages"]
    assert (package["registryType"], package["identifier"], package["transport"]) == ("pypi", "mcp-actions", {"type": "stdio"})
    # One version everywhere: the last release in CHANGELOG.md is the one server.json lists.
    assert server["version"] == package["version"] == _released_versions()[0]
    # Every environment variable it names is one serve reads (docs/cli.md).
    cli_doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert all(f"`{variable['name']}`" in cli_doc for variable in package.get("environmentVariables", []))


def test_server_json_shape_refuses_what_the_registry_refuses() -> None:
    """The shape above is not vacuous: what the registry rejects, it rejects too."""
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(SERVER_JSON_SHAPE, format_checker=jsonschema.FormatChecker())
    for path, bad in ((("name",), "mcp-actions"), (("description",), "x" * 101), (("version",), "^1.0.0"), (("packages", 0, "version"), "latest"), (("packages", 0, "transport", "type"), "carrier-pigeon")):
        broken = json.loads(json.dumps(server))
        target = broken
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = bad
        assert not validator.is_valid(broken), path


def test_the_changelog_and_the_release_steps_exist() -> None:
    assert _released_versions(), "CHANGELOG.md has no '## [X.Y.Z]' release"
    steps = (ROOT / "docs" / "releasing.md").read_text(encoding="utf-8")
    for needed in ("git tag v", ".ci/release_check", "twine upload", "server.json", "mcp-name:", "mcp-publisher"):
        assert needed in steps, needed
