"""The ``--policy`` file of one server: the rules in force, the guards that apply them, and the watch that reloads them.

``policy.py`` says what a policy is and how its guards judge a call;
this is the file's life around it. With no ``--policy`` nothing is
inserted and nothing is watched (a call meets no policy guard at all).
With one, the file is read when the server is made (a bad file is a
``PolicyError`` then, and the server does not start), its two guards join
the call path (``PolicyGuard`` before ``confirmation``, ``PolicyOriginGuard``
before ``page``), and with ``--watch`` an edit reloads it: a bad edit keeps
the rules in force and says why (``PolicyHolder.reload``). After each
reload ``changed`` runs, so the launch report shows the rules in force or
the refused edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...catalog.watch import ManifestWatcher
from .guards import GuardChain
from .policy import Policy, PolicyGuard, PolicyHolder, PolicyOriginGuard

__all__ = ["PolicyFile"]


class PolicyFile:
    """The policy file ``path`` (None: no policy): read now, applied by the guards it installs, reloaded while watched."""

    def __init__(self, path: str | None, *, changed: Callable[[], None] = lambda: None) -> None:
        """Read the file (``PolicyError`` when it is bad); ``changed()`` runs after every reload, replaced or refused."""
        self.path = path
        #: The rules in force, replaced as a whole when a reload reads a good file.
        self.holder = PolicyHolder(Policy.load(path) if path else None)
        self.changed = changed
        self._watcher: ManifestWatcher | None = None

    def install(self, guards: GuardChain) -> None:
        """Put the policy's guards on the call path (nothing without a policy file)."""
        if self.path:
            guards.insert(PolicyGuard(self.holder), before="confirmation")
            guards.insert(PolicyOriginGuard(), before="page")

    def describe(self) -> dict[str, Any] | None:
        """The rules in force and the last reload's refusal, for the views; None without a policy file."""
        return self.holder.describe() if self.path else None

    async def reload(self) -> bool:
        """Read the file again; a bad edit keeps the rules in force and is reported. True when they were replaced."""
        if not self.path:
            return False
        replaced = await self.holder.reload(self.path)
        self.changed()
        return replaced

    async def watch(self, *, debounce_ms: int) -> None:
        """Reload the file after each edit from now on (nothing without a policy file)."""
        if self.path and self._watcher is None:
            self._watcher = ManifestWatcher([self.path], self.reload, debounce_ms=debounce_ms)
            await self._watcher.start()

    async def stop(self) -> None:
        """Stop watching the file."""
        if self._watcher is not None:
            await self._watcher.stop()
            self._watcher = None
