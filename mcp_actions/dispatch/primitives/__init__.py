"""Primitives the server itself serves to workflows (not a page): transfer (``transfer.py``), the server's
own (``server.py``), storage (``storage.py``), which states are current (``states.py``), and what each
gets of its caller (``context.py``)."""

__all__: list[str] = []
