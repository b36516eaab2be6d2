"""The built-in tools, each family in a folder of its own; a new built-in goes in its family's folder.

- ``tabs/``: tabs and navigation (``browser_navigate``, tab listing and switching, screenshots, dialogs);
- ``reading/``: reading the page (``page_read``, ``page_find``, ``page_extract``, what changed since
  the last observation);
- ``acting/``: acting on it (``page_observe``, ``page_click``, ``page_fill``, …, ``page_act``), with
  what each tells the journal and what changed;
- ``learning/``: learning from what was done (the journal of acting calls, ``actions_save_tool``).

Each is a ``BuiltinTool`` (``tool.py``) listed once in the registry (``registry.py``: every built-in,
and ``actions.site``); ``groups.py`` says which are listed for a ``--builtin-tools`` choice and
``listing.py`` keeps that current per session; ``answers.py`` is how page tools answer in text.
"""

__all__: list[str] = []
