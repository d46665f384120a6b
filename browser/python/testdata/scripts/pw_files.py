"""Playwright's sync API: files, file choosers, downloads, drag and drop, and the driver bugs its tests found."""
import os
import tempfile

from support import BASE, check, expect_error, url
from playwright.sync_api import Error, FileChooser, sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("files.html"))

    # set_input_files: a path (by the input's label too), payloads, [] clears; a missing file is FileNotFoundError
    page.get_by_label("Photo").set_input_files(os.path.join(HERE, "support.py"))
    check(page.eval_on_selector("#photo", "e => e.files[0].name") == "support.py", "file from a path")
    page.set_input_files("#docs", [{"name": "a.txt", "mimeType": "text/plain", "buffer": b"AAA"},
                                   {"name": "b.csv", "mimeType": "text/csv", "buffer": b"x,y"}])
    check(page.eval_on_selector("#docs", "e => Promise.all([...e.files].map(f => f.text()))") == ["AAA", "x,y"],
          "files from payloads")
    page.locator("#docs").set_input_files([])
    check(page.eval_on_selector("#docs", "e => e.files.length") == 0, "[] clears the input")
    expect_error(FileNotFoundError, lambda: page.locator("#photo").set_input_files("no-such-file.txt"))
    expect_error(Error, lambda: page.locator("#photo").set_input_files(
        [{"name": "1", "mimeType": "text/plain", "buffer": b"1"}, {"name": "2", "mimeType": "text/plain", "buffer": b"2"}]),
        "Non-multiple file input can only accept single file")

    # file choosers: the click's chooser is an event; set_files fills its input
    with page.expect_file_chooser() as fc:
        page.click("#docs")
    chooser = fc.value
    check(isinstance(chooser, FileChooser) and chooser.is_multiple() and chooser.page is page, chooser)
    chooser.set_files({"name": "c.txt", "mimeType": "text/plain", "buffer": b"chosen"})
    check(page.eval_on_selector("#docs", "e => e.files[0].name") == "c.txt", "chooser.set_files")

    # downloads
    with page.expect_download() as dl:
        page.get_by_text("Download the report").click()
    download = dl.value
    check(download.suggested_filename == "report-2026.txt" and download.url.endswith("/files/report.txt"), download)
    check(download.failure() is None, download.failure())
    with open(download.path(), "rb") as f:
        check(f.read() == b"report body\n", "download.path() holds the file")
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "saved", "report.txt")
        download.save_as(target)
        with open(target, "rb") as f:
            check(f.read() == b"report body\n", "save_as copies the file")
    download.delete()
    # a context's own listener has its pages' downloads reported to it
    other = browser.new_context()
    other_page = other.new_page()
    other_page.goto(url("files.html"))
    with other.expect_event("download") as cdl:
        other_page.get_by_text("Download the report").click()
    check(cdl.value.page is other_page and cdl.value.suggested_filename == "report-2026.txt", cdl.value)
    other.close()

    # drag and drop: HTML5 (draggable, drop handler) through page and locator
    page.drag_and_drop("#card", "#bin")
    page.locator("#card").drag_to(page.locator("#bin"), steps=3)
    check(page.evaluate("dropped") == ["card-1", "card-1"], page.evaluate("dropped"))

    # select_option: several values, then none (deselects all)
    check(page.select_option("#fruit", ["plum", "apple"]) == ["apple", "plum"], "several options")
    check(page.select_option("#fruit", []) == [], "no options")
    check(page.eval_on_selector("#fruit", "s => s.selectedOptions.length") == 0, "[] deselects every option")

    # fill on type=number refuses text
    expect_error(Error, lambda: page.fill("#qty", "many"), "Cannot type text into input[type=number]")
    page.fill("#qty", "12")

    # goto: a #fragment updates page.url; a scheme-less local URL means http
    for frag in ("#one", "#two", "#three"):
        page.goto(url("files.html") + frag)
        check(page.url == url("files.html") + frag, page.url)
    page.goto(BASE.replace("http://", "") + "/files.html")
    check(page.url == url("files.html"), page.url)

    # a popup that closes at once is still a popup
    with page.expect_popup() as popup:
        page.evaluate("() => window.open('about:blank').close()")
    check(popup.value is not None, "popup seen")

    # listeners have run when the call that caused their events returns
    seen, logged = [], []
    page.expose_function("noted", lambda v: seen.append(v))
    page.evaluate("document.querySelector('#qty').addEventListener('focus', () => noted('focus'))")
    page.on("console", lambda m: logged.append(m.text))
    for _ in range(5):
        page.focus("#docs")
        page.focus("#qty")
        page.evaluate("console.log('now')")
    check(seen == ["focus"] * 5 and logged == ["now"] * 5, (seen, logged))

    # pause() returns at once and keeps the timeouts; a page is a context manager
    page.set_default_timeout(321)
    page.pause()
    expect_error(Error, lambda: page.click("#nothing-here"), "Timeout 321ms exceeded")
    with browser.new_page() as other:
        other.goto(url("files.html"))
    check(other.is_closed(), "leaving the with block closes the page")
    browser.close()
print("OK")
