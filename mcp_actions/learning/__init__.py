"""Tools learned from a session: a journal's steps written as a map tool, and the learned-maps folder.

``ActStep`` (``steps.py``) is one acting call as the journal recorded it.
``locators.py`` turns how a person finds an element (the page engine's
``refs.describe``) into a locator with the tool's ``Parameters`` in it, or
refuses with ``NO_FIND``; ``learn_tool`` (``workflow.py``) writes the steps as
a tool, waiting after a step for the like of a line it made appear
(``settle.py``: the call's arguments in it, what varies by itself left out)
and answering what the call changed (``answer.py``: the change report as the
workflow's output); ``LearnedMaps`` (``store.py``) keeps one map per origin in the
learned-maps folder (``default_learned_dir``), each marked so that
``is_learned`` tells it from a map a person wrote, and reports a write as a
``SavedTool`` (docs/mcp-surface.md, ``actions_save_tool``). ``secrets.py`` keeps
secrets out of maps: a value typed into a password, one-time-code or payment field, or a PIN, OTP or CVV (``is_secret_field``), or
one the agent calls secret, is an argument (``with_secret_parameters``). Nothing here talks
to a page or to MCP: dispatch hands it recorded steps.
"""

from .locators import NO_FIND, Parameters
from .secrets import is_secret_field, with_secret_parameters
from .steps import ActStep
from .store import LearnedMaps, SavedTool, default_learned_dir, is_learned
from .workflow import learn_tool

__all__ = ["NO_FIND", "ActStep", "LearnedMaps", "Parameters", "SavedTool", "default_learned_dir", "is_learned", "is_secret_field", "learn_tool", "with_secret_parameters"]
