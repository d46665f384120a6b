"""WebSocket routes: a route answering in place of a server, one forwarding to the fixture's echo server with
a message changed on the way, binary messages, closes, a context route, and bad input."""
import time

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

WS = url("ws").replace("http://", "ws://", 1)

OPEN_JS = """(u) => new Promise((resolve, reject) => {
  window.log = [];
  const ws = window.ws = new WebSocket(u);
  ws.binaryType = 'arraybuffer';
  ws.onmessage = e => window.log.push(typeof e.data === 'string' ? e.data : 'bytes:' + new Uint8Array(e.data).join(','));
  ws.onclose = e => window.log.push('close ' + e.code + ' ' + e.reason);
  ws.onopen = () => resolve();
  ws.onerror = () => reject(new Error('error'));
})"""


def wait_log(page, want):
    deadline = time.monotonic() + 10
    while True:
        got = page.evaluate("window.log")
        if got == want or time.monotonic() > deadline:
            check(got == want, "page log %r, want %r" % (got, want))
            return
        time.sleep(0.05)


with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("form.html"))

    # In place of a server: nothing listens at /mock.
    seen = []

    def mock(ws):
        def on_message(message):
            seen.append(message)
            if message == "bye":
                ws.close(code=4000, reason="done")
            elif isinstance(message, bytes):
                ws.send(message[::-1])
            else:
                ws.send("mock:" + message)
        ws.on_message(on_message)

    page.route_web_socket("**/mock", mock)
    page.evaluate(OPEN_JS, WS.replace("/ws", "/mock"))
    page.evaluate("ws.send('hi'); ws.send(new Uint8Array([1, 2, 3]))")
    wait_log(page, ["mock:hi", "bytes:3,2,1"])
    page.evaluate("ws.send('bye')")
    wait_log(page, ["mock:hi", "bytes:3,2,1", "close 4000 done"])
    check(seen == ["hi", b"\x01\x02\x03", "bye"], "the route saw %r" % (seen,))

    # Forwarded to the real server, a message changed on the way in each direction.
    def forward(ws):
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send("changed" if m == "change-me" else m))
        server.on_message(lambda m: ws.send(m.upper() if isinstance(m, str) else m))

    page.route_web_socket(WS, forward)
    page.evaluate(OPEN_JS, WS)
    page.evaluate("ws.send('plain'); ws.send('change-me')")
    wait_log(page, ["ECHO:PLAIN", "ECHO:CHANGED"])
    page.evaluate("ws.close(4001, 'from page')")
    wait_log(page, ["ECHO:PLAIN", "ECHO:CHANGED", "close 4001 from page"])

    # A socket no route takes is the browser's own.
    page.evaluate(OPEN_JS, WS + "?unrouted")
    page.evaluate("ws.send('direct')")
    wait_log(page, ["echo:direct"])

    # A context's route reaches its new pages.
    context = browser.new_context()
    context.route_web_socket("**/ctx", lambda ws: ws.on_message(lambda m: ws.send("ctx:" + m)))
    other = context.new_page()
    other.goto(url("form.html"))
    other.evaluate(OPEN_JS, WS.replace("/ws", "/ctx"))
    other.evaluate("ws.send('x')")
    wait_log(other, ["ctx:x"])

    # Bad input is named.
    holder = {}
    page.route_web_socket("**/bad", lambda ws: holder.setdefault("ws", ws))
    page.evaluate(OPEN_JS, WS.replace("/ws", "/bad"))
    expect_error(Error, lambda: holder["ws"].send(42), "str or bytes")
    browser.close()
print("OK")
