"""Playwright's frames: one object per frame, frame events, detaching, child-frame navigation."""
import time
from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    events = []
    for kind in ("frameattached", "framedetached", "framenavigated"):
        page.on(kind, lambda frame, kind=kind: events.append((kind, frame)))
    requests = {}
    page.on("request", lambda r: requests.setdefault(r.url.rsplit("/", 1)[-1], r))
    page.goto(url("frames/outer.html"))
    kinds = [k for k, _ in events]
    check(kinds.count("frameattached") == 3 and kinds.count("framenavigated") == 4, "events: %s" % kinds)
    frames = page.frames
    check(len(frames) == 4 and frames[0] == page.main_frame, "page.frames: %s" % frames)
    left, deep, right = frames[1], frames[2], frames[3]
    check([f.name for f in frames[1:]] == ["left", "deep", "right"], "names (or ids): %s" % frames)
    check(page.frames[1] is left and page.main_frame.child_frames == [left, right], "one object per frame")
    check(deep.parent_frame is left and left.parent_frame == page.main_frame, "parents")
    check({f for k, f in events if k == "frameattached"} == {left, deep, right}, "the attached frames are page.frames")
    check(requests["inner.html"].frame is left and requests["outer.html"].frame == page.main_frame,
          "a request's frame is the frame that made it")
    check(page.query_selector("iframe[name=left]").content_frame() is left, "content_frame")
    leaf = deep.query_selector("#leaf")
    check(leaf.owner_frame() is deep and page.query_selector("iframe").owner_frame() == page.main_frame, "owner_frame")
    check(deep.evaluate("() => document.title") == "Leaf", "evaluate in a nested frame")
    check(deep.eval_on_selector("#leaf", "e => e.textContent") == "leaf", "eval_on_selector in a frame")
    check(deep.eval_on_selector_all("p, a", "(els, sep) => els.map(e => e.id).join(sep)", "+") == "leaf+next",
          "eval_on_selector_all in a frame")

    # Navigating a child frame: Frame.goto and Frame.expect_navigation.
    response = right.goto(url("frames/other.html"))
    check(response.ok and response.frame is right and right.url.endswith("/other.html"), "frame.goto: %s" % response)
    check(page.url.endswith("/outer.html"), "frame.goto leaves the page where it was")
    with left.expect_navigation() as nav:
        left.evaluate("u => location.href = u", url("frames/leaf.html"))
    check(nav.value.frame is left and nav.value.url.endswith("/leaf.html"), "frame.expect_navigation")
    check(deep.is_detached() and left.child_frames == [], "a frame's new document detaches the frames in the old one")
    check(deep.parent_frame is left, "a detached frame keeps its parent")

    # Detached frames fail clearly; a re-attached <iframe> is a new frame.
    page.evaluate("() => { window.kept = document.getElementById('right'); window.kept.remove(); }")
    check(right.is_detached(), "removed iframe: detached")
    expect_error(Error, right.frame_element, "Frame has been detached.")
    expect_error(Error, lambda: right.evaluate("1"), "Frame was detached")
    with page.expect_event("frameattached") as attached:
        page.evaluate("() => document.body.appendChild(window.kept)")
    check(attached.value != right and not attached.value.is_detached(), "re-attached: a new frame")

    # A new main document detaches every child frame.
    events.clear()
    page.goto(url("help.html"))
    kinds = [k for k, _ in events]
    check(kinds.count("framedetached") == 2 and kinds.count("frameattached") == 0, "leaving: %s" % kinds)
    check(page.frames == [page.main_frame], "no child frames left")

    # a frame removed while it navigates ends its goto with an error, not a timeout
    page.set_content("<iframe></iframe>")
    page.evaluate("setTimeout(() => document.querySelector('iframe').remove(), 500)")
    started = time.monotonic()
    expect_error(Error, lambda: page.frames[1].goto(url("slow"), timeout=20000), "frame was detached")
    check(time.monotonic() - started < 10, "the goto ended when the frame went")
    browser.close()
print("OK")
