"""--builtin-tools: every built-in is in exactly one group, and the choice resolves as documented."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mcp_actions.dispatch.builtins.groups import BUILTIN_GROUPS, listed_builtins
from mcp_actions.dispatch.builtins.registry import BUILTIN_TOOLS, builtin_bindings
from mcp_actions.errors import ActionError
from mcp_actions.manifest.model import Manifest

ALL = frozenset(b.name for b in builtin_bindings())


def test_every_builtin_is_in_exactly_one_group():
    grouped = [name for names in BUILTIN_GROUPS.values() for name in names]
    assert sorted(grouped) == sorted(ALL)  # a new built-in must be given a group
    assert all(names for names in BUILTIN_GROUPS.values())  # and no group is left empty by a misspelt one
    assert len({tool.name for tool in BUILTIN_TOOLS}) == len(BUILTIN_TOOLS)


def a_map(**fields):
    """A valid map (validated by the model) with the given root fields."""
    return Manifest.model_validate({"protocol": "actions.json", "version": 1, "tools": [], **fields})


SITE_MAP = a_map(surface={"origin": "https://shop.example"})  # the server opens it for its tools
WILD_MAP = a_map(surface={"origin": "https://*.shop.example"})  # no one page to open
NO_ORIGIN = a_map()
STATEFUL = a_map(surface={"origin": "https://shop.example"}, state_projections=[{"name": "cart", "snapshot": {"extract": []}}])
DOCUMENTED = a_map(surface={"origin": "https://shop.example"}, context=[{"id": "help", "text": "How the shop works."}])


OBSERVE = {"page.observe", "page.read", "page.find", "page.extract", "page.act", "page.click", "page.fill", "page.press", "page.select", "page.hover", "page.scroll", "page.drag", "actions.save_tool"}


@pytest.mark.parametrize(
    ("choice", "maps", "uncovered", "tool_mode", "expected"),
    [
        ([], [NO_ORIGIN], False, "tools", {"browser.navigate"}),  # the agent must reach the site itself
        # A map names its site's origin, not the page its tools work on: navigation is listed anyway.
        ([], [SITE_MAP], False, "tools", {"browser.navigate"}),
        ([], [SITE_MAP, WILD_MAP], False, "tools", {"browser.navigate"}),
        # The active tab shows a web page no map covers: the observe-and-act tools join.
        ([], [SITE_MAP], True, "tools", {"browser.navigate"} | OBSERVE),
        ([], [STATEFUL], False, "tools", {"browser.navigate", "actions.site"}),  # only actions.site reads its projections
        ([], [DOCUMENTED, NO_ORIGIN], False, "tools", {"actions.site", "browser.navigate"}),  # ... and its context blocks
        # No valid map loaded (a --manifests folder of broken maps): as no maps, a general browser server,
        # without actions.site, which reads maps only (issue 44: a tool with nothing to say costs every turn).
        ([], [], False, "tools", ALL - {"actions.site"}),
        (["auto"], [], True, "tools", ALL - {"actions.site"}),
        ([], [SITE_MAP], False, "site", ALL),  # site mode: the built-ins are the whole interface
        (["none"], [SITE_MAP], False, "site", {"actions.site"}),  # ... and actions.site is the way to the maps
        (["capture", "dialogs"], [], False, "tools", {"browser.screenshot", "browser.dismiss_dialog"}),
        (["none", "navigate"], [SITE_MAP], True, "tools", {"browser.navigate"}),  # a choice is exactly what is listed
        (["none"], [SITE_MAP], True, "tools", set()),
        (["all"], [SITE_MAP], False, "tools", ALL),
    ],
)
def test_choices_resolve_to_these_tools(choice, maps, uncovered, tool_mode, expected):
    assert listed_builtins(choice, maps=maps, uncovered_page=uncovered, tool_mode=tool_mode) == expected


def test_an_unknown_group_is_refused_with_the_known_ones():
    with pytest.raises(ActionError) as caught:
        listed_builtins(["tab"], maps=[])
    assert caught.value.code == "invalid_input" and caught.value.evidence["groups"] == ["tab"]
    assert "tabs" in caught.value.evidence["known"]


def test_the_cli_refuses_an_unknown_group_as_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "serve", "--builtin-tools", "navigate,tab"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown built-in tool group(s) tab" in done.stderr


def test_the_environment_variable_is_checked_the_same_way():
    env = {**os.environ, "MCP_ACTIONS_BUILTIN_TOOLS": "navigate,tab"}
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "serve", "--browser", "none"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and "MCP_ACTIONS_BUILTIN_TOOLS: unknown built-in tool group(s) tab" in done.stderr


def test_a_mapped_page_without_projections_gets_page_read_alone():
    listed = listed_builtins([], maps=[SITE_MAP], unprojected_page=True)
    assert listed == {"browser.navigate", "page.read"}
    # Named groups are taken as written: the extra tool is auto's choice only.
    assert listed_builtins(["navigate"], maps=[SITE_MAP], unprojected_page=True) == {"browser.navigate"}
