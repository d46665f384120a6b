"""connect() to a socket driver the test started: two connections see one browser."""

from support import check, url
from wright_browser import connect

browser = connect()
page = browser.pages[0] if browser.pages else browser.new_page()
page.goto(url("counter.html"))
page.get_by_role("button", name="Increment").click()

again = connect()
check([p.id for p in again.pages] == [p.id for p in browser.pages], "both connections list the same pages")
same = [p for p in again.pages if p.id == page.id][0]
check(same.locator("#count").inner_text() == "1", "the second connection sees the first one's click")
browser.close()  # only disconnects
check(same.title() == "Counter", "the browser outlives a closed connection")
again.close()
print("OK")
