"""Tools learned from a session: a journal's steps written as a map tool, and the learned-maps folder.

``locators.py`` turns how a person finds an element (the page engine's
``refs.describe``) into a locator with the tool's arguments in it;
``workflow.py`` writes the steps as a tool; ``store.py`` keeps one map per
origin in the learned-maps folder (docs/mcp-surface.md, ``actions_save_tool``).
Nothing here talks to a page or to MCP: dispatch hands it recorded steps.
"""

from .locators import NO_FIND, Parameters
from .steps import ActStep
from .store import LearnedMaps, SavedTool, default_learned_dir, is_learned
from .workflow import learn_tool

__all__ = ["NO_FIND", "ActStep", "LearnedMaps", "Parameters", "SavedTool", "default_learned_dir", "is_learned", "learn_tool"]
