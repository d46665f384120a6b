"""wright's implementation of Playwright's sync API, on `wright driver` (standard library only).

The modules are loaded here in dependency order: each imports what it needs from the modules above it.
The few that also use, when called, a name from a module below them (a Request makes its BrowserContext,
a handle may be an ElementHandle) take it in their _link(), run once all are loaded. Importing any of
them runs this first, so the order holds however the package is entered.
"""

from . import _errors, _str_utils, _glob, _helpers, _helper, _transport, _events, _aria_template, _clock  # noqa: F401
from . import _js_handle, _console_message, _dialog, _fetch, _web_socket_route, _network, _har_router  # noqa: F401
from . import _input, _files, _locator, _element_handle, _waiter, _frame, _pdf, _page  # noqa: F401
from . import _cdp_session, _browser_context, _browser, _browser_type, _selectors, _devices  # noqa: F401
from . import _playwright, _assertions  # noqa: F401

for _module in (_js_handle, _fetch, _network):
    _module._link()
del _module
