"""A small PNG reader for the tests that look at a screenshot's pixels (no image library is a dependency).

Reads the 8-bit RGB and RGBA PNGs Chromium writes: ``pixels(data, rows)`` is ``(width, height, rows)``
with each of the first ``rows`` rows a list of ``(r, g, b)``. Pure Python, about a second for 640×360:
read the rows a test looks at, and compare whole pictures by their ``scanlines``.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["pixels", "scanlines"]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _chunks(data: bytes) -> tuple[bytes, bytes]:
    """The IHDR and the joined IDAT of a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, header, idat = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return header, idat


def scanlines(data: bytes) -> bytes:
    """The PNG's filtered rows: equal for two pictures of the same pixels from the same encoder."""
    return zlib.decompress(_chunks(data)[1])


def pixels(data: bytes, rows_wanted: int | None = None) -> tuple[int, int, list[list[tuple[int, int, int]]]]:
    """Width, height and the first ``rows_wanted`` (all by default) rows of ``(r, g, b)`` of an 8-bit RGB(A), non-interlaced PNG."""
    header, idat = _chunks(data)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    rows = []
    for y in range(min(height, rows_wanted or height)):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(a, b, c)) & 0xFF
        rows.append([(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows
