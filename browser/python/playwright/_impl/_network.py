"""Network: Request, Response and Route, the route table Page and BrowserContext share, and page errors."""

import base64
import json
import os
import re
import threading
import time
import urllib.parse

from ._errors import CallbackCancelled, Error, InvalidParams, TargetClosed
from ._helpers import _url_matches
from ._fetch import _fetch
from ._web_socket_route import _route_web_socket
from ._lazy import lazy

inspect = lazy("inspect")
mimetypes = lazy("mimetypes")


class Request:
    """A request a page made (page.on("request"), expect_request(), response.request)."""

    def __init__(self, page, params, redirected_from=None):
        self._page = page
        self._id = params.get("request")
        self.url = params.get("url") or ""
        self.method = params.get("method") or "GET"
        self._headers = {k.lower(): v for k, v in (params.get("headers") or {}).items()}
        self._original_url = self.url  # what a continue's new URL is checked against, whatever fallbacks did
        self.post_data = params.get("post_data")
        self._post_data_b64 = params.get("post_data_b64")
        self.resource_type = params.get("resource_type") or "other"
        self._navigation = bool(params.get("navigation"))
        self._main_frame = params.get("main_frame", True)
        self._frame_id = params.get("frame")
        self.redirected_from = redirected_from
        self.redirected_to = None
        self._response = None
        self._finished = False
        self._url_overridden = False  # a route continued it with another URL: that one is kept
        self.failure = None
        self._wall_time = params.get("wall_time") or time.time()
        self._timestamp = params.get("timestamp")
        self._raw_timing = None  # Chromium's resource timing, from the response
        self.timing = _timing(self._wall_time, self._timestamp, None)
        # The headers as sent on the wire (the driver's page.rawheaders), None until known; _raw_none: none
        # will come. _raw_next: a redirect's next hop's, come early; _raw_response: its response's, come
        # before the response itself.
        self._raw, self._raw_none, self._raw_next, self._raw_response = None, False, None, None
        self._raw_from_route = False  # _raw is the paused request's headers, until the wire's come
        if redirected_from is not None and redirected_from._raw_next is not None:
            self._raw, self._raw_none = redirected_from._raw_next
            redirected_from._raw_next = None

    def __repr__(self):
        return "<Request url=%r method=%r>" % (self.url, self.method)

    @property
    def headers(self):
        return dict(self._headers)

    def all_headers(self):
        return _joined(self._actual_headers())

    def header_value(self, name):
        return _joined(self._actual_headers(), name.lower()).get(name.lower())

    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._actual_headers()]

    def _actual_headers(self):
        """The raw headers, waited for until Chromium reports them or says it will not (then the page's)."""
        if self._raw is None and not self._raw_none and not self._finished and self.failure is None:
            page = self._page
            page._transport_of().pump(page._timeout_ms() / 1000.0,
                                      lambda: self._raw is not None or self._raw_none or self._finished or
                                      self.failure is not None or page._closed)
        if self._raw is not None:
            return self._raw
        return [(k, v) for k, v in self._headers.items()]

    @property
    def post_data_buffer(self):
        if self._post_data_b64 is not None:
            return base64.b64decode(self._post_data_b64)  # a body that is not UTF-8 text, byte for byte
        return None if self.post_data is None else self.post_data.encode("utf-8")

    @property
    def post_data_json(self):
        if self.post_data is None:
            return None
        if self._headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return dict(urllib.parse.parse_qsl(self.post_data))
        try:
            return json.loads(self.post_data)
        except ValueError:
            raise Error("POST data is not a valid JSON object: " + self.post_data) from None

    @property
    def frame(self):
        return self._page._frame_for(self._frame_id, self._main_frame)

    def is_navigation_request(self):
        return self._navigation

    @property
    def existing_response(self):
        """The response if it has been received already, else None (no waiting)."""
        return self._response

    def response(self):
        if self._response is None and not self._finished and self.failure is None:
            self._page._transport_of().pump(self._page._timeout_ms() / 1000.0,
                                            lambda: self._response is not None or self._finished or
                                            self.failure is not None)
        return self._response

    def sizes(self):
        target = urllib.parse.urlsplit(self.url)
        path = (target.path or "/") + ("?" + target.query if target.query else "")
        head = "%s %s HTTP/1.1\r\nHost: %s\r\n" % (self.method, path, target.netloc)
        head += "".join("%s: %s\r\n" % (k, v) for k, v in self._headers.items()) + "\r\n"
        sizes = {"requestBodySize": len(self.post_data_buffer or b""), "requestHeadersSize": len(head.encode()),
                 "responseBodySize": 0, "responseHeadersSize": 0}
        resp = self.response()
        if resp is not None:
            lines = "".join("%s: %s\r\n" % (k, v) for k, v in (resp._headers or {}).items())
            sizes["responseHeadersSize"] = len(("HTTP/1.1 %s %s\r\n%s\r\n" % (resp.status, resp.status_text, lines)).encode())
            try:
                sizes["responseBodySize"] = len(resp.body())
            except Error:
                pass
        return sizes

    @property
    def service_worker(self):
        return None


_TIMING_FIELDS = (("domainLookupStart", "dnsStart"), ("domainLookupEnd", "dnsEnd"),
                  ("connectStart", "connectStart"), ("secureConnectionStart", "sslStart"),
                  ("connectEnd", "connectEnd"), ("requestStart", "sendStart"),
                  ("responseStart", "receiveHeadersEnd"))


def _timing(wall_time, timestamp, raw):
    """Playwright's ResourceTiming of a request from Chromium's: startTime in ms since the epoch, the rest
    in ms after it, -1 where not measured (responseEnd until the response has ended)."""
    timing = {"startTime": wall_time * 1000}
    timing.update({name: -1 for name, _ in _TIMING_FIELDS})
    timing["responseEnd"] = -1
    if raw:
        if timestamp is not None and raw.get("requestTime"):
            timing["startTime"] = (raw["requestTime"] - timestamp + wall_time) * 1000
        for name, chromium in _TIMING_FIELDS:
            value = raw.get(chromium)
            timing[name] = -1 if value is None else value
    return timing


def _timing_ended(request, raw, end_timestamp):
    """The request's timing once its response ended at end_timestamp (Chromium's monotonic seconds)."""
    if raw is not None:
        request.timing = _timing(request._wall_time, request._timestamp, raw)
        request._raw_timing = raw
    raw = request._raw_timing
    if raw and raw.get("requestTime") and end_timestamp:
        request.timing["responseEnd"] = (end_timestamp - raw["requestTime"]) * 1000


