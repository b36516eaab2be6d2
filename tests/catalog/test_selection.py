"""``--tools`` / ``--exclude-tools``: fnmatch globs over dotted names, case-sensitive, deny over allow."""

from __future__ import annotations

import pytest

from mcp_actions.catalog.selection import ToolSelection


@pytest.mark.parametrize(
    ("include", "exclude", "dotted", "exposed"),
    [
        ((), (), "shop.add", True),  # no globs: every tool
        (("shop.*",), (), "shop.add", True),  # an allow glob that matches
        (("shop.*",), (), "browser.navigate", False),  # allow globs given: a tool none matches is out, built-ins too
        (("shop.*", "browser.*"), (), "browser.navigate", True),  # one matching allow glob of several is enough
        ((), ("admin.*",), "admin.delete_user", False),  # a deny glob that matches
        ((), ("admin.*",), "shop.add", True),  # ... and one that does not
        (("shop.*",), ("shop.admin_*",), "shop.admin_refund", False),  # deny wins over allow
        (("shop.*",), ("shop.admin_*",), "shop.add", True),  # ... only where it matches
        (("Shop.*",), (), "shop.add", False),  # case-sensitive on every platform
        (("shop.?dd",), (), "shop.add", True),  # fnmatch's ? is one character
        (("shop.[ab]*",), (), "shop.checkout", False),  # ... and [..] a set
        (("shop*",), (), "shopping.list", True),  # a glob is not a namespace: shop* takes shopping.* too
        (("shop",), (), "shop.add", False),  # a bare namespace matches only that exact name
    ],
)
def test_globs_choose_by_dotted_name(include, exclude, dotted, exposed):
    assert ToolSelection(include, exclude)(dotted) is exposed
