"""Pairings: lasting credentials a browser extension earns once with the bridge's start token.

The bridge token is generated per start by default, so a credential that must
survive a restart cannot be that token. The extension's connect page, holding
the start token, asks for a pairing (``GET /pair`` on the bridge port, see
``http_routes.py``); the bridge answers ``{authorization_id, secret}`` and
keeps it in the user's state directory (``pairings.json``). Runtimes then
connect with the secret as their token, which the bridge accepts beside the
start token, today and after any restart, until the pairing is revoked.

Only a SHA-256 of each secret is written to disk: the file alone does not let
anyone connect. The directory is ``$MCP_ACTIONS_STATE_DIR`` when set (tests
isolate themselves with it), else ``platformdirs.user_state_path("mcp-actions")``.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["STATE_DIR_ENV", "Pairing", "PairingStore", "state_dir"]

log = logging.getLogger(__name__)

#: Overrides where pairings (and other lasting state) are kept.
STATE_DIR_ENV = "MCP_ACTIONS_STATE_DIR"
#: Pairings kept at most: the oldest give way (each "open connect link" may add one).
MAX_PAIRINGS = 64


def state_dir() -> Path:
    """The user's state directory for mcp-actions (``$MCP_ACTIONS_STATE_DIR`` first)."""
    override = os.environ.get(STATE_DIR_ENV)
    return Path(override) if override else platformdirs.user_state_path("mcp-actions")


@dataclass(frozen=True)
class Pairing:
    """A pairing just made: the secret is known only now, and only to whoever asked."""

    authorization_id: str
    secret: str
    label: str

    def to_dict(self) -> dict[str, str]:
        """The pairing as the ``/pair`` route answers it."""
        return {"authorization_id": self.authorization_id, "secret": self.secret, "label": self.label}


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class PairingStore:
    """The pairings of this user, on disk; read again at every check so a restart loses none."""

    def __init__(self, path: Path | None = None) -> None:
        """``path``: the JSON file (default: ``state_dir() / "pairings.json"``)."""
        self.path = path if path is not None else state_dir() / "pairings.json"
        self._lock = threading.Lock()

    def _read(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable pairings file %s: %s", self.path, exc)
            return []
        entries = data.get("pairings") if isinstance(data, dict) else None
        return [e for e in entries or [] if isinstance(e, dict) and isinstance(e.get("secret_sha256"), str)]

    def _write(self, entries: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        # Owner-only: the digests are not secrets, but who paired when is nobody else's business.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"pairings": entries}, out, indent=1)
        os.replace(temporary, self.path)

    def create(self, label: str, *, replaces: str | None = None) -> Pairing:
        """A new pairing, persisted; ``replaces`` (an older authorization_id of the same client) is revoked."""
        pairing = Pairing(authorization_id="auth-" + secrets.token_hex(8), secret=secrets.token_urlsafe(32), label=label[:120])
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self._lock:
            entries = [e for e in self._read() if not replaces or e.get("authorization_id") != replaces]
            entries.append({"authorization_id": pairing.authorization_id, "secret_sha256": _digest(pairing.secret), "label": pairing.label, "created_at": created})
            self._write(entries[-MAX_PAIRINGS:])
        return pairing

    def authorization_of(self, secret: str) -> str | None:
        """The authorization_id this secret belongs to, or None (compared in constant time)."""
        if not secret:
            return None
        presented = _digest(secret)
        found: str | None = None
        for entry in self._read():
            if hmac.compare_digest(presented, str(entry["secret_sha256"])):
                found = str(entry.get("authorization_id"))
        return found

    def entries(self) -> list[dict[str, str]]:
        """Every pairing, oldest first, as ``{authorization_id, label, created_at}`` (never a digest)."""
        return [{k: str(e.get(k, "")) for k in ("authorization_id", "label", "created_at")} for e in self._read()]

    def authorization_ids(self) -> frozenset[str]:
        """The authorization ids of the live pairings."""
        return frozenset(str(e.get("authorization_id")) for e in self._read())

    def revoke(self, authorization_id: str) -> bool:
        """Forget one pairing; True when it existed."""
        with self._lock:
            entries = self._read()
            kept = [e for e in entries if e.get("authorization_id") != authorization_id]
            if len(kept) == len(entries):
                return False
            with contextlib.suppress(OSError):
                self._write(kept)
        return True
