"""Page events (page.on(...)) and the expect_* waiters of a page, with the frames those events report."""

import collections
import json
import re
import time
import traceback

from ._errors import Error, NavigationError
from ._helpers import _url_matches
from ._events import _Emitter, _EventWaiter, _fit_args
from ._js_handle import _decode, _encode
from ._console_message import ConsoleMessage
from ._dialog import Dialog
from ._network import Request, Response, Route, WebError, _route_through


class _PageEvents(_Emitter):
    """page.on(...) and the expect_* waiters; mixed into Page."""

    def _timeout_ms(self):
        return self._default_timeout or self._browser._default_timeout

    def _transport_of(self):
        return self._browser._transport

    def _listener_added(self, event):
        if event == "dialog":
            self._browser._answer_dialogs()
        self._files_listener_added(event)

    def _on_driver_event(self, method, params):
        ctx = self._context
        kind = method[len("page."):]
        if kind == "console":
            msg = ConsoleMessage(self, params)
            self._emit("console", msg)
            if ctx is not None:
                ctx._emit("console", msg)
        elif kind == "pageerror":
            err = Error(params.get("message") or "", type=params.get("name") or "Error")
            err.stack = params.get("stack") or ""
            self._emit("pageerror", err)
            if ctx is not None:
                ctx._emit("weberror", WebError(self, err, {"url": params.get("url") or "",
                                                         "line": params.get("line") or 0,
                                                         "column": params.get("column") or 0}))
        elif kind == "dialog":
            dialog = Dialog(self, params)
            if self._has_listeners("dialog") or (ctx is not None and ctx._has_listeners("dialog")):
                self._emit("dialog", dialog)
                if ctx is not None:
                    ctx._emit("dialog", dialog)
            elif self._browser._dialogs_ours:
                # Playwright's rule: a dialog nobody listens to is dismissed, but a beforeunload one
                # is accepted, so that leaving the page is not refused by nobody.
                if dialog.type == "beforeunload":
                    dialog.accept()
                else:
                    dialog.dismiss()
        elif kind in ("load", "domcontentloaded"):
            self._emit(kind, self)
            if kind == "load" and ctx is not None:
                ctx._emit("pageload", self)
        elif kind == "binding":
            self._on_binding(params)
        elif kind == "locator_handler":
            self._on_locator_handler(params)
        elif kind == "route":
            self._on_route(params)
        elif kind == "framenavigated":
            if ctx is not None and not params.get("same_document"):
                ctx._note_origin(params.get("url"))
            if params.get("main") and params.get("frame"):
                self.__dict__["_main_frame_id"] = params.get("frame")
            frame = self._frame_for(params.get("frame"), bool(params.get("main")))
            if frame is None or getattr(frame, "_detached", False):
                return  # a late event of a frame already gone
            if not params.get("same_document"):
                self._detach_below(params.get("frame"), bool(params.get("main")))
            self._emit("framenavigated", frame)
            if ctx is not None:
                ctx._emit("framenavigated", frame)
        elif kind in ("frameattached", "framedetached"):
            self._on_frame_event(kind, params)
        elif kind == "request":
            self._on_request(params)
        elif kind == "response":
            req = self._requests.get(params.get("request"))
            if req is None:
                return
            url = req.url if req.__dict__.get("_url_overridden") else params.get("url")
            resp = Response(url, params.get("status"), self, req, params.get("headers"),
                            params.get("status_text"), params.get("from_cache"))
            resp._network = params
            req._response = resp
            if req._navigation and req._main_frame:
                self._nav_response = resp
            if req._navigation and req._frame_id:
                self._frame_nav_responses()[req._frame_id] = resp
            self._emit("response", resp)
            if ctx is not None:
                ctx._emit("response", resp)
        elif kind in ("requestfinished", "requestfailed"):
            req = self._requests.pop(params.get("request"), None)
            if req is None:
                return
            if kind == "requestfailed":
                req.failure = params.get("error") or "failed"
            else:
                req._finished = True
            self._emit(kind, req)
            if ctx is not None:
                ctx._emit(kind, req)
        elif kind in ("filechooser", "download"):
            self._on_file_event(kind, params)
        elif kind == "close":
            self._closed = True
            self._emit("close", self)
            if ctx is not None:
                ctx._emit("close_page", self)
                ctx._emit("pageclose", self)

    def _frames_by_id(self):
        return self.__dict__.setdefault("_child_frames", {})

    def _frame_nav_responses(self):
        return self.__dict__.setdefault("_frame_navs", {})

    def _frame_for(self, fid, main=False, parent=None):
        """The one Frame object of the child frame with CDP id fid (made on first sight); the main frame for main."""
        if main:
            return self.main_frame
        if not fid:
            return None
        frames = self._frames_by_id()
        frame = frames.get(fid)
        if frame is None:
            if len(frames) > 500:  # detached frames are remembered for identity, not forever
                for k in [k for k, f in frames.items() if f._detached][:250]:
                    del frames[k]
            frame = frames[fid] = _EventFrame(self, fid, parent)
        elif parent and not frame._parent_id:
            frame._parent_id = parent
        return frame

    def _main_id(self):
        main = self.__dict__.get("_main_frame_id")
        if not main:
            self._frame_tree()
            main = self.__dict__.get("_main_frame_id")
        return main

    def _frame_tree(self):
        """The page's live frames from the driver: [{frame, parent, name, url}], the main frame first."""
        tree = self._call("page.frame_tree").get("frames") or []
        if tree:
            self.__dict__["_main_frame_id"] = tree[0]["frame"]
        return tree

    def _on_frame_event(self, kind, params):
        """frameattached / framedetached for the page and its context; the Frame is kept by its id."""
        fid = params.get("frame")
        if kind == "frameattached":
            frame = self._frame_for(fid, parent=params.get("parent"))
            if params.get("parent_main"):
                frame._parent_main = True
            if frame._attached_seen:
                return
            frame._attached_seen = True
        else:
            frame = self._frames_by_id().get(fid)
            if frame is None or frame._detached:
                return
            self._detach_below(fid, False)
            frame._detached = True
        self._emit(kind, frame)
        if self._context is not None:
            self._context._emit(kind, frame)

    def _detach_below(self, fid, main):
        """A frame got a new document (or went away): the frames inside the old one are detached."""
        for child in list(self._frames_by_id().values()):
            if child._detached or not (child._parent_main if main else child._parent_id == fid):
                continue
            self._on_frame_event("framedetached", {"frame": child._frame_id})

    def _routes_changed(self):
        want = bool(self.__dict__.get("_routes")) or (self._context is not None and
                                                        bool(self._context.__dict__.get("_routes")))
        if want != self._routing_on:
            self._routing_on = want
            self._call("page.set_routing", enabled=want)

    def _on_route(self, params):
        req = self._requests.get(params.get("request"))
        if req is None:
            req = Request(self, params)
            self._requests[params.get("request")] = req
        route = Route(self, params, req)
        entries = [(self, e) for e in reversed(self.__dict__.get("_routes", []))]
        if self._context is not None:
            entries += [(self._context, e) for e in reversed(self._context.__dict__.get("_routes", []))]
        try:
            _route_through(route, req, entries)
        except Exception as exc:  # noqa: BLE001 - raised by the script's next call, as in Playwright
            self._browser._transport.__dict__.setdefault("_handler_error", exc)

    def _on_binding(self, params):
        name = params.get("name")
        callback = self._bindings.get(name)
        if callback is None and self._context is not None:
            callback = self._context._bindings.get(name)
        try:
            payload = json.loads(params.get("payload") or "{}")
        except ValueError:
            return
        ok, value = True, None
        try:
            if callback is None:
                raise Error('no function "%s" is exposed' % name)
            args = _decode(payload.get("args")) or []
            source = {"page": self, "context": self.context, "frame": self.main_frame}
            value = _encode(callback(source, *args), [])
        except Exception as exc:  # noqa: BLE001 - the page's promise rejects with the error
            # The page's Error gets the callback's Python traceback as its stack.
            ok, value = False, {"message": str(exc), "stack": "".join(traceback.format_tb(exc.__traceback__))}
        self._call("page.binding_result", name=name, context=params.get("context"), id=payload.get("id"),
                   ok=ok, value=value)

    def expose_binding(self, name, callback, handle=None):
        """window[name](...) in the page calls callback(source, *args); its result resolves the page's promise."""
        if name in self._bindings or (self._context is not None and name in self._context._bindings):
            raise Error('Function "%s" has been already registered' % name)
        self._bindings[name] = callback
        self._call("page.expose_binding", name=name)

    def expose_function(self, name, callback):
        """window[name](...) in the page calls callback(*args)."""
        self.expose_binding(name, lambda source, *args: callback(*_fit_args(callback, args)))

    def _on_request(self, params):
        rid = params.get("request")
        prev = self._requests.get(rid)
        redirected_from = None
        if prev is not None and params.get("redirect_status") is not None:
            prev._response = Response(prev.url, params.get("redirect_status"), self, prev,
                                      params.get("redirect_headers"), params.get("redirect_status_text"))
            prev._finished = True
            redirected_from = prev
        req = Request(self, params, redirected_from)
        if prev is not None and redirected_from is None:
            req = prev  # made when its route was paused; the request event completes it
            req._navigation = bool(params.get("navigation"))
            req._main_frame = params.get("main_frame", True)
            req._frame_id = params.get("frame")
        if redirected_from is not None:
            redirected_from.redirected_to = req
            self._emit("response", redirected_from._response)
            self._emit("requestfinished", redirected_from)
        if len(self._requests) > 2000:
            self._requests.clear()
        self._requests[rid] = req
        self.__dict__.setdefault("_recent_requests", collections.deque(maxlen=100)).append(req)
        self._emit("request", req)
        if self._context is not None:
            self._context._emit("request", req)

    # waiters

    def expect_popup(self, predicate=None, timeout=None):
        """with page.expect_popup() as info: <action that opens a tab>; then info.value is the new Page."""
        return self._waiter("popup", predicate, timeout)

    def expect_console_message(self, predicate=None, timeout=None):
        return self._waiter("console", predicate, timeout)

    def expect_download(self, predicate=None, timeout=None):
        return self._waiter("download", predicate, timeout)

    def expect_file_chooser(self, predicate=None, timeout=None):
        return self._waiter("filechooser", predicate, timeout)

    def expect_websocket(self, predicate=None, timeout=None):
        return self._waiter("websocket", predicate, timeout)

    def expect_worker(self, predicate=None, timeout=None):
        return self._waiter("worker", predicate, timeout)

    def expect_request(self, url_or_predicate, timeout=None):
        return self._waiter("request", _url_predicate(url_or_predicate, self), timeout,
                            "request %s" % _describe_pattern(url_or_predicate))

    def expect_response(self, url_or_predicate, timeout=None):
        return self._waiter("response", _url_predicate(url_or_predicate, self), timeout,
                            "response %s" % _describe_pattern(url_or_predicate))

    def expect_request_finished(self, predicate=None, timeout=None):
        return self._waiter("requestfinished", predicate, timeout)

    def expect_navigation(self, url=None, wait_until=None, timeout=None):
        return _NavigationWaiter(self, url, wait_until, timeout)

    def wait_for_timeout(self, timeout):
        """Wait timeout milliseconds, running the page's events meanwhile."""
        self._transport_of().pump(max(0, timeout) / 1000.0)


