"""Learning from a session: the journal of acting calls (``act_journal.py``), recording into it
(``journaling.py``) and ``actions_save_tool`` (``save_tool.py``)."""

__all__: list[str] = []
