"""The ``validate`` command's logic: exit codes, the --json shape of docs/cli.md, the human lines."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from mcp_actions.cli import run_validate
from mcp_actions.manifest.report import format_problem

from .builders import base, edit

VALID = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "valid"
INVALID = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "invalid"


def run(*paths: str | Path, as_json: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_validate([str(path) for path in paths], as_json=as_json, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def write(directory: Path, name: str, document: object) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# -- exit status


def test_all_valid_exits_0_and_prints_no_problem_lines(tmp_path: Path) -> None:
    # kitchen_sink.json imports from https://example.org, which serve refuses when it cannot fetch it, and
    # validate composes as serve does (test_validate_agrees.py): a map with an import that composes is used.
    write(tmp_path, "helpers/actions.json", base())
    importing = edit(base(), "/imports", [{"id": "helpers", "kind": "local", "uri": "./helpers/actions.json", "namespace": "helpers"}])
    shop = write(tmp_path, "shop.actions.json", importing)
    status, out, err = run(VALID / "minimal.json", shop)
    assert status == 0
    # All on stdout (validate map > out.txt keeps it): each file's verdict, then the summary.
    assert out == f"{VALID / 'minimal.json'}: valid\n{shop}: valid\nchecked 2 manifests: 2 valid, 0 invalid (0 errors, 0 warnings)\n"
    assert err == ""


def test_warnings_alone_keep_exit_0() -> None:
    status, out, _ = run(VALID / "simple_form.json")
    assert status == 0
    assert out == f"{VALID / 'simple_form.json'}:/prompt unknown_field warning: manifest: unknown field 'prompt'\nchecked 1 manifest: 1 valid, 0 invalid (0 errors, 1 warning)\n"


def test_any_invalid_exits_1() -> None:
    status, out, err = run(VALID / "minimal.json", INVALID / "tool_name_unsafe.json")
    assert status == 1
    assert out.splitlines() == [
        f"{VALID / 'minimal.json'}: valid",
        f"{INVALID / 'tool_name_unsafe.json'}:/tools/0/name invalid_identifier tool name '1form.submit' is not a safe identifier",
        f"{INVALID / 'tool_name_unsafe.json'}: invalid (1 error, 0 warnings)",
        "checked 2 manifests: 1 valid, 1 invalid (1 error, 0 warnings)",
    ]
    assert err == ""


def test_no_paths_is_a_usage_error() -> None:
    status, out, err = run()
    assert (status, out) == (2, "")
    assert "usage" in err


def test_missing_path_exits_2_but_reports_the_others(tmp_path: Path) -> None:
    status, out, err = run(tmp_path / "nope.actions.json", INVALID / "tool_name_unsafe.json")
    assert status == 2  # an I/O error outranks an invalid manifest
    assert "invalid_identifier" in out
    assert "nope.actions.json" in err and "1 path could not be read" in out


def test_directory_without_manifests_exits_2(tmp_path: Path) -> None:
    write(tmp_path, "notes.json", {})
    status, _, err = run(tmp_path)
    assert status == 2
    assert "no actions.json" in err


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="file modes are POSIX")
def test_unreadable_file_exits_2() -> None:
    # Root reads any file: run as root (how CI runs), the check reads it as nobody for the while,
    # from a folder nobody may enter, so it is the file's own mode that refuses it.
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o755)
        path = write(folder, "locked.actions.json", base())
        path.chmod(0)
        as_root = os.geteuid() == 0
        if as_root:
            os.seteuid(65534)
        try:
            status, _, err = run(path)
        finally:
            if as_root:
                os.seteuid(0)
        assert status == 2 and "locked.actions.json" in err
    finally:
        shutil.rmtree(folder)


def test_dangling_symlink_exits_2(tmp_path: Path) -> None:
    link = tmp_path / "gone.actions.json"
    link.symlink_to(tmp_path / "deleted.actions.json")
    status, out, err = run(link)
    assert (status, out) == (2, "checked 0 manifests: 0 valid, 0 invalid (0 errors, 0 warnings); 1 path could not be read\n")
    assert "gone.actions.json" in err


def test_directory_is_searched_recursively_for_manifest_names(tmp_path: Path) -> None:
    write(tmp_path, "a/actions.json", base())
    write(tmp_path, "b/c/shop.actions.json", edit(base(), "/version", 2))
    write(tmp_path, "b/other.json", {"not": "a manifest"})  # neither actions.json nor *.actions.json
    status, out, err = run(tmp_path, as_json=True)
    assert status == 1
    files = [entry["file"] for entry in json.loads(out)]
    assert files == [str(tmp_path / "a/actions.json"), str(tmp_path / "b/c/shop.actions.json")]


# -- files that are not JSON are invalid manifests, not I/O errors


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"not json", b"\xff\xfe\x00garbage", b"[" * 100_000 + b"]" * 100_000],
    ids=["empty", "truncated", "text", "binary", "absurdly-nested"],
)
def test_a_file_that_is_not_json_is_invalid_json(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.actions.json"
    path.write_bytes(content)
    status, out, _ = run(path, as_json=True)
    assert status == 1
    (entry,) = json.loads(out)
    assert entry["valid"] is False
    assert [(p["code"], p["path"]) for p in entry["errors"]] == [("invalid_json", "")]


def test_human_line_for_a_root_problem_keeps_the_empty_pointer(tmp_path: Path) -> None:
    path = tmp_path / "broken.actions.json"
    path.write_text("{", encoding="utf-8")
    _, out, _ = run(path)
    assert out.startswith(f"{path}: invalid_json ")


# -- the JSON shape


def test_json_output_is_one_array_in_the_contract_shape(tmp_path: Path) -> None:
    good = write(tmp_path, "good.actions.json", base())
    bad = write(tmp_path, "bad.actions.json", edit(edit(base(), "/prompt", {}), "/tools/1/name", "9x"))
    status, out, _ = run(good, bad, as_json=True)
    assert status == 1
    assert json.loads(out) == [
        {"file": str(good), "valid": True, "errors": [], "warnings": []},
        {
            "file": str(bad),
            "valid": False,
            "errors": [{"code": "invalid_identifier", "path": "/tools/1/name", "message": "tool name '9x' is not a safe identifier"}],
            "warnings": [{"code": "unknown_field", "path": "/prompt", "message": "manifest: unknown field 'prompt'"}],
        },
    ]
    assert out.count("\n[") == 0 and out.startswith("[")  # exactly one array


def test_json_output_for_every_fixture_matches_check_manifest() -> None:
    status, out, _ = run(*sorted(INVALID.glob("*.json")), as_json=True)
    assert status == 1
    entries = json.loads(out)
    assert len(entries) == len(list(INVALID.glob("*.json")))
    for entry in entries:
        assert set(entry) == {"file", "valid", "errors", "warnings"}
        assert entry["valid"] is False and len(entry["errors"]) == 1
        for problem in entry["errors"] + entry["warnings"]:
            assert set(problem) == {"code", "path", "message"}
            assert all(isinstance(value, str) for value in problem.values())


# -- the human form


def test_human_lines_list_errors_and_warnings_in_path_order(tmp_path: Path) -> None:
    document = edit(edit(edit(base(), "/prompt", {}), "/tools/1/name", "9x"), "/version", 3)
    path = write(tmp_path, "m.actions.json", document)
    status, out, err = run(path)
    assert status == 1
    assert out.splitlines() == [
        f"{path}:/prompt unknown_field warning: manifest: unknown field 'prompt'",
        f"{path}:/tools/1/name invalid_identifier tool name '9x' is not a safe identifier",
        f"{path}:/version unsupported_version version must be 1",
        "checked 1 manifest: 0 valid, 1 invalid (2 errors, 1 warning)",  # one file: the summary is its verdict
    ]
    assert err == ""


def test_format_problem_splits_into_location_code_and_message() -> None:
    from mcp_actions.manifest.problems import Problem

    line = format_problem("x.json", Problem("/a/b", "invalid_type", "expected string, got integer"))
    location, code, message = line.split(" ", 2)
    assert (location, code, message) == ("x.json:/a/b", "invalid_type", "expected string, got integer")
