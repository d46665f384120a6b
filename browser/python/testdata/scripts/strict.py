from support import check, expect_error, url
from wright_browser import StrictModeViolation, launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("strict.html"))
    delete = page.get_by_role("button", name="Delete")
    err = expect_error(StrictModeViolation, lambda: delete.click(timeout=3000), "del-1", "del-2")
    check(err.type == "StrictModeViolation", err.type)
    check(page.locator("#status").inner_text() == "nothing deleted", "a strict failure clicks nothing")

    check(delete.count() == 2, "two look-alike buttons")
    check(len(delete.all()) == 2, "all() gives one locator per match")
    check(delete.all_inner_texts() == ["Delete", "Delete"], delete.all_inner_texts())

    delete.nth(1).click()
    check(page.locator("#status").inner_text() == "deleted 2", "nth(1) is the second row")
    delete.first.click()
    check(page.locator("#status").inner_text() == "deleted 1", "first is the first row")
    delete.last.click()
    check(page.locator("#status").inner_text() == "deleted 2", "last is the second row")
    page.locator("tr").filter(has_text="Invoice 1").get_by_role("button").click()
    check(page.locator("#status").inner_text() == "deleted 1", "filter(has_text=) narrows to a row")
    page.click("button.danger")  # Playwright's page shortcut acts on the first match
    check(page.locator("#status").inner_text() == "deleted 1", "page.click takes the first match")
print("OK")
