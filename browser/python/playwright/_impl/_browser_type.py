"""Starting a browser: BrowserType (playwright.chromium), and the launch and connect that both entry
points, sync_playwright() and wright_browser, start their browsers with.
"""

import os

from ._errors import Error
from ._lazy import lazy
from ._helpers import _viewport
from ._transport import _PipeTransport, _SocketTransport, _driver_binary, _guard_seconds, _install_exit_hooks
from ._browser_context import BrowserContext
from ._browser import Browser
from ._proxy import _proxy_settings

# Only a browser of the script's own (a profile folder, a path to look up) needs these two.
shutil = lazy("shutil")
tempfile = lazy("tempfile")


# The two entry points' defaults, stated once here:
# - sync_playwright() gives Playwright's own, a 1280x720 viewport and 30 s timeouts, because code written
#   for Playwright must behave as it does there: the same layout breakpoints, the same elements in view,
#   waits as long as their authors expect.
# - wright_browser.launch() and connect() give wright's, 1280x1800 and 10 s, because their reader is the
#   model: a tall viewport puts more of a page in one screenshot and one snapshot, and a wait that
#   fails comes back within a turn instead of after half a minute.
PLAYWRIGHT_VIEWPORT = {"width": 1280, "height": 720}
PLAYWRIGHT_TIMEOUT_MS = 30000
WRIGHT_VIEWPORT = (1280, 1800)
WRIGHT_TIMEOUT_MS = 10000


def launch_browser(headless, viewport, slow_mo, timeout, default_timeout, executable=None, cdp_url=None,
                   args=None, user_data_dir=None, browser_type=None, isolated_pages=False, answer_dialogs=False,
                   proxy=None, cdp_headers=None):
    """Start `wright driver` (WRIGHT_BIN, else `wright` on PATH) and a browser; returns a Browser.

    The driver and Chromium are ended when the Browser closes, at interpreter exit and on SIGTERM.
    viewport is (width, height), a {"width", "height"} dict, or None for the driver's default; timeout
    (ms) is the driver's launch timeout, default_timeout the browser's actions' (what the entry point
    gives); cdp_url attaches to a remote browser instead of starting one. isolated_pages makes
    browser.new_page() open a context of its own (Playwright's rule); answer_dialogs makes this client
    answer dialogs itself (Playwright's rule: one nobody listens to is dismissed). proxy (checked by
    _proxy_settings) needs a browser of its own, which the driver refuses where a URL policy governs the
    network.
    """
    params = {"headless": bool(headless), "slow_mo": slow_mo, "timeout": timeout}
    if proxy is not None:
        params["proxy"] = proxy
    size = _viewport(viewport, "launch")
    if size is not None:
        params["viewport"] = size
    options = dict(viewport=size, browser_type=browser_type, isolated_pages=isolated_pages)
    spawn = os.environ.get("WRIGHT_DRIVER_SPAWN")
    if spawn and not cdp_url:
        # A browser of wright's own, outside the run's sandbox: inside a sandboxed run wright starts the
        # driver and Chromium for each connection itself, so that secrets are typed where the script
        # cannot see them; the browser, its executable and its flags are wright's choice.
        transport = _SocketTransport(spawn)
        return _start(transport, params, timeout, default_timeout, answer_dialogs, True, options)
    warm = os.environ.get("WRIGHT_DRIVER_WARM")
    if warm and headless and not (executable or cdp_url or args or user_data_dir or proxy) and not (
            os.environ.get("WRIGHT_VIDEO") or os.environ.get("WRIGHT_PROBE")):
        # Inside a run wright keeps one Chromium started; a launch that asks for nothing a browser of its
        # own needs is a fresh context of it, in milliseconds. A film or a probe of the run is a driver's
        # own setting (its environment), so such a launch starts one as before.
        transport = _SocketTransport(warm)
        return _start(transport, params, timeout, default_timeout, answer_dialogs, True, options)
    if executable:
        executable = os.fspath(executable)
        if os.sep not in executable:
            executable = shutil.which(executable) or executable  # a name on PATH
        params["executable"] = os.path.abspath(executable)
    if cdp_url:
        params["cdp_url"] = cdp_url
        if cdp_headers:
            params["cdp_headers"] = {str(k): str(v) for k, v in dict(cdp_headers).items()}
    if args:
        params["args"] = [str(a) for a in args]
    own_dir = False
    if user_data_dir:
        user_data_dir = os.path.abspath(os.fspath(user_data_dir))
    elif not cdp_url:
        # A profile of our own lets us find (and end) this Chromium even if the
        # driver dies without closing it.
        user_data_dir = tempfile.mkdtemp(prefix="wright-chromium-")
        own_dir = True
    if user_data_dir:
        params["user_data_dir"] = user_data_dir
    try:
        binary = _driver_binary()
    except Error:
        if own_dir:
            shutil.rmtree(user_data_dir, ignore_errors=True)
        raise
    _install_exit_hooks()
    # Only a profile we made is ours to clean up: a caller's profile may belong
    # to a Chromium we must not touch.
    try:
        transport = _PipeTransport([binary, "driver"], user_data_dir if own_dir else None, own_dir)
    except Error:
        if own_dir:
            shutil.rmtree(user_data_dir, ignore_errors=True)
        raise
    return _start(transport, params, timeout, default_timeout, answer_dialogs, True, options)


