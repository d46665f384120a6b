"""Playwright's sync API: expect() details (class lists, JS values, regex case, labels, viewport ratio, the page's
ARIA snapshot in a failure) and locator behaviour (strictness, frame locators, drop, highlight, scroll="none",
text nodes, stability, error names)."""
import datetime
import re
import traceback

from support import check, expect_error
from playwright.sync_api import Error, expect, sync_playwright
from playwright._impl._assertions import _soft_scope

DROPZONE = """<div id=zone style="width:200px;height:100px"></div><div id=wall style="width:200px;height:50px"></div>
<script>
  window.dropped = null;
  zone.addEventListener('dragover', e => e.preventDefault());
  zone.addEventListener('drop', async e => {
    e.preventDefault();
    const files = [];
    for (const f of e.dataTransfer.files) files.push([f.name, f.type, await f.text()]);
    window.dropped = {files, text: e.dataTransfer.getData('text/plain')};
  });
  wall.addEventListener('dragleave', () => { window.left = true; });
</script>"""

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()

    # to_contain_class with a list: one class string per element, in order, same count
    page.set_content('<div class="a x"></div><div class="b"></div>')
    divs = page.locator("div")
    expect(divs).to_contain_class(["x", "b"])
    expect(divs).not_to_contain_class(["x"])
    expect(divs).not_to_contain_class(["x", "c"])
    expect_error(Error, lambda: expect(divs).to_contain_class("x", timeout=300), "strict mode violation")

    # JS property values compare as the page sees them: a naive datetime is UTC there
    page.set_content("<p>x</p>")
    page.locator("p").evaluate("e => e.when = {at: new Date(Date.UTC(2021, 6, 28, 20, 26, 32)), n: 1}")
    expect(page.locator("p")).to_have_js_property("when", {"at": datetime.datetime(2021, 7, 28, 20, 26, 32), "n": 1})

    # ignore_case: None keeps a pattern's flags, True/False override them
    page.set_content("<p>apple BANANA</p>")
    para = page.locator("p")
    expect(para).to_have_text(re.compile("apple banana", re.I))
    expect(para).to_contain_text(re.compile("apple banana"), ignore_case=True)
    expect_error(AssertionError, lambda: expect(para).to_have_text(re.compile("apple banana", re.I), ignore_case=False,
                                                                   timeout=300), "to have text")

    # a <label> stands for its control: select_option and to_have_values go through it
    page.set_content("<label for=c>Colour</label><select id=c multiple><option value=R>Red</option>"
                     "<option value=G>Green</option><option value=B>Blue</option></select>")
    label = page.get_by_text("Colour")
    label.select_option(["R", "B"])
    expect(label).to_have_values(["R", "B"])

    # checked= and indeterminate=True together: a failed assertion at once
    page.set_content("<input type=checkbox>")
    expect_error(AssertionError, lambda: expect(page.locator("input")).to_be_checked(checked=True, indeterminate=True),
                 "Can't assert indeterminate and checked at the same time")

    # a failed locator assertion shows the page's ARIA snapshot in a section of its own
    page.set_content("<div id=gone style='display:none'>x</div><main><h1>Title here</h1></main>")
    err = expect_error(AssertionError, lambda: expect(page.locator("#gone")).to_be_visible(timeout=300),
                       "Actual value: hidden", "Aria snapshot:")
    text = str(err)
    check(text.index('heading "Title here"') > text.index("Aria snapshot:"), text)

    # expect.soft inside the scope Playwright's plugins open (imported from Playwright's module path)
    with _soft_scope() as errors:
        expect.soft(page.locator("h1")).to_have_text("other", timeout=300)
        expect.soft(page.locator("h1")).to_have_text("Title here")
    check(len(errors) == 1, errors)

    # to_be_in_viewport(ratio=): the share of the element inside the viewport
    page.set_content("<style>body, html, div { margin: 0; padding: 0 }</style><div style='height: 400vh'></div>")
    tall = page.locator("div")
    expect(tall).to_be_in_viewport(ratio=0.25)
    expect(tall).not_to_be_in_viewport(ratio=0.3)
    expect_error(AssertionError, lambda: expect(tall).not_to_be_in_viewport(timeout=300),
                 'unexpected value "viewport ratio 0.25"')

    # is_visible is strict, as actions are
    page.set_content("<p>a</p><p>b</p>")
    expect_error(Error, lambda: page.locator("p").is_visible(), "strict mode violation")
    check(page.locator("p").first.is_visible(), "first <p> should be visible")

    # a frame locator enters one frame: several frames are a strict-mode violation, named as written
    page.set_content("<iframe srcdoc='<button>one</button>'></iframe><iframe srcdoc='<button>two</button>'></iframe>")
    expect(page.frame_locator("iframe").first.locator("button")).to_have_text("one")
    expect_error(Error, lambda: page.locator("body").frame_locator("iframe").locator("button").wait_for(timeout=5000),
                 'strict mode violation: locator("body").locator("iframe") resolved to 2 elements')
    expect(page.frame_locator("iframe").nth(1).get_by_role("button")).to_have_text("two")
    # has= takes a locator of the same frame only
    child = page.frames[1]
    expect_error(Error, lambda: page.locator("iframe", has=child.locator("button")),
                 'Inner "has" locator must belong to the same frame.')

    # errors name the API method and the locator as the script wrote them
    err = expect_error(Error, lambda: page.get_by_role("button", name="Nowhere").click(timeout=300),
                       "Locator.click: Timeout 300ms exceeded.", 'waiting for get_by_role("button", name="Nowhere")')
    check("During handling" not in "".join(traceback.format_exception(type(err), err, None)), "chained error")

    # drop: files and data as from another application; a target that refuses the drop is an error
    page.set_content(DROPZONE)
    page.locator("#zone").drop({"files": [{"name": "a.txt", "mimeType": "text/plain", "buffer": b"hello"}],
                                "data": {"text/plain": "hi"}})
    check(page.evaluate("window.dropped") == {"files": [["a.txt", "text/plain", "hello"]], "text": "hi"},
          page.evaluate("window.dropped"))
    expect_error(Error, lambda: page.locator("#wall").drop({"data": {"text/plain": "x"}}), "did not accept the drop")
    check(page.evaluate("window.left") is True, "refused drop: no dragleave")

    # highlight draws an overlay that takes no pointer events; hide_highlight removes it
    page.set_content("<button onclick='window.hits = (window.hits || 0) + 1'>b</button>")
    page.locator("button").highlight()
    check(page.locator("x-pw-glass").is_visible(), "no highlight overlay")
    page.locator("button").click()
    check(page.evaluate("window.hits") == 1, "the overlay took the click")
    page.hide_highlight()
    check(page.locator("x-pw-glass").count() == 0, "highlight not removed")

    # click(scroll="none"): never scrolls; an element out of view times out saying so
    page.set_content("<div style='height: 3000px'></div><button onclick='window.far = true'>far</button>")
    expect_error(Error, lambda: page.locator("button").click(scroll="none", timeout=1500),
                 "element is outside of the viewport")
    check(page.evaluate("window.far") is None and page.evaluate("scrollY") == 0, "scrolled or clicked")
    page.set_content("<button onclick='window.near = true'>near</button><div style='height: 3000px'></div>")
    page.locator("button").click(scroll="none")
    check(page.evaluate("window.near") is True and page.evaluate("scrollY") == 0, "in-view click failed")

    # an element handle on a text node acts on its parent element
    page.set_content("<button onclick='window.clicked = this.textContent'>press</button>")
    text_node = page.evaluate_handle("document.querySelector('button').firstChild").as_element()
    text_node.click()
    check(page.evaluate("window.clicked") == "press", "text node click")

    # forced clicks on what has no box; scroll into view of what is hidden; an element that keeps moving
    page.set_content("a<br>b<div style='display:none'>hidden</div>"
                     "<style>@keyframes slide { from { margin-left: 0 } to { margin-left: 300px } }</style>"
                     "<button style='animation: slide 1s linear infinite alternate'>moving</button>")
    expect_error(Error, lambda: page.query_selector("br").click(force=True), "Element is outside of the viewport")
    expect_error(Error, lambda: page.query_selector("div").click(force=True), "Element is not visible")
    expect_error(Error, lambda: page.query_selector("div").scroll_into_view_if_needed(timeout=1000),
                 "element is not visible", "retrying scroll into view action")
    expect_error(Error, lambda: page.locator("button").click(timeout=2000), "element is not stable",
                 "waiting for element to be visible, enabled and stable", "retrying click action")
    # laid out but hidden, or of no height: there is a box to scroll to
    page.set_content("<div style='height: 3000px'></div><p style='visibility: hidden'>hidden</p><p style='height: 0'>flat</p>")
    page.query_selector("p >> nth=0").scroll_into_view_if_needed(timeout=2000)
    check(page.evaluate("window.scrollY") > 0, "scrolled to a hidden element")
    page.query_selector("p >> nth=1").scroll_into_view_if_needed(timeout=2000)

    # bounding_box covers all of an inline element's boxes, as getBoundingClientRect
    page.set_content("<p style='width: 60px'><span>several words that wrap over lines</span></p>")
    span = page.locator("span")
    rect = span.evaluate("e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }")
    box = span.bounding_box()
    check([round(v) for v in (box["x"], box["y"], box["width"], box["height"])] == [round(v) for v in rect],
          (box, rect))
    browser.close()
print("OK")
