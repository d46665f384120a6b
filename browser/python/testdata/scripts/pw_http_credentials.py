"""http_credentials: a context answers its origin's Basic auth challenges, in pages and context.request."""
import base64
import http.server
import threading

from support import check, expect_error
from playwright.sync_api import Error, sync_playwright


class Guarded(http.server.BaseHTTPRequestHandler):
    seen = []  # Authorization headers each server was sent, (port, value)

    def do_GET(self):
        got = self.headers.get("Authorization")
        if got:
            Guarded.seen.append((self.server.server_port, got))
        if got != "Basic " + base64.b64encode(b"user:pass").decode():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="test"')
            body = b"<title>denied</title>"
        else:
            self.send_response(200)
            body = b"<title>welcome</title>"
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Guarded) for _ in range(2)]
for s in servers:
    threading.Thread(target=s.serve_forever, daemon=True).start()
own, other = ["http://127.0.0.1:%d" % s.server_port for s in servers]

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context(http_credentials={"username": "user", "password": "pass", "origin": own})
    page = context.new_page()
    check(page.goto(own + "/").status == 200 and page.title() == "welcome", page.title())
    check(page.goto(other + "/").status == 401 and page.title() == "denied", page.title())
    check(context.request.get(own + "/api").status == 200, "context.request with the credentials")
    check(context.request.get(other + "/api").status == 401, "context.request to another origin")
    check(all(port != servers[1].server_port for port, _ in Guarded.seen), Guarded.seen)
    context.close()

    wrong = browser.new_page(http_credentials={"username": "user", "password": "nope"})
    check(wrong.goto(own + "/").status == 401, "wrong credentials")
    wrong.close()
    always = browser.new_context(http_credentials={"username": "user", "password": "pass", "send": "always"})
    before = len(Guarded.seen)
    check(always.request.get(own + "/x").status == 200 and len(Guarded.seen) == before + 1, Guarded.seen)
    always.close()
    expect_error(Error, lambda: browser.new_context(http_credentials={"username": "u"}), "password")
    browser.close()
for s in servers:
    s.shutdown()
print("OK")
