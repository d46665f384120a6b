"""Playwright's async API on wright's driver: the same implementation as playwright.sync_api, awaited.

    import asyncio
    from playwright.async_api import async_playwright, expect

    async def main():
        async with async_playwright() as p:
            browser = await p.chromium.launch()
            page = await browser.new_page()
            await page.goto("https://example.org")
            await expect(page.get_by_role("heading")).to_have_text("Example Domain")
            await browser.close()

    asyncio.run(main())

Calls overlap for real: asyncio.gather over actions on several pages runs them at once on one driver connection.
Event listeners, route handlers and predicates may be coroutines. What the client does not implement raises an
Error that names it, as under the sync API.
"""

from playwright._impl import _assertions as _impl_assertions
from playwright._impl import _browser as _impl_browser
from playwright._impl import _browser_context as _impl_browser_context
from playwright._impl import _browser_type as _impl_browser_type
from playwright._impl import _cdp_session as _impl_cdp_session
from playwright._impl import _clock as _impl_clock
from playwright._impl import _console_message as _impl_console_message
from playwright._impl import _dialog as _impl_dialog
from playwright._impl import _element_handle as _impl_element_handle
from playwright._impl import _fetch as _impl_fetch
from playwright._impl import _files as _impl_files
from playwright._impl import _frame as _impl_frame
from playwright._impl import _input as _impl_input
from playwright._impl import _js_handle as _impl_js_handle
from playwright._impl import _locator as _impl_locator
from playwright._impl import _network as _impl_network
from playwright._impl import _page as _impl_page
from playwright._impl import _playwright as _impl_playwright
from playwright._impl import _selectors as _impl_selectors
from playwright._impl import _tracing as _impl_tracing
from playwright._impl import _video as _impl_video
from playwright._impl import _web_socket_route as _impl_web_socket_route
from playwright._impl import _websocket as _impl_websocket
from playwright._impl import _worker as _impl_worker
from playwright._impl._errors import Error, TimeoutError  # noqa: F401
from playwright._impl._fetch import FormData  # noqa: F401

from . import _bridge
from ._bridge import wrapper_class as _async

async def _stop(self):
    # A second stop() is nothing, as in Playwright (the pool is gone by then).
    if not self._hub.closed:
        await self._hub.run(self._impl_obj.stop)


Playwright = _async(_impl_playwright.Playwright, extra={"stop": _stop})
BrowserType = _async(_impl_browser_type.BrowserType)
Selectors = _async(_impl_selectors.Selectors)
Browser = _async(_impl_browser.Browser)
Worker = _async(_impl_worker.Worker)
BrowserContext = _async(_impl_browser_context.BrowserContext)
Clock = _async(_impl_clock.Clock)
Page = _async(_impl_page.Page)
WebStorage = _async(_impl_page.WebStorage)
Frame = _async(_impl_frame.Frame)
Locator = _async(_impl_locator.Locator)
FrameLocator = _async(_impl_locator.FrameLocator)
JSHandle = _async(_impl_js_handle.JSHandle)
ElementHandle = _async(_impl_element_handle.ElementHandle)
Keyboard = _async(_impl_input.Keyboard)
Mouse = _async(_impl_input.Mouse)
Touchscreen = _async(_impl_input.Touchscreen)
ConsoleMessage = _async(_impl_console_message.ConsoleMessage)
Dialog = _async(_impl_dialog.Dialog)
CDPSession = _async(_impl_cdp_session.CDPSession)
WebSocketRoute = _async(_impl_web_socket_route.WebSocketRoute)


async def _ws_wait_for_event(self, event, predicate=None, timeout=None):
    # The wait starts here, on the loop, where the socket's events run (_impl/_websocket.py): a frame that
    # comes while a worker thread would still be starting the wait is not missed.
    hub = self._hub
    waiter = self._impl_obj.expect_event(event, _bridge.unwrap(predicate, hub), timeout)
    waiter.__enter__()
    try:
        await hub.run(waiter.__exit__, None, None, None)
    except BaseException as exc:
        waiter.__exit__(type(exc), exc, None)  # no wait: takes its listeners off
        raise
    return _bridge.wrap(waiter.value, hub)


