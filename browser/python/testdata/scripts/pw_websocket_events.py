"""WebSocket events: page.on("websocket") and expect_websocket, frames as str and bytes, waits that fail on
a close, a refused handshake's socketerror, frames held for a first listener, a page's close closing its
sockets; the same under the async API."""
import asyncio

from support import check, expect_error, url
from playwright.sync_api import Error, WebSocket, sync_playwright

WS = url("ws").replace("http://", "ws://", 1)

# Sends text, then bytes; the fixture's server answers each with "echo:" and the message.
OPEN_JS = """(u) => {
  window.got = 0;
  const ws = window.ws = new WebSocket(u);
  ws.onopen = () => { ws.send('hello'); ws.send(new Uint8Array([0, 1, 255])); };
  ws.onmessage = () => { window.got++; };
}"""

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("form.html"))

    opened, sent, received, closed = [], [], [], []
    page.on("websocket", opened.append)
    with page.expect_websocket() as info:
        page.evaluate(OPEN_JS, WS)
    ws = info.value
    check(isinstance(ws, WebSocket) and opened == [ws], "one WebSocket object per socket: %r" % opened)
    check(ws.url == WS and repr(ws) == "<WebSocket url=%r>" % WS, "url and repr: %r" % ws)
    ws.on("framesent", sent.append)
    ws.on("framereceived", received.append)
    ws.on("close", closed.append)
    first = ws.wait_for_event("framereceived")
    if len(received) < 2:
        ws.wait_for_event("framereceived")
    check(first == "echo:hello", "the first echo, as text: %r" % (first,))
    check(sent == ["hello", b"\x00\x01\xff"], "frames sent, text as str and binary as bytes: %r" % sent)
    check(received == ["echo:hello", b"echo:\x00\x01\xff"], "frames received: %r" % received)
    check(not ws.is_closed(), "open while the page keeps it")

    # A wait for a frame fails when the socket closes first; the close itself can be waited for.
    def wait_through_close():
        with ws.expect_event("framesent", timeout=5000):
            page.evaluate("window.ws.close()")
    expect_error(Error, wait_through_close, "Socket closed")
    check(ws.is_closed() and closed == [ws], "closed once: %r" % closed)
    expect_error(Error, lambda: ws.wait_for_event("framereceived"), "Socket closed")

    # A refused handshake: socketerror with the status, then close.
    with page.expect_event("websocket") as info:
        page.evaluate("(u) => { new WebSocket(u); }", url("no-such-socket").replace("http://", "ws://", 1))
    bad = info.value
    error = bad.wait_for_event("socketerror")
    check(": 404" in error, "the handshake's error: %r" % error)
    for _ in range(100):
        if bad.is_closed():
            break
        page.wait_for_timeout(50)
    check(bad.is_closed(), "closed after its error")

    # Frames that came before the script listened for them are held for its first listener, once.
    with page.expect_websocket() as info:
        page.evaluate(OPEN_JS, WS)
    late = info.value
    for _ in range(100):
        if page.evaluate("window.got") == 2:
            break
        page.wait_for_timeout(50)
    early, again = [], []
    late.on("framereceived", early.append)
    late.on("framereceived", again.append)
    check(early == ["echo:hello", b"echo:\x00\x01\xff"] and again == [], "held frames: %r %r" % (early, again))
    page.evaluate("window.ws.close()")

    # What the driver says of a socket the client never saw, or a frame it cannot read, is dropped quietly.
    for params in ({"socket": "unknown", "opcode": 1, "data": "x"}, {"socket": "unknown"},
                   {"socket": late._id, "opcode": 2, "data": "not base64!"}, {"socket": late._id, "opcode": 9}):
        page._on_driver_event("page.websocket_frame", params)
    page._on_driver_event("page.websocket_close", {"socket": "unknown"})
    page._on_driver_event("page.websocket_error", {})
    check(page.evaluate("1") == 1, "the page still works")

    # A socket still open when its page closes is closed with it.
    other = browser.new_page()
    other.goto(url("form.html"))
    with other.expect_websocket() as info:
        other.evaluate("(u) => new Promise(f => { const ws = new WebSocket(u); ws.onopen = () => f(); })", WS)
    held = info.value
    held_closed = []
    held.on("close", lambda s: held_closed.append(s.is_closed()))
    other.close()
    check(held.is_closed() and held_closed == [True], "closed with its page: %r" % held_closed)
    browser.close()


async def main():
    from playwright.async_api import WebSocket as AsyncWebSocket, async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch()
        page = await browser.new_page()
        await page.goto(url("form.html"))
        frames = []
        async with page.expect_websocket() as info:
            await page.evaluate(OPEN_JS, WS)
        ws = await info.value
        check(isinstance(ws, AsyncWebSocket), "an async WebSocket: %r" % ws)
        check(ws.is_closed() is False, "is_closed is a plain call under the async API")
        # The first frame may have come already: it is held for the first wait or listener of its event.
        first = await ws.wait_for_event("framereceived")
        check(first == "echo:hello", "the first frame: %r" % (first,))
        ws.on("close", frames.append)
        async with ws.expect_event("close"):
            await page.evaluate("window.ws.close()")
        check(ws.is_closed() is True and frames == [ws], "closed once: %r" % frames)
        await browser.close()


asyncio.run(main())
print("OK")
