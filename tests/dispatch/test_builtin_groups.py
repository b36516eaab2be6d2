"""--builtin-tools: every built-in is in exactly one group, and the choice resolves as documented."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mcp_actions.dispatch.builtin_groups import BUILTIN_GROUPS, listed_builtins
from mcp_actions.dispatch.builtins import builtin_bindings
from mcp_actions.dispatch.observe_tools import observe_bindings
from mcp_actions.errors import ActionError

ALL = frozenset(b.name for b in builtin_bindings() + observe_bindings())


def test_every_builtin_is_in_exactly_one_group():
    grouped = [name for names in BUILTIN_GROUPS.values() for name in names]
    assert sorted(grouped) == sorted(ALL)  # a new built-in must be given a group


@pytest.mark.parametrize(
    ("choice", "manifests_given", "tool_mode", "expected"),
    [
        ([], True, "tools", {"browser.navigate", "actions.site"}),
        (["auto"], False, "tools", ALL),  # no maps: a general browser server
        ([], True, "site", ALL),  # site mode: the built-ins are the whole interface
        (["none"], True, "site", {"actions.site"}),  # ... and actions.site is the way to the maps
        (["capture", "dialogs"], False, "tools", {"browser.screenshot", "browser.dismiss_dialog"}),
        (["none", "navigate"], True, "tools", {"browser.navigate"}),
        (["all"], True, "tools", ALL),
    ],
)
def test_choices_resolve_to_these_tools(choice, manifests_given, tool_mode, expected):
    assert listed_builtins(choice, manifests_given=manifests_given, tool_mode=tool_mode) == expected


def test_an_unknown_group_is_refused_with_the_known_ones():
    with pytest.raises(ActionError) as caught:
        listed_builtins(["tab"], manifests_given=True)
    assert caught.value.code == "invalid_input" and caught.value.evidence["groups"] == ["tab"]
    assert "tabs" in caught.value.evidence["known"]


def test_the_cli_refuses_an_unknown_group_as_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "serve", "--builtin-tools", "navigate,tab"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown built-in tool group(s) tab" in done.stderr


def test_the_environment_variable_is_checked_the_same_way():
    env = {**os.environ, "MCP_ACTIONS_BUILTIN_TOOLS": "navigate,tab"}
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "serve", "--browser", "none"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and "MCP_ACTIONS_BUILTIN_TOOLS: unknown built-in tool group(s) tab" in done.stderr
