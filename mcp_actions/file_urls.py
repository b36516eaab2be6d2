"""Local files in the browser: closed to agents unless the operator opens them (``serve --allow-file-urls``).

A ``file:`` page is the user's own disk: an agent steered by a page it read must not open
``file:///etc/passwd`` or ``~/.ssh/id_rsa`` and read it back. Chromium itself refuses a *page*
that sends a tab to a ``file:`` URL (``location``, a link, ``window.open``, a frame, from an
``http(s):``, ``data:`` or blank page); what it does not refuse is a navigation the browser is
told to make, which is what ``browser_navigate``, ``browser_open_tab``, BAP's ``page/navigate``
and a map's ``browser.navigate`` step are. So the server refuses those itself, before anything
reaches the browser (the call's target, ``dispatch/call/targets.py``, and every primitive call,
``Bridge.call``), and refuses to run anything but leaving it on a tab that shows a local file
all the same (a tab of a browser the user attached, there before).

``local_file`` says whether a URL shows a local file, as Chromium reads the URL: the scheme in
any case, blanks and control characters around it and tabs or newlines inside it ignored
(the URL standard's parser), and through ``view-source:`` and ``filesystem:``, which show the
URL they wrap. It gives the file's URL (``file:///path``, no query or fragment): a file has no
origin, so that URL is what the policy's ``origins`` globs match and what the audit line's
``origin`` says (``bridge/routing.py``, ``page_origin``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .errors import ActionError, ErrorCode

__all__ = ["ALLOW_FILE_URLS_ENV", "ALLOW_FILE_URLS_OPTION", "LEAVING_PRIMITIVES", "NAVIGATING_PRIMITIVES", "check_call", "file_page_refused", "file_url_refused", "local_file"]

#: The option and environment variable that open local files to agents (docs/cli.md).
ALLOW_FILE_URLS_OPTION = "--allow-file-urls"
ALLOW_FILE_URLS_ENV = "MCP_ACTIONS_ALLOW_FILE_URLS"

#: The primitives that open their ``url`` argument in a tab.
NAVIGATING_PRIMITIVES = frozenset({"browser.navigate", "browser.open_tab"})
#: What a tab showing a local file may still be asked while files are closed: to leave it (or close it), and
#: the browser's bookkeeping that reads no page (its tabs, which one is active, a dialog, the session's name).
LEAVING_PRIMITIVES = NAVIGATING_PRIMITIVES | frozenset(
    {"browser.close_tab", "browser.claimed_tabs.list", "browser.claimed_tabs.activate", "browser.dismiss_dialog", "runtime.session.name", "runtime.session.finalize_tabs"}
)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
#: Schemes whose page shows the URL they wrap (``view-source:file:///etc/passwd`` shows the file).
_WRAPPERS = frozenset({"view-source", "filesystem"})
#: What the URL standard's parser drops: C0 controls and spaces at either end, tabs and newlines anywhere.
_EDGES = "".join(chr(c) for c in range(0x21))
_INSIDE = re.compile(r"[\t\n\r]")


def _as_parsed(url: str) -> str:
    return _INSIDE.sub("", url.strip(_EDGES))


def local_file(url: str | None) -> str | None:
    """The ``file:`` URL that ``url`` shows (``file:///path``, without query or fragment); None when it shows no local file."""
    if not url:
        return None
    text = _as_parsed(url)
    for _ in range(8):  # view-source:view-source:… is still the file; a deeper nesting is no URL Chromium opens
        found = _SCHEME.match(text)
        if found is None:
            return None
        scheme, rest = found.group(1).lower(), text[found.end() :]
        if scheme in _WRAPPERS:
            text = _as_parsed(rest)
            continue
        if scheme != "file":
            return None
        # A file URL is a special URL: a backslash is a slash, and file:etc/x, file:/etc/x and file://localhost/etc/x are file:///etc/x.
        rest = rest.replace("\\", "/")
        if not rest.startswith("//"):
            rest = "//" + ("" if rest.startswith("/") else "/") + rest
        parts = urlsplit("file:" + rest)
        host = "" if parts.netloc.lower() == "localhost" else parts.netloc
        return f"file://{host}{parts.path or '/'}"
    return None


def file_url_refused(url: str, *, path: str = "/url") -> ActionError:
    """The refusal of a navigation to a local file while file URLs are closed (``path``: the argument that names it)."""
    shown = local_file(url) or url
    return ActionError(
        f"{shown} is a local file, and local files are closed to agents; the operator opens them with "
        f"{ALLOW_FILE_URLS_OPTION} ({ALLOW_FILE_URLS_ENV}=1)",
        code=ErrorCode.PERMISSION_DENIED,
        recoverable=False,
        evidence={"reason": "file_url", "path": path, "url": shown},
    )


def file_page_refused(runtime_id: str, url: str, name: str) -> ActionError:
    """The refusal of ``name`` on a tab that shows a local file while file URLs are closed: it may only leave it."""
    return ActionError(
        f"the tab shows a local file ({local_file(url) or url}), and local files are closed to agents: {name} does not run there; "
        f"open a web page in it with browser_navigate, or the operator opens local files with {ALLOW_FILE_URLS_OPTION}",
        code=ErrorCode.PERMISSION_DENIED,
        recoverable=False,
        evidence={"reason": "file_url", "runtime_id": runtime_id, "url": local_file(url) or url, "name": name},
    )


def check_call(name: str, arguments: dict[str, object], *, page_url: str | None, runtime_id: str) -> None:
    """Refuse primitive (or tool) ``name`` while local files are closed: a navigation to one, or anything but leaving a tab that shows one.

    The floor under every call a runtime is sent (``Bridge.call``): whichever door, tool or workflow step asked.
    """
    if name in NAVIGATING_PRIMITIVES:
        url = arguments.get("url")
        if isinstance(url, str) and local_file(url) is not None:
            raise file_url_refused(url)
    if name not in LEAVING_PRIMITIVES and local_file(page_url) is not None:
        assert page_url is not None
        raise file_page_refused(runtime_id, page_url, name)
