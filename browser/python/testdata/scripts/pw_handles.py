"""Playwright's element handles: previews, owner frames, detached elements, page state shortcuts."""
from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.set_content('<div id="outer" name="value"><div id="inner">Text,\nmore text</div></div>'
                     '<input id="check" type=checkbox checked><button disabled>b</button><svg>t</svg>')
    check(str(page.query_selector("#outer")) == 'JSHandle@<div id="outer" name="value">\u2026</div>',
          str(page.query_selector("#outer")))
    check(str(page.query_selector("#inner")) == 'JSHandle@<div id="inner">Text,\u21b5more text</div>',
          str(page.query_selector("#inner")))
    check(str(page.query_selector("#check")) == 'JSHandle@<input checked id="check" type="checkbox"/>',
          str(page.query_selector("#check")))
    check(page.is_disabled("button") and not page.is_editable("button"), "page.is_disabled / is_editable")
    expect_error(Error, lambda: page.inner_text("svg"), "Node is not an HTMLElement")

    # the frame an element lives in
    page.goto(url("form.html"))
    page.evaluate("() => new Promise(r => { const f = document.createElement('iframe'); f.onload = r;"
                  " f.src = '/help.html'; document.body.appendChild(f); })")
    frame = page.frames[1]
    body = frame.evaluate_handle("document.body").as_element()
    check(body.owner_frame() == frame, "owner_frame of an element inside the iframe")
    check(page.query_selector("iframe").owner_frame() == page.main_frame, "the iframe element itself")
    # a node moved into a popup's document (through window.opener) is in the popup's main frame
    with page.expect_popup() as popup_info:
        page.evaluate("u => { window.__popup = window.open(u); }", url("help.html"))
    popup = popup_info.value
    popup.wait_for_load_state("domcontentloaded")
    moved = page.evaluate_handle("() => document.body.appendChild(document.createElement('div'))").as_element()
    check(moved.owner_frame() == page.main_frame, "a new node is in its page's frame")
    page.evaluate("() => window.__popup.document.body.appendChild(document.querySelector('body > div:last-child'))")
    check(moved.owner_frame() == popup.main_frame, "an adopted node is in the popup's frame")
    popup.close()

    # a removed element fails at once instead of waiting out the timeout
    page.set_content("<button>go</button>")
    button = page.query_selector("button")
    button.evaluate("b => b.remove()")
    expect_error(Error, lambda: button.click(timeout=20000), "Element is not attached to the DOM")
    expect_error(Error, lambda: button.wait_for_element_state("visible", timeout=20000),
                 "Element is not attached to the DOM")
    button.wait_for_element_state("hidden")
    browser.close()
print("OK")
