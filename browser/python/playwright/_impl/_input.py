"""Keyboard, Mouse and Touchscreen: page.keyboard, page.mouse and page.touchscreen."""

from ._errors import Error


class Keyboard:
    """page.keyboard: keys go to the focused element."""

    def __init__(self, page):
        self._page = page

    def press(self, key, delay=None):
        """Press a key or chord by Playwright's names: "Enter", "Tab", "Control+A", "Shift+ArrowDown"."""
        self._page._call("page.keyboard.press", key=key)

    def type(self, text, delay=None):
        """Type text character by character (delay ms between keys)."""
        self._page._call("page.keyboard.type", text=text, delay=delay)

    def down(self, key):
        """Hold a key down (a held Shift/Control/Alt/Meta applies to what follows until up())."""
        self._page._call("page.keyboard.down", key=key)

    def up(self, key):
        self._page._call("page.keyboard.up", key=key)

    def insert_text(self, text):
        """Insert text without key events, as an input method does."""
        self._page._call("page.keyboard.insert_text", text=text)


class Mouse:
    """page.mouse: coordinates are CSS pixels from the viewport's top left."""

    def __init__(self, page):
        self._page = page

    def click(self, x, y, button=None, click_count=None, delay=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=click_count)

    def dblclick(self, x, y, button=None, delay=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=2)

    def move(self, x, y, steps=None):
        self._page._call("page.mouse.move_steps", x=x, y=y, steps=steps or 1)

    def down(self, button=None, click_count=None):
        self._page._call("page.mouse.down", button=button, click_count=click_count)

    def up(self, button=None, click_count=None):
        self._page._call("page.mouse.up", button=button, click_count=click_count)

    def wheel(self, delta_x, delta_y):
        self._page._call("page.mouse.wheel", delta_x=delta_x, delta_y=delta_y)


_NO_TOUCH = "hasTouch must be enabled on the browser context before using the touchscreen."


def _check_touch(page):
    """Chromium ignores touches on a page that does not emulate touch: say so rather than tap nothing."""
    context = getattr(page, "_context", None)
    if not (context is not None and context._emulation.get("has_touch")):
        raise Error(_NO_TOUCH)


class Touchscreen:
    """page.touchscreen: taps at viewport coordinates (CSS pixels), on a context with has_touch."""

    def __init__(self, page):
        self._page = page

    def tap(self, x, y):
        _check_touch(self._page)
        self._page._call("page.touchscreen.tap", x=x, y=y)
