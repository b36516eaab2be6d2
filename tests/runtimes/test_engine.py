"""The JavaScript engine (window.__mcpActions) in a real headless Chromium, without a bridge.

Pages come from tests/fixtures/pages/engine/; the engine is installed the way
the browser host installs it (an init script, engine only).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.runtimes.page_script import ENGINE_EXTENSIONS, ENGINE_PRIMITIVES, engine_js, engine_version, runtime_js

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

RUN = "([n, a]) => window.__mcpActions.run(n, a)"
CALL = "([p, a]) => window.__mcpActions.callHandler(p, a)"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def page(chromium: Browser) -> AsyncIterator[Page]:
    context = await chromium.new_context(viewport={"width": 1000, "height": 700})
    await context.add_init_script(script=engine_js())
    page = await context.new_page()
    yield page
    await context.close()


async def run(page: Page, name: str, args: Any = None) -> dict[str, Any]:
    return await page.evaluate(RUN, [name, args if args is not None else {}])


async def ok(page: Page, name: str, args: Any = None) -> dict[str, Any]:
    envelope = await run(page, name, args)
    assert envelope["ok"], envelope
    return envelope["output"]


async def err(page: Page, name: str, args: Any = None) -> dict[str, Any]:
    envelope = await run(page, name, args)
    assert envelope["ok"] is False, envelope
    return envelope["error"]


async def open_fixture(page: Page, pages_url: str, name: str) -> None:
    await page.goto(f"{pages_url}/engine/{name}")


# -- the API itself -------------------------------------------------------------


async def test_api_is_hidden_frozen_and_loading_twice_does_nothing(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    facts = await page.evaluate(
        """() => ({
            enumerable: Object.keys(window).includes("__mcpActions"),
            frozen: Object.isFrozen(window.__mcpActions),
            methods: Object.keys(window.__mcpActions).sort(),
        })"""
    )
    assert facts == {
        "enumerable": False,
        "frozen": True,
        "methods": sorted(
            ["version", "run", "callHandler", "capabilities", "focusEditable", "watchEvents", "status", "onPageTools", "pageTools", "onCallMessage", "deliver", "abortCall"]
            + ["applyAttachments", "onOverlayChange", "overlayPassThrough", "_attachClient"]
        ),
    }
    await page.evaluate("() => { window.__firstEngine = window.__mcpActions; }")
    await page.evaluate("(src) => { (0, eval)(src); }", runtime_js())  # a second full load
    same = await page.evaluate("() => window.__firstEngine === window.__mcpActions")
    status = await page.evaluate("() => window.__mcpActions.status()")
    assert same is True
    # Engine only: no WebSocket client, no call running; versions agree.
    assert status == {"version": engine_version(), "client": None, "running_calls": 0}


async def test_capabilities_match_python_and_the_dictionary(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    capabilities = await page.evaluate("() => window.__mcpActions.capabilities()")
    dictionary = json.loads(resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text())
    names = {p["name"] for p in dictionary["primitives"]}
    assert tuple(capabilities) == ENGINE_PRIMITIVES + ENGINE_EXTENSIONS
    assert set(ENGINE_PRIMITIVES) <= names
    # Each extension is the argument capability of a dictionary entry the engine runs (a tab's own, browser.navigate's, is not the engine's).
    needed = {c for p in dictionary["primitives"] if p["name"] in ENGINE_PRIMITIVES for caps in p.get("argument_capabilities", {}).values() for c in caps}
    assert set(ENGINE_EXTENSIONS) == needed
    # Every dictionary primitive the engine lacks is refused as a capability, not as unknown.
    for name in sorted(names - set(ENGINE_PRIMITIVES)):
        error = await err(page, name)
        assert (error["code"], error["evidence"]) == ("capability_unavailable", {"capability": name, "host": "page"})


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("no.such.primitive", {}, "unknown_action"),  # not a dictionary name at all
        ("browser.tabs.whatever", {}, "capability_unavailable"),  # privileged family
        ("page.info", [1, 2], "invalid_input"),  # arguments must be an object
        ("locator.element_info", {}, "invalid_input"),  # a locator primitive without locator
        ("pointer.click", {"x": "1", "y": 2}, "invalid_input"),  # coordinates must be numbers
    ],
)
async def test_run_refuses_bad_calls(page: Page, pages_url: str, name: str, args: Any, code: str) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    assert (await err(page, name, args))["code"] == code


async def test_page_info(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    assert await ok(page, "page.info") == {"url": f"{pages_url}/engine/locators.html", "title": "Locator fixture"}


# -- locators -------------------------------------------------------------------

LOCATOR_CASES = [
    # selector alone
    ({"selector": "#save"}, "save", "selector"),
    # the first selectors entry that matches wins, in order
    ({"selectors": ["#nope", ".primary", "#close"]}, "save", "selectors[1]"),
    # selector drifted: fallbacks are tried in order
    ({"selector": "#renamed", "fallback_selectors": [".gone", "#rows .row:first-child"]}, "row-alpha", "fallback_selectors[1]"),
    # selector wins over fallbacks even when those match too
    ({"selector": "#close", "fallback_selectors": ["#save"]}, "close", "selector"),
    # role+name alone, accessible name from <label for>
    ({"role": "textbox", "name": "User name"}, "user", "role+name"),
    # accessible name from a wrapping <label> (password counts as a textbox)
    ({"role": "textbox", "name": "Password"}, "pw", "role+name"),
    # aria-labelledby
    ({"role": "textbox", "name": "Search terms"}, "search", "role+name"),
    # title
    ({"role": "textbox", "name": "Nickname"}, "titled", "role+name"),
    # aria-label beats content; names compare case-insensitively
    ({"role": "button", "name": "close DIALOG"}, "close", "role+name"),
    # an exact name wins over a partial one ("Sign in" vs "Sign in later")
    ({"role": "button", "name": "Sign in"}, "sign-in", "role+name"),
    # explicit role attribute
    ({"role": "button", "name": "Custom"}, "fake-button", "role+name"),
    # a named form has the form role
    ({"role": "form", "name": "Login"}, "login", "role+name"),
    # heading
    ({"role": "heading", "name": "Locators"}, None, "role+name"),
    # selector drifted, role+name still finds the target
    ({"selector": "#gone", "role": "button", "name": "Save"}, "save", "role+name"),
    # text_equals filters candidates
    ({"selector": ".cell", "text_equals": "Beta"}, None, "selector"),
    # text_contains filters, closest retargets to the row
    ({"selector": ".cell", "text_contains": "lph", "closest": "li.row"}, "row-alpha", "selector"),
    # a filter emptying a candidate moves on to the next one
    ({"selectors": ["#save", "#close"], "text_equals": "×"}, "close", "selectors[1]"),
    # one visible among hidden matches: the visible one
    ({"selector": ".mixed"}, "mixed-shown", "selector"),
    # several visible matches narrowed to one by the locator's role+name
    ({"selector": "form button", "role": "button", "name": "Sign in later"}, "sign-in-later", "selector"),
    # xpath candidate
    ({"xpath": "//button[@id='save']"}, "save", "xpath"),
    # a bare string is a CSS selector
    ("#close", "close", "selector"),
]


@pytest.mark.parametrize(("locator", "element_id", "matched_by"), LOCATOR_CASES)
async def test_locator_resolution(page: Page, pages_url: str, locator: Any, element_id: str | None, matched_by: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    info = await ok(page, "locator.element_info", {"locator": locator})
    assert info["matched_by"] == matched_by
    if element_id is not None:
        expected_box = await page.evaluate(
            "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " const f = (n) => Math.round(n * 100) / 100;"
            " return {x: f(r.left), y: f(r.top), width: f(r.width), height: f(r.height)}; }",
            element_id,
        )
        assert info["bounding_box"] == expected_box


LOCATOR_ERRORS = [
    # two visible twins: never an arbitrary pick
    ({"selector": ".twin"}, "multiple_targets"),
    # role+name matching two visible links named "Open"
    ({"role": "link", "name": "Open"}, "multiple_targets"),
    # narrowing by role+name that still leaves two is an error too
    ({"selector": "button.twin", "role": "button", "name": "Twin"}, "multiple_targets"),
    # nothing anywhere
    ({"selector": "#nope", "selectors": [".nope"], "fallback_selectors": [".still-nope"], "role": "button", "name": "Nope"}, "target_not_found"),
    # filters exclude every match
    ({"selector": ".cell", "text_equals": "Gamma"}, "target_not_found"),
    # closest finds no ancestor
    ({"selector": "#save", "closest": "table"}, "target_not_found"),
    # several hidden matches, none visible: element_info needs a visible target
    ({"selector": ".ghost"}, "target_not_visible"),
    # broken CSS
    ({"selector": "button[["}, "invalid_locator"),
    # broken CSS in a later candidate is still an authoring error
    ({"selector": "#nope", "fallback_selectors": ["::nope("]}, "invalid_locator"),
    # broken closest
    ({"selector": "#save", "closest": "(("}, "invalid_locator"),
    # broken xpath
    ({"xpath": "//*["}, "invalid_locator"),
    # no candidate at all (a name without a role locates nothing)
    ({"name": "Save"}, "invalid_locator"),
    # an empty text predicate is an authoring error, not a match-everything
    ({"text_contains": "  "}, "invalid_locator"),
    # not an object
    (42, "invalid_locator"),
]


@pytest.mark.parametrize(("locator", "code"), LOCATOR_ERRORS)
async def test_locator_errors(page: Page, pages_url: str, locator: Any, code: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    assert (await err(page, "locator.element_info", {"locator": locator}))["code"] == code


async def test_multiple_targets_evidence_lists_candidates(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    error = await err(page, "locator.text_content", {"locator": {"selector": "main button:not([style])"}})
    evidence = error["evidence"]
    assert error["code"] == "multiple_targets"
    assert evidence["count"] > 5
    assert len(evidence["candidates"]) == 5
    assert evidence["candidates"][0]["tag"] == "button"
    assert evidence["candidates"][0]["text"] == "Save"
    assert set(evidence["candidates"][0]["bounding_box"]) == {"x", "y", "width", "height"}


async def test_target_not_found_evidence_lists_what_was_tried(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    locator = {"selector": "#nope", "fallback_selectors": [".nope"], "role": "button", "name": "Nope"}
    error = await err(page, "locator.element_info", {"locator": locator})
    assert error["evidence"]["locator"] == locator
    assert [t["matched_by"] for t in error["evidence"]["tried"]] == ["selector", "fallback_selectors[0]", "role+name"]
    assert all(t["count"] == 0 for t in error["evidence"]["tried"])


async def test_element_info_fields(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    info = await ok(page, "locator.element_info", {"locator": {"selector": "#save"}})
    box, center = info["bounding_box"], info["clickable_center"]
    assert info | {"bounding_box": None, "clickable_center": None} == {
        "bounding_box": None,
        "clickable_center": None,
        "visible": True,
        "in_viewport": True,
        "occluded": False,
        "enabled": True,
        "editable": False,
        "tag": "button",
        "role": "button",
        "name": "Save",
        "text": "Save",
        "matched_by": "selector",
        "match_count": 1,
    }
    assert box["width"] > 0 and box["height"] > 0
    assert center == {"x": round(box["x"] + box["width"] / 2, 2), "y": round(box["y"] + box["height"] / 2, 2)}


@pytest.mark.parametrize(
    ("selector", "reason"),
    [
        ("#ghost", "display_none"),  # display:none
        ("#invisible", "visibility_hidden"),  # visibility:hidden has a box but is not visible
    ],
)
async def test_element_info_on_a_hidden_element_fails_with_why(page: Page, pages_url: str, selector: str, reason: str) -> None:
    # Never a (0, 0) centre a workflow would click: target_not_visible with what matched and why.
    await open_fixture(page, pages_url, "locators.html")
    error = await err(page, "locator.element_info", {"locator": {"selector": selector}})
    assert error["code"] == "target_not_visible"
    assert error["evidence"]["matched_by"] == "selector"
    assert error["evidence"]["candidates"][0]["id"] == selector[1:]
    assert error["evidence"]["candidates"][0]["hidden"]["reason"] == reason


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        # disabled buttons are visible but not enabled
        ("#disabled-btn", {"visible": True, "enabled": False}),
        # covered by another element: occluded
        ("#covered", {"visible": True, "occluded": True}),
        # below the fold: scrolled into view so the centre is clickable
        ("#far", {"visible": True, "in_viewport": True, "occluded": False}),
        # inputs report their value and editability
        ("#user", {"editable": True, "value": "", "role": "textbox", "name": "User name"}),
    ],
)
async def test_element_info_states(page: Page, pages_url: str, selector: str, expected: dict[str, Any]) -> None:
    await open_fixture(page, pages_url, "locators.html")
    info = await ok(page, "locator.element_info", {"locator": {"selector": selector}})
    assert {k: info.get(k) for k in expected} == expected


async def test_text_content(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    assert (await ok(page, "locator.text_content", {"locator": {"selector": "#para"}}))["text"] == "A paragraph with bold text."
    assert (await ok(page, "locator.text_content", {"locator": "#ghost"}))["text"] == "Ghost"  # hidden: textContent


async def test_wait_for_appearing_and_becoming_visible(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    await page.evaluate(
        """() => {
            setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'Late'; document.body.append(b); }, 150);
            setTimeout(() => { document.getElementById('ghost').style.display = 'inline'; }, 150);
        }"""
    )
    late = await ok(page, "locator.wait_for", {"locator": {"selector": "#late"}, "state": "attached", "timeout_ms": 3000})
    shown = await ok(page, "locator.wait_for", {"locator": {"selector": "#ghost"}, "timeout_ms": 3000})
    assert late["matched"] is True and late["state"] == "attached"
    assert shown == {"matched": True, "state": "visible", "matched_by": "selector", "match_count": 1}
    # attached but hidden satisfies "attached" at once
    assert (await ok(page, "locator.wait_for", {"locator": "#ghost-2", "state": "attached", "timeout_ms": 0}))["matched"]


async def test_wait_for_times_out_and_refuses_bad_locators_at_once(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    timeout = await err(page, "locator.wait_for", {"locator": {"selector": "#ghost-2"}, "timeout_ms": 150})
    assert timeout["code"] == "timeout"
    assert timeout["evidence"]["state"] == "visible" and timeout["evidence"]["timeout_ms"] == 150
    assert timeout["evidence"]["elapsed_ms"] >= 140
    invalid = await err(page, "locator.wait_for", {"locator": {"selector": "[["}, "timeout_ms": 5000})
    assert invalid["code"] == "invalid_locator"


# -- pointer, text and keys ---------------------------------------------------


async def center_of(page: Page, selector: str) -> dict[str, float]:
    return (await ok(page, "locator.element_info", {"locator": {"selector": selector}}))["clickable_center"]


async def test_pointer_click_dispatches_at_the_point(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    point = await center_of(page, "#counter")
    assert (await ok(page, "pointer.click", point))["clicked"] is True
    assert (await ok(page, "pointer.click", {**point, "button": "right"}))["clicked"] is True
    assert await page.text_content("#counter") == "Clicked 1"
    assert await page.evaluate("() => window.log") == [
        {"type": "click", "trusted": False, "button": 0},
        {"type": "contextmenu", "button": 2},
    ]


async def test_pointer_click_focuses_and_submits_like_a_click(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    await ok(page, "pointer.click", await center_of(page, "#text"))
    assert await page.evaluate("() => document.activeElement.id") == "text"
    await ok(page, "pointer.click", await center_of(page, "#submit"))
    assert await page.evaluate("() => window.submits") == 1


@pytest.mark.parametrize(
    ("point", "code"),
    [
        ({"x": -1, "y": 10}, "point_out_of_viewport"),  # left of the viewport
        ({"x": 10, "y": 5000}, "point_out_of_viewport"),  # below it
        ({"x": 1000, "y": 10}, "point_out_of_viewport"),  # x == width is already outside
    ],
)
async def test_pointer_click_outside_the_viewport(page: Page, pages_url: str, point: dict[str, float], code: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    error = await err(page, "pointer.click", point)
    assert error["code"] == code
    assert error["evidence"]["viewport"] == {"width": 1000, "height": 700}


async def field_value(page: Page, selector: str) -> str:
    return await page.eval_on_selector(selector, "el => el.value")


@pytest.mark.parametrize(
    ("args", "selector", "value"),
    [
        # append is the default
        ({"text": " world", "target": {"selector": "#text"}}, "#text", "Hello world"),
        # replace
        ({"text": "Bye", "target": {"selector": "#text"}, "mode": "replace"}, "#text", "Bye"),
        # textarea
        ({"text": "!", "target": {"selector": "#area"}}, "#area", "Line!"),
        # a number field accepts digits
        ({"text": "42", "target": {"selector": "#number"}}, "#number", "42"),
    ],
)
async def test_text_insert_into_fields(page: Page, pages_url: str, args: dict[str, Any], selector: str, value: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    output = await ok(page, "text.insert", args)
    assert output == {"inserted": True, "inserted_length": len(args["text"]), "matched_by": "selector"}
    assert await field_value(page, selector) == value
    assert await page.evaluate("() => document.activeElement.id") == selector[1:]


async def test_text_insert_uses_the_focused_field_and_reaches_framework_trackers(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    await page.focus("#reactish")
    output = await ok(page, "text.insert", {"text": "typed"})
    assert output["matched_by"] == "focused"
    assert await field_value(page, "#reactish") == "typed"
    assert await page.evaluate("() => window.reactishChanges") == 1


async def test_text_insert_into_contenteditable(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    await ok(page, "text.insert", {"text": " more", "target": {"selector": "#editor"}})
    assert await page.text_content("#editor") == "Draft more"
    await ok(page, "text.insert", {"text": "New", "target": {"selector": "#editor"}, "mode": "replace"})
    assert await page.text_content("#editor") == "New"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"text": "x", "target": {"selector": "#counter"}}, "target_not_editable"),  # a button
        ({"text": "x", "target": {"selector": "#readonly"}}, "target_not_editable"),  # read-only field
        ({"text": "x"}, "target_not_editable"),  # nothing editable is focused
        ({"text": "abc", "target": {"selector": "#number"}}, "insert_failed"),  # a number field refuses letters
        ({"text": "x", "target": {"selector": "#nope"}}, "target_not_found"),  # locator errors pass through
        ({"text": 5, "target": {"selector": "#text"}}, "invalid_input"),  # text must be a string
        ({"text": "x", "target": {"selector": "#text"}, "mode": "prepend"}, "invalid_input"),  # unknown mode
    ],
)
async def test_text_insert_errors(page: Page, pages_url: str, args: dict[str, Any], code: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    assert (await err(page, "text.insert", args))["code"] == code


async def test_keyboard_press_synthetic_chord(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    await page.focus("#area")
    output = await ok(page, "keyboard.press", {"key": "Cmd+Shift+a", "modifiers": ["Ctrl"]})
    assert output == {"pressed": True, "key": "A", "modifiers": ["Meta", "Shift", "Control"], "fidelity": "synthetic"}
    log = await page.evaluate("() => window.log")
    assert [e["type"] for e in log] == ["keydown", "keyup"]  # no keypress with Control/Meta held
    assert log[0] | {"trusted": None} == {
        "type": "keydown", "key": "A", "code": "KeyA", "ctrl": True, "meta": True, "shift": True,
        "alt": False, "target": "area", "trusted": None,
    }


async def test_keyboard_enter_in_a_form_field_submits(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    await page.focus("#text")
    output = await ok(page, "keyboard.press", {"key": "Enter"})
    assert output["default_action"] == "implicit_submission"
    assert await page.evaluate("() => window.submits") == 1
    assert [e["type"] for e in await page.evaluate("() => window.log")] == ["keydown", "keypress", "keyup"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"key": "Hyper+A"}, "invalid_key"),  # unknown modifier
        ({"key": "NotAKey"}, "invalid_key"),  # unknown named key
        ({"key": ""}, "invalid_key"),  # empty
        ({"key": "A", "modifiers": "Shift"}, "invalid_input"),  # modifiers must be a list
    ],
)
async def test_keyboard_press_errors(page: Page, pages_url: str, args: dict[str, Any], code: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    assert (await err(page, "keyboard.press", args))["code"] == code


# -- page text and observation --------------------------------------------------


async def test_snapshot_text_and_observe_visible(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    snap = await ok(page, "dom.snapshot_text", {"selector": "#rows", "max_chars": 5})
    assert snap == {"text": "Alpha", "truncated": True, "match_count": 1}
    assert (await err(page, "dom.snapshot_text", {"selector": "[["}))["code"] == "invalid_selector"
    seen = await ok(page, "dom.observe.visible", {"selector": "button", "text_contains": "Twin"})
    assert [m["id"] for m in seen["matches"]] == ["twin-1", "twin-2"]
    assert seen["matches"][0]["role"] == "button" and seen["matches"][0]["name"] == "Twin"


async def test_scroll_and_move(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "locators.html")
    scrolled = await ok(page, "viewport.scroll", {"delta_y": 300})
    assert scrolled == {"scroll_x": 0, "scroll_y": 300}
    assert await ok(page, "pointer.move", {"x": 5, "y": 6}) == {"x": 5, "y": 6}


# -- handlers -------------------------------------------------------------------

HANDLER_CASES = [
    # `this` is the parent object
    ("app.greet", {"name": "Ada"}, {"ok": True, "output": {"message": "Hi Ada"}}),
    # nested paths
    ("app.nested.deeper.echo", {"a": [1, 2]}, {"ok": True, "output": {"a": [1, 2]}}),
    # promises are awaited
    ("app.later", {"n": 21}, {"ok": True, "output": {"doubled": 42}}),
    # undefined becomes null
    ("app.nothing", {}, {"ok": True, "output": None}),
]


@pytest.mark.parametrize(("path", "args", "expected"), HANDLER_CASES)
async def test_call_handler(page: Page, pages_url: str, path: str, args: dict[str, Any], expected: dict[str, Any]) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    assert await page.evaluate(CALL, [path, args]) == expected


HANDLER_ERRORS = [
    ("app.missing", "missing_handler"),  # no such property
    ("nothing.here", "missing_handler"),  # no such root
    ("app.notAFunction", "missing_handler"),  # not callable
    ("app.greeting.length.x", "missing_handler"),  # walks into a primitive
    ("app.fails", "handler_failed"),  # throws
    ("app.rejects", "handler_failed"),  # rejects
    ("app.cyclic", "invalid_result"),  # not JSON-serialisable
    ("app.returnsFunction", "invalid_result"),  # a function is not JSON
    ("app.__proto__.greet", "invalid_input"),  # forbidden segment
    ("app.constructor", "invalid_input"),  # forbidden segment
    ("Object.prototype.toString", "invalid_input"),  # forbidden segment
    ("a;alert(1)", "invalid_input"),  # would need evaluation
    ("app.greet()", "invalid_input"),  # would need evaluation
    ("app['greet']", "invalid_input"),  # bracket access is source, not a path
    ("app..greet", "invalid_input"),  # empty segment
    ("", "invalid_input"),  # empty path
    ("eval", "permission_denied"),  # an evaluation sink reachable by name
    ("setTimeout", "permission_denied"),  # would run a string as code
]


@pytest.mark.parametrize(("path", "code"), HANDLER_ERRORS)
async def test_call_handler_errors(page: Page, pages_url: str, path: str, code: str) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    envelope = await page.evaluate(CALL, [path, {}])
    assert envelope["ok"] is False
    assert envelope["error"]["code"] == code
    assert await page.evaluate("() => window.pageFlag") == "untouched"


async def test_handler_failure_carries_the_message(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "handlers.html")
    envelope = await page.evaluate(CALL, ["app.fails", {}])
    assert envelope["error"] == {"code": "handler_failed", "message": "boom", "evidence": {"handler": "app.fails", "name": "TypeError"}}


async def test_reference_simple_form_handler(page: Page, pages_url: str) -> None:
    await page.goto(f"{pages_url}/simple-form/index.html")
    envelope = await page.evaluate(CALL, ["contactForm.submitName", {"name": "Ada"}])
    assert envelope == {"ok": True, "output": {"ok": True, "result": "Submitted Ada"}}


async def test_focus_editable_places_the_caret(page: Page, pages_url: str) -> None:
    await open_fixture(page, pages_url, "inputs.html")
    out = await page.evaluate("() => window.__mcpActions.focusEditable({selector: '#text'}, 'replace')")
    selection = await page.evaluate("() => [document.activeElement.id, document.activeElement.selectionStart, document.activeElement.selectionEnd]")
    assert out == {"ok": True, "output": {"tag": "input", "matched_by": "selector", "caret_placed": True, "value": "Hello"}}
    assert selection == ["text", 0, 5]
