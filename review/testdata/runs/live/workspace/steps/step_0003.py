page.get_by_role("link", name="The Go Programming Language").click()
print(page.title())
