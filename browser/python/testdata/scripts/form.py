import json

from support import check, url
from wright_browser import launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("form.html"))
    check(page.title() == "Signup form", "title: %r" % page.title())

    name = 'Ada "The Countess" Lovelace'
    page.get_by_label("Full name").fill(name)
    country = page.get_by_label("Country")
    check(country.select_option("Germany") == ["de"], "a positional label selects its option")
    check(country.select_option(value="fr") == ["fr"], "select by value")
    check(country.select_option(index=3) == ["jp"], "select by index")
    check(country.select_option(label="Germany") == ["de"], "select by label")
    try:
        country.select_option(["de", None])
        check(False, "a None among the options was taken")
    except Exception as e:  # wright_browser's Error
        check("options[1].value: expected string, got object" in str(e), str(e))
    check(country.input_value() == "de", "select value: %r" % country.input_value())

    newsletter = page.get_by_label("Send me the newsletter")
    check(not newsletter.is_checked(), "newsletter starts unchecked")
    newsletter.check()
    check(newsletter.is_checked(), "newsletter checked")
    newsletter.uncheck()
    newsletter.set_checked(True)
    check(newsletter.is_checked(), "set_checked(True)")

    check(page.get_by_role("radio", name="Basic").is_checked(), "Basic is the default plan")
    page.get_by_role("radio", name="Pro").check()
    check(not page.get_by_role("radio", name="Basic").is_checked(), "Pro replaced Basic")

    page.get_by_label("Start date").fill("2025-03-14")
    check(page.get_by_label("Start date").input_value() == "2025-03-14", "date input value")
    notes = page.get_by_label("Notes")
    notes.press_sequentially("two words")
    notes.press("End")
    check(notes.input_value() == "two words", "textarea: %r" % notes.input_value())

    page.get_by_role("button", name="Send").click()
    page.wait_for_url("**/echo?*")
    check(page.url.startswith(url("echo?")), "submitted to /echo: %s" % page.url)
    got = json.loads(page.locator("#result").inner_text())
    want = {"name": name, "country": "de", "newsletter": "yes", "plan": "pro", "start": "2025-03-14",
            "notes": "two words"}
    check(got == want, "submitted %r, want %r" % (got, want))

    page.go_back()
    check(page.url == url("form.html"), "back at the form: %s" % page.url)
    page.go_forward()
    check("/echo?" in page.url, "forward at the result: %s" % page.url)
print("OK")
