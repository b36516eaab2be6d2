"""A settle learned from the text a step made appear, even when that text holds the tool's arguments.

An acting page tool's change report (``refs.change_report``, runtimes/page/observe_changes.js) lists
the lines of visible text the action made appear. A booking form answers a little after its click
with a line such as ``Booked: a table for 4 on 2026-12-24, under Ada Lovelace. Reference LPB-1234.``:
it holds values the agent typed (the tool's arguments) and parts that vary by themselves (a
reference number, a time of day, a count). A later call makes a line of the same shape appear with
its own values, so the learned settle waits for the line's *template*:

- each argument value found in the line, as a whole word, stands for the call's argument (a JSONata
  expression over ``input``: ``'Booked: a table for ' & input.guests & ' on ' & input.date …``);
- every word holding a digit that no argument explains is left out, cutting the line into runs
  (``LPB-1234.`` goes, and a run never spans it), and so is glue longer than ``MAX_GLUE``;
- the run waited for (``text_contains``) is the one with the most distinct arguments, then the
  longest, from its first argument to its last: ``input.guests & ' on ' & input.date & …``.

Glue text is trusted only between arguments of a message made of several of them: the words before
the first and after the last may belong to the page's state (``todos: [x] Walk the dog; …`` is
``[ ]`` after the next toggle) or to a record (a table row found by a search: ``Michael Bruce
Javascript Developer Singapore``), so a run with one distinct argument is the argument alone, and
long glue (the other rows of a list between two arguments) cuts a run. A line with no argument is waited for as fixed text ("Your changes are saved") only when no
line holds an argument, and only when nothing in it varies: the words around a count are no fixed
text ("0 items left" is "1 item left" next time). The settle is pacing, never a failure
(docs/manifest-language.md, steps): a template the next call does not meet costs its timeout, not
the call, so what is doubtful is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .locators import Parameters, argument_slot, jsonata_string, literal

__all__ = ["LINE_CAP", "MAX_GLUE", "MIN_ARGUMENT", "MIN_FIXED", "Piece", "appeared_settle", "line_pieces", "line_runs"]

#: Characters of one reported line (observe_changes.js LINE_CAP): a line this long may end mid-word.
LINE_CAP = 100
#: An argument waited for alone must be at least this long: "4" or "ok" is found anywhere on a page.
MIN_ARGUMENT = 3
#: Fixed text (no argument) waited for must hold at least this many characters.
MIN_FIXED = 6
#: Glue between two arguments longer than this is no template but other content (the rows between two).
MAX_GLUE = 40
#: A word holding a digit: a reference number, a time, a count (varies by itself).
_VARYING = re.compile(r"\S*\d\S*")

#: A piece of a line: its text and the argument it stands for (None: literal text).
Piece = tuple[str, str | None]


def _bounded(line: str, start: int, value: str) -> bool:
    """Whether ``value`` at ``start`` is a whole word (or words): no letter or digit glued to either end."""
    end = start + len(value)
    before = line[start - 1] if start > 0 else " "
    after = line[end] if end < len(line) else " "
    return not (before.isalnum() and value[0].isalnum()) and not (after.isalnum() and value[-1].isalnum())


def line_pieces(line: str, parameters: Parameters) -> list[Piece]:
    """The line split into literal text and the arguments whose values it shows as whole words.

    Longer values are found first, so a value inside another ("4" inside "2026-12-24") does not split it.
    """
    pieces: list[Piece] = [(line, None)]
    for name, value in sorted(parameters.items(), key=lambda kv: -len(kv[1])):
        if not value:
            continue
        split: list[Piece] = []
        for text, argument in pieces:
            if argument is not None:
                split.append((text, argument))
                continue
            at = 0
            search = 0
            while (found := text.find(value, search)) >= 0:
                if _bounded(text, found, value):
                    if found > at:
                        split.append((text[at:found], None))
                    split.append((value, name))
                    at = found + len(value)
                    search = at
                else:
                    search = found + 1
            if at < len(text):
                split.append((text[at:], None))
        pieces = split
    return pieces


def line_runs(line: str, parameters: Parameters) -> list[list[Piece]]:
    """The line's runs: stretches of literal text and arguments with no word that varies by itself."""
    if len(line) >= LINE_CAP and " " in line:
        line = line[: line.rstrip().rfind(" ")]  # cut at the cap: its last word may be half a word
    runs: list[list[Piece]] = [[]]
    for text, argument in line_pieces(line, parameters):
        if argument is not None:
            runs[-1].append((text, argument))
            continue
        at = 0
        for varying in _VARYING.finditer(text):
            if varying.start() > at:
                runs[-1].append((text[at : varying.start()], None))
            runs.append([])
            at = varying.end()
        if at < len(text):
            runs[-1].append((text[at:], None))
    return [trimmed for run in runs for part in _cut_long_glue(run) if (trimmed := _trim(part))]


