"""The transfer buffer: items agents move between tabs without passing them through the model.

``TransferBuffer`` (``buffer.py``) keeps the ``TransferItem`` s: labels, ids,
the ``FORMATS`` they may have, expiry and size caps. ``select_items`` picks
what an ``item_selector`` asks for and ``render_item`` turns it into the text
an editor receives (``render.py``). The ``transfer.*`` primitives that use
them run server-side (``dispatch/primitives/transfer.py``).
"""

from .buffer import FORMATS, TransferBuffer, TransferItem
from .render import render_item, select_items

__all__ = ["FORMATS", "TransferBuffer", "TransferItem", "render_item", "select_items"]