class Response:
    """A response: what goto() returned, or page.on("response") / expect_response()."""

    def __init__(self, url, status, page=None, request=None, headers=None, status_text="", from_cache=False):
        self.url = url
        self.status = status
        self.status_text = status_text or ""
        self._page = page
        self._request = request
        self._headers = {k.lower(): v for k, v in (headers or {}).items()}
        self._from_cache = from_cache
        self._network = None  # the driver's network facts (addresses, security), when it sent them
        self._raw, self._raw_none = None, False  # as Request's: the headers as received
        if request is not None and request._raw_response is not None:
            (self._raw, self._raw_none), request._raw_response = request._raw_response, None

    @property
    def ok(self):
        return self.status is None or self.status == 0 or 200 <= self.status < 300

    def __repr__(self):
        return "<Response url=%r request=%r>" % (self.url, self._request)

    @property
    def request(self):
        return self._request

    @property
    def frame(self):
        if self._request is not None and self._page is not None:
            return self._request.frame
        return self._page.main_frame if self._page else None

    @property
    def headers(self):
        return dict(self._headers)

    def all_headers(self):
        return _joined(self._actual_headers())

    def header_value(self, name):
        return _joined(self._actual_headers(), name.lower()).get(name.lower())

    def header_values(self, name):
        return [v for k, v in self._actual_headers() if k.lower() == name.lower()]

    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._actual_headers()]

    def _actual_headers(self):
        """The raw headers, waited for until Chromium reports them, says it will not, or the body ended
        (then the ones the response event gave, a repeated header's values split)."""
        req, page = self._request, self._page
        if self._raw is None and not self._raw_none and req is not None and page is not None:
            if not req._finished and req.failure is None:
                page._transport_of().pump(page._timeout_ms() / 1000.0,
                                          lambda: self._raw is not None or self._raw_none or req._finished or
                                          req.failure is not None or page._closed)
        if self._raw is not None:
            return self._raw
        return [(k, item) for k, v in self._headers.items() for item in v.split("\n")]

    def finished(self):
        req, page = self._request, self._page

        def gone():
            ctx = page._context
            return page._closed or (ctx is not None and ctx._closed)

        if req is not None and not req._finished:
            if req.failure is None:
                page._transport_of().pump(page._timeout_ms() / 1000.0,
                                          lambda: req._finished or req.failure is not None or gone())
            if not req._finished and gone():
                raise TargetClosed("Response.finished: Target page, context or browser has been closed",
                                   method="Response.finished")
        return None if req is None or req.failure is None else req.failure

    def body(self):
        if self._request is None or self._page is None:
            raise Error("Response.body: this response has no recorded request (the page was not observed)")
        if self._request.redirected_to is not None:
            # The browser keeps no body of a hop it followed (Playwright says so rather than returning b"").
            raise Error("Response.body: Response body is unavailable for redirect responses")
        self.finished()
        data = self._page._call("network.response_body", request=self._request._id).get("data") or ""
        return base64.b64decode(data)

    def text(self):
        return self.body().decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text())

    def _net(self):
        return self._network or {}

    def server_addr(self):
        """{"ipAddress", "port"} of the server that answered, when the browser knows it."""
        ip, port = self._net().get("remote_ip"), self._net().get("remote_port")
        if not ip:
            return None
        return {"ipAddress": ip if ":" not in ip or ip.startswith("[") else "[%s]" % ip, "port": port}

    def security_details(self):
        """The TLS certificate's summary (protocol, subjectName, issuer, validFrom, validTo), None for HTTP."""
        details = self._net().get("security")
        return {k: v for k, v in details.items() if v not in (None, "")} if details else None

    def http_version(self):
        proto = (self._net().get("protocol") or "http/1.1").lower()
        return {"h2": "HTTP/2.0", "h3": "HTTP/3.0", "http/1.0": "HTTP/1.0"}.get(proto, "HTTP/1.1")

    @property
    def from_service_worker(self):
        """Whether a service worker of the page answered it (its fetch handler), not the network."""
        return bool(self._net().get("from_service_worker"))


def _joined(pairs, only=None):
    """Headers by lower-case name, a repeated one's values joined as Playwright joins them (", ", and
    set-cookie's with newlines); only: just that name's."""
    out = {}
    for k, v in pairs:
        name = k.lower()
        if only is not None and name != only:
            continue
        if name in out:
            out[name] += ("\n" if name == "set-cookie" else ", ") + v
        else:
            out[name] = v
    return out


def _on_raw_headers(page, kind, params):
    """page.rawheaders: what one side of a request carried on the wire, or that Chromium reports none."""
    req = page._requests.get(params.get("request"))
    if req is None:
        return
    raw = (None, True) if params.get("none") else ([(n, v) for n, v in params.get("headers") or []], False)
    if params.get("side") == "request":
        if (req._raw is None and not req._raw_none) or req._raw_from_route:
            (req._raw, req._raw_none), req._raw_from_route = raw, False
        elif not raw[1]:
            req._raw_next = raw  # a redirect's next hop's, before its request event
        return
    resp = req._response
    if resp is not None and resp._raw is None and not resp._raw_none:
        resp._raw, resp._raw_none = raw
    elif resp is None:
        req._raw_response = raw


# The page events this module handles (Page's event table takes them in).
PAGE_EVENTS = {"rawheaders": _on_raw_headers}


