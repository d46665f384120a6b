"""API requests (page.request, context.request): HTTP from the client with the browser's cookies."""

import base64
import datetime
import json
import urllib.parse

from ._errors import Error


class APIResponse:
    """What route.fetch() and page.request return: the whole response, body included."""

    def __init__(self, result):
        self.url = result.get("url") or ""
        self.status = result.get("status") or 0
        self.status_text = result.get("status_text") or ""
        self._pairs = [(k.lower(), v) for k, v in (result.get("headers") or [])]
        self._body = base64.b64decode(result.get("body") or "")

    def __repr__(self):
        return "<APIResponse url=%r status=%r status_text=%r>" % (self.url, self.status, self.status_text)

    @property
    def ok(self):
        return 200 <= self.status <= 299

    @property
    def headers(self):
        out = {}
        for k, v in self._pairs:
            out[k] = v if k not in out else out[k] + ("\n" if k == "set-cookie" else ", ") + v
        return out

    @property
    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._pairs]

    def body(self):
        return self._body

    def text(self):
        return self._body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text())

    def dispose(self):
        self._body = b""


# Headers the HTTP client sets itself: forwarding the browser's would garble the exchange (an
# Accept-Encoding it did not ask for leaves the body compressed).
_FETCH_DROPPED_HEADERS = frozenset(("host", "content-length", "connection", "accept-encoding", "keep-alive",
                                    "transfer-encoding"))


def _fetch(page, api, url, method=None, headers=None, data=None, timeout=None, max_redirects=None):
    """One request.fetch call; errors are named after the API method (Route.fetch, APIRequestContext.get)."""
    if isinstance(data, (dict, list)):
        data = json.dumps(data)
        headers = dict(headers or {})
        if not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
    if isinstance(data, str):
        data = data.encode("utf-8")
    hdrs = {str(k): str(v) for k, v in (headers or {}).items()
            if v is not None and str(k).lower() not in _FETCH_DROPPED_HEADERS}
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds() * 1000
    try:
        result = page._call("request.fetch", timeout if timeout else None, url=url, http_method=method, headers=hdrs,
                            post_data=base64.b64encode(data).decode("ascii") if data else None,
                            max_redirects=max_redirects)
    except Error as exc:
        text = exc.message.split(": ", 1)[1] if exc.message.startswith("request.fetch: ") else exc.message
        raise type(exc)("%s: %s" % (api, text), type=exc.type, method=api) from None
    return APIResponse(result)


class APIRequestContext:
    """page.request / context.request: HTTP requests made by the driver with the page's cookies, under
    the URL policy. Multipart bodies, HAR and storage_state of their own are not supported."""

    def __init__(self, page):
        self._page = page

    def fetch(self, url_or_request, params=None, method=None, headers=None, data=None, form=None,
              multipart=None, timeout=None, fail_on_status_code=None, ignore_https_errors=None,
              max_redirects=None, max_retries=None):
        if multipart is not None:
            raise Error("APIRequestContext.fetch: multipart bodies are not supported by wright")
        if isinstance(url_or_request, Request):
            req = url_or_request
            url, method = req.url, method or req.method
            headers = headers if headers is not None else req.headers
            if data is None and req.post_data is not None:
                data = req.post_data_buffer
        else:
            url = url_or_request
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        if form is not None:
            data = urllib.parse.urlencode(form)
            headers = dict(headers or {}, **{"content-type": "application/x-www-form-urlencoded"})
        resp = _fetch(self._page, "APIRequestContext.%s" % (method or "fetch").lower(), url, method or "GET",
                      headers, data, timeout, max_redirects)
        if fail_on_status_code and not resp.ok:
            raise Error("APIRequestContext.fetch: %d %s" % (resp.status, resp.status_text))
        return resp

    def get(self, url, **kwargs):
        return self.fetch(url, method="GET", **kwargs)

    def head(self, url, **kwargs):
        return self.fetch(url, method="HEAD", **kwargs)

    def post(self, url, **kwargs):
        return self.fetch(url, method="POST", **kwargs)

    def put(self, url, **kwargs):
        return self.fetch(url, method="PUT", **kwargs)

    def patch(self, url, **kwargs):
        return self.fetch(url, method="PATCH", **kwargs)

    def delete(self, url, **kwargs):
        return self.fetch(url, method="DELETE", **kwargs)

    def dispose(self, reason=None):
        pass


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global Request
    from ._network import Request
