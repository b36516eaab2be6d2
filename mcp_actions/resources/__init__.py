"""The ``actions://`` resources: a registry of providers keyed by URI template, and the built-in ones.

Every resource is JSON. ``ResourceRegistry`` lists, resolves and reads
resources and carries change (``updated(uri)``, ``list_changed()``) to its
listeners; ``register_builtin_resources`` puts the resources of docs/mcp-surface.md on
one. Other parts plug a resource in with ``ResourceRegistry.register``: a
``ResourceProvider`` per URI template lists ``ResourceEntry``s and reads one;
``expand`` fills a template's parameters.
"""

from .builtin import register_builtin_resources
from .registry import ResourceEntry, ResourceProvider, ResourceRegistry, expand

__all__ = ["ResourceEntry", "ResourceProvider", "ResourceRegistry", "expand", "register_builtin_resources"]
