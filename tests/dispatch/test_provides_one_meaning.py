"""Can this runtime do X? One answer, ``RuntimeInfo.provides``, wherever it is asked (issue 29, finding 2).

A runtime may announce a primitive by its name or by the capabilities the
dictionary says it needs (``locator.probe`` needs ``locator.resolve``), or
announce nothing at all (written from the spec alone: it answers for itself).
The places that ask agree with ``provides`` on each: the state diagnosis (one
``locator.probe`` round trip, else one ``locator.wait_for`` per diagnostic),
the bridge's check before it sends a primitive, the runtime a built-in is
given, and a map tool's handler.

Before, the state diagnosis asked its own question (``PROBE_PRIMITIVE in
capabilities``): a runtime announcing ``locator.resolve`` was sent
``locator.probe`` by the bridge but diagnosed with one wait per diagnostic.
"""

from __future__ import annotations

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.dispatch.call.execution import missing
from mcp_actions.dispatch.call.targets import TargetResolver
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.runtimes.memory import MemoryRuntime

from .harness import running
from .test_language_memory import SimpleFormPage, simple_form_map

#: The page's primitives by name, without locator.probe, but with the capability it needs.
BY_CAPABILITY = ["dom.settle", "locator.element_info", "locator.text_content", "locator.wait_for", "page.info", "pointer.click", "text.insert", "viewport.scroll", "locator.resolve"]


def _info(capabilities: list[str]) -> RuntimeInfo:
    return RuntimeInfo(runtime_id="r", url="https://page.test/", transport="test", capabilities=tuple(capabilities))


def test_what_provides_says_for_each_way_of_announcing() -> None:
    assert _info([]).provides("locator.probe")  # announced nothing: it answers for itself
    assert _info(["locator.probe"]).provides("locator.probe")  # by name
    assert _info(["locator.resolve"]).provides("locator.probe")  # by the capability the dictionary names
    assert not _info(["pointer.click"]).provides("locator.probe")
    # execution.missing (a tool's requires) is the same answer, server-side primitives aside.
    assert missing(["locator.probe", "transfer.insert", "dom.extract"], _info(["locator.resolve"])) == ["dom.extract"]


@pytest.mark.asyncio
async def test_a_runtime_announcing_the_capability_is_diagnosed_in_one_probe() -> None:
    page = SimpleFormPage()  # the memory runtime answers locator.probe from the page's waits
    async with running(simple_form_map(), page, handlers={"contactForm.submitName": page.handler}, capabilities=BY_CAPABILITY) as h:
        await h.call("contact.submit_name", {"name": "Ada"})
        calls = h.bridge_calls()
    # The bridge would send it locator.probe (it provides it), so the diagnosis asks it too: one round trip, twice.
    assert calls.count("locator.probe") == 2 and "locator.wait_for" not in calls


@pytest.mark.asyncio
async def test_the_bridge_the_resolver_and_the_runtime_agree() -> None:
    bridge = Bridge()
    await bridge.start()
    by_capability = MemoryRuntime(bridge, runtime_id="cap", primitives={"locator.probe": lambda arguments: {"results": []}}, capabilities=["locator.resolve"])
    lacking = MemoryRuntime(bridge, runtime_id="bare", primitives={"page.info": lambda arguments: {}}, capabilities=["page.info"])
    await by_capability.start()
    await lacking.start()
    try:
        # The bridge sends it where provides says yes, refuses it where it says no.
        assert await bridge.call("locator.probe", {"probes": []}, runtime_id="cap") == {"results": []}
        with pytest.raises(ActionError) as caught:
            await bridge.call("locator.probe", {"probes": []}, runtime_id="bare")
        assert caught.value.code == ErrorCode.CAPABILITY_UNAVAILABLE
        # A built-in that needs it is given the runtime that provides it, routed or not.
        resolver = TargetResolver(bridge)
        runtime = resolver.runtime_for("locator.probe", {})
        assert runtime is not None and runtime.runtime_id == "cap"
        with pytest.raises(ActionError) as refused:
            resolver.runtime_for("locator.probe", {"target_runtime_id": "bare"})
        assert refused.value.code == ErrorCode.CAPABILITY_UNAVAILABLE
    finally:
        await by_capability.stop()
        await lacking.stop()
        await bridge.stop()


def test_a_host_property_is_what_the_runtime_announced_not_what_it_provides() -> None:
    """input.trusted says the host's clicks are real input: a runtime that announced nothing provides every
    primitive (it answers for itself) but does not have that property; the page tools ask ``announces``."""
    assert _info([]).provides("input.trusted") and not _info([]).announces("input.trusted")
    assert _info(["input.trusted"]).announces("input.trusted")
    assert not _info(["pointer.click"]).announces("input.trusted")
