"""A Playwright trace recorded by wright, opened in Playwright's own trace viewer (run by TestTraceViewer).

TRACE_PATH is where the trace goes; VIEWER_URL serves playwright-core's lib/vite/traceViewer and, at
/trace.zip, the file at TRACE_PATH. The viewer is driven through wright's own client, with no routing on its
page, so that its service worker's fetches are its own.
"""
import os
import re

from support import url
from playwright.sync_api import expect, sync_playwright

TRACE = os.environ["TRACE_PATH"]
VIEWER = os.environ["VIEWER_URL"].rstrip("/")

with sync_playwright() as p:
    browser = p.chromium.launch()

    # 1. a small session, traced
    context = browser.new_context()
    context.tracing.start(snapshots=True, screenshots=True, sources=True)
    page = context.new_page()
    page.goto(url("trace.html"))
    page.fill("#name", "wright")
    page.click("#go")
    expect(page.locator("#result")).to_have_text("sent for wright")
    page.evaluate("() => console.log('evaluated too')")
    context.tracing.stop(path=TRACE)
    context.close()

    # 2. Playwright's viewer shows it
    viewer = browser.new_page()
    viewer.goto(VIEWER + "/index.html?trace=" + VIEWER + "/trace.zip")
    titles = viewer.locator(".action-title")
    expect(titles).to_have_text([re.compile(r"Create page"), re.compile(r'Navigate to "/trace\.html"'),
                                 re.compile(r'Fill "wright"'), re.compile(r"Click"), re.compile(r'Expect "to_have_text"'),
                                 re.compile(r"Evaluate")])

    # the Fill action's DOM before (empty field) and after (filled), rendered in the snapshot iframe
    viewer.locator(".action-title", has_text="Fill").click()
    snapshot = viewer.frame_locator("iframe.snapshot-visible[name=snapshot]")
    viewer.get_by_role("tab", name="Before").click()
    expect(snapshot.locator("h1")).to_have_text("Order")
    expect(snapshot.locator("#name")).to_have_value("")
    viewer.get_by_role("tab", name="After").click()
    expect(snapshot.locator("#name")).to_have_value("wright")
    expect(snapshot.locator("body")).to_have_css("background-color", "rgb(255, 240, 200)")
    expect(viewer.locator(".browser-frame-address-bar")).to_have_text(url("trace.html"))

    # the console messages, and the network requests (the page, and the fetch its click made)
    viewer.get_by_role("tab", name="Console").click()
    expect(viewer.locator(".console-line-message")).to_contain_text(["clicked wright", "evaluated too"])
    viewer.get_by_role("tab", name="Network").click()
    expect(viewer.get_by_role("tabpanel", name="Network")).to_contain_text("trace.html")
    expect(viewer.get_by_role("tabpanel", name="Network")).to_contain_text("echo?who=wright")
    browser.close()
print("OK")
