"""The drafter's rules on page descriptions written out by hand (the shape ``reader.js`` answers).

What a real page gives is covered by ``test_drafts.py``; these are the edges a
fixture page would have to be contrived for: the step limit, names that
collide, risky words in every spelling, a pattern JSON Schema cannot read, a
tool validate would refuse, an empty page, origins.
"""

from __future__ import annotations

import pytest

from mcp_actions.authoring import draft_map
from mcp_actions.authoring.draft import origin_of
from mcp_actions.manifest import DEFAULT_LIMITS, check_manifest

URL = "https://shop.example.com/account/settings?session=secret#top"


def page(**parts):
    base = {"url": URL, "origin": "https://shop.example.com", "title": "Settings", "heading": "", "forms": [], "search_boxes": [], "buttons": [], "links": [], "regions": []}
    return {**base, **parts}


def text_field(name, label=None, **extra):
    return {"name": name, "id": "", "type": "text", "label": label or name.title(), "required": False, "control": "text", "locator": {"role": "textbox", "name": label or name.title()}, **extra}


def form(fields, **extra):
    return {"id": "", "name_attr": "", "label": "", "heading": "", "method": "get", "action": "", "fields": fields,
            "submit": {"locator": {"role": "button", "name": "Save"}, "name": "Save"}, "other_submits": 0, "region": "main", "locator": None, "regions": [], **extra}


def draft(described):
    result = draft_map(described, url=URL, created_at="2026-01-01T00:00:00Z")
    report = check_manifest(result.manifest)
    assert report.errors == () and report.warnings == (), (report.errors, report.warnings)
    return result


def test_the_map_names_the_site_by_its_origin_and_keeps_no_query_in_its_provenance():
    manifest = draft(page()).manifest
    assert manifest["surface"]["origin"] == "https://shop.example.com"
    assert manifest["provenance"] == {"created_by": manifest["provenance"]["created_by"], "created_at": "2026-01-01T00:00:00Z",
                                      "source": "https://shop.example.com/account/settings", "revision": "draft"}
    assert manifest["tools"] == []
    assert any("nothing on the page became a tool" in item["message"] for item in manifest["x_init_review"])


def test_a_form_too_long_for_one_workflow_leaves_fields_out_and_says_which():
    fields = [text_field(f"field{n}", f"Field {n}") for n in range(1, 31)]
    result = draft(page(forms=[form(fields, id="profile")]))
    [tool] = result.manifest["tools"]
    assert len(tool["workflow"]["steps"]) <= DEFAULT_LIMITS.max_steps
    kept = list(tool["input_schema"]["properties"])
    assert kept == [f"field{n}" for n in range(1, len(kept) + 1)] and len(kept) < 30
    left = [item.message for item in result.review if item.topic == "field"]
    assert len(left) == 30 - len(kept) and left[0].startswith(f"“Field {len(kept) + 1}” is left out: the workflow would pass 25 steps")


def test_names_are_namespaced_by_the_site_and_made_unique():
    forms = [form([text_field("q")], id="contact-form"), form([text_field("r")], id="contact_form"), form([text_field("s")], id="form1")]
    names = [tool["name"] for tool in draft(page(forms=forms)).manifest["tools"]]
    # A generic id ("form1") gives way to the submit button's name.
    assert names == ["shop_example_com.contact_form", "shop_example_com.contact_form_2", "shop_example_com.save"]


@pytest.mark.parametrize(
    ("label", "risky"),
    [("Delete account", "delete"), ("deleteAccount", "delete"), ("remove_item", "remove"), ("Pay now", "pay"), ("Buy", "buy"),
     ("Send message", "send"), ("Submit order", "order"), ("book_table_le_petit_bistro", "book"),
     ("Bookmarks", None), ("Submit", None), ("Save", None), ("Sender settings", None), ("Payload", None)],
)
def test_risky_words_ask_the_user_first_in_every_spelling(label, risky):
    button = {"name": label, "role": "button", "locator": {"role": "button", "name": label}, "region": "main", "attrs": {}, "regions": []}
    result = draft(page(buttons=[button]))
    [tool] = result.manifest["tools"]
    if risky is None:
        assert "x_actions" not in tool
        assert not [item for item in result.review if item.topic == "confirm"]
    else:
        assert tool["x_actions"]["confirm"].startswith(f"“{label}” on Settings may ")
        [item] = [item for item in result.review if item.topic == "confirm"]
        assert item.tool == tool["name"] and f"“{risky}”" in item.message


def test_a_pattern_json_schema_cannot_read_is_left_out_of_the_schema_not_the_tool():
    result = draft(page(forms=[form([text_field("code", "Code", pattern="\\p{L}+")], id="coupon")]))
    [tool] = result.manifest["tools"]
    assert tool["input_schema"]["properties"]["code"] == {"type": "string", "description": "Code"}
    assert any("pattern JSON Schema cannot read" in item.message for item in result.review)


def test_a_tool_validate_would_refuse_is_left_out_and_said():
    declared = {"name": "lookup", "description": "Look up.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "pattern": "("}}}, "kind": "imperative"}
    result = draft(page(webmcp_tools=[declared], buttons=[{"name": "Help", "role": "button", "locator": {"role": "button", "name": "Help"}, "region": "main", "attrs": {}, "regions": []}]))
    assert [tool["name"] for tool in result.manifest["tools"]] == ["shop_example_com.click_help"]
    [item] = [item for item in result.review if item.topic == "tool"]
    assert item.tool == "shop_example_com.lookup" and "invalid_schema" in item.message
    assert item.to_json() in result.manifest["x_init_review"]


@pytest.mark.parametrize(
    ("url", "origin"),
    [("https://a.example/x/y?z", "https://a.example"), ("http://127.0.0.1:8000/p", "http://127.0.0.1:8000"),
     ("https://a.example:443/", "https://a.example"), ("http://[::1]:81/", "http://[::1]:81"), ("HTTP://User:pw@A.Example/", "http://a.example")],
)
def test_origin_of_is_scheme_host_and_a_port_that_is_not_the_default(url, origin):
    assert origin_of(url) == origin