class PageError(Error):
    """An uncaught error of the page, as page.page_errors() lists it (Playwright gives Error objects;
    e["message"] and e["stack"] keep wright's dict reading working)."""

    def __init__(self, record):
        stack = record.get("stack") or ""
        first = stack.split("\n", 1)[0]
        name = first.split(":", 1)[0] if ":" in first and " " not in first.split(":", 1)[0] else "Error"
        message = record.get("message") or ""
        if message.startswith("Uncaught "):
            message = message[len("Uncaught "):]
        m = re.match(r"((?:[A-Za-z_$][\w$]*)?(?:Error|Exception)): ", message)
        if m:
            name, message = m.group(1), message[m.end():]
        super().__init__(message, type=name)
        self.stack = stack
        self._record = dict(record)

    def __getitem__(self, key):
        return self._record[key]

    def get(self, key, default=None):
        return self._record.get(key, default)


class WebError:
    """context.on("weberror"): an uncaught error of one of the context's pages."""

    def __init__(self, page, error, location=None):
        self.page = page
        self.error = error
        self.location = location or {"url": "", "line": 0, "column": 0}


class Route:
    """A paused request that a route handler decides: fulfill(), abort(), continue_() or fallback()."""

    def __init__(self, page, params, request):
        self._page = page
        self._id = params.get("route")
        self.request = request
        self._handled = False
        self._fell_back = False
        self._overrides = {}
        self._decided = threading.Event()  # set by a settle or a fallback (the async API waits for it)
        same_hop = (params.get("url") or "").split("#")[0] == request.url.split("#")[0]
        if same_hop and params.get("headers") is not None and not request._url_overridden:
            # The paused request's headers are the ones it will go with (a cross-origin fetch's Origin
            # included); Chromium reports no raw ones while it is paused, so they stand in until it does.
            request._headers = {k.lower(): v for k, v in params["headers"].items()}
            if request._raw is None:
                request._raw, request._raw_from_route = list(params["headers"].items()), True

    def __repr__(self):
        return "<Route request=%r>" % self.request

    def _settle(self, _rpc, **params):
        if self._handled:
            raise Error("Route is already handled!", type="Error")
        self._handled = True
        self._decided.set()
        body = {"page": self._page.id, "route": self._id}
        body.update({k: v for k, v in params.items() if v is not None})
        try:
            self._page._browser._call(_rpc, body)
        except TargetClosed:
            # The page closed while its handler ran (the handler may have closed it): nothing is left to
            # answer, and Playwright's handlers do not fail for it.
            if not self._page._closed:
                raise
        except InvalidParams as err:
            # The page cancelled the request meanwhile (this client never settles a route twice: _handled).
            if "its request is gone" not in str(err):
                raise

    def _await_decision(self):
        """Under the async API a handler may return before it decides (it scheduled a task that will): the
        route waits for the decision, as Playwright's does, until its page closes."""
        page = self._page
        if page._browser._transport._hub is None:
            return
        while not self._decided.wait(0.1):
            if page._closed or page._browser._transport._gone:
                return

    def abort(self, error_code=None):
        self._settle("route.abort", error_code=error_code or "failed")

    def fulfill(self, status=None, headers=None, body=None, json=None, path=None, content_type=None,
                response=None):
        import json as _json
        import mimetypes

        if response is not None:
            status = status if status is not None else response.status
            headers = headers if headers is not None else response.headers
            if body is None and json is None and path is None:
                body = response.body()
        hdrs = {k.lower(): str(v) for k, v in (headers or {}).items()}
        if json is not None:
            body = _json.dumps(json)
            hdrs.setdefault("content-type", "application/json")
        if path is not None:
            with open(path, "rb") as f:
                body = f.read()
            guessed = mimetypes.guess_type(os.fspath(path))[0]
            if guessed:
                hdrs.setdefault("content-type", guessed)
        if content_type:
            hdrs["content-type"] = content_type
        data = body.encode("utf-8") if isinstance(body, str) else (body or b"")
        if isinstance(body, str):
            hdrs.setdefault("content-type", "text/plain")
        if data:
            hdrs.setdefault("content-length", str(len(data)))
        self._settle("route.fulfill", status=status or 200, headers=hdrs,
                     body=base64.b64encode(data).decode("ascii"))

    def _merged(self, url, method, headers, post_data):
        ov = dict(self._overrides)
        for k, v in (("url", url), ("method", method), ("headers", headers), ("post_data", post_data)):
            if v is not None:
                ov[k] = v
        return ov

    def continue_(self, url=None, method=None, headers=None, post_data=None):
        ov = self._merged(url, method, headers, post_data)
        if ov.get("url") is not None:
            old, new = urllib.parse.urlsplit(self.request._original_url), urllib.parse.urlsplit(ov["url"])
            if old.scheme.lower() != new.scheme.lower():
                raise Error("Route.continue_: New URL must have same protocol as overridden URL")
        self._apply_overrides(url, method, headers, post_data)
        pd = ov.get("post_data")
        if pd is not None:
            if isinstance(pd, (dict, list)):
                pd = json.dumps(pd)
            pd = base64.b64encode(pd.encode("utf-8") if isinstance(pd, str) else pd).decode("ascii")
        self._settle("route.continue", url=ov.get("url"), method=ov.get("method"),
                     headers={k: str(v) for k, v in ov["headers"].items() if v is not None}
                     if ov.get("headers") is not None else None,
                     post_data=pd)

    def fallback(self, url=None, method=None, headers=None, post_data=None):
        if self._handled:
            raise Error("Route is already handled!", type="Error")
        self._overrides = self._merged(url, method, headers, post_data)
        self._apply_overrides(url, method, headers, post_data)
        self._fell_back = True
        self._decided.set()

    def _apply_overrides(self, url, method, headers, post_data):
        """What a fallback or continue changes shows on route.request, for the next handlers and
        listeners (Playwright's rule); a header given as None is removed."""
        req = self.request
        if url is not None:
            req.url = url
            req._url_overridden = True
        if method is not None:
            req.method = method
        if headers is not None:
            req._headers = {str(k).lower(): str(v) for k, v in headers.items() if v is not None}
            # all_headers() says what the request will go with, until the wire's own come
            req._raw, req._raw_none, req._raw_from_route = list(req._headers.items()), False, True
        if post_data is not None:
            if isinstance(post_data, (dict, list)):
                post_data = json.dumps(post_data)
            req._post_data_b64 = None
            if isinstance(post_data, (bytes, bytearray)):
                req._post_data_b64 = base64.b64encode(bytes(post_data)).decode()
                post_data = bytes(post_data).decode("latin-1")
            req.post_data = post_data

    def fetch(self, url=None, method=None, headers=None, post_data=None, max_redirects=None, max_retries=None,
              timeout=None):
        """Make the request (with the overrides given and those of earlier fallbacks) and return the
        response, so that fulfill(response=...) can answer with it, changed or not."""
        ov = self._merged(url, method, headers, post_data)
        req = self.request
        hdrs = ov.get("headers") if ov.get("headers") is not None else req.headers
        data = ov.get("post_data") if ov.get("post_data") is not None else req.post_data_buffer
        if timeout is None:
            timeout = self._page._default_timeout or self._page._browser._default_timeout
        return _fetch(self._page, "Route.fetch", ov.get("url") or req.url, ov.get("method") or req.method, hdrs,
                      data, timeout, max_redirects)


