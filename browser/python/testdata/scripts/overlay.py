from support import check, expect_error, url
from wright_browser import TimeoutError, launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("overlay.html"))
    pay = page.get_by_role("button", name="Pay now")
    check(pay.is_visible(), "the covered button is visible")
    expect_error(TimeoutError, lambda: pay.click(timeout=1500), "cookie-banner")
    check(page.locator("#paid").inner_text() == "", "nothing was paid while covered")
    page.get_by_role("button", name="Accept all").click()
    pay.click()
    check(page.locator("#paid").inner_text() == "paid", "paid once uncovered")
print("OK")
