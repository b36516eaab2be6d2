"""``ToolVisibility``: which tools exist (``--tools``), which take direct calls (``--tool-mode``), which ``tools/list`` shows (listed built-ins)."""

from __future__ import annotations

import pytest

from mcp_actions.catalog.catalog import Catalog, ToolBinding
from mcp_actions.catalog.selection import ToolSelection
from mcp_actions.catalog.visibility import ToolVisibility
from mcp_actions.dispatch.builtins.registry import builtin_bindings

from .maps import handler_tool, loaded, manifest


def _bindings() -> dict[str, ToolBinding]:
    """The built-ins and one map tool, as the catalogue binds them (by dotted name)."""
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add")))])
    return {binding.name: binding for binding in catalog.tools.values()}


NAVIGATE, SITE, OBSERVE = "browser.navigate", "actions.site", "page.observe"


@pytest.mark.parametrize(
    ("visibility", "dotted", "exists", "takes_calls", "listed"),
    [
        # Defaults: every tool exists and takes calls; a map tool is listed, a built-in only when listed.
        (ToolVisibility(), "shop.add", True, True, True),
        (ToolVisibility(), NAVIGATE, True, True, False),
        (ToolVisibility(listed_builtins=frozenset({NAVIGATE})), NAVIGATE, True, True, True),
        # An unlisted built-in still takes calls by its name.
        (ToolVisibility(listed_builtins=frozenset({NAVIGATE})), OBSERVE, True, True, False),
        # Site mode: a map tool exists (actions.site reaches it) but takes no direct call, so it is not listed.
        (ToolVisibility(tool_mode="site", listed_builtins=frozenset({SITE})), "shop.add", True, False, False),
        (ToolVisibility(tool_mode="site", listed_builtins=frozenset({SITE})), SITE, True, True, True),
        # --tools / --exclude-tools decide existence only; the other two answers are about a tool that exists.
        (ToolVisibility(selection=ToolSelection(("browser.*",))), "shop.add", False, True, True),
        (ToolVisibility(selection=ToolSelection((), ("browser.*",))), NAVIGATE, False, True, False),
        (ToolVisibility(selection=ToolSelection(("shop.*",))), "shop.add", True, True, True),
    ],
)
def test_exists_takes_calls_and_listed(visibility, dotted, exists, takes_calls, listed):
    binding = _bindings()[dotted]
    assert (visibility.exists(dotted), visibility.takes_calls(binding), visibility.listed(binding)) == (exists, takes_calls, listed)


def test_a_tool_that_does_not_exist_is_not_in_the_catalogue_at_all():
    visibility = ToolVisibility(selection=ToolSelection(("shop.*", "browser.*"), ("shop.admin_*",)))
    catalog = Catalog(builtin_bindings(), allow=visibility.exists)
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add"), handler_tool("shop.admin_refund"), handler_tool("blog.post")))])
    assert sorted(b.name for b in catalog.tools.values() if b.kind != "builtin") == ["shop.add"]
    assert catalog.find("shop.admin_refund") is None and catalog.get("blog_post") is None  # neither listed nor callable
    assert {b.name for b in catalog.tools.values() if b.kind == "builtin"} == {n for n in (b.name for b in builtin_bindings()) if n.startswith("browser.")}
