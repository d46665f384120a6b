"""A popup has its context's settings before its first script runs: viewport, touch, init scripts,
exposed functions, routes; a prompt() the opener calls on it is the popup's dialog."""
from support import check, url
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context(viewport={"width": 400, "height": 500}, has_touch=True)
    context.add_init_script("window.injected = 7")
    context.expose_function("add", lambda a, b: a + b)
    page = context.new_page()
    page.goto(url("form.html"))

    # read synchronously from the window window.open returns
    got = page.evaluate("""async () => {
        const w = window.open('about:blank');
        const seen = [w.innerWidth, w.innerHeight, 'ontouchstart' in w, w.injected];
        seen.push(await w.add(2, 3));
        w.close();
        return seen;
    }""")
    check(got == [400, 500, True, 7, 5], got)

    # the context's routes decide the popup's first request
    routed = []
    context.route("**/help.html", lambda route: (routed.append(route.request.url), route.continue_()))
    with page.expect_popup() as popup:
        page.evaluate("u => { window.open(u) }", url("help.html"))
    popup.value.wait_for_load_state()
    check(routed == [url("help.html")], routed)
    check(popup.value.evaluate("injected") == 7, "the init script ran in the routed popup")

    # a dialog opened on the new window at once belongs to the popup
    context.on("dialog", lambda d: d.accept("yes " + d.message))
    with page.expect_popup() as second:
        answer = page.evaluate("() => window.open('').prompt('hey?')")
    check(answer == "yes hey?", answer)
    check(second.value.context is context, "the popup is in the context")

    # a window.open that names a size gives its popup that viewport; one that names none, the context's
    with page.expect_popup() as sized:
        size = page.evaluate("""async () => {
            const w = window.open('', 'sized', 'toolbar=no,width=300,height=200');
            for (let i = 0; i < 300 && !(w.innerWidth === 300 && w.innerHeight === 200); i++)
              await new Promise(r => setTimeout(r, 10));
            return [w.innerWidth, w.innerHeight];
        }""")
    check(size == [300, 200], size)
    check(sized.value.evaluate("[innerWidth, innerHeight]") == [300, 200], "the sized popup")
    with page.expect_popup() as plain:
        page.evaluate("() => { window.open(''); }")
    check(plain.value.evaluate("[innerWidth, innerHeight]") == [400, 500], "the context's viewport")
    # a popup's URL, when it is announced, is the one window.open asked for, its document committed or not
    for _ in range(3):
        with page.expect_popup() as opened:
            page.evaluate("u => { window.open(u); }", url("help.html"))
        check(opened.value.url == url("help.html"), opened.value.url)
        opened.value.close()
    browser.close()
print("OK")
