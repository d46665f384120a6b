"""wright's `playwright` package: Playwright's Python sync API on wright's driver (standard library only).

`from playwright.sync_api import sync_playwright, expect` works as with Playwright itself; the
implementation is wright_browser (installed beside this package), so the driver's URL policy, secrets
and evaluators apply. A script written against it also runs where the real package is installed.
"""

__version__ = "1.0.0+wright"
