"""API requests: context.request / page.request (sharing the context's cookies), playwright.request's own
request contexts, and route.fetch(). The driver makes every exchange (package browser/apirequest), each hop
under the run's URL policy and through its proxy as the browser's requests are; this module shapes the
request (params, form, multipart, JSON) and the answer."""

import base64
import json
import os
import urllib.parse
import weakref

from ._errors import Error
from ._transport import _PipeTransport, _SocketTransport, _driver_binary, _guard_seconds, _install_exit_hooks
from ._lazy import lazy

datetime = lazy("datetime")
mimetypes = lazy("mimetypes")
uuid = lazy("uuid")
pathlib = lazy("pathlib")


class APIResponse:
    """What route.fetch() and the request contexts answer with: the whole response, body included."""

    def __init__(self, result, owner=None):
        self.url = result.get("url") or ""
        self.status = result.get("status") or 0
        self.status_text = result.get("status_text") or ""
        self._pairs = [(str(k), str(v)) for k, v in (result.get("headers") or [])]
        self._body = base64.b64decode(result.get("body") or "")
        self._timing = result.get("timing") or {}
        self._disposed = False
        if owner is not None:
            owner._responses.add(self)

    def __repr__(self):
        return "<APIResponse url=%r status=%r status_text=%r>" % (self.url, self.status, self.status_text)

    @property
    def ok(self):
        return 200 <= self.status <= 299

    @property
    def headers(self):
        out = {}
        for k, v in self._pairs:
            k = k.lower()
            out[k] = v if k not in out else out[k] + ("\n" if k == "set-cookie" else ", ") + v
        return out

    @property
    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._pairs]

    @property
    def timing(self):
        return dict(self._timing)

    def body(self):
        if self._disposed:
            raise Error("Response has been disposed")
        return self._body

    def text(self):
        return self.body().decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text())

    def dispose(self):
        self._disposed = True
        self._body = b""


class FormData:
    """Fields for a request's form= or multipart=; a name may repeat (append) or be set once (set)."""

    def __init__(self):
        self._fields = []

    def append(self, name, value):
        self._fields.append((name, value))
        return self

    def set(self, name, value):
        self._fields = [(k, v) for k, v in self._fields if k != name]
        self._fields.append((name, value))
        return self


# Headers the HTTP client sets itself: forwarding the browser's would garble the exchange (an
# Accept-Encoding it did not ask for leaves the body compressed).
_FETCH_DROPPED_HEADERS = frozenset(("host", "content-length", "connection", "accept-encoding", "keep-alive",
                                    "transfer-encoding"))


