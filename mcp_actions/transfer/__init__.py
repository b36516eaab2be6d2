"""The transfer buffer: items agents move between tabs without passing them through the model.

``buffer.py`` keeps the items (labels, ids, formats, expiry, size caps);
``render.py`` turns an item into the text an editor receives. The
``transfer.*`` primitives that use them run server-side
(``dispatch/transfer_primitives.py``).
"""

from .buffer import FORMATS, TransferBuffer, TransferItem
from .render import render_item, select_items

__all__ = ["FORMATS", "TransferBuffer", "TransferItem", "render_item", "select_items"]
