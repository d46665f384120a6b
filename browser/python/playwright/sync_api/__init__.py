"""Playwright's sync API, implemented by wright_browser on wright's driver.

    from playwright.sync_api import sync_playwright, expect

    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()          # 1280x720, 30 s timeouts, as in Playwright
        page.goto("https://example.org")
        expect(page.get_by_role("heading")).to_have_text("Example Domain")
        browser.close()

Features outside wright's scope (Playwright's own server protocol, raw CDP sessions, playwright.request,
HAR, tracing, video, screencast, PDF, clock, touch, service workers, client certificates, extensions,
Firefox and WebKit) raise an Error naming the feature.
"""

import asyncio
import os
import re
import threading

from playwright._impl import _launch as _w
from playwright._impl._errors import Error, TimeoutError  # noqa: F401 - the public names
from playwright._impl._browser import Browser  # noqa: F401
from playwright._impl._browser_context import BrowserContext  # noqa: F401
from playwright._impl._page import Page, WebStorage  # noqa: F401
from playwright._impl._frame import Frame  # noqa: F401
from playwright._impl._locator import FrameLocator, Locator  # noqa: F401
from playwright._impl._js_handle import JSHandle  # noqa: F401
from playwright._impl._element_handle import ElementHandle  # noqa: F401
from playwright._impl._input import Keyboard, Mouse  # noqa: F401
from playwright._impl._console_message import ConsoleMessage  # noqa: F401
from playwright._impl._dialog import Dialog  # noqa: F401
from playwright._impl._network import Disposable, Request, Response, Route, WebError  # noqa: F401
from playwright._impl._fetch import APIRequestContext, APIResponse  # noqa: F401
from playwright._impl._files import Download, FileChooser  # noqa: F401
from playwright._impl._assertions import APIResponseAssertions, LocatorAssertions, PageAssertions  # noqa: F401
from playwright._impl._assertions import expect  # noqa: F401

ChromiumBrowserContext = BrowserContext

# Playwright's defaults for scripts: what a new page gets unless told otherwise.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}
DEFAULT_TIMEOUT_MS = 30000

_OUT_OF_SCOPE = {
    "APIRequest": "APIRequestContext (playwright.request)",
    "CDPSession": "raw CDP sessions",
    "Video": "video recording",
    "Tracing": "tracing",
    "WebSocketRoute": "WebSocket routing",
    "Clock": "clock emulation",
    "Touchscreen": "touch emulation",
    "Worker": "web and service workers",
    "FormData": "APIRequestContext (multipart forms)",
    "WebSocket": "WebSocket events (not yet in wright)",
    "BrowserBindResult": "Playwright's server protocol",
}


def _missing(name, feature):
    def refuse(self, *args, **kwargs):
        raise Error("%s is not supported by wright's Playwright client (%s)" % (name, feature))

    return type(name, (), {"__init__": refuse, "__doc__": "Not available in wright: %s." % feature})


for _name, _feature in _OUT_OF_SCOPE.items():
    globals()[_name] = _missing(_name, _feature)

# Names that are types in Playwright's typing only (dicts at run time).
Cookie = StorageState = ViewportSize = Geolocation = HttpCredentials = ProxySettings = FloatRect = dict
Position = FilePayload = PdfMargins = SourceLocation = ResourceTiming = ScreencastSize = dict
StorageStateCookie = ScreencastFrame = VirtualCredential = DebuggerLocation = DebuggerPausedDetails = dict


