"""WRIGHT_TRACE=path (what gate.trace sets for a final run): an untouched script's contexts are traced, and the
trace is written when the browser closes (run by TestTraceFromEnvironment)."""
import json
import os
import zipfile

from support import check, url
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("trace.html"))
    page.fill("#name", "env")
    page.fill("#secret", "hunter2")
    page.click("#go")
    page.wait_for_selector("text=sent for env")
    browser.close()

path = os.environ["WRIGHT_TRACE"]
with zipfile.ZipFile(path) as zf:
    names = zf.namelist()
    trace = zf.read("trace.trace").decode()
events = [json.loads(line) for line in trace.splitlines() if line]
methods = [e["method"] for e in events if e["type"] == "before"]
check(methods[:3] == ["newPage", "goto", "fill"], methods)
check(any(n.startswith("resources/src@") for n in names), names)  # the script itself, for the Source tab
snapshots = [json.dumps(e["snapshot"]["html"]) for e in events if e["type"] == "frame-snapshot"]
check(snapshots, "no DOM snapshots")
# what the viewer must never run or show: the page's scripts, its handlers, a password's value
for html in snapshots:
    check("addEventListener" not in html and "onmouseover" not in html.lower(), html)
    check("hunter2" not in html, "a password value is in a snapshot")
print("OK")
