"""The validator's on-disk verdict cache: same verdicts, versioned files, safe against corruption.

Each scenario runs the validator in fresh processes (as a server or the
validate command would start), sharing one cache directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_actions.manifest.verdict_cache import DiskMemo, cache_dir, digest

from .builders import WORKFLOW, base, edit

# One of each cached verdict, including failing ones: an expression that does not compile,
# a schema that fails its metaschema, literal step arguments the primitive refuses.
BROKEN_WORKFLOW = edit(edit(WORKFLOW, "/steps/1/when", "{% $x := %}"), "/steps/0/args/surely_unknown", 1)
DOCUMENT = edit(edit(base(), "/tools/1/workflow", BROKEN_WORKFLOW), "/tools/0/input_schema", {"type": "object", "minProperties": -1})

_CHILD = """
import json, sys
from mcp_actions.manifest.validate import check_manifest
report = check_manifest(json.loads(sys.stdin.read()))
print(json.dumps([[p.path, p.code, p.message, p.severity] for p in report.errors + report.warnings]))
"""


def validate_in_fresh_process(cache: Path, document: Any = DOCUMENT, **env: str) -> list[list[str]]:
    environment = {key: value for key, value in os.environ.items() if key != "MCP_ACTIONS_NO_CACHE"}
    environment.update({"MCP_ACTIONS_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **env})
    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(document), env=environment, capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def files(cache: Path) -> dict[str, Path]:
    return {path.name.split("-")[1]: path for path in cache.glob("validator-*.json")}


def test_a_fresh_process_gets_the_same_verdicts_from_disk(tmp_path: Path) -> None:
    first = validate_in_fresh_process(tmp_path)
    codes = {code for _path, code, _message, _severity in first}
    assert {"expression_invalid", "invalid_schema", "primitive_args_invalid"} <= codes
    stored = files(tmp_path)
    assert set(stored) == {"expressions", "schemas", "step"}  # validator-step-args-<fingerprint>.json
    expressions = json.loads(stored["expressions"].read_text())
    assert expressions["kind"] == "expressions"
    assert expressions["entries"][digest("$x :=")][0] == "expression_invalid"
    assert validate_in_fresh_process(tmp_path) == first


def test_a_stored_verdict_is_what_a_fresh_process_reports(tmp_path: Path) -> None:
    """Proof that verdicts are read back: a (well-formed) planted verdict is reported as stored."""
    validate_in_fresh_process(tmp_path)
    path = files(tmp_path)["expressions"]
    content = json.loads(path.read_text())
    content["entries"][digest("$x :=")] = ["expression_invalid", "planted verdict"]
    path.write_text(json.dumps(content))
    messages = [message for _path, code, message, _severity in validate_in_fresh_process(tmp_path) if code == "expression_invalid"]
    assert messages == ["step 'click' when: planted verdict"]


def test_a_corrupt_file_is_ignored_and_rewritten(tmp_path: Path) -> None:
    expected = validate_in_fresh_process(tmp_path)
    for path in files(tmp_path).values():
        path.write_bytes(b"\x00{not json")
    assert validate_in_fresh_process(tmp_path) == expected
    for path in files(tmp_path).values():
        assert isinstance(json.loads(path.read_text())["entries"], dict)


def test_malformed_entries_are_dropped_not_used(tmp_path: Path) -> None:
    expected = validate_in_fresh_process(tmp_path)
    path = files(tmp_path)["expressions"]
    content = json.loads(path.read_text())
    content["entries"] = {key: ["not_a_code", 5] for key in content["entries"]}  # wrong code, wrong type
    path.write_text(json.dumps(content))
    assert validate_in_fresh_process(tmp_path) == expected
    schemas = files(tmp_path)["schemas"]
    schemas.write_text(json.dumps({"kind": "expressions", "entries": {}}))  # a file of the wrong kind
    assert validate_in_fresh_process(tmp_path) == expected


def test_files_are_versioned_and_stale_ones_removed(tmp_path: Path) -> None:
    stale = tmp_path / "validator-expressions-0000000000000000.json"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text(json.dumps({"kind": "expressions", "entries": {digest("$x :="): None}}))  # says: compiles
    reported = validate_in_fresh_process(tmp_path)
    assert "expression_invalid" in {code for _path, code, _message, _severity in reported}  # the stale file was not read
    assert not stale.exists()
    assert files(tmp_path)["expressions"].name != stale.name


def test_the_cache_can_be_turned_off(tmp_path: Path) -> None:
    expected = validate_in_fresh_process(tmp_path / "on")
    assert validate_in_fresh_process(tmp_path / "off", MCP_ACTIONS_NO_CACHE="1") == expected
    assert not (tmp_path / "off").exists()


def test_cache_dir_follows_the_environment(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.delenv("MCP_ACTIONS_NO_CACHE", raising=False)
    monkeypatch.delenv("MCP_ACTIONS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "mcp-actions"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "mcp-actions"
    monkeypatch.setenv("MCP_ACTIONS_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.setenv("MCP_ACTIONS_NO_CACHE", "1")
    assert cache_dir() is None


def test_an_unwritable_cache_only_logs(monkeypatch: Any, tmp_path: Path, caplog: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("MCP_ACTIONS_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("MCP_ACTIONS_NO_CACHE", raising=False)
    memo = DiskMemo("test-unwritable", valid=lambda value: isinstance(value, int))
    assert memo.get("k") == (False, None)
    memo.put("k", 1)
    memo.flush()
    assert memo.get("k") == (True, 1)  # still served from memory
    assert "could not write the validator cache" in caplog.text


def test_a_message_an_older_validator_stored_is_never_read(tmp_path: Path) -> None:
    """Stored verdicts carry messages (an unknown step argument names the accepted ones): older wording never comes back."""
    first = validate_in_fresh_process(tmp_path)
    (unknown,) = [message for path, _code, message, _severity in first if path.endswith("/args/surely_unknown")]
    assert unknown.endswith("unknown argument 'surely_unknown'; its one argument is 'locator'")
    current = files(tmp_path)["step"]
    content = json.loads(current.read_text())
    assert any("its one argument is 'locator'" in message for verdict in content["entries"].values() for _pointer, message in verdict)
    # The same verdicts in an older validator's words, under its fingerprint; the current file gone.
    content["entries"] = {key: [[pointer, message.split(";")[0]] for pointer, message in verdict] for key, verdict in content["entries"].items()}
    older = tmp_path / "validator-step-args-0000000000000000.json"
    older.write_text(json.dumps(content))
    current.unlink()
    assert validate_in_fresh_process(tmp_path) == first
    assert not older.exists()


def test_the_fingerprint_covers_the_format_and_the_module_that_words_verdicts(monkeypatch: Any) -> None:
    from mcp_actions.manifest import verdict_cache

    assert "rules/hints.py" in verdict_cache._VERDICT_SOURCES
    current = verdict_cache._fingerprint()
    monkeypatch.setattr(verdict_cache, "_fingerprint_cache", [])
    monkeypatch.setattr(verdict_cache, "_FORMAT", 1)  # the format before messages named the accepted arguments
    assert verdict_cache._fingerprint() != current
