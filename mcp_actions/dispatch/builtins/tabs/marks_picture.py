"""Numbered badges drawn onto a screenshot by the server, outside the page (``browser_screenshot {marks: true}``).

The page engine lists the elements in view with their boxes as the browser lays them out
(``refs.marks``, observe_marks.js); the host takes a plain picture; here each box gets an outline
and a filled badge with its number, drawn onto the picture's pixels. Nothing of the page places a
badge: not its CSS (a transformed ``<html>`` used to carry an in-page layer one scroll height away),
not its scripts (a forged ``getBoundingClientRect`` is never read, geometry.js), and no badge can
outlive its picture, since none was ever in the page (docs/threat-model.md, rows 4–6).

Boxes are in the viewport's CSS pixels; the picture's own size over the CSS size it shows (the
host's ``viewport`` when it says, else the page's) gives the scale, which covers the device pixel
ratio and any downscaling. A box partly outside the picture is outlined where it is seen, its badge
kept inside the picture. The picture keeps its format; when the drawing makes it larger than the
caller's ``max_kilobytes``, it is recompressed as the host does (JPEG, lower quality, smaller).
The boxes are read before the picture and again after it; a mark whose element moved in between is
left out (``unmoved``).
"""

from __future__ import annotations

import base64
import io
from functools import cache
from typing import TYPE_CHECKING, Any

from ....errors import ActionError, ErrorCode

if TYPE_CHECKING:
    # Pillow is imported where a picture is drawn, not with the module: its import (~50 ms, most of it
    # the C core) would otherwise be paid at every server start, before the first tools/list.
    from PIL import Image, ImageDraw, ImageFont

__all__ = ["draw_marks", "unmoved"]

#: The badges' colours, in turn (white digits are legible on each).
COLOURS = ((0xD6, 0x00, 0x4C), (0x00, 0x47, 0xC2), (0x00, 0x7A, 0x29), (0xA6, 0x52, 0x00), (0x70, 0x00, 0xC2))
#: Sizes in CSS pixels, scaled with the picture; the digits never smaller than FONT_MIN picture pixels.
OUTLINE = 2
FONT = 13
FONT_MIN = 11
PAD = 3
#: How far (CSS pixels) a box may differ between the listing and the reading after the picture and still be "where it was".
STILL = 1.0

@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font at ``size`` pixels (no font file of the system is needed)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size)
    except (ImportError, OSError):  # a Pillow without FreeType has only its small bitmap font
        return ImageFont.load_default()


def _scale(image: Image.Image, pictured: dict[str, Any]) -> tuple[float, float]:
    """Picture pixels per CSS pixel, across and down."""
    width, height = pictured.get("width"), pictured.get("height")
    if not isinstance(width, (int, float)) or not isinstance(height, (int, float)) or width <= 0 or height <= 0:
        raise ActionError("the host did not say what part of the page the picture shows", code=ErrorCode.CAPTURE_FAILED, evidence={"path": "/marks"})
    return image.width / width, image.height / height


def _draw_one(draw: ImageDraw.ImageDraw, mark: dict[str, Any], sx: float, sy: float, size: tuple[int, int]) -> None:
    """The outline of ``mark``'s box where it is seen in the picture, and its numbered badge in the box's top left corner."""
    bounds = mark.get("bounds") or {}
    try:
        x, y, w, h = (float(bounds[key]) for key in ("x", "y", "width", "height"))
    except (KeyError, TypeError, ValueError):
        return
    width, height = size
    left, top = max(0, round(x * sx)), max(0, round(y * sy))
    right, bottom = min(width - 1, round((x + w) * sx) - 1), min(height - 1, round((y + h) * sy) - 1)
    if right < left or bottom < top:
        return
    colour = COLOURS[(int(mark.get("n") or 1) - 1) % len(COLOURS)]
    draw.rectangle((left, top, right, bottom), outline=colour, width=max(1, round(OUTLINE * min(sx, sy))))
    label = str(mark.get("n"))
    font = _font(max(FONT_MIN, round(FONT * min(sx, sy))))
    x0, y0, x1, y1 = draw.textbbox((0, 0), label, font=font)
    pad = max(2, round(PAD * min(sx, sy)))
    badge_w, badge_h = x1 - x0 + 2 * pad, y1 - y0 + 2 * pad
    # Inside the picture, whatever part of the box is seen.
    bx, by = min(left, max(0, width - badge_w)), min(top, max(0, height - badge_h))
    draw.rectangle((bx, by, bx + badge_w - 1, by + badge_h - 1), fill=colour)
    draw.text((bx + pad - x0, by + pad - y0), label, fill=(255, 255, 255), font=font)


