import re

from support import check, expect_error, url
from wright_browser import EvaluationError, InvalidSelector, StrictModeViolation, launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("getby.html"))
    said = page.locator("#said")

    check(page.get_by_role("heading", level=2).inner_text() == "Profile settings", "heading level")
    check(page.get_by_role("heading", name="Account", exact=True).count() == 1, "exact heading name")
    page.get_by_role("link", name="about").click()  # not exact: case-insensitive substring
    check(page.url.endswith("#about"), page.url)
    check(page.locator("nav").get_by_role("link").count() == 2, "links inside nav")

    email = page.get_by_label("Email address")
    email.fill("ada@example.org")
    check(email.input_value() == "ada@example.org", "label finds the input")
    check(email.get_attribute("type") == "email", "get_attribute")
    check(email.is_editable() and email.is_enabled(), "editable and enabled")
    email.focus()
    page.keyboard.press("End")
    page.keyboard.type("!")
    check(email.input_value() == "ada@example.org!", "keyboard types into the focused input")
    page.get_by_placeholder("Search the docs").fill("locators")
    check(page.locator("#docs").input_value() == "locators", "placeholder")
    check(page.get_by_alt_text("Company logo").count() == 1, "alt text")
    check(page.get_by_title("Unread messages").inner_text() == "3", "title attribute")

    page.get_by_test_id("save-btn").click()
    check(said.inner_text() == "saved", said.inner_text())
    expect_error(StrictModeViolation, lambda: page.get_by_role("button", name="Save").click(timeout=2000))
    page.get_by_role("button", name="Save", exact=True).click()
    check(said.inner_text() == "saved", "exact name picks Save, not Save draft")
    page.get_by_text('Say "hi" >> now', exact=True).click()
    check(said.inner_text() == "quoted", "quotes and >> survive the trip to the driver")
    page.get_by_text(re.compile(r"save DRAFT", re.I)).click()
    check(said.inner_text() == "saved draft", "regex text")
    check(page.locator("button").filter(has_text="draft").inner_text() == "Save draft", "filter")
    about = page.get_by_role("link", name="About us")
    check(page.locator("nav, p").filter(has=about).count() == 1, "filter(has=) keeps the nav")
    check(page.locator("nav, p").filter(has_not=about).count() == 2, "filter(has_not=) keeps the paragraphs")
    check(page.locator("nav a").filter(has_not_text="about").inner_text() == "Home", "filter(has_not_text=)")

    check(page.get_by_role("checkbox", checked=True).get_attribute("id") == "terms", "checked=True")
    check(page.get_by_role("checkbox", name="Show ads", checked=False).count() == 1, "checked=False")
    check(page.get_by_role("button", pressed=True).inner_text() == "Bold", "pressed")

    check(page.get_by_text("Secret text").count() == 1, "hidden text matches text=, as in Playwright")
    check(page.locator("#hidden-p").is_hidden() and not page.locator("#hidden-p").is_visible(), "hidden")
    check(page.locator("#hidden-p").text_content() == "Secret text", "text_content reads hidden text")
    check("Save draft" in page.locator("body").inner_html(), "inner_html")

    box = page.get_by_role("button", name="Save draft").bounding_box()
    check(box and box["width"] > 0 and box["height"] > 0, "bounding box: %r" % box)
    page.locator("#said").evaluate("el => { el.textContent = '' }")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    check(said.inner_text() == "saved draft", "mouse click at the box centre")
    page.get_by_role("button", name="Save", exact=True).hover()

    check(page.evaluate("() => document.title") == "Finders", "evaluate a function")
    check(page.evaluate("1 + 2") == 3, "evaluate an expression")
    check(page.evaluate("(a) => a.x + a.y.length", {"x": 2, "y": [1, 2]}) == 4, "evaluate with an arg")
    check(page.evaluate("async () => { await new Promise(r => setTimeout(r, 50)); return 'late' }") == "late",
          "promises are awaited")
    check(email.evaluate("(el, suffix) => el.id + suffix", "!") == "email!", "locator.evaluate")
    expect_error(EvaluationError, lambda: page.evaluate("() => { throw new Error('kaboom') }"), "kaboom")
    expect_error(InvalidSelector, lambda: page.locator("css=[[[").count())
print("OK")
