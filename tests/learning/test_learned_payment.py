"""Payment secrets never go into a learned map: each becomes an argument, as a password does (issue 51, finding 10).

``serve`` over streamable HTTP in a subprocess, the SDK's ``Client``, headless Chromium, and the
checkout page (``tests/fixtures/pages/learn-checkout``). The agent pays, typing a card number
(``autocomplete=cc-number``), its expiry (``cc-exp``) and security code (``cc-csc``), a PIN into a
plain ``type=text name=pin`` field, an SMS code into ``name=otp``, a code into a field only its label
calls "Security code" and one only its placeholder calls "Verification code"; then saves the session
as a tool without listing any of them. The map file and ``actions://manifests/…`` hold none of those
values, the tool takes each as a ``writeOnly`` argument and pays again on a fresh load with others.
Fields whose names only look alike (``spinner``, ``pinned``, ``shipping_option``) and the cardholder's
name (``cc-name``) are plain: their values stay in the map, as any value the agent did not list.
"""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.demo.static import StaticSite
from tests.learning.test_learned_trust import PAGES, Agent
from tests.server.session_servers import http_serve

pytestmark = [pytest.mark.browser]

#: What the agent types: (the field's label, the value, the argument it must become; None: a plain field).
TYPED = [
    ("Name on card", "Ada Lovelace", None),
    ("Card", "4111111111111111", "cc_number"),
    ("Expires", "12/29", "cc_exp"),
    ("CVC", "737", "cc_csc"),
    ("Card PIN", "4862", "pin"),
    ("Text message", "905113", "otp"),
    ("Security code", "5521", "extra"),
    ("Bank check", "66471", "bank"),
    ("Shipping option", "Express", None),
    ("Pinned note", "keep-me", None),
    ("Spinner speed", "fast", None),
]


async def test_payment_secrets_become_arguments_and_are_never_written(tmp_path: Path) -> None:
    learned = tmp_path / "learned"
    with StaticSite(PAGES) as site, http_serve(tmp_path / "server", "--learned-maps", str(learned)) as served:
        async with Client(served.url, mode="legacy") as client:
            agent = Agent(client)
            url = f"{site.url}learn-checkout/index.html"
            await agent.ok("browser_navigate", {"url": url})
            # The secrets, then Pay: one tool of 8 steps (a tool repeats 8 at most).
            for label, value, name in TYPED:
                if name:
                    await agent.ok("page_fill", {"text": label, "value": value})
            await agent.ok("page_click", {"text": "Pay"})
            await agent.page_shows("card 16 digits, expires 5, cvc 3, pin 4, sms 6, security 4, verification 5;")
            saved = await agent.ok("actions_save_tool", {"name": "shop.pay", "description": "Pay for the order.", "parameters": {}})
            secrets = sorted(name for _, _, name in TYPED if name)
            assert saved["secrets"] == secrets
            # The plain fields, then Pay again: a second tool, which keeps what was typed.
            for label, value, name in TYPED:
                if not name:
                    await agent.ok("page_fill", {"text": label, "value": value})
            await agent.ok("page_click", {"text": "Pay"})
            await agent.page_shows("Paid by Ada Lovelace: card 16 digits, expires 5, cvc 3, pin 4, sms 6, security 4, verification 5; shipping Express, note keep-me, speed fast.")
            plain = await agent.ok("actions_save_tool", {"name": "shop.details", "description": "Fill in the order's details.", "steps": 5, "parameters": {}})
            assert plain.get("secrets", []) == []

            written = Path(saved["map"]).read_text(encoding="utf-8")
            shown = (await client.read_resource(f"actions://manifests/{saved['namespace']}")).contents[0]
            for where in (written, shown.text if isinstance(shown, types.TextResourceContents) else ""):
                leaked = [label for label, value, name in TYPED if name and value in where]
                assert not leaked, f"{leaked} kept in the map"
                # Not a secret by a look-alike name: those values are kept as typed (the agent listed no parameter).
                assert all(value in where for _, value, name in TYPED if not name), where
            tool = next(t for t in json.loads(written)["tools"] if t["name"] == "shop.pay")
            schema = tool["input_schema"]
            assert set(schema["required"]) == set(secrets)
            assert all(schema["properties"][name]["writeOnly"] is True for name in secrets)

            # A fresh load, other values: the saved tools fill in the details and pay with them.
            await agent.ok("browser_navigate", {"url": url})
            await agent.ok(saved["tool"], {"cc_number": "5555444433332222111", "cc_exp": "1/30", "cc_csc": "1234", "pin": "12", "otp": "1", "extra": "123456", "bank": "7"})
            await agent.page_shows("card 19 digits, expires 4, cvc 4, pin 2, sms 1, security 6, verification 1;")
            await agent.ok(plain["tool"], {})
            await agent.page_shows("Paid by Ada Lovelace: card 19 digits, expires 4, cvc 4, pin 2, sms 1, security 6, verification 1; shipping Express, note keep-me, speed fast.")


@pytest.mark.parametrize(
    ("element", "secret"),
    [
        ({"autocomplete": "cc-number"}, True),
        ({"autocomplete": "section-pay billing cc-csc"}, True),
        ({"autocomplete": "cc-exp-month"}, True),
        ({"autocomplete": "cc-exp-year"}, True),
        ({"autocomplete": "cc-name"}, False),
        ({"attributes": {"name": "pin"}}, True),
        ({"attributes": {"name": "userPin"}}, True),
        ({"attributes": {"name": "pin_code"}}, True),
        ({"attributes": {"name": "otp"}}, True),
        ({"attributes": {"name": "smsOtp"}}, True),
        ({"attributes": {"id": "card-cvv2"}}, True),
        ({"label": "CVC"}, True),
        ({"label": "Security code"}, True),
        ({"name": "Enter your verification code"}, True),
        ({"placeholder": "One-time passcode"}, True),
        ({"label": "Card number"}, True),
        ({"attributes": {"name": "spinner"}}, False),
        ({"attributes": {"name": "pinned"}}, False),
        ({"attributes": {"name": "shipping"}}, False),
        ({"label": "Shipping option"}, False),
        ({"label": "Opinion"}, False),
        ({"label": "Postcode"}, False),
        ({"label": "Discount code"}, False),
    ],
)
def test_which_fields_are_secret(element: dict[str, object], secret: bool) -> None:
    from mcp_actions.learning.secrets import is_secret_field

    assert is_secret_field({"tag": "input", "type": "text", **element}) is secret
