page.locator("#nope").click(timeout=500)
