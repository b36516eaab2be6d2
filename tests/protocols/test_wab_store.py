"""A WAB store as the Web Agent Bridge project publishes one, end to end through the SDK Client.

The store server below behaves as the project's demo store does
(github.com/abokenan444/web-agent-bridge: demo-store/server.js with the WAB
server middleware demo-store/wab-server.js, WAB 1.2.0): it serves the same
discovery document at /.well-known/wab.json and /agent-bridge.json (the site
under ``site``, its eight actions under ``actions`` with ``params`` lists, the
generic verbs under ``capabilities.commands``, ``endpoints.execute``), and
answers ``POST /wab/execute {action, params}`` with ``{success, action, result,
wab_version, duration_ms}`` (``success`` false when the result carries an
``error``; 400 with ``available`` for an unknown action). Unlike the demo it
keeps a cart per session cookie (HttpOnly, set when the page loads), refuses a
request without one (401, as the WAB text's HTTP transport does for a missing
session) and answers a second search within two seconds with 429 and
Retry-After, so a test can see that the POST ran in the page, with the user's
cookies, and how failures map. The page (tests/fixtures/pages/wab-store/) uses
the same endpoint itself and registers page actions with a WAB browser client
2.x, reached through window.__wab_protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcp_actions.protocols.exposure import UNTRUSTED_DESCRIPTION

from .conftest import product

PAGE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "wab-store"
WAB_VERSION = "1.2.0"

PRODUCTS = [
    {"id": 1, "name": "Wireless Headphones", "price": 4900, "stock": 12, "category": "electronics"},
    {"id": 2, "name": "Mechanical Keyboard", "price": 8900, "stock": 7, "category": "electronics"},
    {"id": 3, "name": "Smart Watch", "price": 19900, "stock": 3, "category": "electronics"},
    {"id": 4, "name": "USB-C Hub", "price": 3400, "stock": 25, "category": "accessories"},
]

#: The demo store's eight actions: name, description, category, params (as its server declares them).
ACTIONS: list[dict[str, Any]] = [
    {"name": "listProducts", "description": "List all products in the catalog", "category": "content", "params": [{"name": "category", "type": "string", "required": False}]},
    {"name": "getProduct", "description": "Get details for a specific product", "category": "content", "params": [{"name": "productId", "type": "number", "required": True}]},
    {"name": "searchProducts", "description": "Search products by name or category", "category": "content", "params": [{"name": "query", "type": "string", "required": True}]},
    {
        "name": "addToCart",
        "description": "Add a product to the shopping cart",
        "category": "commerce",
        "params": [{"name": "productId", "type": "number", "required": True}, {"name": "quantity", "type": "number", "required": False}],
    },
    {"name": "viewCart", "description": "View current cart contents and total", "category": "commerce", "params": []},
    {"name": "removeFromCart", "description": "Remove a product from the cart", "category": "commerce", "params": [{"name": "productId", "type": "number", "required": True}]},
    {"name": "checkout", "description": "Complete the purchase and place an order", "category": "commerce", "params": [{"name": "email", "type": "string", "required": True}]},
    {"name": "getOrderStatus", "description": "Check the status of an order", "category": "commerce", "params": [{"name": "orderId", "type": "string", "required": True}]},
]
PAGE_ACTIONS = {"getPrice", "addToCartUI", "getCartCount", "openCart"}


def _money(cents: int) -> str:
    return f"${cents / 100:.2f}"


class Store:
    """The store's state and its WAB endpoint, one cart and order list per session."""

    def __init__(self, *, discovery: bool = True, execute_url: str = "/wab/execute") -> None:
        self.discovery = discovery
        self.execute_url = execute_url
        self.products = {p["id"]: dict(p) for p in PRODUCTS}
        self.sessions: dict[str, dict[str, Any]] = {}
        #: Every POST /wab/execute: action, params, session, the headers that say who sent it, the status answered.
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def new_session(self) -> str:
        sid = secrets.token_hex(8)
        self.sessions[sid] = {"cart": [], "orders": [], "last_search": 0.0}
        return sid

    def document(self, host: str) -> dict[str, Any]:
        return {
            "wab_version": WAB_VERSION,
            "protocol": "1.0",
            "generated_at": "2026-05-01T00:00:00.000Z",
            "site": {"name": "TechStore Demo", "domain": host, "description": "A WAB-enabled electronics store", "category": "e-commerce", "platform": "express"},
            "capabilities": {
                "commands": ["read", "navigate", "click", "fill", "submit", "search"],
                "permissions": {"readContent": True, "click": True, "fillForms": True, "scroll": True, "navigate": True, "apiAccess": True},
                "transport": ["http"],
                "features": [a["name"] for a in ACTIONS],
            },
            "actions": ACTIONS,
            "fairness": {"is_independent": True, "commission_rate": 0, "direct_benefit": "Direct to site owner", "neutrality_score": 95},
            "security": {"session_required": False, "rate_limit": 60, "sandbox": True},
            "endpoints": {"discover": "/wab/discover", "execute": self.execute_url, "actions": "/wab/actions", "ping": "/wab/ping"},
            "lifecycle": ["discover", "authenticate", "plan", "execute", "confirm"],
        }

    # -- the actions (the demo store's business logic, per session) -------------------------

    def _priced(self, p: dict[str, Any]) -> dict[str, Any]:
        return {**p, "priceFormatted": _money(p["price"])}

    def _total(self, cart: list[dict[str, Any]]) -> str:
        return _money(sum(c["price"] * c["quantity"] for c in cart))

    def run(self, session: dict[str, Any], action: str, params: dict[str, Any]) -> dict[str, Any]:
        cart, orders = session["cart"], session["orders"]
        if action == "listProducts":
            found = [p for p in self.products.values() if not params.get("category") or p["category"] == params["category"]]
            return {"products": [self._priced(p) for p in found], "total": len(found)}
        if action == "getProduct":
            p = self.products.get(params.get("productId"))
            return self._priced(p) if p else {"error": f"Product {params.get('productId')} not found"}
        if action == "searchProducts":
            q = str(params.get("query") or "").lower()
            found = [p for p in self.products.values() if q in p["name"].lower() or q in p["category"]]
            return {"query": params.get("query"), "results": [self._priced(p) for p in found], "total": len(found)}
        if action == "addToCart":
            p = self.products.get(params.get("productId"))
            if p is None:
                return {"error": f"Product {params.get('productId')} not found"}
            qty = params.get("quantity") or 1
            if p["stock"] < qty:
                return {"error": f"Insufficient stock. Available: {p['stock']}"}
            line = next((c for c in cart if c["productId"] == p["id"]), None)
            if line:
                line["quantity"] += qty
            else:
                cart.append({"productId": p["id"], "name": p["name"], "price": p["price"], "quantity": qty})
            p["stock"] -= qty
            return {"added": p["name"], "quantity": qty, "cartItems": len(cart), "cartTotal": self._total(cart)}
        if action == "viewCart":
            items = [{**c, "priceFormatted": _money(c["price"]), "subtotal": _money(c["price"] * c["quantity"])} for c in cart]
            return {"items": items, "itemCount": len(cart), "total": self._total(cart)}
        if action == "removeFromCart":
            line = next((c for c in cart if c["productId"] == params.get("productId")), None)
            if line is None:
                return {"error": "Product not in cart"}
            cart.remove(line)
            self.products[line["productId"]]["stock"] += line["quantity"]
            return {"removed": line["name"], "cartItems": len(cart), "cartTotal": self._total(cart)}
        if action == "checkout":
            if not cart:
                return {"error": "Cart is empty"}
            order = {"orderId": "ORD-" + secrets.token_hex(4).upper(), "email": params.get("email"), "items": list(cart), "total": self._total(cart), "status": "confirmed"}
            orders.append(order)
            cart.clear()
            return {"orderId": order["orderId"], "status": order["status"], "total": order["total"], "itemCount": len(order["items"]), "email": order["email"]}
        if action == "getOrderStatus":
            order = next((o for o in orders if o["orderId"] == params.get("orderId")), None)
            if order is None:
                return {"error": f"Order {params.get('orderId')} not found"}
            return {"orderId": order["orderId"], "status": order["status"], "total": order["total"], "itemCount": len(order["items"])}
        raise KeyError(action)

    def execute(self, sid: str | None, body: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, JSON answer and extra headers of one POST to the execute endpoint."""
        action = body.get("action") if isinstance(body, dict) else None
        params = body.get("params") if isinstance(body, dict) and isinstance(body.get("params"), dict) else {}
        if not action:
            return 400, {"success": False, "error": 'Missing "action" field', "wab_version": WAB_VERSION}, {}
        if action not in {a["name"] for a in ACTIONS}:
            return 400, {"success": False, "error": f"Unknown action: {action}", "available": [a["name"] for a in ACTIONS], "wab_version": WAB_VERSION}, {}
        session = self.sessions.get(sid or "")
        if session is None:
            return 401, {"success": False, "error": "Sign in to use the store's agent API", "wab_version": WAB_VERSION}, {}
        if action == "searchProducts":
            now = time.monotonic()
            if now - session["last_search"] < 2.0:
                return 429, {"success": False, "error": "Rate limit exceeded", "retryAfter": 2, "wab_version": WAB_VERSION}, {"Retry-After": "2"}
            session["last_search"] = now
        started = time.monotonic()
        result = self.run(session, action, params)
        answer = {"success": "error" not in result, "action": action, "result": result, "wab_version": WAB_VERSION}
        answer["duration_ms"] = int((time.monotonic() - started) * 1000)
        return 200, answer, {}


def _handler(store: Store) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _sid(self) -> str | None:
            for part in (self.headers.get("Cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == "sid":
                    return value
            return None

        def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path in ("/.well-known/wab.json", "/agent-bridge.json") and store.discovery:
                document = store.document(self.headers.get("Host") or "localhost")
                self._send(200, json.dumps(document).encode(), "application/json", {"X-WAB-Version": WAB_VERSION, "Cache-Control": "public, max-age=60"})
            elif path in ("/", "/index.html"):
                headers = {}
                with store.lock:
                    if self._sid() not in store.sessions:
                        headers["Set-Cookie"] = f"sid={store.new_session()}; Path=/; HttpOnly; SameSite=Lax"
                self._send(200, (PAGE_DIR / "index.html").read_bytes(), "text/html; charset=utf-8", headers)
            elif path == "/wab-client.js":
                self._send(200, (PAGE_DIR / "wab-client.js").read_bytes(), "text/javascript")
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/wab/execute":
                self._send(404, b"not found", "text/plain")
                return
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
            sid = self._sid()
            with store.lock:
                status, answer, headers = store.execute(sid, body)
                store.requests.append(
                    {
                        "action": body.get("action") if isinstance(body, dict) else None,
                        "params": body.get("params") if isinstance(body, dict) else None,
                        "sid": sid,
                        "origin": self.headers.get("Origin"),
                        "sec_fetch_site": self.headers.get("Sec-Fetch-Site"),
                        "user_agent": self.headers.get("User-Agent") or "",
                        "status": status,
                    }
                )
            self._send(status, json.dumps(answer).encode(), "application/json", headers)

    return Handler


@contextlib.contextmanager
def serve(store: Store) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(store))
    threading.Thread(target=server.serve_forever, name="wab-store", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def store() -> Iterator[tuple[Store, str]]:
    shop = Store()
    with serve(shop) as url:
        yield shop, url


async def _wab_tools(s: Any, expected: set[str], timeout: float = 15) -> dict[str, Any]:
    """The runtime's WAB tools by page name, once exactly ``expected`` are listed."""

    def by_name(tools: dict[str, Any]) -> dict[str, Any]:
        return {t.meta["mcp-actions/tool"].split(".", 1)[1]: t for t in tools.values() if t.meta.get("mcp-actions/protocol") == "wab"}

    tools = await s.wait_for_tools(lambda ts: set(by_name(ts)) == expected, timeout)
    return by_name(tools)


def _own(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input properties without the routing ones every tool accepts (target, timeout_ms)."""
    return {k: v for k, v in schema["properties"].items() if k not in ("target", "timeout_ms")}


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error, result.structured_content
    return result.structured_content["error"]


def _ours(store: Store, action: str) -> list[dict[str, Any]]:
    with store.lock:
        return [r for r in store.requests if r["action"] == action]


async def test_the_stores_actions_are_tools_and_a_call_changes_the_users_cart_through_the_page(store):
    shop, url = store
    async with product() as s:
        await s.navigate(f"{url}/")
        tools = await _wab_tools(s, {a["name"] for a in ACTIONS} | PAGE_ACTIONS)
        add = tools["addToCart"]
        assert add.meta["mcp-actions/runtime_id"] == s.tab().runtime_id
        # params lists became JSON Schemas: types, required, nothing undeclared.
        assert add.input_schema["properties"]["productId"] == {"type": "number"} and add.input_schema["properties"]["quantity"] == {"type": "number"}
        assert add.input_schema["required"] == ["productId"] and add.input_schema["additionalProperties"] is False
        assert _own(tools["viewCart"].input_schema) == {} and "required" not in tools["viewCart"].input_schema
        assert tools["getPrice"].input_schema["properties"]["productId"] == {"type": "number", "description": "The product's id", "default": 1}
        (sid,) = shop.sessions  # the page's own session, made when it loaded (an HttpOnly cookie)

        added = await s.client.call_tool(add.name, {"productId": 2, "quantity": 2})
        assert not added.is_error, added.structured_content
        assert added.structured_content == {"added": "Mechanical Keyboard", "quantity": 2, "cartItems": 1, "cartTotal": "$178.00"}
        assert added.meta["mcp-actions/untrusted"] is True
        # The site changed: the user's cart (their session's) holds the keyboard, the stock went down.
        assert shop.sessions[sid]["cart"] == [{"productId": 2, "name": "Mechanical Keyboard", "price": 8900, "quantity": 2}]
        assert shop.products[2]["stock"] == 5
        # The POST ran in the page: the user's HttpOnly session cookie, the page's origin, a same-origin fetch of Chromium.
        (request,) = _ours(shop, "addToCart")
        assert request["params"] == {"productId": 2, "quantity": 2} and request["sid"] == sid
        assert request["origin"] == url and request["sec_fetch_site"] == "same-origin" and "Chrome" in request["user_agent"]

        cart = await s.client.call_tool(tools["viewCart"].name, {})
        assert cart.structured_content["itemCount"] == 1 and cart.structured_content["total"] == "$178.00"
        order = await s.client.call_tool(tools["checkout"].name, {"email": "ada@example.com"})
        assert not order.is_error, order.structured_content
        status = await s.client.call_tool(tools["getOrderStatus"].name, {"orderId": order.structured_content["orderId"]})
        assert status.structured_content == {"orderId": order.structured_content["orderId"], "status": "confirmed", "total": "$178.00", "itemCount": 1}
        assert shop.sessions[sid]["cart"] == [] and len(shop.sessions[sid]["orders"]) == 1


async def test_failures_of_the_sites_endpoint_map_onto_stable_codes(store):
    shop, url = store
    async with product() as s:
        await s.navigate(f"{url}/")
        tools = await _wab_tools(s, {a["name"] for a in ACTIONS} | PAGE_ACTIONS)

        # success: false with the result's error: the action ran and failed.
        empty = _error(await s.client.call_tool(tools["checkout"].name, {"email": "ada@example.com"}))
        assert empty["code"] == "handler_failed" and empty["message"] == "Cart is empty"
        assert empty["evidence"]["wab_code"] == "EXECUTION_FAILED" and empty["evidence"]["http_status"] == 200
        assert empty["evidence"]["protocol"] == "wab" and empty["evidence"]["transport"] == "http"
        missing = _error(await s.client.call_tool(tools["getProduct"].name, {"productId": 99}))
        assert missing["code"] == "handler_failed" and missing["message"] == "Product 99 not found"

        # Bad arguments never leave the server.
        bad = _error(await s.client.call_tool(tools["addToCart"].name, {"productId": "two"}))
        assert bad["code"] == "invalid_input" and bad["evidence"]["path"] == "/productId"
        assert _ours(shop, "addToCart") == []

        # 429 with Retry-After: rate_limited, and the next command waits here instead of reaching the site.
        assert not (await s.client.call_tool(tools["searchProducts"].name, {"query": "hub"})).is_error
        limited = _error(await s.client.call_tool(tools["searchProducts"].name, {"query": "watch"}))
        assert limited["code"] == "rate_limited" and limited["evidence"]["wab_code"] == "RATE_LIMITED"
        assert limited["evidence"]["retry_after_s"] == 2 and limited["evidence"]["http_status"] == 429
        again = _error(await s.client.call_tool(tools["viewCart"].name, {}))
        assert again["code"] == "rate_limited" and again["evidence"]["source"] == "site"
        assert len(_ours(shop, "searchProducts")) == 2 and all(r["params"] != {} for r in _ours(shop, "searchProducts"))
        await asyncio.sleep(2.1)

        # Without the user's session the site says 401: permission_denied (the user must sign in again).
        await s.tab().page.context.clear_cookies()
        signed_out = _error(await s.client.call_tool(tools["viewCart"].name, {}))
        assert signed_out["code"] == "permission_denied" and signed_out["evidence"]["wab_code"] == "AUTHENTICATION_REQUIRED"
        assert signed_out["evidence"]["http_status"] == 401 and signed_out["message"] == "Sign in to use the store's agent API"


async def test_an_endpoint_on_another_origin_is_never_posted_to():
    elsewhere = Store(discovery=False)
    with serve(elsewhere) as other:
        shop = Store(execute_url=f"{other}/wab/execute")
        with serve(shop) as url:
            async with product() as s:
                await s.navigate(f"{url}/")
                tools = await _wab_tools(s, {a["name"] for a in ACTIONS} | PAGE_ACTIONS)
                refused = _error(await s.client.call_tool(tools["viewCart"].name, {}))
                assert refused["code"] == "permission_denied" and refused["evidence"]["wab_code"] == "ORIGIN_MISMATCH"
                assert refused["evidence"]["url"] == f"{other}/wab/execute"
                assert elsewhere.requests == []


async def test_the_pages_wab_client_actions_run_through_window_wab_protocol(store):
    shop, url = store
    async with product() as s:
        await s.navigate(f"{url}/")
        tools = await _wab_tools(s, {a["name"] for a in ACTIONS} | PAGE_ACTIONS)
        page = s.tab().page
        await page.wait_for_selector("#price-3")

        price = await s.client.call_tool(tools["getPrice"].name, {"productId": 3})
        assert not price.is_error, price.structured_content
        assert price.structured_content == {"price": "$199.00"}
        assert await page.evaluate("() => document.getElementById('cart-drawer').classList.contains('open')") is False
        opened = await s.client.call_tool(tools["openCart"].name, {})
        assert opened.structured_content == {"success": True}
        assert await page.evaluate("() => document.getElementById('cart-drawer').classList.contains('open')") is True

        # The page's own action clicks its button; the page's fetch changes the user's cart.
        (sid,) = shop.sessions
        clicked = await s.client.call_tool(tools["addToCartUI"].name, {"productId": 4})
        assert clicked.structured_content == {"success": True}
        for _ in range(100):
            if shop.sessions[sid]["cart"]:
                break
            await asyncio.sleep(0.05)
        assert [c["name"] for c in shop.sessions[sid]["cart"]] == ["USB-C Hub"]
        await page.wait_for_function("() => document.getElementById('cart-badge').textContent === '1'")
        count = await s.client.call_tool(tools["getCartCount"].name, {})
        assert count.structured_content == {"count": "1"}

        # The client answers {error} for a product the page does not show: a failed command.
        failed = _error(await s.client.call_tool(tools["addToCartUI"].name, {"productId": 99}))
        assert failed["code"] == "handler_failed" and failed["message"] == "Not found"
        assert failed["evidence"]["wab_code"] == "EXECUTION_FAILED" and failed["evidence"]["transport"] == "js_global"


async def test_a_page_with_only_the_wab_client_lists_its_actions():
    shop = Store(discovery=False)
    with serve(shop) as url:
        async with product() as s:
            await s.navigate(f"{url}/")
            tools = await _wab_tools(s, PAGE_ACTIONS)
            assert tools["getCartCount"].description == UNTRUSTED_DESCRIPTION + "Read the cart count from the page"
            assert _own(tools["openCart"].input_schema) == {} and tools["openCart"].input_schema["additionalProperties"] is False
            count = await s.client.call_tool(tools["getCartCount"].name, {})
            assert not count.is_error and count.structured_content == {"count": "0"}
