"""Who the shipped extension is: its id, version and connect link, from its manifest alone.

Chrome derives an extension's id from its public key: the SHA-256 of the DER
``SubjectPublicKeyInfo``, first 32 hex digits, each mapped 0-f → a-p. The
manifest carries that key (``key``), so the id is the same on every machine
and every "Load unpacked"; the private key is not needed and not shipped.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from .. import __version__

__all__ = ["chrome_version", "connect_url", "extension_id", "extension_origin", "extension_version", "id_from_key", "manifest"]


def chrome_version(package_version: str) -> str:
    """The package's version in the form Chrome takes: one to four integers (``0.0.1.dev915+g3b1`` → ``0.0.1.915``).

    A release (``0.2.0``) is itself; a build between releases adds its dev number as a fourth part, so
    every build of the package gives its extension a version of its own, and a later build a higher one.
    """
    release = re.match(r"(\d+(?:\.\d+){0,2})", package_version)
    parts = (release.group(1) if release else "0").split(".")
    dev = re.search(r"\.dev(\d+)", package_version)
    if dev:
        parts = [*parts, *["0"] * (3 - len(parts)), dev.group(1)]
    return ".".join(str(min(int(part), 65535)) for part in parts)


@functools.cache
def manifest() -> dict[str, Any]:
    """The extension's ``manifest.json`` as this install writes it: the package's own version in it.

    One version everywhere: the extension the package ships is that package's build, so its
    ``version`` is the package's in Chrome's form and its ``version_name`` (what Chrome shows) the
    package's as ``mcp-actions --version`` prints it.
    """
    text = resources.files("mcp_actions.extension").joinpath("chrome", "manifest.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    data["version"] = chrome_version(__version__)
    data["version_name"] = __version__
    return data


def id_from_key(key: str) -> str:
    """The Chrome extension id of a base64 DER public key (the manifest's ``key``)."""
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(digit, 16)) for digit in digest)


def extension_id() -> str:
    """The shipped extension's id (stable: it comes from the manifest's ``key``)."""
    return id_from_key(str(manifest()["key"]))


def extension_version() -> str:
    """The shipped extension's version (what its runtimes send as ``extension_version``)."""
    return str(manifest()["version"])


def extension_origin() -> str:
    """``chrome-extension://<id>``: the origin its pages (and bridge connections) come from."""
    return f"chrome-extension://{extension_id()}"


def connect_url(bridge_http_url: str, token: str) -> str:
    """The extension's connect page for this bridge: ``chrome-extension://<id>/connect.html#bridge=…&token=…``.

    The address and token travel in the fragment, which the browser never sends anywhere.
    """
    return f"{extension_origin()}/connect.html#{urlencode({'bridge': bridge_http_url, 'token': token})}"