def connect_browser(socket_path, default_timeout):
    """Attach to a running `wright driver --socket PATH` (default: $WRIGHT_DRIVER_SOCKET).

    The browser belongs to the driver: close() on the returned Browser only disconnects.
    """
    path = socket_path or os.environ.get("WRIGHT_DRIVER_SOCKET")
    if not path:
        raise Error("connect: no socket path given and WRIGHT_DRIVER_SOCKET is not set", type="InvalidParams")
    transport = _SocketTransport(os.fspath(path))
    return _start(transport, {}, None, default_timeout, False, False, {})


def _start(transport, params, timeout, default_timeout, answer_dialogs, owns_driver, options):
    """browser.launch on a fresh transport, and the Browser it answers with, subscribed to events."""
    try:
        result = transport.call("browser.launch", params, guard_s=_guard_seconds(max(timeout or 0, 60000)))
    except BaseException:
        # A pipe's driver that failed to launch gets a short moment to end its Chromium.
        transport.shutdown(grace=2.0 if isinstance(transport, _PipeTransport) else 5.0)
        raise
    browser = Browser(transport, result, default_timeout, owns_driver=owns_driver, **options)
    browser._subscribe(dialogs=answer_dialogs)
    return browser


class BrowserType:
    """playwright.chromium (firefox and webkit exist only to say they are not available)."""

    def __init__(self, playwright, name):
        self._playwright = playwright
        self.name = name

    def __repr__(self):
        return "<BrowserType name=%s executable_path=%s>" % (self.name, self.executable_path)

    @property
    def executable_path(self):
        """The browser launch() starts: $WRIGHT_BROWSER, else the first Chromium or Chrome on PATH (the
        driver looks in the same places first)."""
        configured = os.environ.get("WRIGHT_BROWSER")
        if configured:
            return shutil.which(configured) or configured
        for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
            found = shutil.which(name)
            if found:
                return found
        return "chromium"

    def _check(self, what):
        if self.name != "chromium":
            raise Error("%s: wright drives Chromium only, not %s" % (what, self.name))

    def launch(self, executable_path=None, channel=None, args=None, ignore_default_args=None, handle_sigint=None,
               handle_sigterm=None, handle_sighup=None, timeout=None, env=None, headless=None, devtools=None,
               proxy=None, downloads_path=None, slow_mo=None, traces_dir=None, chromium_sandbox=None,
               firefox_user_prefs=None):
        """Start Chromium through `wright driver`. timeout is Playwright's launch timeout (not an action timeout)."""
        self._check("launch")
        browser = launch_browser(True if headless is None else headless, PLAYWRIGHT_VIEWPORT, slow_mo or 0,
                                 PLAYWRIGHT_TIMEOUT_MS, PLAYWRIGHT_TIMEOUT_MS, executable=executable_path,
                                 args=args, browser_type=self, isolated_pages=True, answer_dialogs=True,
                                 proxy=_proxy_settings(proxy))
        browser._traces_dir = os.fspath(traces_dir) if traces_dir else None
        self._playwright._started(browser)
        return browser

    def connect_over_cdp(self, endpoint_url, timeout=None, slow_mo=None, headers=None):
        """Attach to a running Chromium's DevTools endpoint (http://host:port or ws://...)."""
        self._check("connect_over_cdp")
        # timeout is Playwright's bound on the attach; the driver bounds it itself (a minute), and the
        # params' timeout is the browser's default for waiting calls, which stays Playwright's.
        browser = launch_browser(True, PLAYWRIGHT_VIEWPORT, slow_mo or 0, PLAYWRIGHT_TIMEOUT_MS,
                                 PLAYWRIGHT_TIMEOUT_MS, cdp_url=endpoint_url, browser_type=self,
                                 isolated_pages=True, cdp_headers=headers)
        self._playwright._started(browser)
        # The browser's own default context is listed first, holding the pages it had open, as in
        # Playwright: a script attaches to reach those pages (browser.contexts[0].pages).
        browser._over_cdp = True
        context = browser._default_context()
        browser._contexts.insert(0, context)
        for page in browser.pages:
            context._adopt(page)
        return browser

    def connect(self, *args, **kwargs):
        raise Error("BrowserType.connect speaks Playwright's own server protocol, which wright does not; use "
                    "connect_over_cdp(endpoint_url) for a remote Chromium")

    def launch_persistent_context(self, user_data_dir, channel=None, executable_path=None, args=None,
                                  headless=None, slow_mo=None, timeout=None, **context_options):
        """A browser on a profile directory, returned as its one context."""
        self._check("launch_persistent_context")
        user_data_dir = os.path.abspath(os.fspath(user_data_dir)) if user_data_dir else None
        proxy = _proxy_settings(context_options.pop("proxy", None))  # the profile's one context is the browser's
        browser = launch_browser(True if headless is None else headless, PLAYWRIGHT_VIEWPORT, slow_mo or 0,
                                 PLAYWRIGHT_TIMEOUT_MS, PLAYWRIGHT_TIMEOUT_MS, executable=executable_path,
                                 args=args, user_data_dir=user_data_dir, browser_type=self, answer_dialogs=True,
                                 proxy=proxy)
        self._playwright._started(browser)
        # The profile's own context, which closes the browser with it.
        context = BrowserContext(browser, context_options, isolated=False, closes_browser=True)
        browser._contexts.append(context)
        for page in browser.pages:
            context._adopt(page)
        if not context._pages:
            context.new_page()  # Playwright's persistent context opens with one page
        return context
