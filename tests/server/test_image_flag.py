"""Images are declared by the tool, not guessed from its name: a binding's ``image_output`` is what the MCP adapter reads."""

from __future__ import annotations

import base64

import mcp_types as types

from mcp_actions.dispatch.builtins.tabs.browser_tools import SCREENSHOT
from mcp_actions.dispatch.builtins.tool import builtin_binding
from mcp_actions.server.tools import mcp_tool, success_result

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
OUTPUT_SCHEMA = {"type": "object", "properties": {"image": {"type": "string"}, "mime_type": {"type": "string"}}, "required": ["image", "mime_type"]}


def _images(result: types.CallToolResult) -> list[types.ImageContent]:
    return [c for c in result.content if isinstance(c, types.ImageContent)]


def test_the_screenshot_declares_its_picture_and_the_adapter_sends_it_as_image_content():
    assert SCREENSHOT.image_output is True
    tool = mcp_tool(SCREENSHOT)
    assert tool.output_schema is not None and "image" not in tool.output_schema["properties"] and "bytes" in tool.output_schema["properties"]
    result = success_result({"image": PNG, "mime_type": "image/png", "width": 1, "height": 1}, SCREENSHOT)
    assert [i.data for i in _images(result)] == [PNG] and "image" not in (result.structured_content or {})


def test_any_tool_declaring_a_picture_gets_image_content_and_one_that_does_not_keeps_its_output():
    declared = builtin_binding("observe.picture", "A picture.", {"type": "object"}, {"readOnlyHint": True}, result_schema=OUTPUT_SCHEMA, image_output=True)
    result = success_result({"image": PNG, "mime_type": "image/png"}, declared)
    assert len(_images(result)) == 1 and result.structured_content == {"mime_type": "image/png", "bytes": 24}
    # The same name without the declaration: nothing is taken out of its output.
    plain = builtin_binding("browser.screenshot", "Not a picture.", {"type": "object"}, {"readOnlyHint": True}, result_schema=OUTPUT_SCHEMA)
    result = success_result({"image": PNG, "mime_type": "image/png"}, plain)
    assert _images(result) == [] and result.structured_content == {"image": PNG, "mime_type": "image/png"}
    assert mcp_tool(plain).output_schema == OUTPUT_SCHEMA
