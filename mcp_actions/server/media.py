"""Images in MCP results: a screenshot is MCP image content, not base64 inside JSON.

``browser.screenshot`` answers ``{image: <base64>, mime_type, width, height}``
(the reference dictionary's output). Sent as it is, the base64 would sit in
``structuredContent`` and again in the text a host feeds the model. For a
tool whose binding declares ``image_output`` (a built-in says so where it is
defined, ``dispatch/builtins/tabs/browser_tools.py``) the MCP result instead carries the picture as
one ``ImageContent`` (``data`` + ``mimeType``) and keeps the structured output
small: ``mime_type``, ``width``, ``height`` and ``bytes`` (the decoded size),
with ``image`` left out. The tool's ``outputSchema`` says the same.
"""

from __future__ import annotations

import base64
import binascii
import copy
from typing import TYPE_CHECKING, Any

from ..dispatch.builtins.answers import BriefAnswer

if TYPE_CHECKING:  # the SDK is imported where an image is sent, not when the tool list is made (early_answers.py)
    import mcp_types as types

__all__ = ["IMAGE_FIELD", "image_output_schema", "split_image"]

#: The output field holding the base64 image.
IMAGE_FIELD = "image"

_BYTES = {"type": "integer", "minimum": 0, "description": "Size of the image (sent as image content) in bytes."}


def image_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``outputSchema`` of an image tool: its output schema without ``image``, with ``bytes``."""
    out = copy.deepcopy(schema)
    properties = dict(out.get("properties") or {})
    properties.pop(IMAGE_FIELD, None)
    properties["bytes"] = _BYTES
    out["properties"] = properties
    out["required"] = [key for key in out.get("required", []) if key != IMAGE_FIELD] + ["bytes"]
    return out


def split_image(output: Any) -> tuple[Any, types.ImageContent | None]:
    """Take the base64 ``image`` out of an image tool's output: (small structured output, image content).

    An output without a usable image (not an object, no string ``image``, no
    ``image/*`` ``mime_type``) is returned unchanged with no image content.
    """
    if not isinstance(output, dict):
        return output, None
    data, mime = output.get(IMAGE_FIELD), output.get("mime_type")
    if not isinstance(data, str) or not isinstance(mime, str) or not mime.startswith("image/"):
        return output, None
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return output, None
    small = {key: value for key, value in output.items() if key != IMAGE_FIELD}
    small["bytes"] = size
    import mcp_types as types

    if isinstance(output, BriefAnswer):  # its text for the model (browser_screenshot {marks}: the badges) stays
        small = BriefAnswer(small, output.text, output.meta)
    return small, types.ImageContent(type="image", data=data, mime_type=mime)
