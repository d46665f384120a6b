"""wright_browser: drive Chromium from Python through `wright driver` (standard library only).

    from wright_browser import launch, TimeoutError

    with launch() as browser:                             # starts `wright driver`; always ended on exit
        page = browser.new_page()
        page.goto("https://example.org")
        print(page.aria_snapshot(interactive_only=True))  # YAML outline, actionable nodes carry [ref=eN]
        page.locator("aria-ref=e7").click()               # act on a ref from that snapshot
        page.get_by_label("Email").fill("me@example.org")
        page.get_by_role("button", name="Save").click()   # waits until visible, enabled, uncovered
        page.get_by_text("Saved").wait_for(timeout=5000)
        page.screenshot(path="screenshots/saved.png")

Locators are lazy and strict: one match, or a StrictModeViolation listing the candidates (narrow the
locator or use .first / .nth(i)). Errors: Error > TimeoutError, StrictModeViolation, StaleRef,
NavigationError, TargetClosed, ... Live mode: `browser = connect()` attaches to a running driver.
Final scripts: `run_dir = next_run_dir(); log = ActionLog(run_dir); log.step(1, "..."); log.screenshot(page, "x")`.
"""

import os
import re
import sys

# The implementation is the playwright package beside this module; these are the names scripts used
# from wright_browser before it was split, kept importable from here.
from playwright._impl._errors import (  # noqa: F401
    BlockedURL, BrowserError, Error, EvaluationError, InvalidParams, InvalidSelector, NavigationError,
    ProtocolError, StaleRef, StrictModeViolation, TargetClosed, TargetClosedError, TimeoutError,
)
from playwright._impl._browser_type import WRIGHT_TIMEOUT_MS, WRIGHT_VIEWPORT, connect_browser, launch_browser
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
from playwright._impl._network import Disposable, PageError, Request, Response, Route, WebError  # noqa: F401
from playwright._impl._fetch import APIRequestContext, APIResponse  # noqa: F401
from playwright._impl._files import Download, FileChooser  # noqa: F401
from playwright._impl._assertions import (  # noqa: F401
    APIResponseAssertions, LocatorAssertions, PageAssertions, expect,
)

__all__ = [
    "launch",
    "connect",
    "Browser",
    "Page",
    "Locator",
    "Keyboard",
    "Mouse",
    "Response",
    "Error",
    "TimeoutError",
    "StrictModeViolation",
    "StaleRef",
    "NavigationError",
    "TargetClosed",
    "TargetClosedError",
    "InvalidSelector",
    "EvaluationError",
    "BlockedURL",
    "InvalidParams",
    "BrowserError",
    "ProtocolError",
    "ActionLog",
    "next_run_dir",
]


def launch(headless=True, viewport=WRIGHT_VIEWPORT, slow_mo=0, timeout=WRIGHT_TIMEOUT_MS, executable=None,
           cdp_url=None, args=None, user_data_dir=None):
    """Start `wright driver` (WRIGHT_BIN, else `wright` on PATH) and a browser; returns a Browser.

    Use it as a context manager, or call close(). The driver and Chromium are
    also ended at interpreter exit and on SIGTERM. viewport is (width, height),
    a {"width", "height"} dict, or None for the driver's default; timeouts are
    in milliseconds; cdp_url attaches to a remote browser instead of starting one.
    Its defaults are wright's (see WRIGHT_VIEWPORT in playwright._impl._browser_type,
    beside Playwright's and why they differ).
    """
    return launch_browser(headless, viewport, slow_mo, timeout, timeout or WRIGHT_TIMEOUT_MS, executable=executable,
                          cdp_url=cdp_url, args=args, user_data_dir=user_data_dir)


def connect(socket_path=None):
    """Attach to a running `wright driver --socket PATH` (default: $WRIGHT_DRIVER_SOCKET).

    The browser belongs to the driver: close() on the returned Browser only
    disconnects. Actions wait up to wright's 10 s unless told otherwise.
    """
    return connect_browser(socket_path, WRIGHT_TIMEOUT_MS)


def next_run_dir(base="final_runs"):
    """Create and return the next run folder, base/run_<N+1> (N: the largest existing run number).

    When WRIGHT_RUN_DIR is set (wright's gate runs the script into a folder it
    made), that folder is returned instead.
    """
    given = os.environ.get("WRIGHT_RUN_DIR")
    if given:
        os.makedirs(given, exist_ok=True)
        return given
    base = os.fspath(base)
    os.makedirs(base, exist_ok=True)
    largest = 0
    for name in os.listdir(base):
        m = re.fullmatch(r"run_([0-9]+)", name)
        if m and os.path.isdir(os.path.join(base, name)):
            largest = max(largest, int(m.group(1)))
    n = largest + 1
    while True:
        path = os.path.join(base, "run_%d" % n)
        try:
            os.mkdir(path)
            return path
        except FileExistsError:  # another process took it, or a file has that name
            n += 1


class ActionLog:
    """The record a final script leaves in its run folder.

    step(n, text) appends `step <n> action: <text>` to final_script_log.txt (and
    prints it); screenshot(page, name) saves screenshots/final_execution_<k>_<name>.png.
    """

    def __init__(self, run_dir):
        self.run_dir = os.path.abspath(os.fspath(run_dir))
        os.makedirs(self.run_dir, exist_ok=True)
        self.log_path = os.path.join(self.run_dir, "final_script_log.txt")
        self.screenshot_dir = os.path.join(self.run_dir, "screenshots")
        self._shots = 0
        if os.path.isdir(self.screenshot_dir):
            for name in os.listdir(self.screenshot_dir):
                m = re.match(r"final_execution_([0-9]+)_", name)
                if m:
                    self._shots = max(self._shots, int(m.group(1)))

    def step(self, n, action):
        text = " ".join(str(action).split())
        if text.lower().startswith("action:"):
            text = text[len("action:"):].strip()
        line = "step %s action: %s" % (n, text)
        # When stdout already is the log (the gate runs `script > final_script_log.txt`),
        # writing it twice would interleave two file offsets: print only.
        if not _stdout_is(self.log_path):
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        try:
            print(line, flush=True)
        except (OSError, ValueError):
            pass
        return line

    def screenshot(self, page, name, full_page=False):
        self._shots += 1
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", str(name)).strip("_") or "shot"
        path = os.path.join(self.screenshot_dir, "final_execution_%d_%s.png" % (self._shots, safe))
        page.screenshot(path=path, full_page=full_page)
        return path


def _stdout_is(path):
    try:
        out = os.fstat(sys.stdout.fileno())
        target = os.stat(path)
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (target.st_dev, target.st_ino)