class _RouteEntry:
    def __init__(self, url, handler, times, base):
        self.url = url
        self.handler = handler
        self.times = times
        self.base = base
        self.count = 0
        # The threads running this handler now, for unroute_all(behavior="wait"); an entry unrouted with
        # behavior="ignoreErrors" drops what its running handlers raise afterwards.
        self._running = []
        self._idle = threading.Condition()
        self.ignore_errors = False

    def matches(self, url):
        return _url_matches(self.url, url, self.base)

    def run(self, route, request):
        self.count += 1
        try:
            nargs = len(inspect.signature(self.handler).parameters)
        except (TypeError, ValueError):
            nargs = 2
        if nargs == 1:
            self.handler(route)
        else:
            self.handler(route, request)

    def expired(self):
        return self.times is not None and self.count >= self.times

    def enter(self):
        with self._idle:
            self._running.append(threading.get_ident())

    def leave(self):
        with self._idle:
            self._running.remove(threading.get_ident())
            self._idle.notify_all()

    def wait_idle(self):
        """Until the handler runs nowhere but, perhaps, on this thread (a handler that unroutes itself)."""
        me = threading.get_ident()
        with self._idle:
            while any(t != me for t in self._running):
                self._idle.wait(0.1)


def _route_through(route, request, entries):
    """Run the matching handlers, newest first, until one does not fall back; else continue."""
    for owner, entry in entries:
        # A handler that ran before may have unrouted this one.
        if entry not in owner._routes or not entry.matches(request.url) or entry.expired():
            continue
        route._fell_back = False
        route._decided.clear()
        entry.enter()
        try:
            entry.run(route, request)
            route._await_decision()
        except CallbackCancelled:
            return  # the handler's task was cancelled: the script stopped it, nothing to report
        except Exception:
            # Unrouted with behavior="ignoreErrors", or its page closed meanwhile: nobody waits for it.
            if entry.ignore_errors or route._page._closed:
                return
            raise
        finally:
            entry.leave()
        if entry.expired() and entry in owner._routes:
            owner._routes.remove(entry)
            owner._routes_changed()
        if not route._fell_back:
            return
    if not route._handled:
        route.continue_()


