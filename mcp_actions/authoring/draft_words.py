"""The words of a draft map: the risk words that make a tool ask first, and names, keys and quotes made from a page's text.

Shared by the drafter (``drafter.py``), what exploring drafts (``draft_explore.py``) and exploring
itself (``explore.py``, which never presses a control whose words are risky).
"""

from __future__ import annotations

import json
import re
import unicodedata
from urllib.parse import urlsplit

__all__ = ["DESTRUCTIVE", "RISKY_WORDS", "Names", "field_key", "jsonata_string", "origin_of", "quote", "risk_word", "slug", "words"]

#: Words that make a tool ask the user first (x_actions.confirm), with what they may do.
RISKY_WORDS: dict[str, str] = {
    "delete": "delete something", "remove": "remove something", "erase": "erase something", "destroy": "destroy something",
    "discard": "discard something", "wipe": "wipe something", "reset": "reset something", "deactivate": "deactivate something",
    "close account": "close an account", "unsubscribe": "unsubscribe", "cancel order": "cancel an order",
    "cancel subscription": "cancel a subscription", "pay": "spend money", "payment": "spend money", "buy": "spend money",
    "purchase": "spend money", "checkout": "spend money", "check out": "spend money", "order": "place an order",
    "donate": "spend money", "subscribe": "start a subscription", "transfer": "move money or data", "withdraw": "move money",
    "send": "send something", "publish": "publish something", "post": "publish something", "book": "make a booking",
    "reserve": "make a reservation",
}  # fmt: skip
_RISKY = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(RISKY_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
DESTRUCTIVE = {"delete", "remove", "erase", "destroy", "discard", "wipe", "reset", "deactivate", "close account"}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` (the default port left out), what ``surface.origin`` holds."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    port = f":{parts.port}" if parts.port is not None and parts.port != default else ""
    return f"{parts.scheme}://{host}{port}"



def slug(text: str, *, fallback: str, limit: int = 40) -> str:
    """Lower snake case ASCII, starting with a letter: "Create account" → ``create_account``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    if len(words) > limit:
        words = words[:limit].rsplit("_", 1)[0] if "_" in words[:limit] else words[:limit]
    if not words:
        return fallback
    return words if words[0].isalpha() else f"x{words}"


def field_key(raw: str) -> str:
    """An input property name that JSONata reads as a plain path step (``input.<key>``)."""
    key = re.sub(r"[^A-Za-z0-9_]+", "_", unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode("ascii")).strip("_")
    if not key:
        return ""
    return key if key[0].isalpha() else f"f_{key}"


def jsonata_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def quote(text: str, limit: int = 60) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return f"“{short}”"


def words(text: str) -> str:
    """``deleteAccount``, ``delete_account``, ``delete-account`` → ``delete Account`` / ``delete account``: words a regex can bound."""
    return re.sub(r"[_\-./]+", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text or ""))


def risk_word(*texts: str) -> str | None:
    """The first risk word (``RISKY_WORDS``) in ``texts`` (camelCase, snake_case and kebab-case split into words), or None."""
    for text in texts:
        found = _RISKY.search(words(text))
        if found:
            return found.group(1).lower()
    return None


class Names:
    """Unique tool names (and step ids, and input keys) in one namespace."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, wanted: str) -> str:
        name, n = wanted, 2
        while name in self.used:
            name = f"{wanted}_{n}"
            n += 1
        self.used.add(name)
        return name
