"""Playwright's sync API: the public names of wright's implementation (playwright._impl) on its driver.

    from playwright.sync_api import sync_playwright, expect

    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()          # 1280x720, 30 s timeouts, as in Playwright
        page.goto("https://example.org")
        expect(page.get_by_role("heading")).to_have_text("Example Domain")
        browser.close()

What the client does not implement raises an Error that names it: Playwright's own server protocol
(BrowserType.connect), web and service workers, a proxy for a launch or a request
context (the run's URL policy decides what pages may reach), client certificates, screencast frames
written to a path, and Firefox and WebKit.
"""

from playwright._impl._errors import Error, TimeoutError  # noqa: F401
from playwright._impl._playwright import Playwright, PlaywrightContextManager, sync_playwright  # noqa: F401
from playwright._impl._browser_type import BrowserType  # noqa: F401
from playwright._impl._selectors import Selectors  # noqa: F401
from playwright._impl._browser import Browser  # noqa: F401
from playwright._impl._browser_context import BrowserContext  # noqa: F401
from playwright._impl._clock import Clock  # noqa: F401
from playwright._impl._page import Page, WebStorage  # noqa: F401
from playwright._impl._frame import Frame  # noqa: F401
from playwright._impl._locator import FrameLocator, Locator  # noqa: F401
from playwright._impl._js_handle import JSHandle  # noqa: F401
from playwright._impl._element_handle import ElementHandle  # noqa: F401
from playwright._impl._input import Keyboard, Mouse, Touchscreen  # noqa: F401
from playwright._impl._console_message import ConsoleMessage  # noqa: F401
from playwright._impl._worker import Worker  # noqa: F401
from playwright._impl._dialog import Dialog  # noqa: F401
from playwright._impl._cdp_session import CDPSession  # noqa: F401
from playwright._impl._web_socket_route import WebSocketRoute  # noqa: F401
from playwright._impl._websocket import WebSocket  # noqa: F401
from playwright._impl._network import Disposable, Request, Response, Route, WebError  # noqa: F401
from playwright._impl._fetch import APIRequest, APIRequestContext, APIResponse, FormData  # noqa: F401
from playwright._impl._files import Download, FileChooser  # noqa: F401
from playwright._impl._tracing import Tracing  # noqa: F401
from playwright._impl._video import Screencast, Video  # noqa: F401
from playwright._impl._assertions import APIResponseAssertions, LocatorAssertions, PageAssertions, expect  # noqa: F401

ChromiumBrowserContext = BrowserContext

_OUT_OF_SCOPE = {
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


__all__ = [
    "sync_playwright", "expect", "Playwright", "BrowserType", "Browser", "BrowserContext", "Page", "Frame",
    "FrameLocator", "Locator", "ElementHandle", "JSHandle", "Keyboard", "Mouse", "Touchscreen", "CDPSession", "WebSocket", "WebSocketRoute", "Response", "Error",
    "APIRequest", "APIRequestContext", "APIResponse", "FormData",
    "TimeoutError", "Selectors", "Worker",
]
