"""Playwright's sync API: the accessible error message assertion and soft assertions."""
import re

from support import check, expect_error
from playwright.sync_api import expect, sync_playwright
from playwright._impl._assertions import _soft_scope

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.set_content("<input aria-label=email aria-invalid=true aria-errormessage='e1 e2'>"
                     "<p id=e1>Required.</p><p id=e2>Use an address.</p>"
                     "<input aria-label=name aria-errormessage=e1><p id=other>Not this.</p>")
    email, name = page.get_by_label("email"), page.get_by_label("name")
    # the referenced elements' text, joined, while the field says it is invalid
    expect(email).to_have_accessible_error_message("Required. Use an address.")
    expect(email).to_have_accessible_error_message(re.compile("use an", re.I))
    expect(email).not_to_have_accessible_error_message("Not this.")
    expect(email).to_have_accessible_error_message("required. use an address.", ignore_case=True)
    # no aria-invalid: no error message is exposed
    expect(name).to_have_accessible_error_message("")
    expect_error(AssertionError, lambda: expect(name).to_have_accessible_error_message("Required.", timeout=300),
                 "to have accessible error message")
    page.evaluate("document.querySelector('[aria-label=name]').setAttribute('aria-invalid', 'true')")
    expect(name).to_have_accessible_error_message("Required.")

    # soft assertions: an error outside a scope; inside, failures are collected, not raised
    expect_error(RuntimeError, lambda: expect.soft(email), "soft-assertion scope")
    with _soft_scope() as errors:
        expect.soft(page.get_by_label("email")).to_have_accessible_error_message("nope", timeout=300)
        expect.soft(email).to_have_accessible_error_message("Required. Use an address.")
        expect.soft(email).not_to_have_accessible_error_message("Required. Use an address.", timeout=300)
    check(len(errors) == 2 and all(isinstance(e, AssertionError) for e in errors), errors)
    browser.close()
print("OK")