def _ms(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds() * 1000
    return timeout


def _renamed(exc, api):
    """The driver's error named after the API method (Route.fetch, APIRequestContext.get)."""
    text = exc.message
    for prefix in ("request.fetch: ", "context.fetch: ", "apirequest.fetch: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return type(exc)("%s: %s" % (api, text), type=exc.type, method=api)


def _fetch(page, api, url, method=None, headers=None, data=None, timeout=None, max_redirects=None):
    """route.fetch's request, made with the page (its certificate setting, its context's cookies)."""
    if isinstance(data, (dict, list)):
        data = json.dumps(data)
        headers = dict(headers or {})
        if not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
    if isinstance(data, str):
        data = data.encode("utf-8")
    hdrs = {str(k): str(v) for k, v in (headers or {}).items()
            if v is not None and str(k).lower() not in _FETCH_DROPPED_HEADERS}
    timeout = _ms(timeout)
    try:
        result = page._call("request.fetch", timeout if timeout else None, url=url, http_method=method, headers=hdrs,
                            post_data=base64.b64encode(data).decode("ascii") if data else None,
                            max_redirects=max_redirects)
    except Error as exc:
        raise _renamed(exc, api) from None
    return APIResponse(result)


# ---- shaping a request ---------------------------------------------------------------------------------


def _with_params(url, params):
    if not params:
        return url
    if isinstance(params, str):
        pairs = urllib.parse.parse_qsl(params.lstrip("?"), keep_blank_values=True)
    elif isinstance(params, dict):
        pairs = [(k, _param_value(v)) for k, v in params.items()]
    else:
        pairs = [(k, _param_value(v)) for k, v in params]
    query = urllib.parse.urlencode(pairs)
    parts = urllib.parse.urlsplit(url)
    joined = parts.query + "&" + query if parts.query else query
    return urllib.parse.urlunsplit(parts._replace(query=joined))


def _param_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _fields(form):
    if isinstance(form, FormData):
        return list(form._fields)
    return list(form.items())


def _is_file(value):
    return isinstance(value, (pathlib.PurePath, dict)) or hasattr(value, "read")


def _form_body(api, form):
    fields = _fields(form)
    for _, v in fields:
        if _is_file(v):
            raise Error("%s: a file cannot be sent in 'form' (URL-encoded). Use 'multipart' for file uploads" % api)
    return urllib.parse.urlencode([(k, _param_value(v)) for k, v in fields]).encode("ascii")


def _file_part(value):
    """(file name, mime type, bytes) of a multipart file value: a FilePayload, a path or an open file."""
    if isinstance(value, dict):
        buf = value.get("buffer") or b""
        return value.get("name") or "", value.get("mimeType") or "application/octet-stream", \
            buf.encode("utf-8") if isinstance(buf, str) else bytes(buf)
    if isinstance(value, pathlib.PurePath):
        with open(value, "rb") as f:
            data = f.read()
        name = os.path.basename(os.fspath(value))
    else:
        data = value.read()
        name = os.path.basename(getattr(value, "name", "") or "file")
        data = data.encode("utf-8") if isinstance(data, str) else data
    return name, mimetypes.guess_type(name)[0] or "application/octet-stream", data


def _multipart_body(multipart):
    """A multipart/form-data body and its content type."""
    boundary = "----WrightFormBoundary" + uuid.uuid4().hex
    out = []
    for name, value in _fields(multipart):
        disposition = 'form-data; name="%s"' % _quote(name)
        if _is_file(value):
            fname, mime, data = _file_part(value)
            head = 'Content-Disposition: %s; filename="%s"\r\nContent-Type: %s\r\n' % (disposition, _quote(fname), mime)
        else:
            head, data = "Content-Disposition: %s\r\n" % disposition, _param_value(value).encode("utf-8")
        out.append(b"--" + boundary.encode() + b"\r\n" + head.encode("utf-8") + b"\r\n" + data + b"\r\n")
    out.append(b"--" + boundary.encode() + b"--\r\n")
    return b"".join(out), "multipart/form-data; boundary=" + boundary


def _quote(s):
    return str(s).replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _has(headers, name):
    return any(k.lower() == name for k, _ in headers)


def _body(api, headers, data, form, multipart):
    """The request body as bytes (or None), adding the content type it implies unless one is set."""
    given = sum(x is not None for x in (data, form, multipart))
    if given > 1:
        raise Error("%s: only one of 'data', 'form' or 'multipart' can be specified" % api)
    kind, body = None, None
    if form is not None:
        kind, body = "application/x-www-form-urlencoded", _form_body(api, form)
    elif multipart is not None:
        body, kind = _multipart_body(multipart)
    elif data is not None:
        kind, body = _data_body(api, headers, data)
    if kind and not _has(headers, "content-type"):
        headers.append(("content-type", kind))
    return body


def _data_body(api, headers, data):
    json_type = any(k.lower() == "content-type" and "json" in str(v).lower() for k, v in headers)
    if isinstance(data, (bytes, bytearray, memoryview)):
        return "application/octet-stream", bytes(data)
    if isinstance(data, str):
        if json_type and not _json_parsable(data):
            return "application/json", json.dumps(data).encode("utf-8")
        return ("application/json" if json_type else "application/octet-stream"), data.encode("utf-8")
    if isinstance(data, (dict, list, int, float, bool)) or data is None:
        return "application/json", json.dumps(data).encode("utf-8")
    # The async API hands a script's callable over wrapped (its bridge's Callback keeps it as .f): the error
    # names the type the script passed.
    given = data.f if callable(data) and callable(getattr(data, "f", None)) else data
    raise Error("%s: Unsupported 'data' type: %s" % (api, type(given)))


def _json_parsable(s):
    try:
        json.loads(s)
    except ValueError:
        return False
    return True


# ---- request contexts ----------------------------------------------------------------------------------


class APIRequestContext:
    """HTTP requests made by the driver (context.request, page.request, playwright.request.new_context()).

    A browser context's shares its cookies both ways; a new_context() one keeps a jar of its own, saved with
    storage_state(). Every hop, redirects too, is checked by the run's URL policy and goes through its proxy.
    """

    def __init__(self, backend):
        self._backend = backend
        self._responses = weakref.WeakSet()
        self._disposed = None  # why it can no longer be used
        self._defaults = {}  # the backend's, read at each request (the context's may change)

    def __repr__(self):
        return "<APIRequestContext>"

    def fetch(self, url_or_request, params=None, method=None, headers=None, data=None, form=None,
              multipart=None, timeout=None, fail_on_status_code=None, ignore_https_errors=None,
              max_redirects=None, max_retries=None):
        return self._request(url_or_request, method, params, headers, data, form, multipart, timeout,
                             fail_on_status_code, ignore_https_errors, max_redirects, max_retries, "fetch")

    def get(self, url, **kwargs):
        return self._verb("GET", url, kwargs)

    def head(self, url, **kwargs):
        return self._verb("HEAD", url, kwargs)

    def post(self, url, **kwargs):
        return self._verb("POST", url, kwargs)

    def put(self, url, **kwargs):
        return self._verb("PUT", url, kwargs)

    def patch(self, url, **kwargs):
        return self._verb("PATCH", url, kwargs)

    def delete(self, url, **kwargs):
        return self._verb("DELETE", url, kwargs)

    def _verb(self, method, url, kwargs):
        kwargs.pop("method", None)
        args = [kwargs.pop(k, None) for k in ("params", "headers", "data", "form", "multipart", "timeout",
                                             "fail_on_status_code", "ignore_https_errors", "max_redirects",
                                             "max_retries")]
        if kwargs:
            raise TypeError("APIRequestContext.%s() got unexpected keyword argument(s) %s"
                            % (method.lower(), ", ".join(sorted(kwargs))))
        return self._request(url, method, *args, api_name=method.lower())

    def _request(self, url_or_request, method, params, headers, data, form, multipart, timeout,
                 fail_on_status_code, ignore_https_errors, max_redirects, max_retries, api_name):
        api = "APIRequestContext." + api_name
        if self._disposed:
            raise Error("%s: %s" % (api, self._disposed), type="TargetClosed")
        assert max_redirects is None or max_redirects >= 0, "'max_redirects' must be greater than or equal to '0'"
        assert max_retries is None or max_retries >= 0, "'max_retries' must be greater than or equal to '0'"
        self._defaults = {k: v for k, v in self._backend.defaults().items() if v is not None}
        url, method, headers, data = self._from_request(url_or_request, method, headers, data)
        pairs = self._headers(headers)
        body = _body(api, pairs, data, form, multipart)
        req = {"url": _with_params(self._absolute(url), params), "http_method": method or "GET",
               "headers": [[k, v] for k, v in pairs],
               "post_data": base64.b64encode(body).decode("ascii") if body else None,
               "max_redirects": max_redirects if max_redirects is not None else self._defaults.get("max_redirects"),
               "ignore_https_errors": bool(ignore_https_errors or self._defaults.get("ignore_https_errors"))}
        to = _ms(timeout) if timeout is not None else self._backend.timeout()
        req["timeout"] = to or 0
        resp = self._send(api, req, max_retries or 0)
        fail = fail_on_status_code if fail_on_status_code is not None else self._defaults.get("fail_on_status_code")
        if fail and not resp.ok:
            raise Error("%s: %d %s" % (api, resp.status, resp.status_text))
        return resp

    def _send(self, api, req, retries):
        while True:
            try:
                return APIResponse(self._backend.fetch(req), self)
            except Error as exc:
                if retries > 0 and "socket hang up" in exc.message:
                    retries -= 1
                    continue
                raise _renamed(exc, api) from None

    def _from_request(self, url_or_request, method, headers, data):
        if isinstance(url_or_request, Request):
            req = url_or_request
            headers = headers if headers is not None else {k: v for k, v in req.headers.items()
                                                           if k.lower() not in _FETCH_DROPPED_HEADERS}
            if data is None and req.post_data_buffer is not None:
                data = req.post_data_buffer
            return req.url, method or req.method, headers, data
        return url_or_request, method, headers, data

    def _absolute(self, url):
        base = self._defaults.get("base_url")
        return urllib.parse.urljoin(base, url) if base else url

    def _headers(self, headers):
        """The context's extra headers, then the request's (which win, by name without case)."""
        merged = {}
        for src in (self._defaults.get("extra_http_headers") or {}, headers or {}):
            for k, v in src.items():
                if v is None:
                    continue
                merged = {n: x for n, x in merged.items() if n.lower() != str(k).lower()}
                merged[str(k)] = str(v)
        return list(merged.items())

    @property
    def tracing(self):
        """The browser context's tracing for context.request and page.request (their calls are actions of
        its traces); a request context of its own records HARs with it (start_har / stop_har)."""
        return self._backend.tracing()

    def storage_state(self, path=None, indexed_db=None):
        state = self._backend.storage_state(indexed_db)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(state, f)
        return state

    def dispose(self, reason=None):
        for resp in list(self._responses):
            resp.dispose()
        if self._disposed is None:
            self._backend.dispose()  # a HAR still recording is written first
        self._disposed = reason or "Target page, context or browser has been closed"


class _ContextBackend:
    """context.request (and page.request): the browser context's cookie store is the jar. A page with no
    context of the client's uses the browser's default context."""

    def __init__(self, context, page=None):
        self._context = context
        self._page = page

    def defaults(self):
        ctx = self._context
        if ctx is None:
            return {}
        return {"base_url": ctx._options.get("base_url"), "ignore_https_errors": ctx._options.get("ignore_https_errors"),
                "extra_http_headers": ctx._emulation.get("extra_http_headers")}

    def timeout(self):
        if self._context is not None:
            return self._context._timeout_ms()
        return self._page._default_timeout or self._page._browser._default_timeout

    def fetch(self, req):
        ctx = self._context
        browser = ctx._browser if ctx is not None else self._page._browser
        body = {"browser": browser.id, "context": ctx._id if ctx is not None else "",
                "user_agent": ctx._emulation.get("user_agent") if ctx is not None else None}
        body.update(req)
        body = {k: v for k, v in body.items() if v is not None}
        return browser._transport.call("context.fetch", body, guard_s=_guard_seconds(req["timeout"] or 0))

    def storage_state(self, indexed_db):
        if self._context is None:
            raise Error("APIRequestContext.storage_state: this page has no browser context of the client's")
        return self._context.storage_state(indexed_db=indexed_db)

    def tracing(self):
        if self._context is None:
            raise Error("APIRequestContext.tracing: this page has no browser context of the client's")
        return self._context.tracing

    def dispose(self):
        pass


def _context_request(context):
    """context.request, made on first use."""
    if context._request is None:
        context._request = APIRequestContext(_ContextBackend(context))
    return context._request


def _page_request(page):
    """page.request: its context's (Playwright's rule), or one of its own when the page has none."""
    if page._context is not None:
        return _context_request(page._context)
    if page._request is None:
        page._request = APIRequestContext(_ContextBackend(None, page))
    return page._request


class _GlobalBackend:
    """A playwright.request.new_context(): a jar of its own in a driver with no browser."""

    def __init__(self, transport, request_id, origins, timeout, defaults):
        self._defaults = defaults
        self._transport = transport
        self._id = request_id
        self._origins = origins
        self._timeout = timeout
        self._tracing = None  # request.tracing, made on first use

    def timeout(self):
        return self._timeout

    def defaults(self):
        return self._defaults

    def fetch(self, req):
        body = {k: v for k, v in req.items() if v is not None}
        body["request"] = self._id
        return self._transport.call("apirequest.fetch", body, guard_s=_guard_seconds(req["timeout"] or 0))

    def storage_state(self, indexed_db):
        cookies = self._transport.call("apirequest.storage_state", {"request": self._id}).get("cookies") or []
        return {"cookies": cookies, "origins": json.loads(json.dumps(self._origins))}

    def tracing(self):
        if self._tracing is None:
            self._tracing = _RequestTracing(self)
        return self._tracing

    def dispose(self):
        try:
            if self._tracing is not None:
                self._tracing.stop_har()
        finally:
            try:
                self._transport.call("apirequest.dispose", {"request": self._id})
            except Error:
                pass  # a driver already gone has nothing left to dispose


class _RequestTracing:
    """request.tracing of a playwright.request.new_context(): HARs of its calls. No page is there to
    trace, so start() and stop() are refused."""

    def __init__(self, backend):
        self._backend = backend
        self._recording = False

    def start_har(self, path, content=None, mode=None, url_filter=None):
        """Record the request context's calls into a HAR at path (a .zip keeps bodies inside it) until
        stop_har(); dispose() writes one still recording."""
        from . import _har_router
        from ._network import Disposable

        if self._recording:
            raise Error("Tracing.start_har: HAR recording has already been started")
        _har_router.check_options(content, mode)
        path = os.path.abspath(os.fspath(path))
        if content is None:
            content = "attach" if path.endswith(".zip") else "embed"
        b = self._backend
        b._transport.call("apirequest.har_start", {
            "request": b._id, "path": path, "content": content, "mode": mode,
            "url_regex": _har_router._url_regex(url_filter, b._defaults.get("base_url"))})
        self._recording = True
        return Disposable(self.stop_har)

    def stop_har(self):
        """Write the HAR start_har() records; without one it does nothing."""
        if self._recording:
            self._recording = False
            self._backend._transport.call("apirequest.har_export", {"request": self._backend._id})

    def start(self, *args, **kwargs):
        raise Error("Tracing.start: a request context of its own has no pages to trace in wright; "
                    "trace a browser context's context.request instead, or record a HAR with start_har()")

    def start_chunk(self, *args, **kwargs):
        self.start()

    def stop(self, path=None):
        pass  # nothing was started

    def stop_chunk(self, path=None):
        pass


class APIRequest:
    """playwright.request: makes request contexts of their own (no browser needed)."""

    def __init__(self, playwright):
        self._playwright = playwright
        self._transport = None  # a driver with no browser, started on first use, ended by Playwright.stop()

    def new_context(self, base_url=None, extra_http_headers=None, http_credentials=None,
                    ignore_https_errors=None, proxy=None, user_agent=None, timeout=None, storage_state=None,
                    client_certificates=None, fail_on_status_code=None, max_redirects=None):
        if proxy is not None:
            raise Error("APIRequest.new_context: proxy is not supported by wright: the run's policy proxy carries "
                        "every request", type="InvalidParams")
        if client_certificates:
            raise Error("APIRequest.new_context: client_certificates are not supported by wright", type="InvalidParams")
        state = _read_state(storage_state)
        transport = self._driver()
        result = transport.call("apirequest.new", {
            "user_agent": user_agent or _default_user_agent(), "http_credentials": http_credentials,
            "ignore_https_errors": bool(ignore_https_errors), "cookies": state.get("cookies") or []})
        to = _ms(timeout)
        defaults = dict(base_url=base_url, extra_http_headers=extra_http_headers,
                        fail_on_status_code=fail_on_status_code, max_redirects=max_redirects)
        return APIRequestContext(_GlobalBackend(transport, result["request"], state.get("origins") or [],
                                                30000 if to is None else to, defaults))

    def _driver(self):
        if self._transport is None:
            spawn = os.environ.get("WRIGHT_DRIVER_SPAWN")
            if spawn:
                self._transport = _SocketTransport(spawn)
            else:
                _install_exit_hooks()
                self._transport = _PipeTransport([_driver_binary(), "driver"])
        return self._transport

    def _stop(self):
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.shutdown()


def _read_state(storage_state):
    if storage_state is None:
        return {}
    if isinstance(storage_state, dict):
        return storage_state
    with open(storage_state, encoding="utf-8") as f:
        state = json.load(f)
    if not isinstance(state, dict):
        raise Error("storage_state: %s does not hold a storage state object" % os.fspath(storage_state),
                    type="InvalidParams")
    return state


def _default_user_agent():
    """What a request context of no browser calls itself, as Playwright's does (servers may tell them apart)."""
    import platform
    import sys

    from .. import __version__
    return "Playwright/%s (%s; %s) python/%d.%d wright" % (__version__, platform.machine(), platform.system().lower(),
                                                           sys.version_info.major, sys.version_info.minor)


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global Request
    from ._network import Request
