from support import check, url
from wright_browser import launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("shadow.html"))
    page.get_by_label("Search term").fill("wright")
    check(page.get_by_placeholder("Type to search").input_value() == "wright", "placeholder finds the input")
    page.get_by_role("button", name="Search").click()
    check(page.get_by_test_id("shadow-result").inner_text() == "searched for wright", "shadow result")
    check(page.locator("#out").inner_text() == "searched for wright", "css pierces the open shadow root")
    check(page.locator("search-box").locator("#q").input_value() == "wright", "chained into the host")
    check(page.get_by_text("searched for", exact=False).count() == 1, "text= sees shadow text")
print("OK")
