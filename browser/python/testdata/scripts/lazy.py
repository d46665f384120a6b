from support import check, url
from wright_browser import launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("lazy.html"))
    # Item 5 does not exist yet: the click waits for it.
    page.get_by_role("link", name="Item 5").click()
    check(page.locator("#picked").inner_text() == "picked Item 5", page.locator("#picked").inner_text())
    # The button is disabled until the list is complete: the click waits for enabled.
    page.get_by_role("button", name="Load more").click()
    check(page.locator("#picked").inner_text() == "loaded more", "the enabled button was clicked")
    items = page.locator("#list li")
    check(items.count() == 5, "five items: %d" % items.count())
    check(items.all_text_contents() == ["Item %d" % i for i in range(1, 6)], items.all_text_contents())
    page.get_by_text("Item 3", exact=True).wait_for()
    page.goto(url("lazy.html"))
    page.wait_for_selector("#list li:nth-child(4)")
    page.locator("#list li").nth(2).wait_for(state="attached")
print("OK")
