"""Maps written for the reference runtime: primitive handlers, host-native tools, a map's own dictionary.

The spec calls a handler "a reference to already-loaded page/runtime code";
published maps use both kinds. The reference extension's own overlay map
(58 tools, copied unchanged into the fixtures) must validate and load.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from mcp_actions.manifest.compose import compose
from mcp_actions.manifest.dictionary import host_primitives
from mcp_actions.manifest.execution import ToolKind, classify_tool
from mcp_actions.manifest.load import load_paths, tool_executions
from mcp_actions.manifest.model import Manifest
from mcp_actions.manifest.validate import check_manifest

from ..shared_specs import shared_spec
from .builders import base, edit, errors, warnings

OVERLAY = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "valid" / "extension_overlay.json"


def overlay() -> dict[str, Any]:
    return json.loads(OVERLAY.read_text(encoding="utf-8"))


def tool(name: str, **x_actions: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "description": f"{name}.", "input_schema": {"type": "object"}}
    if x_actions:
        entry["x_actions"] = x_actions
    return entry


def with_tools(*tools: dict[str, Any], dictionary: dict[str, Any] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"protocol": "actions.json", "version": 1, "tools": list(tools)}
    if dictionary is not None:
        document["primitive_dictionary"] = dictionary
    return document


# -- the published overlay map


def test_overlay_fixture_is_the_published_map_unchanged() -> None:
    published = shared_spec("reference-examples/extension-overlay/actions.json")
    assert json.loads(published.read_text(encoding="utf-8")) == overlay()


def test_overlay_map_validates_with_no_errors() -> None:
    report = check_manifest(overlay())
    assert report.errors == ()
    assert len(overlay()["tools"]) == 58
    # primitive_dictionary and x_actions.binding are known now; what remains is honest.
    assert Counter(p.code for p in report.warnings) == {"unknown_field": 5, "host_native_undeclared": 2}
    assert {p.path for p in report.warnings if p.code == "host_native_undeclared"} == {"/tools/8", "/tools/9"}


def test_overlay_map_loads_every_tool_with_its_kind(tmp_path: Path) -> None:
    (tmp_path / "overlay.actions.json").write_text(OVERLAY.read_text(encoding="utf-8"), encoding="utf-8")
    result = load_paths([tmp_path])
    assert result.failures == []
    (loaded,) = result.manifests
    assert len(loaded.model.tools) == 58
    assert set(loaded.executions) == {t.name for t in loaded.model.tools}
    kinds = Counter(e.kind for e in loaded.executions.values())
    # Tools named after primitives of our dictionary run ours, whatever extension code their handler names.
    ours = {"overlay.open", "overlay.register_launcher", "overlay.close", "browser.screenshot", "dom.list_sections", "locator.element_info",
            "viewport.scroll", "pointer.click", "pointer.move", "pointer.double_click", "pointer.drag", "text.insert", "keyboard.press", "transfer.insert"}  # fmt: skip
    assert {n for n, e in loaded.executions.items() if e.kind is ToolKind.HOST_NATIVE and e.handler} == ours
    assert kinds == {ToolKind.HANDLER: 24 - len(ours), ToolKind.PRIMITIVE_HANDLER: 10, ToolKind.HOST_NATIVE: 24 + len(ours)}
    navigate = loaded.executions["browser.navigate"]
    assert (navigate.kind, navigate.primitive, navigate.declared_primitive) == (ToolKind.HOST_NATIVE, "browser.navigate", True)
    select = loaded.executions["text.select"]  # only in the map's own dictionary
    assert (select.kind, select.primitive) == (ToolKind.HOST_NATIVE, "text.select")
    pacing = loaded.executions["runtime.configure_pacing"]  # in no dictionary: the publishing host's own
    assert (pacing.kind, pacing.declared_primitive) == (ToolKind.HOST_NATIVE, False)
    menu = loaded.executions["overlay.menu.hide"]  # the handler names a primitive of the map's dictionary
    assert (menu.kind, menu.primitive, menu.handler) == (ToolKind.PRIMITIVE_HANDLER, "overlay.menu.hide", "overlay.menu.hide")
    page = loaded.executions["overlay.open"]
    assert (page.kind, page.handler, page.primitive) == (ToolKind.HOST_NATIVE, "actionsJsonOverlay.openHtml", "overlay.open")
    extension_only = loaded.executions["storage.import_bundle"]  # not a primitive of ours: the extension's handler
    assert (extension_only.kind, extension_only.handler) == (ToolKind.HANDLER, "actionsJsonOverlay.importStorageBundle")
    assert loaded.model.primitive_dictionary is not None and loaded.model.primitive_dictionary["host"] == "extension"


# -- (a) a handler that names a primitive, with bound arguments


def test_handler_naming_a_host_primitive_with_bound_arguments_is_valid() -> None:
    scroll = tool("feed.next_page", handler="viewport.scroll", binding={"arguments": {"delta_y": 400}})
    assert "viewport.scroll" in host_primitives()
    document = with_tools(scroll)
    assert check_manifest(document).errors == ()
    execution = tool_executions(document)["feed.next_page"]
    assert (execution.kind, execution.primitive, dict(execution.bound_arguments)) == (ToolKind.PRIMITIVE_HANDLER, "viewport.scroll", {"delta_y": 400})


def test_bound_arguments_are_checked_against_the_primitive_but_may_leave_required_ones_to_the_call() -> None:
    schema = host_primitives()["viewport.scroll"]
    unknown = "surely_not_an_argument"
    assert schema.get("additionalProperties") is False and unknown not in schema.get("properties", {})
    bad = with_tools(tool("feed.next_page", handler="viewport.scroll", binding={"arguments": {unknown: 1}}))
    assert errors(bad) == [("primitive_args_invalid", "/tools/0/x_actions/binding/arguments")]
    wrong_type = with_tools(tool("feed.next_page", handler="viewport.scroll", binding={"arguments": {"delta_y": "down"}}))
    assert errors(wrong_type) == [("primitive_args_invalid", "/tools/0/x_actions/binding/arguments/delta_y")]
    # pointer.click requires x and y: a binding that gives neither is fine, the call supplies them.
    assert errors(with_tools(tool("page.poke", handler="pointer.click", binding={"arguments": {}}))) == []


def test_binding_shape_is_checked() -> None:
    assert errors(with_tools(tool("a.b", handler="viewport.scroll", binding=[]))) == [("invalid_type", "/tools/0/x_actions/binding")]
    assert errors(with_tools(tool("a.b", handler="viewport.scroll", binding={"arguments": "down"}))) == [
        ("invalid_type", "/tools/0/x_actions/binding/arguments")
    ]
    assert warnings(with_tools(tool("a.b", handler="viewport.scroll", binding={"args": {}}))) == [("unknown_field", "/tools/0/x_actions/binding/args")]


def test_handler_naming_a_primitive_of_the_maps_own_dictionary() -> None:
    dictionary = {"host": "extension", "primitives": [{"name": "task.add", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": False}}]}
    good = with_tools(tool("queue.add", handler="task.add", binding={"arguments": {"text": "x"}}), dictionary=dictionary)
    assert check_manifest(good).errors == ()
    assert tool_executions(good)["queue.add"].kind is ToolKind.PRIMITIVE_HANDLER
    bad = with_tools(tool("queue.add", handler="task.add", binding={"arguments": {"text": 3}}), dictionary=dictionary)
    assert errors(bad) == [("primitive_args_invalid", "/tools/0/x_actions/binding/arguments/text")]


def test_a_page_handler_stays_a_page_handler() -> None:
    assert tool_executions(base())["form.submit"].kind is ToolKind.HANDLER
    assert tool_executions(base())["form.click"].kind is ToolKind.WORKFLOW


# -- (b) host-native tools


def test_a_tool_named_like_a_host_primitive_needs_no_handler() -> None:
    document = with_tools(tool("browser.navigate"))
    assert check_manifest(document).errors == ()
    assert check_manifest(document).warnings == ()
    assert tool_executions(document)["browser.navigate"].kind is ToolKind.HOST_NATIVE


def test_a_tool_named_like_no_primitive_still_needs_a_way_to_run() -> None:
    assert errors(with_tools(tool("form.send"))) == [("tool_not_executable", "/tools/0")]
    assert tool_executions(with_tools(tool("form.send"))) == {}
    # with a custom host dictionary, the host's names decide
    assert errors(with_tools(tool("browser.navigate")), primitives=["pointer.click"]) == [("tool_not_executable", "/tools/0")]


def test_a_maps_own_dictionary_names_host_native_tools() -> None:
    dictionary = {"primitives": [{"name": "clipboard.copy"}]}
    assert check_manifest(with_tools(tool("clipboard.copy"), dictionary=dictionary)).warnings == ()
    # a host-published map's tool named in no dictionary: accepted, with a warning
    report = check_manifest(with_tools(tool("runtime.configure_pacing"), dictionary=dictionary))
    assert report.errors == ()
    assert [(p.code, p.path) for p in report.warnings] == [("host_native_undeclared", "/tools/0")]


def test_html_to_agent_tools_are_not_classified_as_runnable() -> None:
    document = with_tools(tool("page.announce", direction="html_to_agent"))
    assert check_manifest(document).errors == ()
    assert classify_tool(document["tools"][0], host_primitives=host_primitives()) is None


# -- the map's primitive_dictionary itself


def test_primitive_dictionary_shape() -> None:
    def dictionary_errors(value: Any) -> list[tuple[str, str]]:
        return errors(edit(base(), "/primitive_dictionary", value))

    assert dictionary_errors({"primitives": []}) == []
    assert dictionary_errors([]) == [("invalid_type", "/primitive_dictionary")]
    assert dictionary_errors({"primitives": {}}) == [("invalid_type", "/primitive_dictionary/primitives")]
    assert dictionary_errors({"primitives": [{"input_schema": {}}]}) == [("missing_field", "/primitive_dictionary/primitives/0/name")]
    assert dictionary_errors({"primitives": [{"name": "a b"}]}) == [("invalid_identifier", "/primitive_dictionary/primitives/0/name")]
    assert dictionary_errors({"primitives": [{"name": "a.b"}, {"name": "a.b"}]}) == [("duplicate_name", "/primitive_dictionary/primitives/1/name")]
    assert dictionary_errors({"primitives": [{"name": "a.b", "input_schema": {"type": 5}}]})[0][0] == "invalid_schema"
    assert dictionary_errors({"host": 3, "primitives": []}) == [("invalid_type", "/primitive_dictionary/host")]


# -- composition


def test_importing_the_overlay_under_a_namespace_keeps_every_tool_runnable(tmp_path: Path) -> None:
    (tmp_path / "overlay.json").write_text(OVERLAY.read_text(encoding="utf-8"), encoding="utf-8")
    root = {
        "protocol": "actions.json",
        "version": 1,
        "tools": [tool("site.search", handler="site.search")],
        "imports": [{"id": "ext", "kind": "local", "uri": "overlay.json", "namespace": "ext"}],
    }
    result = compose(root, source=str(tmp_path / "actions.json"), base_dir=tmp_path)
    assert result.errors == []
    composed = {t["name"]: t for t in result.document["tools"]}
    assert len(composed) == 59
    # a host-native tool keeps its primitive as an explicit handler once its name is prefixed
    assert composed["ext.browser.navigate"]["x_actions"]["handler"] == "browser.navigate"
    executions = tool_executions(result.document)
    assert executions["ext.browser.navigate"].kind is ToolKind.PRIMITIVE_HANDLER
    assert executions["ext.text.select"].kind is ToolKind.PRIMITIVE_HANDLER  # the import's dictionary came along
    assert executions["ext.overlay.open"].kind is ToolKind.HANDLER
    assert executions["site.search"].kind is ToolKind.HANDLER
    Manifest.model_validate(result.document)
