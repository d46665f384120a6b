"""wright has no Node.js Playwright driver: its driver is `wright driver`.

compute_driver_executable() still answers where Playwright's driver would be when npm's playwright-core has been
installed where wright's tests install it (internal/peerpages: playwright-core-<version>/package under
$WRIGHT_PEER_PAGES, or under wright-peer-pages in the user's cache directory), in the layout of Playwright's Python
driver (node beside package/), so that tools which look for its trace viewer (package/lib/vite/traceViewer) find
one. Nothing is ever run from it.
"""

import os

from ._errors import Error

# The playwright-core version wright's trace tests install (internal/peerpages.PlaywrightCoreVersion).
PLAYWRIGHT_CORE_VERSION = "1.62.1"


def _playwright_core_dir():
    root = os.environ.get("WRIGHT_PEER_PAGES")
    if not root:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        if os.uname().sysname == "Darwin" and not os.environ.get("XDG_CACHE_HOME"):
            cache = os.path.join(os.path.expanduser("~"), "Library", "Caches")
        root = os.path.join(cache, "wright-peer-pages")
    pkg = os.path.join(root, "playwright-core-" + PLAYWRIGHT_CORE_VERSION, "package")
    return pkg if os.path.isdir(os.path.join(pkg, "lib", "vite", "traceViewer")) else None


def compute_driver_executable():
    pkg = _playwright_core_dir()
    if pkg is None:
        raise Error("wright has no Node.js Playwright driver (its driver is `wright driver`); tools that run "
                    "Playwright's own driver, such as codegen, are not available, and the trace viewer is found "
                    "only where wright's tests install npm's playwright-core %s" % PLAYWRIGHT_CORE_VERSION)
    return (os.path.join(os.path.dirname(pkg), "node"), os.path.join(pkg, "cli.js"))
