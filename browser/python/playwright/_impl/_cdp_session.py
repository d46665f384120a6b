"""CDPSession: a raw Chrome DevTools Protocol session on a page or on the browser (context.new_cdp_session(),
browser.new_browser_cdp_session()). Inside a run the driver sends only the methods that stay inside the page
(no navigation, request interception, files or other targets); see docs/browser-client.md."""

from ._errors import Error
from ._events import _Emitter


class CDPSession(_Emitter):
    """session.send("Runtime.evaluate", {...}) returns CDP's result; session.on("Network.requestWillBeSent", f)
    gets the session's events (their params); detach() ends it."""

    def __init__(self, browser, session_id):
        _Emitter.__init__(self)
        self._browser = browser
        self._id = session_id

    def __repr__(self):
        return "<CDPSession %s>" % self._id

    def send(self, method, params=None):
        if not isinstance(method, str) or not method:
            raise Error("CDPSession.send: method must be a CDP method name such as 'Runtime.evaluate'")
        if params is not None and not isinstance(params, dict):
            raise Error("CDPSession.send: params must be a dict, got %s" % type(params).__name__)
        result = self._browser._call("cdp.send", {"session": self._id, "method": method, "params": params or {}})
        return result.get("result") or {}

    def detach(self):
        self._browser._cdp_sessions.pop(self._id, None)
        self._browser._call("cdp.detach", {"session": self._id})


def _new_cdp_session(browser, page=None):
    """A session on page (a Page or a Frame's page), or on the browser when page is None."""
    params = {}
    if page is not None:
        target = page if hasattr(page, "main_frame") else getattr(page, "page", None)  # a Page, or a Frame's
        params["page"] = getattr(target, "id", None)
        if not isinstance(params["page"], str):
            raise Error("new_cdp_session: expected a Page or a Frame, got %r" % (page,))
    session = CDPSession(browser, browser._call("cdp.new_session", params)["session"])
    browser._cdp_sessions[session._id] = session
    return session


def _cdp_notify(browser, method, params):
    """A driver event of a CDP session (cdp.event, cdp.detached) for its session object."""
    session = browser._cdp_sessions.get(params.get("session"))
    if session is None:
        return
    if method == "cdp.event":
        session._emit(params.get("method") or "", params.get("params") or {})
