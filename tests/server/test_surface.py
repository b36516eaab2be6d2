"""The MCP surface of issue 11 through the SDK's in-process Client, for both protocol generations.

``legacy`` is a handshake-era session (initialize, resources/subscribe,
logging/setLevel, elicitation/create); ``auto`` is the 2026-07-28
generation in process (subscriptions/listen, InputRequiredResult).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.dispatch.builtins.tabs.browser_tools import BROWSER_TOOLS
from mcp_actions.dispatch.call.guards import Stage
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

#: The built-in browser tools (navigate, tabs, screenshot, dialogs), always offered in site mode.
BROWSER_TOOL_NAMES = {tool.binding.mcp_name for tool in BROWSER_TOOLS}

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "server"
GENERATIONS = pytest.mark.parametrize("mode", ["legacy", "auto"])


class Notes:
    """The simulated notes page."""

    def __init__(self) -> None:
        self.deleted = 0
        self.archived = 0

    def handlers(self) -> dict[str, Any]:
        return {
            "notes.delete": lambda a: self._count("deleted"),
            "notes.archive": lambda a: self._count("archived"),
            "notes.rename": lambda a: {"ok": True, "title": a["title"]},
        }

    def _count(self, what: str) -> dict[str, Any]:
        setattr(self, what, getattr(self, what) + 1)
        return {"ok": True}


@contextlib.asynccontextmanager
async def notes_env(mode: str = "legacy", *, url: str = "memory://notes/edit/1", options: dict[str, Any] | None = None, **client: Any):
    app = ActionsApp(AppOptions(manifests=[str(FIXTURES / "notes"), str(FIXTURES / "good")], browser="none", serve_bridge=False, watch=False, **(options or {})))
    notes = Notes()
    async with Client(build_server(app), mode=mode, **client) as session:
        runtime = MemoryRuntime(
            app.bridge,
            runtime_id="notes-1",
            url=url,
            title="Note 1",
            handlers=notes.handlers(),
            primitives={"locator.text_content": lambda a: {"text": "Groceries" if a["locator"]["selector"] == "h1" else "milk"}},
        )
        await runtime.start()
        try:
            yield app, session, runtime, notes
        finally:
            await runtime.stop()


def _json(result: types.ReadResourceResult) -> Any:
    return json.loads(result.contents[0].text)


async def test_tools_have_titles_and_annotations_from_the_map():
    async with notes_env() as (app, client, runtime, notes):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        read = tools["notes_read_title"]
        # A workflow of reads only is a read-only tool. Hints equal to MCP's defaults (open-world, not
        # read-only) and those without meaning for a read-only tool (idempotent) are not listed.
        assert (read.annotations.read_only_hint, read.annotations.idempotent_hint, read.annotations.open_world_hint) == (True, None, None)
        assert read.annotations.title is None  # the title is the tool's own, not repeated
        assert read.title == "Notes: read title"
        assert read.output_schema["required"] == ["title"]
        delete = tools["notes_delete"]
        # A related critical check makes it destructive; a handler is never called read-only.
        assert (delete.annotations.read_only_hint, delete.annotations.destructive_hint) == (None, True)
        assert delete.meta["mcp-actions/confirm"] is True
        rename = tools["notes_rename"]
        # x_actions.annotations overrides title and hints; its click transition keeps it not read-only.
        assert (rename.title, rename.annotations.idempotent_hint, rename.annotations.read_only_hint) == ("Rename the note", True, None)
        assert "mcp-actions/confirm" not in rename.meta
        assert tools["browser_navigate"].title == "Navigate browser"


async def test_results_carry_structured_content_and_a_short_text():
    async with notes_env() as (app, client, runtime, notes):
        result = await client.call_tool("notes_read_title", {})
        assert result.structured_content == {"title": "Groceries"}
        assert json.loads(result.content[0].text) == {"title": "Groceries"}


@GENERATIONS
async def test_every_resource_and_template_reads(mode):
    async with notes_env(mode) as (app, client, runtime, notes):
        await runtime.report(states=["editing"])
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates == {
            "actions://manifests/{namespace}",
            "actions://runtimes/{runtime_id}/states",
            "actions://runtimes/{runtime_id}/projections/{projection}",
            "actions://runtimes/{runtime_id}/projections/{projection}/summaries/{summary}",
            "actions://runtimes/{runtime_id}/projections/{projection}/diff",
            "actions://runtimes/{runtime_id}/events",
            "actions://runtimes/{runtime_id}/context/{block}",
            "actions://runtimes/{runtime_id}/wab",
        }
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert {
            "actions://bridge/launch",
            "actions://runtimes",
            "actions://manifests/notes",
            "actions://manifests/shop",
            "actions://runtimes/notes-1/states",
            "actions://runtimes/notes-1/events",
            "actions://runtimes/notes-1/projections/notes.list",
            "actions://runtimes/notes-1/context/notes.editing_help",
            "actions://runtimes/notes-1/context/notes.everywhere",
        } <= set(listed)
        # The settings block's URL predicate does not hold on this page.
        assert "actions://runtimes/notes-1/context/notes.elsewhere" not in listed
        assert listed["actions://runtimes/notes-1/context/notes.everywhere"].meta["mcp-actions/kind"] == "documentation"
        for uri in listed:
            if "/projections/" in uri:
                continue
            assert (await client.read_resource(uri)).contents[0].mime_type == "application/json", uri
        states = _json(await client.read_resource("actions://runtimes/notes-1/states"))
        assert states["current"] == ["editing"]
        assert {s["name"]: s["current"] for s in states["declared"]} == {"editing": True, "viewing": False}
        context = _json(await client.read_resource("actions://runtimes/notes-1/context/notes.editing_help"))
        assert context["kind"] == "documentation" and "no permission" in context["note"]
        assert context["available_tools"] == ["notes.rename"]
        assert _json(await client.read_resource("actions://manifests/notes"))["manifest"]["surface"]["origin"] == "memory://notes"
        # Projections are templated and listed; running them is the projection engine's (a placeholder here).
        for uri in (
            "actions://runtimes/notes-1/projections/notes.list",
            "actions://runtimes/notes-1/projections/notes.list/summaries/count",
            "actions://runtimes/notes-1/projections/notes.list/diff",
        ):
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert caught.value.data["code"] == "capability_unavailable", uri
        with pytest.raises(MCPError) as caught:
            await client.read_resource("actions://runtimes/gone/states")
        assert caught.value.code == -32002 and caught.value.data["code"] == "resource_not_found"


async def test_context_follows_the_runtime_state_and_shows_in_site_list():
    async with notes_env() as (app, client, runtime, notes):
        listed = (await client.call_tool("actions_site", {"mode": "list"})).structured_content
        # Not in the editing state yet: only the block without load_when applies.
        assert [c["id"] for c in listed["context"]] == ["notes.everywhere"]
        assert all(c["kind"] == "documentation" for c in listed["context"])
        await runtime.report(states=["editing"])
        listed = (await client.call_tool("actions_site", {"mode": "list"})).structured_content
        assert sorted(c["id"] for c in listed["context"]) == ["notes.editing_help", "notes.everywhere"]


async def test_handshake_subscription_hears_updates_of_that_resource_only():
    updated: list[str] = []
    heard = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            heard.set()

    async with notes_env("legacy", message_handler=on_message) as (app, client, runtime, notes):
        await client.subscribe_resource("actions://runtimes/notes-1/states")
        await runtime.emit({"type": "dom_event", "event_id": "e1", "runtime_id": "notes-1", "name": "nothing.declared", "payload": {}})
        await runtime.report(states=["viewing"])
        await asyncio.wait_for(heard.wait(), 5)
        assert updated == ["actions://runtimes/notes-1/states"]
        await client.unsubscribe_resource("actions://runtimes/notes-1/states")
        heard.clear()
        await runtime.report(states=["editing"])
        await asyncio.sleep(0.2)
        assert not heard.is_set()
        with pytest.raises(MCPError):
            await client.subscribe_resource("actions://nothing/here")


async def test_listen_subscription_hears_updates_and_list_changes():
    async with notes_env("auto") as (app, client, runtime, notes):
        async with client.listen(resource_subscriptions=["actions://runtimes/notes-1/states"], resources_list_changed=True) as events:
            await runtime.report(states=["viewing"])
            seen: set[str] = set()
            async for event in events:
                seen.add(type(event).__name__)
                if {"ResourceUpdated", "ResourcesListChanged"} <= seen:
                    break
            assert {"ResourceUpdated", "ResourcesListChanged"} <= seen


@GENERATIONS
async def test_confirmation_accepted_runs_declined_is_permission_denied(mode):
    answers: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        answers.append(params.message)
        if len(answers) == 1:
            return types.ElicitResult(action="accept", content={"allow": True})
        return types.ElicitResult(action="decline")

    async with notes_env(mode, elicitation_callback=elicit) as (app, client, runtime, notes):
        allowed = await client.call_tool("notes_archive", {})
        assert not allowed.is_error and notes.archived == 1
        assert answers == ["Archive this note? It leaves the list."]
        declined = await client.call_tool("notes_archive", {})
        assert declined.is_error and declined.structured_content["error"]["code"] == "permission_denied"
        assert notes.archived == 1
        # A critical check that hands off to the user also asks.
        await client.call_tool("notes_delete", {})
        assert len(answers) == 3 and notes.deleted == 0


@GENERATIONS
async def test_client_without_elicitation_is_refused_before_the_page(mode):
    async with notes_env(mode) as (app, client, runtime, notes):
        refused = await client.call_tool("notes_delete", {})
        assert refused.is_error and refused.structured_content["error"]["code"] == "permission_denied"
        assert notes.deleted == 0 and runtime.calls == []
        # Tools without confirmation run as always.
        assert not (await client.call_tool("notes_rename", {"title": "x"})).is_error


@GENERATIONS
async def test_actions_site_call_mode_asks_for_confirmation_as_a_direct_call_does(mode):
    # Every way in passes the same guards: reaching a tool through actions_site is no way around its question.
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    async with notes_env(mode, elicitation_callback=elicit) as (app, client, runtime, notes):
        refused = await client.call_tool("actions_site", {"mode": "call", "action": "notes.archive", "arguments": {}})
        assert refused.is_error and refused.structured_content["error"]["code"] == "permission_denied"
        assert asked == ["Archive this note? It leaves the list."] and notes.archived == 0 and runtime.calls == []
    async with notes_env(mode) as (app, client, runtime, notes):  # a client that cannot ask: refused, not run
        refused = await client.call_tool("actions_site", {"mode": "call", "action": "notes.archive", "arguments": {}})
        assert refused.structured_content["error"]["code"] == "permission_denied" and notes.archived == 0


async def test_the_guards_run_in_their_documented_order_and_a_new_one_slots_in():
    async with notes_env() as (app, client, runtime, notes):
        chain = app.service.guards
        assert chain.names == ["visibility", "arguments", "target", "confirmation", "page", "home", "capabilities", "state", "transitions"]

        class DenyArchive:
            """A policy-like guard: refuses one tool before anything reaches the page."""

            name = "deny-archive"
            stage = Stage.CALL

            def applies(self, call: Any) -> bool:
                return call.tool.name == "notes.archive"

            async def admit(self, call: Any) -> None:
                raise ActionError("not here", code=ErrorCode.PERMISSION_DENIED, evidence={"reason": "policy"})

        chain.insert(DenyArchive(), before="confirmation")
        assert chain.names[3] == "deny-archive"
        refused = await client.call_tool("notes_archive", {})
        assert refused.structured_content["error"]["evidence"] == {"reason": "policy"} and runtime.calls == []
        # Arguments are judged before it: a bad call is invalid_input, whatever the policy says.
        bad = await client.call_tool("notes_archive", {"nope": 1})
        assert bad.structured_content["error"]["code"] == "invalid_input"


async def test_log_messages_follow_the_client_level():
    messages: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        messages.append((params.level, params.data))

    async with notes_env("legacy", logging_callback=on_log) as (app, client, runtime, notes):
        await client.call_tool("notes_rename", {"title": "a"})
        assert messages == []  # warning until the client asks for more
        await client.set_logging_level("info")
        await client.call_tool("notes_rename", {"title": "b"})
        assert (await client.call_tool("notes_rename", {})).is_error  # refused: title is required
        await asyncio.sleep(0.05)
        events = [(level, data["event"]) for level, data in messages if isinstance(data, dict) and "event" in data]
        assert events == [("info", "call_started"), ("info", "call_finished"), ("warning", "call_refused")]


async def test_workflow_steps_are_reported_as_progress():
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with notes_env("legacy") as (app, client, runtime, notes):
        result = await client.call_tool("notes_read_title", {}, progress_callback=on_progress)
        assert not result.is_error
        await asyncio.sleep(0.05)
        # Each step is announced as it starts (naming it and its primitive), then the end.
        assert progress == [
            (0, 2, "step title (locator.text_content)"),
            (1, 2, "step body (locator.text_content)"),
            (2, 2, "done"),
        ]


async def test_cancelled_call_leaves_nothing_pending():
    async with notes_env("legacy") as (app, client, runtime, notes):
        started = asyncio.Event()

        async def never(_: dict[str, Any]) -> Any:
            started.set()
            await asyncio.Event().wait()

        runtime.handlers["notes.rename"] = never
        call = asyncio.create_task(client.call_tool("notes_rename", {"title": "x"}))
        await asyncio.wait_for(started.wait(), 5)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        for _ in range(50):
            if app.bridge.pending_count == 0:
                break
            await asyncio.sleep(0.02)
        assert app.bridge.pending_count == 0


async def test_site_mode_shows_only_builtins_and_reaches_the_rest_through_actions_site():
    async with notes_env(options={"tool_mode": "site"}) as (app, client, runtime, notes):
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == BROWSER_TOOL_NAMES | {"actions_site"} | OBSERVE_TOOLS
        with pytest.raises(MCPError):
            await client.call_tool("notes_rename", {"title": "x"})
        called = await client.call_tool("actions_site", {"mode": "call", "action": "notes.rename", "arguments": {"title": "y"}})
        assert called.structured_content == {"ok": True, "title": "y"}


#: The built-in observe and act-on-ref tools (dispatch/builtins/acting/observe_tools.py).
OBSERVE_TOOLS = {"page_observe", "page_read", "page_find", "page_extract", "page_act", "page_click", "page_fill", "page_press", "page_select", "page_hover", "page_scroll", "page_drag", "actions_save_tool"}


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        (["notes.*"], [], {"notes_read_title", "notes_delete", "notes_rename", "notes_archive"}),  # only the notes map
        ([], ["notes.*", "shop.*"], BROWSER_TOOL_NAMES | {"actions_site"} | OBSERVE_TOOLS),  # everything but the two maps
        (["notes.*", "actions.site"], ["notes.delete"], {"notes_read_title", "notes_rename", "notes_archive", "actions_site"}),  # deny beats allow
    ],
)
async def test_tool_globs_choose_what_is_exposed(include, exclude, expected):
    options = {"tools": include, "exclude_tools": exclude, "builtin_tools": ["all"]}
    async with notes_env(options=options) as (app, client, runtime, notes):
        assert {t.name for t in (await client.list_tools()).tools} == expected


MAP_TOOLS = {"notes_read_title", "notes_delete", "notes_rename", "notes_archive"}


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        ([], MAP_TOOLS | {"browser_navigate", "actions_site"}),  # auto: the notes map has no site to open, and projections only actions_site reads
        (["none"], MAP_TOOLS),
        (["tabs", "capture"], MAP_TOOLS | {"browser_list_tabs", "browser_open_tab", "browser_activate_tab", "browser_close_tab", "browser_screenshot"}),
        (["all"], MAP_TOOLS | BROWSER_TOOL_NAMES | {"actions_site"} | OBSERVE_TOOLS),
    ],
)
async def test_builtin_groups_choose_which_builtins_are_listed(groups, expected):
    async with notes_env(options={"builtin_tools": groups, "exclude_tools": ["shop.*"]}) as (app, client, runtime, notes):
        assert {t.name for t in (await client.list_tools()).tools} == expected


async def test_an_unlisted_builtin_still_answers_by_name():
    async with notes_env(options={"builtin_tools": ["none"]}) as (app, client, runtime, notes):
        assert "actions_site" not in {t.name for t in (await client.list_tools()).tools}
        listing = await client.call_tool("actions_site", {"mode": "list"})
        assert not listing.is_error and "notes.rename" in {t["name"] for t in listing.structured_content["tools"]}


async def test_site_call_forwards_progress_like_a_direct_call():
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with notes_env("legacy", options={"tool_mode": "site"}) as (app, client, runtime, notes):
        result = await client.call_tool("actions_site", {"mode": "call", "action": "notes.read_title", "arguments": {}}, progress_callback=on_progress)
        assert not result.is_error, result
        assert result.structured_content == {"title": "Groceries"}
        await asyncio.sleep(0.05)
        assert progress == [
            (0, 2, "step title (locator.text_content)"),
            (1, 2, "step body (locator.text_content)"),
            (2, 2, "done"),
        ]
        # Without a progress token nothing is reported, and the call runs the same.
        progress.clear()
        assert not (await client.call_tool("actions_site", {"mode": "call", "action": "notes.read_title", "arguments": {}})).is_error
        await asyncio.sleep(0.05)
        assert progress == []


async def test_the_first_tools_list_starts_compiling_every_check_in_the_background():
    # So that no first call pays ~2 ms per JSON Schema validator (its arguments, its result, each primitive).
    async with notes_env() as (app, client, runtime, notes):
        # Start-up compiles nothing of the maps' tools: the host's first tools/list comes first. (Built-ins
        # and the dictionary are shared by every app in this process, so earlier tests compiled them.)
        compiled_early = [b.name for b in app.catalog.tools.values() if b.kind != "builtin" and b._input_check._validator is not None]
        assert compiled_early == []
        await client.list_tools()
        assert app.checks.task is not None
        await asyncio.wait_for(app.checks.task, timeout=10)
        assert all(b._input_check._validator is not None for b in app.catalog.tools.values())
        assert all(app.bridge.dictionary.get(name)._input._validator is not None for name in app.bridge.dictionary)