class Disposable:
    """What page.route() and context.route() return: dispose() (or leaving a with-block) undoes it."""

    def __init__(self, dispose):
        self._dispose = dispose

    def dispose(self):
        if self._dispose is not None:
            dispose, self._dispose = self._dispose, None
            dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dispose()
        return False


class _Routing:
    """page.route / context.route: shared by Page and BrowserContext, which set self._routes = []."""

    def _base_url(self):
        ctx = self if isinstance(self, BrowserContext) else self._context
        return ctx._options.get("base_url") if ctx is not None else None

    def route(self, url, handler, times=None):
        """Route matching requests to handler; returns a Disposable (a context manager) that unroutes it."""
        routes = self._routes
        entry = _RouteEntry(url, handler, times, self._base_url())
        routes.append(entry)
        self._routes_changed()
        return Disposable(lambda: self._drop_route(entry))

    def _drop_route(self, entry):
        routes = self._routes
        if entry in routes:
            routes.remove(entry)
            self._routes_changed()

    def unroute(self, url, handler=None):
        routes = self._routes
        routes[:] = [e for e in routes if not (e.url == url and (handler is None or e.handler == handler))]
        self._routes_changed()

    def unroute_all(self, behavior=None):
        """Remove every route. behavior "wait" waits for the handlers running now; "ignoreErrors" drops what
        they raise later; the default neither waits nor drops."""
        if behavior not in (None, "default", "wait", "ignoreErrors"):
            raise Error('unroute_all: behavior must be "wait", "ignoreErrors" or "default", not %r' % (behavior,))
        removed, self._routes = self._routes, []
        self._routes_changed()
        for entry in removed:
            if behavior == "ignoreErrors":
                entry.ignore_errors = True
            elif behavior == "wait":
                entry.wait_idle()

    def route_from_har(self, har, url=None, not_found=None, update=None, update_content=None, update_mode=None):
        _har_router.route_from_har(self, har, url=url, not_found=not_found, update=update,
                                   update_content=update_content, update_mode=update_mode)

    def route_web_socket(self, url, handler):
        """Route the WebSockets whose URL matches url to handler(WebSocketRoute) (_web_socket_route.py)."""
        _route_web_socket(self, url, handler)


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global BrowserContext, _har_router
    from ._browser_context import BrowserContext
    from . import _har_router
