#!/usr/bin/env python3
"""Send the same requests to two `wright driver` binaries and compare the
answers byte for byte.

    python3 wirecompare.py OLD_WRIGHT NEW_WRIGHT

Both drivers browse the engine's fixture pages (browser/testdata), served
once on loopback, so URLs are the same for both. Requests go one at a time,
each waiting for its answer, so the order of answers is fixed. Every method
gets its params wrong in each generic way (unknown field, wrong types,
negative timeout) and then is called for real. Exit status 0 when every
answer is identical.
"""
import functools
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

METHODS = [
    "browser.launch", "browser.new_page", "browser.pages", "browser.close",
    "page.goto", "page.reload", "page.go_back", "page.go_forward", "page.url", "page.title",
    "page.content", "page.bring_to_front", "page.close", "page.wait_for_load_state",
    "page.wait_for_url", "page.wait_for_selector", "page.screenshot", "page.aria_snapshot",
    "page.evaluate", "page.keyboard.press", "page.keyboard.type", "page.mouse.click",
    "page.mouse.move", "page.mouse.wheel", "page.set_viewport_size", "page.console_messages",
    "page.page_errors", "page.dialogs",
    "locator.click", "locator.dblclick", "locator.fill", "locator.press",
    "locator.press_sequentially", "locator.check", "locator.uncheck", "locator.set_checked",
    "locator.select_option", "locator.hover", "locator.focus", "locator.scroll_into_view_if_needed",
    "locator.inner_text", "locator.text_content", "locator.inner_html", "locator.input_value",
    "locator.get_attribute", "locator.is_visible", "locator.is_hidden", "locator.is_enabled",
    "locator.is_disabled", "locator.is_editable", "locator.is_checked", "locator.count",
    "locator.all_inner_texts", "locator.all_text_contents", "locator.wait_for",
    "locator.screenshot", "locator.bounding_box", "locator.aria_snapshot", "locator.evaluate",
]

# Wrong params every method is sent: unknown and mistyped fields of each
# kind the methods share.
BAD = [
    {"zzz": 1}, {"page": 5}, {"page": "p1", "timeout": "x"}, {"page": "p1", "timeout": -1},
    {"page": "p1", "selector": 7}, {"page": "p1", "selector": "li", "timeout": "x"},
    {"page": "p1", "selector": "li", "delay": "x"}, {"page": "p1", "selector": "li", "position": {"x": "a"}},
    {"page": "p1", "max_depth": "a"}, {"page": "p1", "wait_until": 3}, {"page": "p1", "url": 3},
    {"page": "p1", "x": "a"}, {"page": "p1", "clear": "yes"}, {"page": "p1", "checked": "yes"},
    {"page": "p1", "selector": "li", "value": 3}, {"viewport": {"width": "a"}}, {"browser": 1},
    {"page": "p1", "path": "rel.png"}, {"page": "p9"},
]


