from support import check, expect_error, url
from wright_browser import NavigationError, TimeoutError, launch

with launch(timeout=3000) as browser:
    page = browser.new_page()
    expect_error(TimeoutError, lambda: page.goto(url("slow"), timeout=1000))
    page.goto(url("counter.html"))
    expect_error(TimeoutError, lambda: page.wait_for_selector("#never", timeout=500))
    expect_error(TimeoutError, lambda: page.get_by_text("nothing like this").click(timeout=500))
    # The launch timeout is every call's default.
    expect_error(TimeoutError, lambda: page.locator("#never").wait_for())
    page.set_default_timeout(400)
    expect_error(TimeoutError, lambda: page.locator("#never").click())
    expect_error(NavigationError, lambda: page.goto("http://127.0.0.1:9/"))
    check(isinstance(page.title(), str), "the page still answers after the errors")
print("OK")
