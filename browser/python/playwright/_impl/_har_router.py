"""HAR: recording a context's traffic into a HAR file, and answering requests from one (route_from_har).

The driver does the work (browser/har): it records the network events of a context or a page and
writes the file on export; it opens an archive and looks a request up in it. This module turns
Playwright's options into those calls and routes the requests whose answers come from an archive.
"""

import base64
import os
import re

from ._errors import Error
from ._helpers import _glob_regex

_CONTENT = ("embed", "attach", "omit")
_MODES = ("full", "minimal")

# The record_har_* options of new_context() / new_page().
OPTIONS = ("record_har_path", "record_har_content", "record_har_mode", "record_har_url_filter",
           "record_har_omit_content")


def _url_regex(url, base_url):
    """A Playwright URL filter (glob or re.Pattern) as a regular expression the driver (Go) compiles."""
    if url is None:
        return None
    if isinstance(url, re.Pattern):
        flags = "(?i)" if url.flags & re.IGNORECASE else ""
        return flags + url.pattern
    if not isinstance(url, str):
        raise Error("record_har_url_filter must be a glob string or a re.Pattern", type="InvalidParams")
    if base_url and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) and not url.startswith("*"):
        import urllib.parse
        url = urllib.parse.urljoin(base_url, url)
    return _glob_regex(url)


def check_options(content, mode):
    """Refuse a HAR content or mode the driver does not know (None: its default)."""
    if content is not None and content not in _CONTENT:
        raise Error("content must be one of %s, not %r" % (", ".join(_CONTENT), content), type="InvalidParams")
    if mode is not None and mode not in _MODES:
        raise Error("mode must be one of %s, not %r" % (", ".join(_MODES), mode), type="InvalidParams")


class _Recording:
    """One HAR being recorded by the driver, written when its context closes."""

    def __init__(self, context, path, page=None, content=None, mode=None, url=None):
        check_options(content, mode)
        self._context = context
        self.path = os.path.abspath(os.fspath(path))
        result = context._ccall("har.record_start", page=page.id if page is not None else None, path=self.path,
                                content=content, mode=mode,
                                url_regex=_url_regex(url, context._options.get("base_url")))
        self._id = result["har"]
        self._done = False

    def export(self):
        if self._done:
            return
        self._done = True
        self._context._browser._call("har.record_export", {"har": self._id})


def start_from_options(context, options):
    """The recording new_context()'s record_har_* options ask for, or None."""
    path = options.get("record_har_path")
    if path is None:
        for key in OPTIONS[1:]:
            if key in options:
                raise Error("%s needs record_har_path" % key, type="InvalidParams")
        return None
    content = options.get("record_har_content")
    if content is None and options.get("record_har_omit_content"):
        content = "omit"
    return _Recording(context, path, content=content, mode=options.get("record_har_mode"),
                      url=options.get("record_har_url_filter"))


def export_all(context):
    """Write every HAR the context records (before its pages close: bodies are read from them)."""
    recordings, context._har_recordings = context._har_recordings, []
    errors = []
    for rec in recordings:
        try:
            rec.export()
        except Error as e:
            errors.append(e)
    if errors:
        raise errors[0]


class _HarRouter:
    """Answers routed requests from an opened archive; the rest abort or fall back."""

    def __init__(self, browser, har_id, not_found):
        self._browser = browser
        self._id = har_id
        self._not_found = not_found

    def handle(self, route, request):
        post = request.post_data_buffer
        answer = self._browser._call("har.lookup", {
            "har": self._id, "url": request.url, "method": request.method,
            "headers": request.headers_array(), "navigation": request.is_navigation_request(),
            "post_data": base64.b64encode(post).decode("ascii") if post is not None else None})
        action = answer.get("action")
        if action == "redirect":
            # The navigation goes on at the recorded redirect's end, so the page's URL is that one.
            route.fulfill(status=302, headers={"location": answer["redirect_url"]}, body=b"")
            return
        if action == "fulfill":
            if answer.get("status") == -1:
                return  # recorded without a response (canceled): it stays pending, as it did then
            headers = {}
            for h in answer.get("headers") or []:
                name = h["name"].lower()
                if name in ("content-encoding", "content-length", "transfer-encoding"):
                    continue  # the body is kept decoded, whole
                headers[name] = headers[name] + "\n" + h["value"] if name in headers else h["value"]
            route.fulfill(status=answer["status"], headers=headers,
                          body=base64.b64decode(answer.get("body") or ""))
            return
        if self._not_found == "abort":
            route.abort()
        else:
            route.fallback()

    def dispose(self):
        try:
            self._browser._call("har.close", {"har": self._id})
        except Error:
            pass


def route_from_har(owner, har, url=None, not_found=None, update=None, update_content=None, update_mode=None):
    """page.route_from_har / context.route_from_har (owner is the Page or the BrowserContext)."""
    from ._browser_context import BrowserContext

    context = owner if isinstance(owner, BrowserContext) else owner._context
    if not_found not in (None, "abort", "fallback"):
        raise Error("not_found must be \"abort\" or \"fallback\", not %r" % (not_found,), type="InvalidParams")
    if update:
        page = None if owner is context else owner
        context._har_recordings.append(_Recording(context, har, page=page, content=update_content or "attach",
                                                  mode=update_mode or "minimal", url=url))
        return
    browser = context._browser
    opened = browser._call("har.open", {"path": os.path.abspath(os.fspath(har))})
    router = _HarRouter(browser, opened["har"], not_found or "abort")
    owner.route(url or "**/*", router.handle)
    context._har_routers.append(router)


def close_routers(context):
    routers, context._har_routers = context._har_routers, []
    for r in routers:
        r.dispose()


def finish(context):
    """A closing context's HAR work: write its recordings, release its archives; the first error, or None."""
    try:
        export_all(context)
    except Error as e:
        return e
    finally:
        close_routers(context)
    return None