def _describe_pattern(p):
    if isinstance(p, re.Pattern):
        return "matching /%s/" % p.pattern
    if callable(p):
        return "matching the predicate"
    return '"%s"' % p


def _url_predicate(url_or_predicate, page):
    if url_or_predicate is None:
        return None
    if callable(url_or_predicate) and not isinstance(url_or_predicate, re.Pattern):
        return url_or_predicate
    base = page._context._options.get("base_url") if page._context is not None else None
    return lambda r: _url_matches(url_or_predicate, r.url, base)


class _NavFailures:
    """Mixed into navigation waiters: a navigation of the waited frame that fails (a refused
    certificate, an unreachable host) ends the wait with its error instead of a timeout."""

    _failure = None

    def _navigation_failed(self, req):
        if not req._navigation or not self._frame_matches(req) or self._failure is not None:
            return
        if (req.failure or "net::ERR_ABORTED") == "net::ERR_ABORTED":
            return  # replaced by another navigation, which the waiter follows
        self._failure = NavigationError("%s at %s" % (req.failure, req.url), method="expect_navigation")
        if not self._done:
            self._error, self._done = self._failure, True

    def __enter__(self):
        self._page.on("requestfailed", self._navigation_failed)
        return super().__enter__()

    def __exit__(self, exc_type, exc, tb):
        try:
            return super().__exit__(exc_type, exc, tb)
        finally:
            self._page.remove_listener("requestfailed", self._navigation_failed)

    def _raise_failure(self):
        if self._failure is not None:
            raise self._failure


class _NavigationWaiter(_NavFailures, _EventWaiter):
    def __init__(self, page, url, wait_until, timeout):
        base = page._context._options.get("base_url") if page._context is not None else None

        def pred(frame):  # the page's navigations are its main frame's
            return not isinstance(frame, _EventFrame) and (url is None or _url_matches(url, frame.url, base))
        super().__init__(page, "framenavigated", pred, page._navigation_timeout(timeout, {}), "navigation")
        self._page = page
        self._wait_until = wait_until

    def _frame_matches(self, req):
        return req._main_frame

    def __enter__(self):
        self._page._nav_response = None
        return super().__enter__()

    def _wait(self):
        started = time.monotonic()
        super()._wait()
        self._raise_failure()
        limit = self._timeout if self._timeout is not None else self._page._timeout_ms()
        left = max(1, int(limit - (time.monotonic() - started) * 1000)) if limit else None
        self._page.wait_for_load_state(self._wait_until or "load", timeout=left)
        self._raise_failure()
        self._frame_value = self._value
        self._value = self._page._nav_response


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global _EventFrame
    from ._frame import _EventFrame
