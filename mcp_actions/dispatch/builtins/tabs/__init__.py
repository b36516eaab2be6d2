"""Built-in tools for tabs and navigation (``browser_tools.py``)."""

__all__: list[str] = []
