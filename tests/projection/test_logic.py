"""Pure projection logic on data: extract plans, budgets, schema, summaries, patches and deltas."""

from __future__ import annotations

import copy

import jsonpatch
import pytest

from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.manifest.limits import Limits
from mcp_actions.manifest.model import Projection
from mcp_actions.projection.diff import json_patch, semantic_deltas, stable_key
from mcp_actions.projection.extract import ExtractPlan
from mcp_actions.projection.project import CompiledProjection

BOARD = {
    "lists": [
        {"id": "todo", "name": "To do", "cards": [{"id": "c1", "title": "Write spec", "labels": ["docs"]}, {"id": "c2", "title": "Plan", "labels": []}]},
        {"id": "done", "name": "Done", "cards": [{"id": "c4", "title": "Kickoff", "labels": []}]},
    ]
}


def projection(**snapshot_overrides) -> Projection:
    snapshot = {
        "version": 1,
        "source": "dom",
        "extract": [{"id": "rows", "selector": ".row", "fields": {"id": {"attribute": "data-id"}, "text": {}}}],
        "projection": {"language": "jsonata", "expression": "{% {'rows': [records.rows]} %}"},
        "output_schema": {"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "items": {"required": ["id"]}}}},
        **snapshot_overrides,
    }
    return Projection(name="site.rows", snapshot=snapshot, summaries=[{"name": "count", "max_bytes": 20, "expression": "{% {'n': $count(state.rows)} %}"}])


# -- extract plans -------------------------------------------------------------


def test_plan_namespaces_ids_and_splits_records_counts_and_missing_fields():
    plan = ExtractPlan([("a.board", [{"id": "lists", "selector": ".l"}]), ("b", [{"id": "lists", "selector": ".x"}, {"id": "one", "selector": "h1", "many": False}])])
    sent = [e["id"] for e in plan.request()["extract"]]
    assert len(set(sent)) == 3  # the two "lists" entries no longer collide
    assert [e["selector"] for e in plan.request()["extract"]] == [".l", ".x", "h1"]  # the rest is verbatim
    a_lists, b_lists, b_one = sent
    output = {
        "records": {a_lists: [{"name": "A"}], b_lists: [], b_one: {"t": 1}},
        "diagnostics": {
            "selector_counts": {a_lists: 1, f"{a_lists}.name": 1, f"{a_lists}.cards.title": 4, b_lists: 0, b_one: 1},
            "missing_required_fields": [{"entry": a_lists, "record": 0, "field": "cards.title"}],
        },
    }
    parts = plan.split(output)
    assert parts["a.board"].records == {"lists": [{"name": "A"}]}
    assert parts["a.board"].selector_counts == {"lists": 1, "lists.name": 1, "lists.cards.title": 4}
    assert parts["a.board"].missing_required_fields == [{"entry": "lists", "record": 0, "field": "cards.title"}]
    assert parts["b"].records == {"lists": [], "one": {"t": 1}}
    assert parts["b"].selector_counts == {"lists": 0, "one": 1}
    assert parts["b"].missing_required_fields == []


def test_plan_refuses_an_answer_without_records():
    with pytest.raises(ActionError) as caught:
        ExtractPlan([("p", [{"id": "x", "selector": "a"}])]).split({"diagnostics": {}})
    assert caught.value.code == ErrorCode.INVALID_RESULT


def test_plan_reads_a_skipped_entry_as_null():
    plan = ExtractPlan([("p", [{"id": "x", "selector": "a"}])])
    assert plan.split({"records": {}})["p"].records == {"x": None}


# -- projecting, schema, budgets ----------------------------------------------------


def test_project_runs_the_expression_and_checks_the_schema():
    compiled = CompiledProjection(projection())
    assert compiled.project({"rows": [{"id": "1", "text": "a"}]}) == {"rows": [{"id": "1", "text": "a"}]}
    with pytest.raises(ActionError) as caught:
        compiled.project({"rows": [{"text": "no id"}]})
    assert caught.value.code == ErrorCode.INVALID_RESULT
    assert caught.value.evidence["path"] == "/rows/0/id"  # the missing field itself, not the record lacking it


def test_without_an_expression_the_records_are_the_state():
    compiled = CompiledProjection(projection(projection=None, output_schema=None))
    assert compiled.project({"rows": [1]}) == {"rows": [1]}


@pytest.mark.parametrize("size", [10, 2_000])
def test_expression_output_over_the_state_budget_is_refused_with_budget_and_size(size):
    compiled = CompiledProjection(projection(), limits=Limits(max_projection_bytes=1_000))
    rows = [{"id": str(i), "text": "x" * 40} for i in range(size)]
    if size == 10:
        compiled.project({"rows": rows})  # 10 rows fit
        return
    with pytest.raises(ActionError) as caught:
        compiled.project({"rows": rows})
    error = caught.value
    assert error.code == ErrorCode.STATE_PAYLOAD_TOO_LARGE
    assert error.evidence["budget"] == "expression_output" and error.evidence["max_bytes"] == 1_000
    assert error.evidence["bytes"] > 1_000


def test_summary_within_and_over_its_max_bytes():
    compiled = CompiledProjection(projection())
    value, size, max_bytes = compiled.summary("count", {"rows": [1, 2, 3]})
    assert value == {"n": 3} and size == 7 and max_bytes == 20
    # A summary whose value outgrows its own budget:
    big = CompiledProjection(Projection(name="p", snapshot=projection().snapshot, summaries=[{"name": "all", "max_bytes": 10, "expression": "{% state %}"}]))
    with pytest.raises(ActionError) as caught:
        big.summary("all", {"rows": [1, 2, 3]})
    assert caught.value.code == ErrorCode.STATE_PAYLOAD_TOO_LARGE
    assert caught.value.evidence == {"projection": "p", "budget": "summary:all", "bytes": 16, "max_bytes": 10}


def test_unknown_summary_names_the_declared_ones():
    with pytest.raises(ActionError) as caught:
        CompiledProjection(projection()).require_summary("nope")
    assert caught.value.code == ErrorCode.INVALID_INPUT and caught.value.evidence["available"] == ["count"]


# -- patches and deltas ----------------------------------------------------------


def test_adding_a_card_is_one_added_delta_naming_it_and_a_patch_that_applies():
    after = copy.deepcopy(BOARD)
    card = {"id": "c9", "title": "New", "labels": []}
    after["lists"][0]["cards"].append(card)
    deltas = semantic_deltas(BOARD, after)
    assert deltas == [{"op": "added", "path": "/lists/0/cards", "key": {"id": "c9"}, "record": card}]
    patch = json_patch(BOARD, after)
    assert patch == [{"op": "add", "path": "/lists/0/cards/2", "value": card}]
    assert jsonpatch.apply_patch(BOARD, patch) == after


def test_moved_renamed_and_removed_cards():
    after = copy.deepcopy(BOARD)
    moved = after["lists"][0]["cards"].pop(0)  # c1 leaves To do ...
    after["lists"][1]["cards"].append(moved)  # ... for Done
    after["lists"][0]["cards"][0]["title"] = "Plan sprint"  # c2 renamed
    deltas = semantic_deltas(BOARD, after)
    assert {"op": "removed", "path": "/lists/0/cards", "key": {"id": "c1"}, "record": BOARD["lists"][0]["cards"][0]} in deltas
    assert {"op": "added", "path": "/lists/1/cards", "key": {"id": "c1"}, "record": moved} in deltas
    assert {
        "op": "changed",
        "path": "/lists/0/cards/0/title",
        "before": "Plan",
        "after": "Plan sprint",
        "record": {"path": "/lists/0/cards", "key": {"id": "c2"}},
    } in deltas
    assert len(deltas) == 3
    assert jsonpatch.apply_patch(BOARD, json_patch(BOARD, after)) == after


def test_reordering_keyed_records_adds_no_delta_but_patches():
    after = copy.deepcopy(BOARD)
    after["lists"].reverse()
    assert semantic_deltas(BOARD, after) == []
    assert json_patch(BOARD, after) != []


def test_unkeyed_lists_compare_as_multisets():
    before = {"rows": [{"t": "a"}, {"t": "b"}, {"t": "b"}]}
    after = {"rows": [{"t": "b"}, {"t": "c"}, {"t": "a"}]}
    assert semantic_deltas(before, after) == [
        {"op": "removed", "path": "/rows", "key": None, "record": {"t": "b"}},
        {"op": "added", "path": "/rows", "key": None, "record": {"t": "c"}},
    ]


def test_declared_keys_and_key_detection():
    records = [{"sku": "a", "id": 1}, {"sku": "b", "id": 1}]
    assert stable_key([records], ("id", "key")) is None  # ids repeat: not a key
    assert stable_key([records], ("id", "sku")) == "sku"
    before, after = {"items": records}, {"items": [{"sku": "a", "id": 1}, {"sku": "b", "id": 2}]}
    assert semantic_deltas(before, after, ("sku",)) == [
        {"op": "changed", "path": "/items/1/id", "before": 1, "after": 2, "record": {"path": "/items", "key": {"sku": "b"}}}
    ]


def test_scalar_and_field_changes():
    assert semantic_deltas({"n": 1, "tags": ["a", "b"]}, {"n": 2, "tags": ["a", "c"], "new": True}) == [
        {"op": "changed", "path": "/n", "before": 1, "after": 2, "record": None},
        {"op": "changed", "path": "/tags/1", "before": "b", "after": "c", "record": None},
        {"op": "changed", "path": "/new", "before": None, "after": True, "record": None},
    ]
    assert semantic_deltas(BOARD, copy.deepcopy(BOARD)) == []
