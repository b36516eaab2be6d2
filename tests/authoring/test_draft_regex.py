"""init's draft keeps only input patterns the server can check in linear time (docs/manifest-language.md, "Regular expressions").

A page's ``<input pattern>`` becomes the field's schema ``pattern``, which the
server searches with RE2. One RE2 cannot run (lookaround, a backreference)
would make the draft fail ``validate``: the draft leaves it out and says so.
"""

from __future__ import annotations

from .test_draft_rules import draft, form, page, text_field


def test_a_page_pattern_with_lookahead_is_left_out_and_said() -> None:
    result = draft(page(forms=[form([text_field("pin", "PIN", pattern="(?=.*[0-9]).{4}")], id="pin")]))
    [tool] = result.manifest["tools"]
    assert tool["input_schema"]["properties"]["pin"] == {"type": "string", "description": "PIN"}
    assert any("cannot check in linear time" in item.message for item in result.review)


def test_a_page_pattern_re2_runs_is_kept() -> None:
    result = draft(page(forms=[form([text_field("code", "Code", pattern="[A-Z]{3}-[0-9]+")], id="coupon")]))
    [tool] = result.manifest["tools"]
    assert tool["input_schema"]["properties"]["code"]["pattern"] == "^(?:[A-Z]{3}-[0-9]+)$"
