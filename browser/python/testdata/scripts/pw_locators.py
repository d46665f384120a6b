"""Playwright's locator additions: or_/and_, description, regex test ids, repr, wait_for_function."""
import re

from support import check
from playwright.sync_api import expect, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.set_content('<div data-testid=foo>hello</div><div data-testid=bar>world</div>'
                     '<span data-testid=foo>hi</span><button aria-description="Opens the menu">Menu</button>')
    expect(page.locator("div").or_(page.locator("span"))).to_have_text(["hello", "world", "hi"])
    expect(page.locator("div").and_(page.get_by_test_id("bar"))).to_have_text("world")
    expect(page.locator("span").and_(page.get_by_test_id(re.compile("fo+")))).to_have_count(1)
    expect(page.get_by_role("button", description="Opens the menu")).to_have_count(1)
    # a nested locator's or_, and_ and nth apply inside each match of the outer one
    page.set_content("<div>one <span>two</span> <button>three</button></div><span>four</span><button>five</button>"
                     "<ul><li>a</li><li>b</li></ul><ul><li>c</li><li>d</li></ul>")
    expect(page.locator("div").locator(page.locator("button").or_(page.locator("span")))).to_have_text(["two", "three"])
    expect(page.locator("div").locator(page.locator("button").and_(page.get_by_role("button")))).to_have_text("three")
    expect(page.locator("ul").locator(page.locator("li").nth(1))).to_have_text(["b", "d"])
    expect(page.locator("ul").locator(page.locator("li"))).to_have_count(4)
    page.set_content('<div data-testid=foo>hello</div><div data-testid=bar>world</div>'
                     '<span data-testid=foo>hi</span><button aria-description="Opens the menu">Menu</button>')
    check(repr(page.locator("div")) == "<Locator frame=<Frame name= url='about:blank'> selector='div'>",
          repr(page.locator("div")))
    check(page.locator("div").first.is_visible(timeout=10), "is_visible takes the old timeout")

    page.evaluate("setTimeout(() => document.querySelector('span').textContent = 'ready', 100)")
    check(page.locator("span").wait_for_function("(e, want) => e.textContent === want", arg="ready"),
          "wait_for_function on the element")
    browser.close()
print("OK")
