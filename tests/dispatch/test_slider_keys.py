"""page_fill's key plan for a slider (acting/slider_keys.py, issue 53): the keys it presses reach the value in few
presses, learn how far a key moves a slider that says no step, and stop when the keys move it no more.

The slider here answers keys as the real ones do (a native range: a step per arrow, a tenth of the range per
PageUp; Base Web's thumb: a step per arrow, ten per PageUp; one that ignores keys); the browser tests of the same
(tests/observe/test_drawn_controls.py) check a real page commits what the keys reach.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.dispatch.builtins.acting.slider_keys import MAX_PRESSES, move_slider, slider_number
from mcp_actions.errors import ActionError


class Slider:
    """A slider answering keys: ``step`` per arrow, ``page`` per PageUp/PageDown (0: none), Home/End its bounds."""

    def __init__(self, now: float, low: float, high: float, step: float, page: float, *, native: bool = True) -> None:
        self.now, self.low, self.high, self.step, self.page, self.native = now, low, high, step, page, native
        self.pressed: list[str] = []

    def state(self) -> dict[str, Any]:
        return {"now": self.now, "min": self.low, "max": self.high, "step": self.step if self.native else 1, "native": self.native}

    async def press(self, key: str, times: int) -> dict[str, Any]:
        for _ in range(times):
            self.pressed.append(key)
            moves = {"ArrowUp": self.step, "ArrowDown": -self.step, "PageUp": self.page, "PageDown": -self.page}
            if key == "Home":
                self.now = self.low
            elif key == "End":
                self.now = self.high
            else:
                self.now = min(self.high, max(self.low, self.now + moves[key]))
        return self.state()


async def test_a_long_way_goes_by_pages_then_arrows() -> None:
    slider = Slider(0, 0, 500, 1, 50)
    await move_slider(slider.state(), 263, slider.press)
    assert slider.now == 263
    assert slider.pressed.count("PageUp") == 5 and len(slider.pressed) <= 20, slider.pressed


async def test_an_aria_slider_s_step_is_learned_from_one_press() -> None:
    slider = Slider(10, 0, 100, 5, 50, native=False)
    await move_slider(slider.state(), 35, slider.press)
    assert slider.now == 35, slider.pressed
    assert len(slider.pressed) <= 6, slider.pressed  # one press to learn the step, then the rest in one go


async def test_bounds_are_reached_by_home_and_end() -> None:
    slider = Slider(40, 0, 100, 1, 10)
    await move_slider(slider.state(), 0, slider.press)
    assert slider.now == 0 and slider.pressed == ["Home"]
    await move_slider(slider.state(), 1000, slider.press)  # past the bound: the bound
    assert slider.now == 100 and slider.pressed[-1] == "End"


async def test_a_slider_its_keys_do_not_move_stops_at_once() -> None:
    slider = Slider(10, 0, 100, 0, 0)
    await move_slider(slider.state(), 70, slider.press)
    assert slider.now == 10 and len(slider.pressed) <= 2 < MAX_PRESSES, slider.pressed


def test_a_slider_takes_a_number() -> None:
    assert slider_number("$1,250") == 1250 and slider_number("-3.5") == -3.5
    with pytest.raises(ActionError):
        slider_number("cheap")
