from support import check, url
from wright_browser import launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("dialog.html"))
    page.get_by_role("button", name="Save").click()
    page.get_by_role("button", name="Delete").click()
    page.get_by_role("button", name="Ask").click()
    answer = page.locator("#answer")
    check(answer.inner_text() == "name: Ada", "a prompt gets its default value: %r" % answer.inner_text())
    dialogs = page.dialogs()
    kinds = [(d["type"], d["message"]) for d in dialogs]
    check(kinds == [("alert", "Saved!"), ("confirm", "Really delete?"), ("prompt", "Your name?")], kinds)
    check(dialogs[2].get("default_value") == "Ada", dialogs[2])
    check(len(page.dialogs(clear=True)) == 3, "clear returns what it clears")
    check(page.dialogs() == [], "cleared")
    page.get_by_role("button", name="Delete").click()
    check(answer.inner_text() == "confirmed: true", "a confirm is accepted: %r" % answer.inner_text())
print("OK")
