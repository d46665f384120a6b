"""Playwright's sync API: page.add_locator_handler (an overlay that appears when the mouse reaches
the target, handled before the action goes on), times=, no_wait_after=, remove_locator_handler,
and expect() giving the handlers their turn."""
from support import check, expect_error
from playwright.sync_api import Error, TimeoutError, expect, sync_playwright

PAGE = """<style>#overlay { position: fixed; inset: 0; background: #fcc; display: none; }
#overlay.on { display: block; }</style>
<button id=target>Buy</button><p id=side>side</p>
<div id=overlay><p>Subscribe to our newsletter</p><button id=close>No thanks</button></div>
<script>
const overlay = document.querySelector('#overlay');
document.querySelector('#target').addEventListener('click', () => window.clicked = (window.clicked || 0) + 1);
document.querySelector('#close').addEventListener('click', () => overlay.classList.remove('on'));
window.annoy = (times) => {
  const show = () => { overlay.classList.add('on'); if (--times === 0) target.removeEventListener('mouseover', show); };
  target.addEventListener('mouseover', show);
};
</script>"""

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.set_content(PAGE)
    overlay_text = page.get_by_text("Subscribe to our newsletter")

    # the overlay shows when the mouse reaches the button: the handler closes it, the click goes on
    seen = []
    page.add_locator_handler(overlay_text, lambda loc: (seen.append(loc), page.locator("#close").click()))
    page.locator("#side").hover()
    page.evaluate("annoy(2)")
    page.locator("#target").click()
    check(len(seen) == 2 and seen[0] is overlay_text, "the handler ran once per appearance: %r" % seen)
    check(page.evaluate("window.clicked") == 1, "the click reached the button")

    # force skips the handlers (and the checks): the overlay takes the click
    page.evaluate("window.clicked = 0; document.querySelector('#overlay').classList.add('on')")
    page.locator("#target").click(force=True, timeout=2000)
    check(page.evaluate("window.clicked") == 0 and page.locator("#overlay").is_visible(), "force: no handler")

    # expect() gives the handlers their turn too
    expect(page.locator("#close")).not_to_be_visible()
    check(len(seen) == 3, "expect ran the handler: %d" % len(seen))

    # remove_locator_handler with an equal locator: the overlay stays and the click times out
    page.remove_locator_handler(page.get_by_text("Subscribe to our newsletter"))
    page.evaluate("document.querySelector('#overlay').classList.add('on')")
    err = expect_error(TimeoutError, lambda: page.locator("#target").click(timeout=4000),
                       "Timeout 4000ms exceeded", "intercepts pointer events")
    check(len(seen) == 3, "a removed handler does not run")
    page.locator("#close").click()

    # times= and no_wait_after: a handler that does nothing runs twice, then the click gives up
    calls = []
    page.add_locator_handler(page.locator("#overlay"), lambda: calls.append(1), no_wait_after=True, times=2)
    page.evaluate("window.clicked = 0; document.querySelector('#overlay').classList.add('on')")
    # (timeouts leave a loaded machine room to run the handler first)
    expect_error(TimeoutError, lambda: page.locator("#target").click(timeout=4000), "Timeout 4000ms exceeded")
    check(len(calls) == 2, "times=2 ran the handler twice: %d" % len(calls))

    # without no_wait_after, the action waits for the locator to be hidden after the handler
    page.add_locator_handler(page.get_by_role("button", name="No thanks"), lambda: None)
    expect_error(TimeoutError, lambda: page.locator("#target").click(timeout=4000),
                 'waiting for get_by_role("button", name="No thanks") to be hidden')
    expect_error(Error, lambda: page.add_locator_handler(browser.new_page().locator("p"), lambda: None),
                 "must belong to the main frame of this page")
    browser.close()
print("OK")
