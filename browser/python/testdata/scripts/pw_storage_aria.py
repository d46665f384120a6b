"""Playwright's sync API: Web Storage helpers, locator ARIA snapshots in Playwright's format and
to_match_aria_snapshot's matching rules."""
from support import check, expect_error, url
from playwright.sync_api import Error, expect, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("form.html"))

    # Web Storage: the same object each time, reading and writing the page's storage
    check(page.local_storage is page.local_storage, "one local_storage object per page")
    page.local_storage.set_item("a", "1")
    page.local_storage.set_item("b", 2)
    check(page.local_storage.get_item("a") == "1", "get_item")
    check(page.local_storage.get_item("missing") is None, "a missing item is None")
    check(page.evaluate("localStorage.getItem('b')") == "2", "set_item writes the page's localStorage")
    check(sorted(i["name"] for i in page.local_storage.items()) == ["a", "b"], page.local_storage.items())
    page.local_storage.remove_item("a")
    check(page.evaluate("localStorage.length") == 1, "remove_item")
    page.local_storage.clear()
    check(page.local_storage.items() == [], "clear")
    page.session_storage.set_item("s", "v")
    check(page.session_storage.items() == [{"name": "s", "value": "v"}], page.session_storage.items())
    check(page.evaluate("localStorage.length") == 0, "session storage is apart from local storage")

    # ARIA snapshots: the locator's is Playwright's format (no refs), the page's keeps wright's refs
    page.set_content("<h1>Shop</h1><ul aria-label='items'><li>one</li><li>two</li><li>three</li></ul>"
                     "<ul><li><ul><li>1.1</li><li>1.2</li></ul></li></ul>"
                     "<a href='/auth?r=/'>Log in</a><input type=checkbox checked aria-label=agree>")
    snap = page.locator("body").aria_snapshot()
    check("[ref=" not in snap and '- heading "Shop" [level=1]' in snap, snap)
    check('- list "items":\n  - listitem: one' in snap, snap)
    check("[ref=" in page.aria_snapshot(), "page.aria_snapshot keeps refs")
    check("[ref=" in page.locator("body").aria_snapshot(mode="ai"), "mode='ai' adds refs")
    shallow = page.locator("body").aria_snapshot(depth=1)
    check("listitem" in shallow and "1.1" not in shallow, shallow)

    # matching: a subsequence by default, /children: equal and deep-equal, patterns, attributes
    expect(page.locator("body")).to_match_aria_snapshot("""
      - heading "Shop"
      - list "items":
        - listitem: one
        - listitem: three
    """)
    expect(page).to_match_aria_snapshot('- heading /Sh.p/ [level=1]')
    expect(page.locator("body")).to_match_aria_snapshot('- link "Log in":\n  - /url: /auth?r=/')
    expect(page.locator("body")).to_match_aria_snapshot('- checkbox "agree" [checked]')
    expect(page.locator("body")).not_to_match_aria_snapshot('- checkbox "agree" [checked=false]', timeout=300)
    expect(page.locator("body")).to_match_aria_snapshot("""
      - list:
        - /children: equal
        - listitem:
          - list:
            - listitem: "1.1"
    """)
    err = expect_error(AssertionError, lambda: expect(page.locator("body")).to_match_aria_snapshot("""
      - list "items":
        - /children: equal
        - listitem: one
        - listitem: three
    """, timeout=300), "to match Aria snapshot", "Received:")
    expect_error(AssertionError, lambda: expect(page.locator("body")).to_match_aria_snapshot("""
      - list:
        - /children: deep-equal
        - listitem:
          - list:
            - listitem: "1.1"
    """, timeout=300))
    expect(page.locator("body")).to_match_aria_snapshot("""
      - list:
        - /children: deep-equal
        - listitem:
          - list:
            - /children: contain
            - listitem: "1.2"
    """)
    expect(page).not_to_match_aria_snapshot('- heading "wrong"', timeout=300)
    expect_error(Error, lambda: expect(page).to_match_aria_snapshot("heading without a dash"), "list item")
    browser.close()
print("OK")