def session(base, shots):
    """The real calls, in order; p1 is the first page."""
    p = {"page": "p1"}
    form, buttons = base + "/form.html", base + "/buttons.html"
    yield "browser.launch", {}
    yield "browser.new_page", {}
    yield "browser.pages", {}
    yield "page.goto", dict(p, url=buttons)
    yield "page.goto", dict(p, url=form, wait_until="domcontentloaded")
    yield "page.go_back", p
    yield "page.go_forward", p
    yield "page.reload", p
    yield "page.url", p
    yield "page.title", p
    # form.html enables a button after a moment, so its content depends on
    # timing: the content is read on a static page.
    yield "page.goto", dict(p, url=buttons)
    yield "page.content", p
    yield "page.goto", dict(p, url=form)
    yield "page.bring_to_front", p
    yield "page.wait_for_load_state", dict(p, state="load")
    yield "page.wait_for_url", dict(p, url="**/form.html")
    yield "page.wait_for_url", p
    yield "page.wait_for_selector", dict(p, selector="#name")
    yield "page.screenshot", dict(p, path=os.path.join(shots, "page.png"))
    yield "page.aria_snapshot", p
    yield "page.aria_snapshot", dict(p, interactive_only=True, max_chars=300)
    yield "page.evaluate", dict(p, expression="(a) => [a, document.title]", arg={"x": 1})
    yield "page.evaluate", dict(p, expression="() => { throw new Error('nope') }")
    yield "locator.click", dict(p, selector="#name")
    yield "page.keyboard.type", dict(p, text="Ada")
    yield "page.keyboard.press", dict(p, key="End")
    yield "page.keyboard.press", dict(p, key="Ctrl+Q")
    yield "page.mouse.move", dict(p, x=10, y=10)
    yield "page.mouse.click", dict(p, x=5, y=5)
    yield "page.mouse.click", p
    yield "page.mouse.wheel", dict(p, delta_y=10)
    yield "page.set_viewport_size", dict(p, width=900, height=700)
    yield "page.console_messages", dict(p, clear=True)
    yield "page.page_errors", p
    yield "page.dialogs", p
    yield "locator.fill", dict(p, selector="#email", value="a@b.c")
    yield "locator.fill", dict(p, selector="#email")
    yield "locator.press", dict(p, selector="#email", key="Backspace")
    yield "locator.press_sequentially", dict(p, selector="#bio", text="xy", delay=1)
    yield "locator.check", dict(p, selector="#terms")
    yield "locator.uncheck", dict(p, selector="#terms")
    yield "locator.set_checked", dict(p, selector="#terms", checked=True)
    yield "locator.set_checked", dict(p, selector="#terms")
    yield "locator.check", dict(p, selector="#terms", checked=True)
    yield "locator.select_option", dict(p, selector="#country", value="de")
    yield "locator.select_option", dict(p, selector="#tags", label=["Alpha", "Gamma"])
    yield "locator.select_option", dict(p, selector="#country", index=3)
    yield "locator.select_option", dict(p, selector="#country")
    yield "locator.select_option", dict(p, selector="#country", index="x")
    yield "locator.hover", dict(p, selector="button[type=submit]")
    yield "locator.focus", dict(p, selector="#name")
    yield "locator.scroll_into_view_if_needed", dict(p, selector="#bio")
    yield "locator.inner_text", dict(p, selector="h1")
    yield "locator.text_content", dict(p, selector="h1")
    yield "locator.inner_html", dict(p, selector="h1")
    yield "locator.input_value", dict(p, selector="#name")
    yield "locator.get_attribute", dict(p, selector="#name", name="placeholder")
    yield "locator.get_attribute", dict(p, selector="#name")
    for st in ["visible", "hidden", "enabled", "disabled", "editable", "checked"]:
        yield "locator.is_" + st, dict(p, selector="#terms")
    yield "locator.count", dict(p, selector="option")
    yield "locator.all_inner_texts", dict(p, selector="#country option")
    yield "locator.all_text_contents", dict(p, selector="#country option")
    yield "locator.wait_for", dict(p, selector="#never", state="attached")
    yield "locator.wait_for", dict(p, selector="#missing", state="visible", timeout=100)
    yield "locator.screenshot", dict(p, selector="h1", path=os.path.join(shots, "h1.png"))
    yield "locator.bounding_box", dict(p, selector="h1")
    yield "locator.bounding_box", dict(p, selector="#missing", timeout=50)
    yield "locator.aria_snapshot", dict(p, selector="form")
    yield "locator.evaluate", dict(p, selector="h1", expression="(el, a) => el.tagName + a", arg="!")
    yield "page.goto", dict(p, url=buttons)
    yield "locator.click", dict(p, selector="text=Add to cart")
    yield "locator.click", dict(p, selector="role=listitem >> nth=1 >> role=button", button="left", click_count=1)
    yield "locator.dblclick", dict(p, selector="role=listitem >> nth=2 >> role=button")
    yield "locator.click", dict(p, selector="#missing", timeout=100)
    yield "locator.click", dict(p, selector="role=nonsense")
    yield "locator.inner_text", dict(p, selector="#cart")
    yield "page.fly", p
    yield "browser.new_page", {"browser": "b9"}
    yield "page.close", {"page": "p2"}
    yield "page.close", p
    yield "page.title", p
    yield "browser.close", {"browser": "b9"}
    yield "browser.close", {}


def drive(binary, base, shots):
    log = open(os.path.join(shots, os.path.basename(os.path.dirname(binary) or binary) + ".stderr"), "w")
    proc = subprocess.Popen([binary, "driver"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    answers = []
    n = 0

    def send(line):
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        answers.append(proc.stdout.readline())

    # Protocol-level mistakes first, before any browser exists.
    for line in ['not json', '[{"jsonrpc":"2.0","id":1,"method":"page.url"}]',
                 '{"id":1,"method":"page.url"}', '{"jsonrpc":"2.0","id":"s","method":"page.nope"}']:
        send(line)
    for method in METHODS:
        for params in BAD:
            n += 1
            send(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}))
    for method, params in session(base, shots):
        n += 1
        send(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}))
        if method == "browser.launch":
            # The same wrong params again, now against a live browser.
            for m in METHODS:
                for bad in BAD:
                    if m == "browser.close":
                        continue
                    n += 1
                    send(json.dumps({"jsonrpc": "2.0", "id": n, "method": m, "params": bad}))
            n += 1
            send(json.dumps({"jsonrpc": "2.0", "id": n, "method": "browser.new_page", "params": {}}))
    proc.stdin.close()
    proc.wait(timeout=30)
    return answers


def main():
    old, new = sys.argv[1], sys.argv[2]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=here)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.handle_error = lambda *args: None  # a browser that hangs up early is no news
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    with tempfile.TemporaryDirectory() as shots:
        def pngs():
            return {f: open(os.path.join(shots, f), "rb").read() for f in sorted(os.listdir(shots)) if f.endswith(".png")}
        a = drive(old, base, shots)
        old_pngs = pngs()
        b = drive(new, base, shots)
        new_pngs = pngs()
        for f in sorted(os.listdir(shots)):
            if f.endswith(".stderr") and os.path.getsize(os.path.join(shots, f)):
                print("%s:\n%s" % (f, open(os.path.join(shots, f)).read()[-2000:]))
    srv.shutdown()
    diffs = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    for i, x, y in diffs[:10]:
        at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
        print("answer %d differs at byte %d:\n  old ...%s\n  new ...%s" % (i, at, x[max(0, at - 200):at + 200], y[max(0, at - 200):at + 200]))
    same_shots = old_pngs.keys() == new_pngs.keys()
    print("%d answers each (%d and %d), %d differ; screenshots %s" % (
        min(len(a), len(b)), len(a), len(b), len(diffs), "same names" if same_shots else "differ"))
    return 0 if not diffs and len(a) == len(b) and same_shots else 1


if __name__ == "__main__":
    sys.exit(main())
