"""playwright.selectors: custom selector engines, registered with every browser a Playwright launches."""

import os
import re

from ._errors import Error


# Engine names a registered engine may not take (those that fit [a-zA-Z0-9_]; the driver checks them all).
_PREDEFINED_ENGINES = {"css", "xpath", "text", "role", "label", "placeholder", "alt", "title", "testid", "id",
                       "nth", "visible", "has", "and", "or", "handle", "left", "right", "above", "below", "near"}


class Selectors:
    """playwright.selectors: custom selector engines, for every browser this Playwright has launched or will."""

    def __init__(self, playwright=None):
        self._playwright = playwright
        self._engines = []  # (name, source, content_script), in registration order

    def register(self, name, script=None, path=None, content_script=None):
        """Add a selector engine NAME=BODY: script (or the file at path) evaluates to an object with
        query(root, selector) and queryAll(root, selector). It runs in the page's own JavaScript world unless
        content_script=True, which runs it in wright's isolated world."""
        if path is not None:
            with open(os.fspath(path), encoding="utf-8") as f:
                script = f.read()
        if not isinstance(script, str) or not script.strip():
            raise Error("Selectors.register: either script or path with the engine's source is required")
        if not re.fullmatch(r"[a-zA-Z0-9_-]+", name or ""):  # "-" too, as Playwright allows
            raise Error("Selectors.register: Selector engine name may only contain [a-zA-Z0-9_] characters")
        if name.lower() in _PREDEFINED_ENGINES:
            raise Error('Selectors.register: "%s" is a predefined selector engine' % name)
        if any(e[0] == name for e in self._engines):
            raise Error('Selectors.register: "%s" selector engine has been already registered' % name)
        engine = (name, script, bool(content_script))
        for browser in list(self._playwright._browsers if self._playwright else []):
            if browser.is_connected():
                self._send(browser, engine)
        self._engines.append(engine)

    def _send(self, browser, engine):
        try:
            browser._call("selectors.register", {"browser": browser.id, "name": engine[0], "source": engine[1],
                                                 "content_script": engine[2]})
        except Error as e:
            raise Error("Selectors.register: %s" % e.message) from None

    def _apply(self, browser):
        """Give a browser launched now the engines registered so far."""
        for engine in self._engines:
            self._send(browser, engine)

    def set_test_id_attribute(self, attribute_name):
        if attribute_name != "data-testid":
            raise Error("selectors.set_test_id_attribute: wright's get_by_test_id uses data-testid only")