WebSocket = _async(_impl_websocket.WebSocket, extra={"wait_for_event": _ws_wait_for_event})
Request = _async(_impl_network.Request)
Response = _async(_impl_network.Response)
Route = _async(_impl_network.Route)
WebError = _async(_impl_network.WebError)
Disposable = _async(_impl_network.Disposable)
APIRequest = _async(_impl_fetch.APIRequest)
APIRequestContext = _async(_impl_fetch.APIRequestContext)
APIResponse = _async(_impl_fetch.APIResponse)
Download = _async(_impl_files.Download)
FileChooser = _async(_impl_files.FileChooser)
Tracing = _async(_impl_tracing.Tracing)
# playwright.request.new_context()'s tracing (HARs of its calls): the same Tracing to a script
_async(_impl_fetch._RequestTracing, name="Tracing")
Video = _async(_impl_video.Video)
Screencast = _async(_impl_video.Screencast)
PageAssertions = _async(_impl_assertions.PageAssertions)
LocatorAssertions = _async(_impl_assertions.LocatorAssertions)
APIResponseAssertions = _async(_impl_assertions.APIResponseAssertions)
_async(_impl_assertions._SoftAssertions, "SoftAssertions")

ChromiumBrowserContext = BrowserContext


class _Expect:
    """expect(page | locator | response, message=None): the sync API's assertions, awaited."""

    def __call__(self, actual, message=None):
        hub = _hub_of(actual)
        return _bridge.wrap(_impl_assertions.expect(_bridge.unwrap(actual, hub), message), hub)

    def soft(self, actual, message=None):
        hub = _hub_of(actual)
        return _bridge.wrap(_impl_assertions.expect.soft(_bridge.unwrap(actual, hub), message), hub)

    def set_options(self, timeout=_impl_assertions._UNSET):
        _impl_assertions.expect.set_options(timeout)


def _hub_of(actual):
    if not isinstance(actual, _bridge.AsyncBase):
        raise ValueError("expect() takes a Page, a Locator or an APIResponse of playwright.async_api, not %s"
                         % type(actual).__name__)
    return actual._hub


expect = _Expect()


class PlaywrightContextManager:
    """`async with async_playwright() as p`, or `p = await async_playwright().start()` and `await p.stop()`."""

    def __init__(self):
        self._playwright = None
        self._hub = None

    async def start(self):
        import asyncio

        self._hub = _bridge.Hub(asyncio.get_running_loop())
        impl = _impl_playwright.Playwright()
        hub = self._hub
        original_stop = impl.stop

        def stop():
            try:
                original_stop()
            finally:
                # The pool's threads end once their last call has; new calls are refused from here on.
                hub.close()
        impl.stop = stop
        self._playwright = _bridge.wrap(impl, hub)
        return self._playwright

    async def __aenter__(self):
        return await self.start()

    async def __aexit__(self, *exc):
        if self._playwright is not None:
            await self._playwright.stop()
        return False


def async_playwright():
    """The entry point: `async with async_playwright() as p: browser = await p.chromium.launch()`."""
    return PlaywrightContextManager()


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
    "async_playwright", "expect", "Playwright", "BrowserType", "Browser", "BrowserContext", "Page", "Frame",
    "FrameLocator", "Locator", "ElementHandle", "JSHandle", "Keyboard", "Mouse", "Touchscreen", "CDPSession",
    "WebSocket", "WebSocketRoute", "Request", "Response", "Route", "Error", "TimeoutError", "Selectors",
    "APIRequest", "APIRequestContext", "APIResponse", "FormData", "Dialog", "Download", "FileChooser", "ConsoleMessage",
    "Worker",
]