class BrowserType:
    """playwright.chromium (firefox and webkit exist only to say they are not available)."""

    def __init__(self, playwright, name):
        self._playwright = playwright
        self.name = name

    def __repr__(self):
        return "<BrowserType name=%s executable_path=%s>" % (self.name, self.executable_path)

    @property
    def executable_path(self):
        return os.environ.get("WRIGHT_BROWSER") or "chromium"

    def _check(self, what):
        if self.name != "chromium":
            raise Error("%s: wright drives Chromium only, not %s" % (what, self.name))

    def launch(self, executable_path=None, channel=None, args=None, ignore_default_args=None, handle_sigint=None,
               handle_sigterm=None, handle_sighup=None, timeout=None, env=None, headless=None, devtools=None,
               proxy=None, downloads_path=None, slow_mo=None, traces_dir=None, chromium_sandbox=None,
               firefox_user_prefs=None):
        """Start Chromium through `wright driver`. timeout is Playwright's launch timeout (not an action timeout)."""
        self._check("launch")
        if proxy:
            raise Error("launch(proxy=...) is not supported by wright: its URL policy decides what pages may reach")
        browser = _w.launch(headless=True if headless is None else headless, viewport=DEFAULT_VIEWPORT,
                            slow_mo=slow_mo or 0, timeout=DEFAULT_TIMEOUT_MS, executable=executable_path, args=args)
        browser._browser_type = self
        browser._isolated_pages = True
        browser._subscribe(dialogs=True)  # Playwright's rule: dialogs nobody listens to are dismissed
        self._playwright._browsers.append(browser)
        self._playwright.selectors._apply(browser)
        return browser

    def connect_over_cdp(self, endpoint_url, timeout=None, slow_mo=None, headers=None):
        """Attach to a running Chromium's DevTools endpoint (http://host:port or ws://...)."""
        self._check("connect_over_cdp")
        browser = _w.launch(cdp_url=endpoint_url, viewport=DEFAULT_VIEWPORT, slow_mo=slow_mo or 0,
                            timeout=DEFAULT_TIMEOUT_MS)
        browser._browser_type = self
        browser._isolated_pages = True
        self._playwright._browsers.append(browser)
        self._playwright.selectors._apply(browser)
        return browser

    def connect(self, *args, **kwargs):
        raise Error("BrowserType.connect speaks Playwright's own server protocol, which wright does not; use "
                    "connect_over_cdp(endpoint_url) for a remote Chromium")

    def launch_persistent_context(self, user_data_dir, channel=None, executable_path=None, args=None,
                                  headless=None, slow_mo=None, timeout=None, **context_options):
        """A browser on a profile directory, returned as its one context."""
        self._check("launch_persistent_context")
        user_data_dir = os.path.abspath(os.fspath(user_data_dir)) if user_data_dir else None
        browser = _w.launch(headless=True if headless is None else headless, viewport=DEFAULT_VIEWPORT,
                            slow_mo=slow_mo or 0, timeout=DEFAULT_TIMEOUT_MS, executable=executable_path,
                            args=args, user_data_dir=user_data_dir)
        browser._browser_type = self
        browser._subscribe(dialogs=True)
        self._playwright._browsers.append(browser)
        self._playwright.selectors._apply(browser)
        context = BrowserContext(browser, context_options, isolated=False)  # the profile's own context
        browser._contexts.append(context)
        context._closes_browser = True
        for page in browser.pages:
            context._adopt(page)
        return context


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
        if not re.fullmatch(r"[a-zA-Z0-9_]+", name or ""):
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


class Playwright:
    """What sync_playwright() yields: chromium (firefox, webkit), devices, selectors."""

    def __init__(self):
        self._browsers = []
        self.chromium = BrowserType(self, "chromium")
        self.firefox = BrowserType(self, "firefox")
        self.webkit = BrowserType(self, "webkit")
        self.selectors = Selectors(self)
        self.devices = {}

    def __getitem__(self, name):
        return {"chromium": self.chromium, "firefox": self.firefox, "webkit": self.webkit}[name]

    @property
    def request(self):
        raise Error("playwright.request (APIRequestContext) is not supported by wright")

    def stop(self):
        if _running_here() is self:
            _running.playwright = (None, None)
        for browser in self._browsers:
            browser.close()
        self._browsers.clear()


# The Playwright object started and not yet stopped in each thread, with the process it belongs to (a forked
# child inherits the parent's record, not its Playwright): as in Playwright, a thread runs one at a time.
_running = threading.local()


def _running_here():
    pid, playwright = getattr(_running, "playwright", (None, None))
    return playwright if pid == os.getpid() else None


def _refuse_nested():
    try:
        asyncio.get_running_loop()
        in_loop = True
    except RuntimeError:
        in_loop = False
    if in_loop or _running_here() is not None:
        raise Error("It looks like you are using Playwright Sync API inside the asyncio loop. Please use the Async "
                    "API instead. (%s)" % ("this thread runs an asyncio event loop" if in_loop else
                                          "a sync_playwright() is already running in this thread: use the Playwright "
                                          "object it gave, or stop() it before starting another"))


class PlaywrightContextManager:
    def __init__(self):
        self._playwright = None

    def start(self):
        _refuse_nested()
        self._playwright = Playwright()
        _running.playwright = (os.getpid(), self._playwright)
        return self._playwright

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self._playwright:
            self._playwright.stop()
        return False


def sync_playwright():
    """The entry point: `with sync_playwright() as p: browser = p.chromium.launch()`."""
    return PlaywrightContextManager()


__all__ = [
    "sync_playwright", "expect", "Playwright", "BrowserType", "Browser", "BrowserContext", "Page", "Frame",
    "FrameLocator", "Locator", "ElementHandle", "JSHandle", "Keyboard", "Mouse", "Response", "Error",
    "TimeoutError", "Selectors",
]
