"""Secrets never go into a learned map: a value typed into a secret field, or one the agent calls secret, is an argument.

A learned map is a file anyone who reads the learned-maps folder or
``actions://manifests/…`` reads, and it is served to later sessions: a
password typed before ``actions_save_tool`` must not be in it. Secret fields
are those a browser's password manager treats so: ``type=password``, and
fields whose ``autocomplete`` says ``current-password``, ``new-password`` or
``one-time-code`` (``refs.describe`` reports both, runtimes/page/describe.js).
A value typed into one becomes an argument of the tool even when the agent
did not list it in ``parameters`` (named after the field: ``password``,
``one_time_code``, …); a parameter the agent lists in ``secrets`` is one too.
A secret argument's schema shows no example and says ``writeOnly``, and the
finished tool is searched for every secret value before it is written: one
left anywhere refuses the save (``UnlearnableStep``), never a map holding it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from .locators import PARAMETER_NAME, UnlearnableStep
from .steps import ActStep

__all__ = ["SECRET_AUTOCOMPLETE", "assert_no_secret", "is_secret_field", "with_secret_parameters"]

#: ``autocomplete`` tokens that say a field holds a secret (the HTML standard's autofill field names).
SECRET_AUTOCOMPLETE = frozenset({"current-password", "new-password", "one-time-code"})


def is_secret_field(element: Mapping[str, Any] | None) -> bool:
    """Whether a described element is a secret field: ``type=password``, or an ``autocomplete`` naming a secret."""
    if not element:
        return False
    if element.get("type") == "password":
        return True
    autocomplete = element.get("autocomplete")
    return isinstance(autocomplete, str) and bool(SECRET_AUTOCOMPLETE.intersection(autocomplete.split()))


def _field_name(element: Mapping[str, Any], taken: Collection[str]) -> str:
    """An argument name for a secret field: its autocomplete token, else its name attribute, else ``secret``; made unique."""
    autocomplete = str(element.get("autocomplete") or "")
    token = next((t for t in autocomplete.split() if t in SECRET_AUTOCOMPLETE), None)
    attributes = element.get("attributes") if isinstance(element.get("attributes"), dict) else {}
    raw = "password" if token == "current-password" else token or str((attributes or {}).get("name") or "") or ("password" if element.get("type") == "password" else "secret")
    base = re.sub(r"[^A-Za-z0-9_]+", "_", raw).strip("_")[:56] or "secret"
    base = base if PARAMETER_NAME.match(base) else f"secret_{base}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def with_secret_parameters(steps: Sequence[ActStep], parameters: Mapping[str, str], secrets: Collection[str]) -> tuple[dict[str, str], frozenset[str]]:
    """The parameters with every value typed into a secret field made one, and the names of the secret ones.

    ``secrets``: the parameters the agent called secret (each must be one of ``parameters``; the caller checks).
    A secret field's value the agent already listed is that parameter, now secret.
    """
    out = dict(parameters)
    secret = set(secrets)
    for step in steps:
        if step.boundary or step.tool != "page.fill" or not is_secret_field(step.element):
            continue
        typed = step.arguments.get("text")
        if not isinstance(typed, str) or not typed:
            continue
        named = next((name for name, value in out.items() if value == typed), None)
        if named is None:
            named = _field_name(step.element or {}, out)
            out[named] = typed
        secret.add(named)
    return out, frozenset(secret)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def assert_no_secret(tool: Mapping[str, Any], parameters: Mapping[str, str], secrets: Collection[str]) -> None:
    """Refuse (``UnlearnableStep``) a tool that still holds a secret value in any of its strings."""
    values = {name: parameters[name] for name in secrets if parameters.get(name)}
    for text in _strings(tool):
        for name, value in values.items():
            if value in text:
                raise UnlearnableStep(f"parameter {name!r}: its secret value would be written into the map (it shows in the page's text around a step); save without that step")