def _cut_long_glue(run: list[Piece]) -> list[list[Piece]]:
    """The run cut where literal text between two of its arguments is longer than ``MAX_GLUE``."""
    parts: list[list[Piece]] = [[]]
    for index, (text, argument) in enumerate(run):
        inner = 0 < index < len(run) - 1 and argument is None
        if inner and len(text) > MAX_GLUE:
            parts.append([])
            continue
        parts[-1].append((text, argument))
    return parts


def _trim(run: list[Piece]) -> list[Piece]:
    """The run without blank space at its ends (text_contains compares normalised text)."""
    out = [piece for piece in run if piece[0]]
    if out and out[0][1] is None:
        out[0] = (out[0][0].lstrip(), None)
    if out and out[-1][1] is None:
        out[-1] = (out[-1][0].rstrip(), None)
    return [piece for piece in out if piece[0]]


def _arguments(run: Sequence[Piece]) -> int:
    """How many distinct arguments the run shows (one shown twice is one)."""
    return len({argument for _, argument in run if argument is not None})


def _candidate(run: list[Piece], *, whole: bool) -> list[Piece] | None:
    """What of a run is worth waiting for (see the module docstring), or None; ``whole``: the run is its whole line."""
    count = _arguments(run)
    at = [i for i, (_, argument) in enumerate(run) if argument is not None]
    if count >= 2:
        return run[at[0] : at[-1] + 1]  # from the first argument to the last: the words around them may be state
    if count == 1:
        alone = run[at[0]]
        return [alone] if len(alone[0]) >= MIN_ARGUMENT else None
    text = "".join(text for text, _ in run)
    return run if whole and len(text) >= MIN_FIXED and any(c.isalpha() for c in text) else None


def _expression(run: Sequence[Piece]) -> str:
    """The run as a templated value: the argument alone, a literal, or a JSONata concatenation."""
    if len(run) == 1:
        text, argument = run[0]
        return argument_slot(argument) if argument is not None else literal(text)
    terms = [f"input.{argument}" if argument is not None else jsonata_string(text) for text, argument in run]
    return "{% " + " & ".join(terms) + " %}"


def appeared_settle(lines: Iterable[str], parameters: Parameters) -> dict[str, Any] | None:
    """The locator a later call waits for after the step that made ``lines`` appear (None: nothing fit).

    ``{"text_contains": …}`` over the best run of all the lines: most arguments first, then the
    longest text; a run with no argument only when no line shows one.
    """
    best: tuple[int, int, list[Piece]] | None = None
    for line in lines:
        runs = line_runs(line, parameters)
        for run in runs:
            chosen = _candidate(run, whole=len(runs) == 1 and not _VARYING.search(line))
            if chosen is None:
                continue
            score = (_arguments(chosen), sum(len(text) for text, _ in chosen), chosen)
            if best is None or score[:2] > best[:2]:
                best = score
    return {"text_contains": _expression(best[2])} if best is not None else None
