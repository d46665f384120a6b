# script.py: every python_code step of this live browser run, in the order it ran.
# wright bound `page`, `browser`, `task` and `run_command`; steps/ holds each step on its own.

# ---- step 1 · 2026-12-01 04:29:14 · on http://127.0.0.1:35447/ ----
page.get_by_label("Search books").fill("Go Programming")
page.get_by_role("button", name="Search").click()
page.locator("#results li").first.wait_for()
print(page.locator("#results li").first.inner_text())
# -> ok

# ---- step 2 · 2026-12-01 04:29:19 · on http://127.0.0.1:35447/search.html?q=Go+Programming ----
page.locator("#nope").click(timeout=500)
# -> failed:   last state: no element matches the selector yet

# ---- step 3 · 2026-12-01 04:29:21 · on http://127.0.0.1:35447/search.html?q=Go+Programming ----
page.get_by_role("link", name="The Go Programming Language").click()
print(page.title())
# -> ok
