"""Console values, page errors of thrown non-Errors, exposed functions in older frames, Frame.eval_on_selector,
storage_state over every origin the context showed, with IndexedDB."""
import os

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context()
    page = context.new_page()

    texts = []
    page.on("console", lambda m: texts.append(m.text))
    page.evaluate("() => { console.log(Promise.resolve(1)); console.log(window); console.log({a: 1, b: 'x'}, [1, 2]); }")
    check(texts == ["Promise", "Window", "{a: 1, b: x} [1, 2]"], "console texts: %r" % texts)

    for thrown, want in (("{}", ("Object", None)), ("window", ("Window", None)), ("null", ("null", None)),
                         ("undefined", ("undefined", None)), ("0", ("0", None)), ('""', ("", None)),
                         ("Object.assign(new Error('msg'), {name: 'my-name'})", ("msg", "my-name"))):
        with page.expect_event("pageerror") as info:
            page.evaluate("() => setTimeout(() => { throw %s; }, 0)" % thrown)
        check(info.value.message == want[0], "pageerror of %s: %r" % (thrown, info.value.message))
        check(want[1] is None or info.value.name == want[1], "pageerror name of %s: %r" % (thrown, info.value.name))

    page.set_content("<iframe srcdoc='<textarea></textarea>'></iframe>")
    page.wait_for_function("() => document.querySelector('iframe').contentDocument.querySelector('textarea')")
    page.expose_function("compute", lambda a, b: a * b)
    frame = page.frames[1]
    check(frame.evaluate("compute(3, 5)") == 15, "exposed function in a frame that existed before")

    def woof():
        raise ValueError("WOOF")
    page.expose_function("woof", woof)
    err = page.evaluate("async () => { try { await woof(); } catch (e) { return {message: e.message, stack: e.stack}; } }")
    check(err["message"] == "WOOF" and "pw_misc.py" in err["stack"], "callback error in the page: %r" % err)

    frame.query_selector("textarea").type("hi \U0001F479")
    check(frame.eval_on_selector("textarea", "t => t.value") == "hi \U0001F479", "Frame.eval_on_selector")
    check(frame.eval_on_selector_all("textarea", "ts => ts.length") == 1, "Frame.eval_on_selector_all")

    page.route("**/*", lambda route: route.fulfill(body="<html></html>", content_type="text/html"))
    page.goto("https://one.example/")
    page.evaluate("localStorage.a = '1'")
    page.goto("https://two.example/")
    page.evaluate("""() => new Promise((resolve, reject) => { const o = indexedDB.open('db', 3);
      o.onupgradeneeded = () => o.result.createObjectStore('store');
      o.onsuccess = () => { const r = o.result.transaction('store', 'readwrite').objectStore('store').put({v: 1}, 'k');
        r.onsuccess = resolve; r.onerror = reject; }; })""")
    state = context.storage_state()
    check([o["origin"] for o in state["origins"]] == ["https://one.example"], "origins: %r" % state)
    state = context.storage_state(indexed_db=True)
    check([o["origin"] for o in state["origins"]] == ["https://two.example", "https://one.example"], "idb origins %r" % state)
    check(state["origins"][0]["indexedDB"][0]["stores"][0]["records"] == [{"key": "k", "value": {"v": 1}}], repr(state))
    check(len(context.pages) == 1, "the hidden page is gone")

    restored = browser.new_context(storage_state=state)
    page2 = restored.new_page()
    page2.route("**/*", lambda route: route.fulfill(body="<html></html>", content_type="text/html"))
    page2.goto("https://two.example/")
    got = page2.evaluate("""() => new Promise((resolve, reject) => { const o = indexedDB.open('db', 3);
      o.onsuccess = () => { const r = o.result.transaction('store').objectStore('store').get('k');
        r.onsuccess = () => resolve(r.result); }; o.onerror = () => reject(o.error); })""")
    check(got == {"v": 1}, "restored IndexedDB: %r" % got)
    page2.goto("https://one.example/")
    check(page2.evaluate("localStorage.a") == "1", "restored localStorage")
    # a route handler's error is raised by the script's next call
    def failing(route):
        route.fulfill(body="<html></html>", content_type="text/html")
        raise RuntimeError("handler broke")
    page3 = context.new_page()
    page3.route("**/*", failing, times=1)
    page3.goto("https://three.example/")
    expect_error(RuntimeError, lambda: page3.title(), "handler broke")
    check(page3.title() == "", "only once")

    el = page3.evaluate_handle("document.body")
    el.dispose()
    expect_error(Error, lambda: page3.evaluate("e => e.tagName", el), "JSHandle is disposed", "no object with guid")

    blank = context.new_page()  # the browser's own messages are console messages: a CORS refusal
    with blank.expect_console_message(lambda m: m.type == "error") as info:
        blank.evaluate("u => fetch(u).catch(e => {})", url("/"))
    check("CORS" in info.value.text or "Access-Control-Allow-Origin" in info.value.text, info.value.text)

    expect_error(Error, sync_playwright().start, "already running in this thread")
    child = os.fork()
    if child == 0:  # a forked child may start its own
        code = 1
        try:
            with sync_playwright():
                code = 0
        finally:
            os._exit(code)
    check(os.waitpid(child, 0)[1] == 0, "sync_playwright() in a forked child")
    browser.close()
with sync_playwright() as p:  # after the first stopped, another may start
    pass
print("OK")
