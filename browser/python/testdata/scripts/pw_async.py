"""Playwright's async API: overlapping calls, async route handlers and listeners, expect_* as async with,
a cancelled task, timeouts, expect(); and that a sync script never loads asyncio."""
import asyncio
import os
import struct
import subprocess
import sys
import time

import wright_browser  # noqa: F401 - the self-contained client file registers the package it carries
from support import check, url
from playwright.async_api import Page, TimeoutError, async_playwright, expect


async def slow_fulfill(route):
    await asyncio.sleep(1.0)  # a slow route: the handler holds the request for a second
    await route.fulfill(body="<title>Slow</title><h1>%s</h1>" % route.request.url.rsplit("/", 1)[1],
                        content_type="text/html")


async def main():
    async with async_playwright() as p:
        browser = await p.chromium.launch()
        context = await browser.new_context()
        first, second = await context.new_page(), await context.new_page()
        check(isinstance(first, Page), "pages are playwright.async_api Pages")
        check(context.pages == [first, second], "one object per page: %r" % context.pages)

        # two pages each waiting one second on a slow route, gathered: about one second, not two
        await context.route("**/slow-*", slow_fulfill)
        started = time.monotonic()
        await asyncio.gather(first.goto(url("slow-a")), second.goto(url("slow-b")))
        took = time.monotonic() - started
        print("gathered slow routes: %.2f s" % took)
        check(took < 1.8, "the two slow routes overlapped: %.2f s" % took)
        check(await first.text_content("h1") == "slow-a" and await second.text_content("h1") == "slow-b",
              "each page got its own fulfilled body")
        await context.unroute("**/slow-*", slow_fulfill)

        # a coroutine event listener runs on the loop; a plain one too
        seen = []

        async def on_console(message):
            await asyncio.sleep(0)
            seen.append(message.text)
        first.on("console", on_console)
        first.on("console", lambda message: seen.append("plain:" + message.text))
        await first.goto(url("counter.html"))
        for _ in range(50):
            if "counter ready" in seen:
                break
            await asyncio.sleep(0.05)
        check("counter ready" in seen and "plain:counter ready" in seen, "both listeners ran: %r" % seen)
        first.remove_listener("console", on_console)

        # actions, locators and assertions are awaited
        await first.get_by_role("button", name="Increment").click()
        await expect(first.locator("#count")).to_have_text("1")
        await expect(first.get_by_role("heading")).to_have_text("Counter")

        # async with expect_navigation wraps the click that causes it
        async with first.expect_navigation(url="**/help.html") as navigation:
            await first.get_by_role("link", name="Help").click()
        response = await navigation.value
        check(response.url.endswith("/help.html") and response.ok, "the navigation's response: %r" % response)
        check(first.url.endswith("/help.html"), first.url)

        # expect_popup, and wait_for_event awaited while another action runs
        await second.goto(url("popup.html"))
        async with second.expect_popup() as popup_info:
            await second.get_by_text("Open help").click()
        popup = await popup_info.value
        await popup.wait_for_load_state()
        check(popup.url.endswith("/help.html"), popup.url)
        waiting = asyncio.ensure_future(second.wait_for_event("console"))
        await second.evaluate("setTimeout(() => console.log('later'), 200)")
        check((await waiting).text == "later", "wait_for_event awaited beside another call")

        # a cancelled task cancels its call in the driver too (the click never happens later); the connection
        # stays usable
        await first.set_content('<button disabled onclick="window.clicked = true">late</button>')
        doomed = asyncio.ensure_future(first.locator("button").click(timeout=0))
        await asyncio.sleep(0.3)
        check(not doomed.done(), "the click waits for the disabled button")
        doomed.cancel()
        try:
            await doomed
            check(False, "the cancelled click should not finish")
        except asyncio.CancelledError:
            pass
        await first.locator("button").evaluate("b => b.disabled = false")
        await first.wait_for_timeout(700)
        check(await first.evaluate("window.clicked") is None, "the cancelled click did not happen later")
        check(await first.evaluate("6 * 7") == 42, "the connection answers after a cancelled call")

        # timeouts raise Playwright's TimeoutError, as in the sync API
        started = time.monotonic()
        try:
            await first.locator("#not-there").click(timeout=300)
            check(False, "a click on nothing should time out")
        except TimeoutError as err:
            check("300" in str(err), str(err))
        check(time.monotonic() - started < 5, "the timeout was the call's own")

        # screenshot options: a clip is its size in pixels, the type follows the path, a mask paints over
        shot = await first.screenshot(clip={"x": 10, "y": 20, "width": 120, "height": 40})
        check(shot[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", shot[16:24]) == (120, 40),
              "a clipped PNG of 120x40: %r" % (struct.unpack(">II", shot[16:24]),))
        webp = await first.screenshot(path="shot.webp")
        check(webp[:4] == b"RIFF" and webp[8:12] == b"WEBP", "the .webp path gave a WebP")
        masked = await first.locator("button").screenshot(mask=[first.locator("button")], type="png")
        check(masked[:4] == b"\x89PNG", "a masked element screenshot")
        check(await first.evaluate("document.querySelectorAll('[data-wright-shot]').length") == 0,
              "the mask is gone after the screenshot")

        await browser.close()

        # an API request context's tracing is awaited too (a HAR of its calls)
        request = await p.request.new_context()
        await request.tracing.start_har(path="calls.har")
        await request.get(url("help.html"))
        await request.tracing.stop_har()
        await request.dispose()
        check(os.path.exists("calls.har") and "help.html" in open("calls.har").read(), "the request context's HAR")


asyncio.run(main())

# A sync script's process does not import asyncio (its memory stays as it was).
probe = subprocess.run([sys.executable, "-c", "import sys, wright_browser, playwright.sync_api; "
                        "print('asyncio' in sys.modules)"], capture_output=True, text=True, check=True)
check(probe.stdout.strip() == "False", "the sync API loads asyncio: %r %r" % (probe.stdout, probe.stderr))
print("OK")
