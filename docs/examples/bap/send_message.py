"""Send the contact page of getting-started.md a message through mcp-actions' BAP door (docs/bap.md).

Start the server with BAP on (`mcp-actions serve --bap-port 9333`; it prints the token), serve the
contact page (`python3 -m http.server 8000 --bind 127.0.0.1 --directory ~/first-map`), then:

    python send_message.py TOKEN [BAP_URL] [PAGE_URL]
"""

import asyncio
import sys

from browseragentprotocol import BAPClient, label, role


async def send_message(bap_url: str, token: str, page_url: str) -> str:
    async with BAPClient(bap_url, token=token, name="my-agent") as client:
        await client.launch(browser="chromium")
        await client.create_page(url=page_url)
        await client.fill(label("Name"), "Ada")
        await client.fill(label("Email"), "ada@example.com")
        await client.fill(label("Message"), "Hello!")
        await client.click(role("button", "Send"))
        # fill and click return nothing: read the page to see what it answered (a moment later).
        for _ in range(50):
            page = (await client.content()).content
            if "Thanks" in page:
                return next(line for line in page.splitlines() if "Thanks" in line).strip()
            await asyncio.sleep(0.1)
        raise SystemExit("the page did not answer within 5 s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    token = sys.argv[1]
    bap_url = sys.argv[2] if len(sys.argv) > 2 else "ws://127.0.0.1:9333/"
    page_url = sys.argv[3] if len(sys.argv) > 3 else "http://127.0.0.1:8000/"
    print(asyncio.run(send_message(bap_url, token, page_url)))
