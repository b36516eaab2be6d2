"""Badges drawn onto a picture by the server (``marks_picture.draw_marks``), read back pixel by pixel.

The picture's scale is its own size over the CSS size it shows: a device pixel ratio of 2, a picture
scaled down, a box cut by the viewport's edge, a JPEG, and a size cap the drawing must still meet; and
the marks whose element moved after the listing are left out (``unmoved``).
Pixels are read with tests/png_pixels.py (not the library that drew them).
"""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from mcp_actions.dispatch.builtins.tabs.marks_picture import COLOURS, draw_marks, unmoved
from mcp_actions.errors import ActionError
from tests.png_pixels import pixels


def _shot(width: int, height: int, fmt: str = "PNG") -> dict[str, object]:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(out, fmt)
    return {"image": base64.b64encode(out.getvalue()).decode(), "mime_type": f"image/{fmt.lower()}", "width": width, "height": height}


def _rows(shot: dict[str, object]) -> list[list[tuple[int, int, int]]]:
    data = base64.b64decode(str(shot["image"]))
    return pixels(data)[2]


def _near(pixel: tuple[int, int, int], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 40 for a, b in zip(pixel, colour, strict=True))


def test_boxes_in_css_pixels_land_on_a_picture_at_twice_their_size() -> None:
    # A 200×100 CSS viewport pictured at a device pixel ratio of 2.
    marks = [{"n": 1, "bounds": {"x": 20, "y": 10, "width": 60, "height": 30}}, {"n": 2, "bounds": {"x": 120, "y": 50, "width": 40, "height": 20}}]
    marked = draw_marks(_shot(400, 200), marks, {"width": 200, "height": 100}, quality=80, max_bytes=512 * 1024)
    rows = _rows(marked)
    assert (marked["width"], marked["height"], marked["mime_type"]) == (400, 200, "image/png")
    assert _near(rows[21][41], COLOURS[0]) and _near(rows[101][241], COLOURS[1])  # each badge at its box's corner
    assert _near(rows[79][120], COLOURS[0])  # the outline's bottom edge (box 1 ends at CSS y 40: row 79)
    assert rows[5][5] == (255, 255, 255) and rows[150][300] == (255, 255, 255)  # nothing elsewhere


def test_the_host_s_viewport_wins_and_a_box_cut_by_the_edge_keeps_its_badge_inside() -> None:
    # The host says the picture (scaled to 0.5) shows 300×200 CSS pixels; the page's own viewport is not used.
    marks = [{"n": 3, "bounds": {"x": 260, "y": 180, "width": 100, "height": 60}}]
    shot = {**_shot(150, 100), "viewport": {"x": 0, "y": 600, "width": 300, "height": 200}}
    marked = draw_marks(shot, marks, {"width": 999, "height": 999}, quality=80, max_bytes=512 * 1024)
    rows = _rows(marked)
    assert _near(rows[91][131], COLOURS[2])  # the box starts at (130, 90) in the picture
    assert _near(rows[99][149], COLOURS[2])  # and reaches past its corner: the badge is kept inside


def test_a_jpeg_stays_a_jpeg_and_the_size_cap_holds() -> None:
    marks = [{"n": i + 1, "bounds": {"x": 10 * i, "y": 10 * i, "width": 30, "height": 20}} for i in range(20)]
    marked = draw_marks(_shot(800, 600, "JPEG"), marks, {"width": 800, "height": 600}, quality=80, max_bytes=512 * 1024)
    assert marked["mime_type"] == "image/jpeg" and base64.b64decode(str(marked["image"]))[:2] == b"\xff\xd8"
    capped = draw_marks(_shot(800, 600), marks, {"width": 800, "height": 600}, quality=80, max_bytes=6 * 1024)
    assert len(base64.b64decode(str(capped["image"]))) <= 6 * 1024


def test_a_picture_without_a_known_viewport_is_capture_failed() -> None:
    with pytest.raises(ActionError) as failed:
        draw_marks(_shot(10, 10), [], None, quality=80, max_bytes=1024)
    assert failed.value.code == "capture_failed"


def test_a_mark_whose_box_changed_after_the_picture_is_left_out() -> None:
    marks = [
        {"n": 1, "ref": "@e1", "bounds": {"x": 10, "y": 10, "width": 50, "height": 20}},
        {"n": 2, "ref": "@e2", "bounds": {"x": 10, "y": 60, "width": 50, "height": 20}},
        {"n": 3, "ref": "@e3", "bounds": {"x": 90, "y": 10, "width": 50, "height": 20}},
    ]
    now = [{"x": 10.4, "y": 10, "width": 50, "height": 20}, {"x": 40, "y": 60, "width": 50, "height": 20}, None]
    kept, moved = unmoved(marks, now)
    assert [m["n"] for m in kept] == [1] and [m["n"] for m in moved] == [2, 3]
    # An answer that does not say where each one is now keeps none.
    assert unmoved(marks, now[:2]) == ([], marks)
