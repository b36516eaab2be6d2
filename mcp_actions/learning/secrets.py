"""Secrets never go into a learned map: a value typed into a secret field, or one the agent calls secret, is an argument.

A learned map is a file anyone who reads the learned-maps folder or
``actions://manifests/…`` reads, and it is served to later sessions: a
password typed before ``actions_save_tool`` must not be in it. Secret fields
are those a browser's password manager or its payment autofill treats so:
``type=password``, and fields whose ``autocomplete`` says ``current-password``,
``new-password``, ``one-time-code``, or a payment card's number, security code
or expiry (``cc-number``, ``cc-csc``, ``cc-exp``, ``cc-exp-month``,
``cc-exp-year``); and fields whose name, id, label, accessible name or
placeholder calls them a PIN, an OTP, a CVV, CVC or CSC, a passcode, a security,
verification or one-time code, or a card number, as whole words (``pin_code``,
``userPin``, "Security code"; never ``spinner``, ``pinned``, ``shipping`` or
"Opinion"). ``refs.describe`` reports all of these (runtimes/page/describe.js).
The cardholder's name (``cc-name``) is no secret: it is on the card's face and
every receipt, and stays as typed unless the agent lists it.
A value typed (or an option chosen) in one becomes an argument of the tool even when the agent
did not list it in ``parameters`` (named after the field: ``password``,
``one_time_code``, ``cc_number``, its name attribute, …); a parameter the agent lists in ``secrets`` is one too.
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

__all__ = ["SECRET_AUTOCOMPLETE", "SECRET_WORDS", "assert_no_secret", "is_secret_field", "secret_words_in", "with_secret_parameters"]

#: ``autocomplete`` tokens that say a field holds a secret (the HTML standard's autofill field names): a
#: password, a one-time code, and what pays with a card (its number, security code and expiry, whole or in parts).
SECRET_AUTOCOMPLETE = frozenset({"current-password", "new-password", "one-time-code", "cc-number", "cc-csc", "cc-exp", "cc-exp-month", "cc-exp-year"})

#: Words (and runs of words) that call a field a secret in its name, id, label or placeholder, matched as whole
#: words after splitting ``camelCase``, ``snake_case`` and ``kebab-case`` and dropping a trailing digit
#: (``cvv2``): "pin" is a PIN, "spinner" and "pinned" are not.
SECRET_WORDS: tuple[tuple[str, ...], ...] = (
    ("pin",), ("otp",), ("totp",), ("cvv",), ("cvc",), ("csc",), ("cvn",), ("passcode",), ("tan",),
    ("security", "code"), ("verification", "code"), ("one", "time"), ("onetime",), ("sms", "code"),
    ("card", "number"), ("cardnumber",), ("ccnumber",), ("cc", "number"), ("cc", "num"), ("card", "verification"),
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    """``text`` as lower-case words: camelCase and every run of non-alphanumerics split, a trailing digit dropped."""
    return [word.rstrip("0123456789") or word for word in _NOT_WORD.split(_CAMEL.sub(" ", text).lower()) if word]


def secret_words_in(text: str) -> tuple[str, ...] | None:
    """The first of ``SECRET_WORDS`` that ``text`` holds as whole words (None: it calls nothing a secret)."""
    words = _words(text)
    for run in SECRET_WORDS:
        if any(tuple(words[i : i + len(run)]) == run for i in range(len(words) - len(run) + 1)):
            return run
    return None


def _described_names(element: Mapping[str, Any]) -> list[str]:
    """What the page calls the field: its name and id attributes, label, accessible name and placeholder."""
    attributes = element.get("attributes") if isinstance(element.get("attributes"), dict) else {}
    said = [(attributes or {}).get("name"), (attributes or {}).get("id"), element.get("id"), element.get("label"), element.get("name"), element.get("placeholder")]
    return [text for text in said if isinstance(text, str) and text]


def is_secret_field(element: Mapping[str, Any] | None) -> bool:
    """Whether a described element is a secret field: ``type=password``, an ``autocomplete`` naming a secret, or a name calling it one."""
    if not element:
        return False
    if element.get("type") == "password":
        return True
    autocomplete = element.get("autocomplete")
    if isinstance(autocomplete, str) and SECRET_AUTOCOMPLETE.intersection(autocomplete.split()):
        return True
    return any(secret_words_in(text) is not None for text in _described_names(element))


def _field_name(element: Mapping[str, Any], taken: Collection[str]) -> str:
    """An argument name for a secret field: its autocomplete token, else its name or id attribute, else its label; made unique."""
    autocomplete = str(element.get("autocomplete") or "")
    token = next((t for t in autocomplete.split() if t in SECRET_AUTOCOMPLETE), None)
    attributes = element.get("attributes") if isinstance(element.get("attributes"), dict) else {}
    named = next((str(text) for text in ((attributes or {}).get("name"), (attributes or {}).get("id"), element.get("id"), element.get("label")) if text), "")
    raw = "password" if token == "current-password" else token or named or ("password" if element.get("type") == "password" else "secret")
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
        if step.boundary or step.tool not in ("page.fill", "page.select") or not is_secret_field(step.element):
            continue
        for typed in _values(step):
            named = next((name for name, value in out.items() if value == typed), None)
            if named is None:
                named = _field_name(step.element or {}, out)
                out[named] = typed
            secret.add(named)
    return out, frozenset(secret)


def _values(step: ActStep) -> list[str]:
    """What a fill typed or a select chose (a card's expiry month is often a ``<select>``): each a value to keep out of the map."""
    chosen = step.arguments.get("values") if step.tool == "page.select" else None
    given = chosen if isinstance(chosen, list) else [step.arguments.get("text")]
    return [value for value in given if isinstance(value, str) and value]


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
