"""page_fill on a slider: its keys pressed until it holds the value, as a person moves it (issue 53).

An app that commits a slider's value at the end of a key press or a drag (Base Web's and react-range's
``onFinalChange`` on keyup, React Aria's ``onChangeEnd``) never sees a value set by script with synthetic
``input``/``change`` events: the page showed the new number and kept the old count. So a slider, a native
``<input type=range>`` (React Aria keeps it visually hidden in the drawn thumb) or an element with
``role=slider`` (Base Web's thumb), is focused and moved by its own keys: Home or End for its bounds,
PageUp/PageDown while the way is long (ten steps or a tenth of the range, as the slider says when pressed),
then arrows. Each press is read back (``refs.resolve {field}``'s ``slider``: now, min, max, step), so a
slider that steps otherwise than assumed is still brought to the value, or as near as its steps allow.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from ....errors import ActionError, ErrorCode

__all__ = ["move_slider", "slider_number"]

#: Key presses at most for one page_fill (a slider that moves by less than asked stops sooner: no progress).
MAX_PRESSES = 120
#: Arrow presses sent before the value is read again.
ARROW_BATCH = 25

Press = Callable[[str, int], Awaitable[dict[str, Any]]]


def slider_number(value: str) -> float:
    """The number a slider is filled with: ``"250"``, ``"$250"``, ``"1,200"``; invalid_input otherwise."""
    found = re.search(r"-?\d+(?:\.\d+)?", value.replace(",", ""))
    if not found:
        raise ActionError(f"a slider takes a number, not {value!r}", code=ErrorCode.INVALID_INPUT, evidence={"path": "/value"})
    return float(found.group(0))


async def move_slider(state: dict[str, Any], wanted: float, press: Press) -> dict[str, Any]:
    """Press keys (``press(key, times)`` presses and answers the slider's state after) until ``state`` holds ``wanted``.

    Returns the last state. Stops when the value is reached, when a key moves it no more, or after MAX_PRESSES.
    """
    low, high = float(state["min"]), float(state["max"])
    wanted = min(max(wanted, low), high)
    step = float(state.get("step") or 1) or 1.0
    page: float | None = None  # how far PageUp moves it, once seen (0: it does not)
    step_known = False  # one arrow shows how far a press moves it (an ARIA slider says no step; a page may take the keys)
    guess_page = max(10 * step, (high - low) / 10)
    presses = 0
    while presses < MAX_PRESSES:
        now = float(state["now"])
        gap = wanted - now
        if abs(gap) < step / 2:
            break
        if wanted <= low or wanted >= high:
            state = await press("Home" if wanted <= low else "End", 1)
            presses += 1
            if float(state["now"]) == now:
                break
            continue
        if page != 0 and abs(gap) >= (page or guess_page):
            state = await press("PageUp" if gap > 0 else "PageDown", 1)
            presses += 1
            moved = abs(float(state["now"]) - now)
            page = moved if moved > step else 0
            continue
        times = min(ARROW_BATCH if step_known else 1, max(1, round(abs(gap) / step)), MAX_PRESSES - presses)
        state = await press("ArrowUp" if gap > 0 else "ArrowDown", times)
        presses += times
        moved = abs(float(state["now"]) - now)
        if moved == 0:
            break  # its keys move it no more
        step, step_known = max(moved / times, 1e-9), True  # what one press moves it, as the slider says
    return state
