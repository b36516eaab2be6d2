"""The validator's rules: one module per part of an actions.json manifest.

Each rule group is a generator of ``Problem``s over the whole document that
never raises on malformed input (``validate.py`` runs them in document
order). What they check the keys, values and references against is
``manifest/shape.py``, which composition and the workflow compiler read too.
Shared pieces: ``base`` (JSON types, identifiers, key checks),
``refs`` (the name index and references), ``targets`` (target descriptors),
``schema`` (JSON Schema checks), ``expressions`` (JSONata slots).
The modules are imported by their own names (``rules.tools``, …); this
package re-exports only the entry points ``validate.py`` composes.
"""

from __future__ import annotations

from .base import Rules
from .checks import check_checks
from .context import check_context
from .projection import check_state_projections
from .refs import Index
from .root import check_imports, check_root
from .signals import check_attachments, check_signals
from .sources import check_sources
from .states import check_states, check_transitions
from .tools import check_tools

__all__ = [
    "Index",
    "Rules",
    "check_attachments",
    "check_checks",
    "check_context",
    "check_imports",
    "check_root",
    "check_signals",
    "check_sources",
    "check_state_projections",
    "check_states",
    "check_tools",
    "check_transitions",
]
