"""selectors.register: custom engines in every page and frame, main world and content-script world."""
import os
import tempfile

from support import check, expect_error
from playwright.sync_api import Error, sync_playwright

TAG = "{ query(root, s) { return root.querySelector(s); }, queryAll(root, s) { return Array.from(root.querySelectorAll(s)); } }"
ANSWER = """{ query(root) { return window.__answer; },
  queryAll(root) { return window.__answer ? [window.__answer, document.body] : []; } }"""

with sync_playwright() as p:
    p.selectors.register("tag", TAG)  # before the browser exists
    browser = p.chromium.launch()
    context = browser.new_context()
    p.selectors.register("tag2", TAG)  # after the context exists
    p.selectors.register("tag-with-dashes", TAG)  # "-" is allowed in a name, as in Playwright
    expect_error(Error, lambda: p.selectors.register("tag-with-dashes", TAG), "has been already registered")
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
        f.write("({ queryAll(root) { return Array.from(root.querySelectorAll('section')); } })")
    p.selectors.register("sect", path=f.name)
    os.unlink(f.name)
    p.selectors.register("mainw", ANSWER)
    p.selectors.register("isow", ANSWER, content_script=True)

    page = context.new_page()
    page.set_content("<div><span></span></div><div><section>s</section></div><iframe srcdoc='<p>in frame</p>'></iframe>")
    check(page.eval_on_selector("tag=DIV", "e => e.nodeName") == "DIV", "tag=DIV")
    check(page.eval_on_selector_all("tag2=DIV", "es => es.length") == 2, "tag2=DIV finds both")
    check(page.eval_on_selector_all("tag-with-dashes=DIV", "es => es.length") == 2, "a dashed engine name")
    check(page.eval_on_selector("div >> tag=SPAN", "e => e.nodeName") == "SPAN", "chained after css")
    check(page.locator("sect=x").text_content() == "s", "engine from a file")
    page.locator("tag=section").click()
    check(page.frames[1].locator("tag=p").text_content() == "in frame", "in a frame")
    check(page.frame_locator("iframe").locator("tag=p").count() == 1, "through a frame locator")

    page.evaluate("() => window.__answer = document.querySelector('span')")
    check(page.eval_on_selector("mainw=x", "e => e.nodeName") == "SPAN", "main-world engine sees page globals")
    check(page.query_selector("isow=x") is None, "content-script engine does not")
    check(page.eval_on_selector_all("isow=x", "es => es.length") == 2, "evaluate_all runs engines in the page's world")
    check(page.eval_on_selector("isow=x >> mainw=x", "e => e.nodeName") == "SPAN", "one main engine moves the chain")

    expect_error(Error, lambda: page.query_selector("TAG=DIV"), 'Unknown engine "TAG" while parsing selector TAG=DIV')
    expect_error(Error, lambda: p.selectors.register("$x", TAG), "may only contain [a-zA-Z0-9_]")
    expect_error(Error, lambda: p.selectors.register("tag", TAG), '"tag" selector engine has been already registered')
    expect_error(Error, lambda: p.selectors.register("css", TAG), '"css" is a predefined selector engine')
    p.selectors.register("broken", "{ nothing: 1 }")
    expect_error(Error, lambda: page.query_selector("broken=x"), "queryAll")

    other = p.chromium.launch()  # a browser launched later gets every engine
    page2 = other.new_page()
    page2.set_content("<b>bold</b>")
    check(page2.locator("tag=b").text_content() == "bold", "second browser")
    other.close()
    browser.close()
print("OK")
