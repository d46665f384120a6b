from support import check, url
from wright_browser import launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("popup.html"))
    with page.expect_popup() as info:
        page.get_by_role("link", name="Open help").click()
    popup = info.value
    popup.wait_for_load_state()
    check(popup.title() == "Help", "popup title: %r" % popup.title())
    check(popup is not page, "a new page")
    check(popup in browser.pages, "the popup is among browser.pages")
    check(popup.opener() is page, "its opener is the page")
    check(popup.get_by_role("heading").inner_text() == "Help centre", "the popup can be driven")

    with page.expect_popup() as info:
        page.get_by_role("button", name="Help window").click()
    window = info.value
    window.wait_for_url("**from=button")
    check(len(browser.pages) == 3, "three pages: %r" % browser.pages)

    popup.close()
    check(popup not in browser.pages, "a closed popup leaves browser.pages")
    check(popup.is_closed(), "is_closed()")
    window.close()
    page.bring_to_front()
    check(browser.pages == [page], "only the first page is left: %r" % browser.pages)
print("OK")