def _encode(image: Image.Image, fmt: str, quality: int, max_bytes: int) -> tuple[bytes, str, Image.Image]:
    """The picture in ``fmt``, recompressed until it fits ``max_bytes``: JPEG first, then lower quality, then smaller."""
    from PIL import Image

    for _attempt in range(8):
        out = io.BytesIO()
        if fmt == "png":
            image.save(out, "PNG")
        else:
            image.save(out, "JPEG", quality=quality)
        data = out.getvalue()
        if len(data) <= max_bytes:
            return data, fmt, image
        if fmt == "png":
            fmt = "jpeg"
        elif quality > 40:
            quality -= 20
        else:
            image = image.resize((max(1, round(image.width * 0.7)), max(1, round(image.height * 0.7))), Image.Resampling.LANCZOS)
    raise ActionError(f"could not fit the marked screenshot into {max_bytes // 1024} KB", code=ErrorCode.CAPTURE_FAILED, evidence={"max_kilobytes": max_bytes // 1024})


def unmoved(marks: list[dict[str, Any]], now: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``marks`` split into those whose element is where it was listed (``now``: ``refs.marks {refs}``'s
    ``bounds``, read once the picture was taken) and those that moved, went or left the view meanwhile.

    A badge is drawn at the box read before the picture; an element that moved (an animation, a
    carousel, a page moving its elements on purpose) may be elsewhere in the picture, and its badge
    would name what is under it. Without an answer of the same length, every mark is taken as moved.
    """
    if not isinstance(now, list) or len(now) != len(marks):
        return [], list(marks)
    kept: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    for mark, box in zip(marks, now, strict=True):
        before = mark.get("bounds") or {}
        same = isinstance(box, dict) and all(
            isinstance(box.get(key), (int, float)) and isinstance(before.get(key), (int, float)) and abs(box[key] - before[key]) <= STILL
            for key in ("x", "y", "width", "height")
        )
        (kept if same else moved).append(mark)
    return kept, moved


def draw_marks(shot: dict[str, Any], marks: list[dict[str, Any]], page_viewport: dict[str, Any] | None, *, quality: int, max_bytes: int) -> dict[str, Any]:
    """``shot`` (``browser.screenshot``'s answer) with each mark's outline and badge drawn onto its picture.

    ``page_viewport`` is the viewport the boxes are measured in (``refs.marks``'s), used when the
    host does not say what part of the page it pictured (the extension's ``captureVisibleTab`` shows
    the whole viewport).
    """
    from PIL import Image, ImageDraw

    try:
        with Image.open(io.BytesIO(base64.b64decode(str(shot.get("image") or ""), validate=True))) as opened:
            image = opened.convert("RGB")
    except (OSError, ValueError) as exc:
        raise ActionError("the screenshot could not be read to draw the marks", code=ErrorCode.CAPTURE_FAILED, evidence={"path": "/marks"}) from exc
    pictured = shot.get("viewport") if isinstance(shot.get("viewport"), dict) else page_viewport
    sx, sy = _scale(image, pictured or {})
    draw = ImageDraw.Draw(image)
    for mark in marks:
        _draw_one(draw, mark, sx, sy, image.size)
    fmt = "jpeg" if "jpeg" in str(shot.get("mime_type") or "") else "png"
    data, fmt, image = _encode(image, fmt, quality, max_bytes)
    return {**shot, "image": base64.b64encode(data).decode("ascii"), "mime_type": f"image/{fmt}", "width": image.width, "height": image.height}
