"""Built-in tools that act on the page: ``page_observe`` and the act-by-ref-or-text tools (``observe_tools.py``),
several steps in one call (``act_steps.py``), what an action changed (``act_report.py``), what the journal
asks of each action (``act_probe.py``) and the files ``page_fill`` uploads (``page_files.py``)."""

__all__: list[str] = []
