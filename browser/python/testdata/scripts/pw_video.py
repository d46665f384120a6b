"""Videos (record_video_dir), page.screencast and show_actions, through Playwright's API."""

import os
import shutil
import tempfile

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("counter.html"))

    # page.screencast: frames to a callback, one at a time, with the viewport.
    frames = []
    with page.screencast.start(on_frame=lambda f: frames.append(f), size={"width": 320, "height": 240}):
        expect_error(Error, lambda: page.screencast.start(on_frame=lambda f: None), "already started")
        with page.screencast.show_actions(duration=5000, position="bottom"):
            page.get_by_role("button").first.click()
            labels = page.evaluate("() => [...document.body.children].filter(e => e.style.zIndex === '2147483647').length")
            check(labels == 1, "show_actions put one label over the page, got %r" % labels)
        for _ in range(5):
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot()
        page.wait_for_timeout(200)
    check(frames, "no screencast frame")
    check(all(f["data"][:2] == b"\xff\xd8" for f in frames), "frames are JPEG bytes")
    check(frames[0]["viewportWidth"] == 1280 and frames[0]["viewportHeight"] == 720, "viewport: %r" % frames[0])
    expect_error(Error, lambda: page.screencast.show_actions(position="middle"), "position must be one of")

    # overlays: over the page in a closed shadow root, letting clicks through, hidden and shown together
    host = "() => window.__wrightOverlays ? getComputedStyle(window.__wrightOverlays.host).display : 'none'"
    count = "() => window.__wrightOverlays ? window.__wrightOverlays.items.size : 0"
    overlay = page.screencast.show_overlay("<div style='font-size:40px'>hello</div>")
    page.screencast.show_chapter("Chapter", description="desc", duration=100)
    check(page.evaluate(count) == 2 and page.evaluate(host) != "none", "two overlays shown")
    page.get_by_role("button").first.click(timeout=5000)  # not in the way
    page.screencast.hide_overlays()
    check(page.evaluate(host) == "none", "hidden")
    page.screencast.show_overlays()
    check(page.evaluate(host) != "none", "shown again")
    page.wait_for_timeout(300)
    check(page.evaluate(count) == 1, "the chapter went after its duration")
    overlay.dispose()
    check(page.evaluate(count) == 0, "the overlay went when disposed")
    expect_error(Error, lambda: page.screencast.show_overlay(5), "expected string")

    # Videos need ffmpeg; without it asking for one is a clear error.
    if shutil.which("ffmpeg") is None:
        expect_error(Error, lambda: browser.new_page(record_video_dir=tempfile.mkdtemp()), "ffmpeg")
    else:
        directory = tempfile.mkdtemp()
        context = browser.new_context(record_video_dir=directory, record_video_size={"width": 200, "height": 100})
        vpage = context.new_page()
        path = vpage.video.path()
        check(str(path).startswith(directory) and str(path).endswith(".webm"), "video path %s" % path)
        vpage.goto(url("counter.html"))
        expect_error(Error, lambda: vpage.video.save_as(os.path.join(directory, "x.webm")), "Page is not yet closed")
        context.close()
        check(os.path.getsize(path) > 0, "the video is finished when the context closes")
        vpage.video.save_as(os.path.join(directory, "copy.webm"))
        check(os.path.exists(os.path.join(directory, "copy.webm")), "save_as copied the video")
        vpage.video.delete()
        check(not os.path.exists(path), "delete removed the video")
        check(page.video is None, "a page of a context without record_video_dir has no video")
        shutil.rmtree(directory)
    browser.close()
print("OK")
