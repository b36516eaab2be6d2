"""URLs as the product shows them: no credential an operator put in one, and no page URL in a notice for everyone.

An operator often gives a URL with a credential inside: a remote browser pool's
``--cdp-endpoint "wss://pool.example/?token=…"``, a ``--browser-endpoint`` with a
key in its query, a ``--backplane nats://user:password@host``. The product uses
the URL as given, but wherever it *shows* one (a resource, a log message, the
status page, an error) it shows ``shown_url(url)``: the user name and password
are dropped and every query value is masked, so the shape stays recognisable
(``wss://pool.example/?token=***``) and nothing can be replayed from it
(docs/threat-model.md, "The tenant boundary").

``without_urls`` is for text that goes to every agent session at once (a
notice, docs/sessions.md): any URL in it, page or endpoint, becomes ``«URL»``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["MASK", "URL_PLACEHOLDER", "shown_url", "without_urls"]

#: What a masked query value reads as.
MASK = "***"
#: What a URL in a notice for everyone reads as.
URL_PLACEHOLDER = "«URL»"

# A scheme, "://", then anything up to whitespace or a quote/bracket that ends a URL in prose or in a repr.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://[^\s'\"<>()\[\]{}]+")


def shown_url(url: str | None) -> str | None:
    """``url`` without its user name, password and query values (each value ``***``); None stays None.

    A value that does not parse as a URL is shown as its scheme alone, should it have one: it was
    given as a URL, and a part of it that cannot be told apart may be the secret.
    """
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        scheme, sep, _ = url.partition("://")
        return f"{scheme}://{MASK}" if sep else MASK
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    query = urlencode([(name, MASK) for name, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, host + port, parts.path, query, ""))


def without_urls(text: str) -> str:
    """``text`` with every URL in it replaced by ``«URL»`` (for notices every agent session reads)."""
    return _URL.sub(URL_PLACEHOLDER, text)
