"""Built-in tools that read the page: ``page_read`` and ``page_find`` (``read_tools.py``), ``page_extract``
(``extract_tool.py``), and what changed since the last observation (``observe_since.py``)."""

__all__: list[str] = []
