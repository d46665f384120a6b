"""proxy=: per browser and per context, the proxy's 407 answered with its own credentials only, bad values
in Playwright's words, no warm browser for a launch with a proxy, and a refusal under a run's policy proxy."""
import base64
import http.server
import os
import threading

from support import check, expect_error
from playwright.sync_api import Error, sync_playwright


class Proxy(http.server.BaseHTTPRequestHandler):
    """A proxy that answers every absolute-URI request itself, after Basic credentials when it wants some."""
    want = None  # the Proxy-Authorization it asks for; None: none
    seen = []  # (Proxy-Authorization, Authorization) of each request

    def do_GET(self):
        got = self.headers.get("Proxy-Authorization")
        Proxy.seen.append((got, self.headers.get("Authorization")))
        if Proxy.want is not None and got != Proxy.want:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            body = b"<title>407</title>"
        else:
            self.send_response(200)
            body = ("<title>%s %s</title>" % (self.path, got)).encode()
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def basic(user, password):
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
threading.Thread(target=server.serve_forever, daemon=True).start()
address = "127.0.0.1:%d" % server.server_port

with sync_playwright() as p:
    expect_error(Error, lambda: p.chromium.launch(proxy={"server": 123}), "proxy.server: expected string, got number")
    expect_error(Error, lambda: p.chromium.launch(proxy={"server": address, "username": 1}),
                 "proxy.username: expected string, got number")

    # A launch with a proxy needs a browser of its own: it never asks the warm one (here, none is there).
    os.environ["WRIGHT_DRIVER_WARM"] = "/nonexistent/warm.sock"
    Proxy.want = basic("user", "")
    browser = p.chromium.launch(proxy={"server": address, "username": "user", "password": "", "bypass": None})
    del os.environ["WRIGHT_DRIVER_WARM"]
    page = browser.new_page()
    page.goto("http://site.invalid/a")
    check(page.title() == "http://site.invalid/a " + basic("user", ""), page.title())

    # A context's own proxy, with its own credentials; server credentials never go to the proxy.
    Proxy.want = basic("ctx", "secret")
    context = browser.new_context(proxy={"server": "http://" + address, "username": "ctx", "password": "secret"})
    page = context.new_page()
    page.goto("http://other.invalid/b")
    check(page.title() == "http://other.invalid/b " + basic("ctx", "secret"), page.title())
    check(context.request.get("http://api.invalid/c").status == 200, "context.request through the context's proxy")
    wrong = browser.new_page(proxy={"server": address, "username": "ctx", "password": "wrong"},
                             http_credentials={"username": "ctx", "password": "secret"})
    check(wrong.goto("http://other.invalid/d").status == 407, "wrong proxy credentials leave the proxy's 407")
    check(all(auth is None for _, auth in Proxy.seen), Proxy.seen)
    browser.close()

    # Inside a run the browser's network is the run's: a proxy of the script's own is refused, saying why.
    os.environ["WRIGHT_PROXY"] = "http://" + address
    expect_error(Error, lambda: p.chromium.launch(proxy={"server": address}), "policy proxy")
    del os.environ["WRIGHT_PROXY"]
server.shutdown()
print("OK")
