"""Property-based: the validator survives anything, quickly, and its problems are well-formed data.

Valid manifests (the fixture corpus and ``builders.base()``; a third of the
time a one-defect invalid fixture) are mutated
thousands of times: keys deleted and renamed, values replaced by other types,
junk inserted, lists duplicated (name collisions), strings replaced by text
with ``{%``/``%}`` and forbidden functions, subtrees nested absurdly deep.
After every mutation the validator must return ``Problem`` objects with a
documented code, a JSON Pointer that resolves (or whose parent resolves: a
missing member is reported where it belongs), never an internal error, and
in well under a second; and whatever it accepts must load into the manifest
model.

A second property holds the 2020-12 metaschema fast path to jsonschema's own
verdict on random schema-shaped documents.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcp_actions.manifest.model import Manifest
from mcp_actions.manifest.problems import PROBLEM_CODES, Problem, ValidationReport, pointer_tokens
from mcp_actions.manifest.rules.schema import fast_schema_valid, official_schema_problems
from mcp_actions.manifest.validate import check_manifest, iter_problems

from .builders import base

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "manifests"
VALID_SEEDS = [base()] + [json.loads(path.read_text(encoding="utf-8")) for path in sorted((CORPUS / "valid").glob("*.json"))]
# The one-defect fixtures start mutations from the edges of the rules, too.
INVALID_SEEDS = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((CORPUS / "invalid").glob("*.json"))]
MAX_SECONDS = 1.0  # per validation of a mutated manifest (they take milliseconds)

SLOTTY_TEXT = st.sampled_from(
    ["{%", "%}", "{% %}", "{% steps.a.output %}", "x {% y %}", "{% $eval('1') %}", "{% $now() %}", "{% ( %}",
     "{%{%}%}", "", " ", "../../etc", "/abs", "C:\\x", "https://e.org", "form.submit", "form_ready", "1bad", "a" * 200,
     "\u00e9\u4e2d\U0001f600", "~/", "a/b~c", "\x00", "\u00b2", "007", "-1"]
)  # fmt: skip
TEXT = st.one_of(SLOTTY_TEXT, st.text(max_size=30))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), TEXT)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)),
    max_leaves=12,
)


def all_paths(document: Any) -> list[list[Any]]:
    """Token paths of every node (root included), iteratively."""
    paths: list[list[Any]] = []
    stack: list[tuple[Any, list[Any]]] = [(document, [])]
    while stack:
        node, tokens = stack.pop()
        paths.append(tokens)
        if isinstance(node, dict):
            stack.extend((value, tokens + [key]) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, tokens + [index]) for index, value in enumerate(node))
    return paths


def node_at(document: Any, tokens: list[Any]) -> Any:
    for token in tokens:
        document = document[token]
    return document


def nest(depth: int, leaf: Any) -> Any:
    for level in range(depth):
        leaf = [leaf] if level % 2 else {"n": leaf}
    return leaf


@st.composite
def mutated(draw: st.DrawFn, steps: int = 4) -> list[Any]:
    """A seed manifest and the documents after each of up to ``steps`` mutations."""
    seeds = draw(st.sampled_from([VALID_SEEDS, VALID_SEEDS, INVALID_SEEDS]))
    document = copy.deepcopy(draw(st.sampled_from(seeds)))
    versions = []
    for _ in range(draw(st.integers(1, steps))):
        paths = all_paths(document)
        tokens = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["delete", "replace", "insert", "rename", "duplicate", "nest", "text"]))
        if not tokens:
            if kind in ("replace", "nest"):
                document = draw(JSON_VALUES) if kind == "replace" else nest(draw(st.integers(1, 200)), document)
            versions.append(copy.deepcopy(document) if kind == "replace" else document)
            if not isinstance(document, dict):
                break
            continue
        parent, key = node_at(document, tokens[:-1]), tokens[-1]
        if kind == "delete":
            del parent[key]
        elif kind == "replace":
            parent[key] = draw(JSON_VALUES)
        elif kind == "text":
            parent[key] = draw(TEXT)
        elif kind == "nest":
            parent[key] = nest(draw(st.integers(1, 300)), parent[key])
        elif kind == "insert":
            target = parent[key]
            if isinstance(target, dict):
                target[draw(TEXT)] = draw(JSON_VALUES)
            elif isinstance(target, list):
                target.insert(draw(st.integers(0, len(target))), draw(JSON_VALUES))
            else:
                parent[key] = draw(JSON_VALUES)
        elif kind == "rename" and isinstance(parent, dict):
            parent[draw(TEXT)] = parent.pop(key)
        elif kind == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        else:
            parent[key] = draw(JSON_VALUES)
        versions.append(copy.deepcopy(document) if len(all_paths(document)) < 5000 else document)
    return versions


def resolves(document: Any, pointer: str) -> bool:
    try:
        node = document
        for token in pointer_tokens(pointer):
            node = node[int(token)] if isinstance(node, list) else node[token]
    except (KeyError, IndexError, ValueError, TypeError):
        return False
    return True


def parent_pointer(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0] if pointer else ""


def assert_well_formed(document: Any, report: ValidationReport) -> None:
    for problem in report.errors + report.warnings:
        assert isinstance(problem, Problem)
        assert isinstance(problem.code, str) and problem.code in PROBLEM_CODES, problem
        assert problem.code != "validator_internal_error", problem
        assert isinstance(problem.message, str) and problem.message
        assert isinstance(problem.path, str) and (problem.path == "" or problem.path.startswith("/"))
        assert resolves(document, problem.path) or resolves(document, parent_pointer(problem.path)), problem
    assert all(p.severity == "error" for p in report.errors)
    assert all(p.severity == "warning" for p in report.warnings)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated(steps=5))
def test_mutated_manifests_give_well_formed_problems_quickly(versions: list[Any]) -> None:
    for document in versions:
        started = time.perf_counter()
        report = check_manifest(document)
        elapsed = time.perf_counter() - started
        assert elapsed < MAX_SECONDS, elapsed
        assert_well_formed(document, report)
        if report.valid:  # what the validator accepts, the manifest model must load
            Manifest.model_validate(document)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated(steps=2))
def test_iter_problems_and_check_manifest_agree_and_are_deterministic(versions: list[Any]) -> None:
    document = versions[-1]
    report = check_manifest(document)
    streamed = list(iter_problems(document))
    assert set(streamed) == set(report.errors + report.warnings)
    assert len(streamed) == len(report.errors) + len(report.warnings)  # no duplicates
    assert check_manifest(document) == report


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_any_json_value_as_a_manifest(document: Any) -> None:
    assert_well_formed(document, check_manifest(document))


# -- the metaschema fast path never says "valid" when jsonschema says "invalid"

KEYWORDS = st.sampled_from(
    ["type", "properties", "items", "prefixItems", "required", "enum", "const", "minimum", "maxLength", "pattern",
     "additionalProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$defs", "$ref", "format",
     "dependencies", "dependentRequired", "dependentSchemas", "patternProperties", "propertyNames", "contains",
     "minItems", "uniqueItems", "title", "default", "examples", "$anchor", "multipleOf", "x-extra"]
)  # fmt: skip
KEYWORD_VALUES = st.one_of(
    st.sampled_from(["string", "object", ["string", "null"], "strng", [], ["a", "a"], ["a"], 0, -1, 1.5, True, "^a", "(", {}, {"a": {}}]),
    SCALARS,
)
SCHEMAS = st.recursive(
    st.one_of(st.booleans(), st.dictionaries(KEYWORDS, KEYWORD_VALUES, max_size=3)),
    lambda children: st.one_of(
        st.dictionaries(KEYWORDS, st.one_of(KEYWORD_VALUES, children, st.lists(children, max_size=3), st.dictionaries(TEXT, children, max_size=3)), max_size=4),
    ),
    max_leaves=15,
)


@settings(max_examples=1500, deadline=None)
@given(SCHEMAS)
def test_fast_metaschema_path_agrees_with_jsonschema(schema: Any) -> None:
    try:
        official_valid = not official_schema_problems(schema, Draft202012Validator)
    except Exception:
        return
    assert fast_schema_valid(schema) == official_valid
