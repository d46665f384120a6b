"""WebSocket: a socket the page opened (page.on("websocket"), page.expect_websocket()), and its events.

The driver says when a page opens a socket (page.websocket), each message either way (page.websocket_frame),
a failure (page.websocket_error) and the close (page.websocket_close; also sent for every socket still open
when its page closes). PAGE_EVENTS hands those to the page's socket objects.
"""

import base64
import binascii

from ._errors import Error, TargetClosed
from ._events import _Emitter, _EventWaiter

_TEXT, _BINARY = 1, 2


class WebSocket(_Emitter):
    """A WebSocket of the page.

    Events: "framesent" and "framereceived" (the payload: str for a text message, bytes for a binary one),
    "socketerror" (the error's text), "close" (this socket).
    """

    def __init__(self, page, socket_id, url):
        super().__init__()
        self._page = page
        self._id = socket_id
        self._url = url or ""
        self._is_closed = False

    def __repr__(self):
        return "<WebSocket url=%r>" % self._url

    @property
    def url(self):
        return self._url

    def is_closed(self):
        return self._is_closed

    def _waiter(self, event, predicate, timeout, what=None):
        return _SocketWaiter(self, event, predicate, timeout, what)

    # What the waiter asks of its target: the page's timeout and connection.
    def _timeout_ms(self):
        return self._page._timeout_ms()

    def _transport_of(self):
        return self._page._transport_of()

    def _on_frame(self, params):
        opcode, data = params.get("opcode"), params.get("data") or ""
        if opcode == _TEXT:
            payload = data
        elif opcode == _BINARY:
            try:
                payload = base64.b64decode(data)
            except (binascii.Error, ValueError):
                return
        else:
            return  # control frames are not messages
        self._emit("framesent" if params.get("sent") else "framereceived", payload)

    def _on_close(self):
        if self._is_closed:
            return
        self._is_closed = True
        self._emit("close", self)


class _SocketWaiter(_EventWaiter):
    """ws.expect_event / ws.wait_for_event: besides its timeout, the wait fails when the socket closes or
    fails first (unless that is the event waited for), or when its page closes."""

    def _fail(self, message):
        if not self._done:
            self._error = Error(message)
            self._done = True

    def _socket_closed(self, *args):
        self._fail("Socket closed")

    def _socket_error(self, *args):
        self._fail("Socket error")

    def _page_closed(self, *args):
        if not self._done:
            self._error = TargetClosed("Target page, context or browser has been closed", method="expect_event")
            self._done = True

    def _rejections(self):
        socket = self._target
        out = [(socket._page, "close", self._page_closed)]
        if self._event != "close":
            out.append((socket, "close", self._socket_closed))
        if self._event != "socketerror":
            out.append((socket, "socketerror", self._socket_error))
        return out

    def __enter__(self):
        self._target.on(self._event, self._listener)
        for emitter, event, f in self._rejections():
            emitter.on(event, f)
        if self._target.is_closed() and self._event != "close":
            self._socket_closed()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                return False
            self._wait()
        finally:
            self._target.remove_listener(self._event, self._listener)
            for emitter, event, f in self._rejections():
                emitter.remove_listener(event, f)
        return False


def _sockets(page):
    if page.__dict__.get("_websockets") is None:
        page._websockets = {}
    return page._websockets


def _on_websocket(page, kind, params):
    socket = WebSocket(page, params.get("socket"), params.get("url"))
    _sockets(page)[socket._id] = socket
    page._emit("websocket", socket)


def _on_frame(page, kind, params):
    socket = _sockets(page).get(params.get("socket"))
    if socket is not None:  # a socket this page never announced: nothing to tell
        socket._on_frame(params)


def _on_error(page, kind, params):
    socket = _sockets(page).get(params.get("socket"))
    if socket is not None:
        socket._emit("socketerror", params.get("error") or "")


def _on_close(page, kind, params):
    socket = _sockets(page).pop(params.get("socket"), None)
    if socket is not None:
        socket._on_close()


# The page's handlers of the driver's socket events (page.<kind>), as the page's own table takes them.
PAGE_EVENTS = {"websocket": _on_websocket, "websocket_frame": _on_frame, "websocket_error": _on_error,
               "websocket_close": _on_close}
