"""What the bridge makes of answers and asks of calls, over real WebSockets.

- The spec's ``{ok, result}`` / ``{ok: false, error}`` envelope is understood;
  plain outputs (our own runtime's shape) stay what they are.
- A dictionary primitive is checked before it leaves the bridge: the runtime
  must provide it (when it announced capabilities at all) and its arguments
  must fit the dictionary's ``input_schema``.
- A signal's payload schema that cannot be compiled refuses the events it
  should check, and says so in the log once (a tool's input and result
  schemas do the same: tests/catalog/test_catalog.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcp_actions.bridge.signals import SignalSpec

from .conftest import MakeRuntime, MakeServer
from .wsclient import WsRuntime, eventually, outcome

# -- the output envelope ------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ({"ok": True, "result": {"url": "https://example.com/search?q=maps"}}, ("output", {"url": "https://example.com/search?q=maps"})),
        ({"ok": True, "result": None}, ("output", None)),  # a result of null is still the result
        ({"ok": True, "result": {"ok": True, "result": "x"}}, ("output", {"ok": True, "result": "x"})),  # unwrapped once only
        ({"ok": True, "cart_size": 1}, ("output", {"ok": True, "cart_size": 1})),  # plain output with an ok field
        ({"ok": "yes", "result": 1}, ("output", {"ok": "yes", "result": 1})),  # ok is not a boolean: not an envelope
        ({"ok": False, "reason": "sold out"}, ("output", {"ok": False, "reason": "sold out"})),  # no error: plain
        ({"count": 2}, ("output", {"count": 2})),  # our runtime.js's plain shape
        ("done", ("output", "done")),
    ],
)
async def test_outputs_envelope_or_plain(make_runtime: MakeRuntime, bridge: Any, output: Any, expected: tuple[str, Any]) -> None:
    runtime = await make_runtime("rt-env")

    async def answer(call: dict[str, Any]) -> Any:
        return output

    runtime.serve(answer)
    kind, value = await outcome(bridge.call("search.submit", {"query": "maps"}, runtime_id="rt-env", handler="search.submit", timeout_ms=3000))
    assert (kind, value) == expected


async def test_an_envelope_error_is_that_structured_error(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-env")
    error = {
        "code": "target_not_found",
        "message": "The declared search form target did not match the current page.",
        "severity": "major",
        "recoverable": True,
        "evidence": {"url": "https://example.com/search", "selector": "form[role='search']"},
    }

    async def answer(call: dict[str, Any]) -> Any:
        return {"ok": False, "error": error}

    runtime.serve(answer)
    kind, exc = await outcome(bridge.call("search.submit", {}, runtime_id="rt-env", handler="search.submit", timeout_ms=3000))
    assert kind == "target_not_found"
    assert exc.to_error() == error
    assert bridge.pending_count == 0


async def test_an_envelope_failure_without_a_structured_error_still_fails(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-env")

    async def answer(call: dict[str, Any]) -> Any:
        return {"ok": False, "error": "it broke"}

    runtime.serve(answer)
    kind, exc = await outcome(bridge.call("search.submit", {}, runtime_id="rt-env", handler="search.submit", timeout_ms=3000))
    assert kind == "handler_failed" and exc.evidence == {"error": "it broke"}


@pytest.mark.parametrize("how", ["action_error", "envelope"])
@pytest.mark.parametrize(
    ("code", "expected", "runtime_code"),
    [
        ("target_not_visible", "target_not_visible", None),  # a spec / dictionary code is kept
        ("transfer_expired", "transfer_expired", None),  # a dictionary code our runtimes never send
        ("page_on_fire", "handler_failed", "page_on_fire"),  # not in our vocabulary: kept as evidence
    ],
)
async def test_runtime_error_codes_reach_callers_in_our_vocabulary(
    make_runtime: MakeRuntime, bridge: Any, how: str, code: str, expected: str, runtime_code: str | None
) -> None:
    runtime = await make_runtime("rt-codes")
    task = asyncio.create_task(outcome(bridge.call("shop.x", {}, runtime_id="rt-codes", handler="shop.x", timeout_ms=3000)))
    call = await runtime.recv()
    error = {"code": code, "message": "it went wrong", "evidence": {"selector": "#x"}}
    if how == "action_error":
        await runtime.send({"type": "action_error", "call_id": call["call_id"], "runtime_id": "rt-codes", "error": error})
    else:
        await runtime.output(call["call_id"], {"ok": False, "error": error})
    kind, exc = await task
    assert kind == expected and exc.message == "it went wrong" and exc.evidence["selector"] == "#x"
    assert exc.evidence.get("runtime_code") == runtime_code


# -- primitive checks before sending -------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "path"),
    [
        ("pointer.click", {"x": "left", "y": 3}, "/x"),  # wrong type
        ("pointer.click", {"x": 1}, ""),  # y missing: reported at the arguments object
        ("pointer.click", {"x": 1, "y": 2, "force": True}, ""),  # additionalProperties false
        ("locator.element_info", {"locator": "#total"}, "/locator"),  # the dictionary's locator is an object
        ("pointer.drag", {"from": {"x": 1, "y": 2}, "to": {"x": "a", "y": 2}}, "/to/x"),  # nested pointer
    ],
)
async def test_primitive_arguments_are_checked_against_the_dictionary_before_sending(
    make_runtime: MakeRuntime, bridge: Any, name: str, arguments: dict[str, Any], path: str
) -> None:
    runtime = await make_runtime("rt-prim")
    kind, exc = await outcome(bridge.call(name, arguments, runtime_id="rt-prim", timeout_ms=3000))
    assert kind == "invalid_input"
    assert exc.evidence["path"] == path and exc.evidence["primitive"] == name
    await runtime.expect_silence(0.1)  # nothing left the bridge
    assert bridge.pending_count == 0


async def test_valid_primitive_arguments_and_other_names_are_sent(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-prim")
    runtime.serve()
    assert (await bridge.call("pointer.click", {"x": 1, "y": 2.5}, runtime_id="rt-prim", timeout_ms=3000))["name"] == "pointer.click"
    # Not in the dictionary: the runtime decides.
    assert "site.custom_step" not in bridge.dictionary
    assert (await bridge.call("site.custom_step", {"quiet_ms": "soon"}, runtime_id="rt-prim", timeout_ms=3000))["name"] == "site.custom_step"
    # A tool call (with a handler) is checked by the catalogue, not against the dictionary.
    assert (await bridge.call("pointer.click", {"any": 1}, runtime_id="rt-prim", handler="shop.click", timeout_ms=3000))["name"] == "pointer.click"


async def test_a_primitive_the_runtime_did_not_announce_is_refused_naming_host_and_capability(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-cap", capabilities=["page.info", "dom.observe"], extension_version="page-runtime/9.9", runtime_key="tab:4")
    kind, exc = await outcome(bridge.call("browser.screenshot", {}, runtime_id="rt-cap", timeout_ms=3000))
    assert kind == "capability_unavailable"
    assert exc.evidence == {
        "capability": "browser.screenshot",
        "missing": ["browser.screenshot"],
        "host": "tab",  # the scheme of its runtime_key
        "runtime_id": "rt-cap",
        "runtime_key": "tab:4",
        "extension_version": "page-runtime/9.9",
    }
    assert "'rt-cap' (tab host)" in exc.message
    kind, exc = await outcome(bridge.call("pointer.click", {"x": 1, "y": 1}, runtime_id="rt-cap", timeout_ms=3000))
    assert kind == "capability_unavailable" and exc.evidence["missing"] == ["pointer.visible", "pointer.click"]
    await runtime.expect_silence(0.1)  # nothing was sent
    # A primitive whose dictionary capabilities are all announced is provided (dom.observe.visible needs dom.observe).
    runtime.serve()
    assert (await bridge.call("dom.observe.visible", {}, runtime_id="rt-cap", timeout_ms=3000))["name"] == "dom.observe.visible"
    assert (await bridge.call("page.info", {}, runtime_id="rt-cap", timeout_ms=3000))["name"] == "page.info"


async def test_an_argument_added_to_the_reference_dictionary_goes_only_to_runtimes_announcing_it(make_runtime: MakeRuntime, bridge: Any) -> None:
    # A runtime written from the reference dictionary: it clicks at x/y and knows nothing of target.
    spec_only = await make_runtime("rt-spec", capabilities=["pointer.visible", "pointer.click", "page.info"])
    kind, exc = await outcome(bridge.call("pointer.click", {"target": {"selector": "#save"}}, runtime_id="rt-spec", timeout_ms=3000))
    assert kind == "capability_unavailable"
    assert exc.evidence["argument"] == "target" and exc.evidence["missing"] == ["pointer.click.target"]
    assert "'rt-spec'" in exc.message and "reference dictionary" in exc.message
    await spec_only.expect_silence(0.1)  # refused before it left the bridge
    spec_only.serve()
    assert (await bridge.call("pointer.click", {"x": 3, "y": 4}, runtime_id="rt-spec", timeout_ms=3000))["name"] == "pointer.click"
    # A runtime announcing the extension (ours do), or announcing nothing at all, is sent it.
    for runtime_id, announced in (("rt-ours", {"capabilities": ["pointer.visible", "pointer.click", "pointer.click.target"]}), ("rt-quiet", {})):
        runtime = await make_runtime(runtime_id, **announced)
        runtime.serve()
        sent = await bridge.call("pointer.click", {"target": {"selector": "#save"}}, runtime_id=runtime_id, timeout_ms=3000)
        assert sent["name"] == "pointer.click" and sent["arguments"] == {"target": {"selector": "#save"}}


async def test_without_a_keyed_runtime_the_transport_names_the_host(make_runtime: MakeRuntime, bridge: Any) -> None:
    await make_runtime("rt-bare", capabilities=["page.info"])
    kind, exc = await outcome(bridge.call("text.insert", {"text": "hi"}, runtime_id="rt-bare", timeout_ms=3000))
    assert kind == "capability_unavailable" and exc.evidence["host"] == "websocket"


async def test_a_runtime_without_a_capability_list_gets_every_primitive(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-silent-caps")
    runtime.serve()
    assert (await bridge.call("browser.screenshot", {}, runtime_id="rt-silent-caps", timeout_ms=3000))["name"] == "browser.screenshot"


# -- schemas that cannot be compiled -------------------------------------------------

_BROKEN_PAYLOAD = {"type": "object", "properties": {"sku": {"$ref": "#/$defs/missing"}}}


def _broken_signals(info: Any) -> dict[str, SignalSpec]:
    return {"cart.item_added": SignalSpec("cart.item_added", "shop:item-added", True, _BROKEN_PAYLOAD)}


async def test_an_event_whose_schema_cannot_be_compiled_is_refused_and_logged_once(make_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="mcp_actions")
    server = await make_server(signal_source=_broken_signals)
    shop = await WsRuntime(server.url, "rt-shop", url="https://shop.test/").open()
    for event_id in ("e-1", "e-2"):
        await shop.send({"type": "dom_event", "event_id": event_id, "runtime_id": "rt-shop", "name": "cart.item_added", "payload": {"sku": "A1"}})
        reply = await shop.recv()
        assert reply["error"]["code"] == "invalid_schema"
        assert reply["error"]["evidence"]["event_id"] == event_id and reply["error"]["evidence"]["name"] == "cart.item_added"
        assert "missing" in reply["error"]["evidence"]["problem"]
    assert len(server.bridge.registry.get("rt-shop").events) == 0  # nothing waved through
    logged = [r for r in caplog.records if "cannot be compiled" in r.getMessage()]
    assert len(logged) == 1 and "cart.item_added" in logged[0].getMessage()
    await shop.close()


async def test_call_checks_leave_nothing_pending(make_runtime: MakeRuntime, bridge: Any) -> None:
    await make_runtime("rt-idle", capabilities=["page.info"])
    results = await asyncio.gather(
        *(outcome(bridge.call("pointer.click", {"x": 1, "y": 1}, runtime_id="rt-idle")) for _ in range(5)),
        *(outcome(bridge.call("page.info", {"unexpected": True}, runtime_id="rt-idle")) for _ in range(5)),
    )
    assert [kind for kind, _ in results] == ["capability_unavailable"] * 5 + ["invalid_input"] * 5
    await eventually(lambda: bridge.pending_count == 0)


# -- quiet spells ---------------------------------------------------------------


async def test_quiet_for_is_zero_while_a_call_is_in_flight_and_grows_after(make_runtime: MakeRuntime, bridge: Any) -> None:
    # Background work (WAB discovery) waits for a quiet spell; a call in flight is never one.
    runtime = await make_runtime("rt-quiet")
    release = asyncio.Event()

    async def answer(call: dict[str, Any]) -> Any:
        await release.wait()
        return {"done": True}

    runtime.serve(answer)
    call = asyncio.create_task(bridge.call("search.submit", {}, runtime_id="rt-quiet", handler="search.submit", timeout_ms=3000))
    await eventually(lambda: bridge.pending_count == 1)
    await asyncio.sleep(0.05)
    assert bridge.quiet_for == 0.0
    release.set()
    assert await call == {"done": True}
    await asyncio.sleep(0.05)
    assert 0.04 <= bridge.quiet_for < 5.0
