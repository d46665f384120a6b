page.get_by_label("Search books").fill("Go Programming")
page.get_by_role("button", name="Search").click()
page.locator("#results li").first.wait_for()
print(page.locator("#results li").first.inner_text())
