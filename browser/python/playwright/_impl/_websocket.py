"""WebSocket: a socket the page opened (page.on("websocket"), page.expect_websocket()), and its events.

The driver says when a page opens a socket (page.websocket), each message either way (page.websocket_frame),
a failure (page.websocket_error) and the close (page.websocket_close; also sent for every socket still open
when its page closes). PAGE_EVENTS hands those to the page's socket objects.

Under the async API a socket's own events run on the event loop, after what the loop already has to run:
a page's "websocket" listener is scheduled there, so the listeners it adds to the socket are in place before
the socket's first frame, and a wait the script starts on the loop (WebSocket.wait_for_event) sees every
frame that follows it.
"""

import base64
import binascii

from . import _transport
from ._errors import Error, TargetClosed
from ._events import _Emitter, _EventWaiter

_TEXT, _BINARY = 1, 2

# A socket's events that came before the script attached any listener for them. The client runs a page's
# events as they arrive, also while the call that announced the socket is still waiting for its answer, so
# a frame can come before the script even holds the WebSocket object. Such events are kept, at most
# _HELD_EVENTS and _HELD_BYTES of payload a socket, and handed to the first listener (or wait) attached
# for their event; from then on that event is delivered as it comes, never held.
_HELD_EVENTS, _HELD_BYTES = 64, 256 * 1024


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
        self._held = {}  # event -> [args] that came while it had no listener yet
        self._held_size = [0, 0]  # events and payload bytes held
        self._heard = set()  # events that had a listener once

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

    def _listener_added(self, event):
        if event in self._heard:
            return
        self._heard.add(event)
        for args in self._held.pop(event, ()):
            self._emit(event, *args)

    def _tell(self, event, *args):
        self._emit(event, *args)  # the script's listeners, or a wait's own (which leave the event held)
        if event in self._heard:
            return
        size = len(args[0]) if isinstance(args[0], (str, bytes)) else 0
        count, total = self._held_size
        if count < _HELD_EVENTS and total + size <= _HELD_BYTES:
            self._held.setdefault(event, []).append(args)
            self._held_size = [count + 1, total + size]

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
        self._tell("framesent" if params.get("sent") else "framereceived", payload)

    def _on_close(self):
        if self._is_closed:
            return
        self._is_closed = True
        self._tell("close", self)


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
        self._target.on(self._event, self._listener)  # an event held for a first listener comes now
        for emitter, event, f in self._rejections():
            # Past the emitter's on(): a close or error held for the script's own listener stays held.
            emitter._listeners_for(event).append((f, False))
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
        _deliver(page, socket._on_frame, params)


def _on_error(page, kind, params):
    socket = _sockets(page).get(params.get("socket"))
    if socket is not None:
        _deliver(page, socket._tell, "socketerror", params.get("error") or "")


def _on_close(page, kind, params):
    socket = _sockets(page).pop(params.get("socket"), None)
    if socket is not None:
        _deliver(page, socket._on_close)


def _deliver(page, fn, *args):
    """Run a socket's event now (the sync API), or, on the async API's dispatcher thread, on the event loop
    in the order the events came; a wait pumping on a worker thread is woken once it ran."""
    transport = page._transport_of()
    hub = getattr(transport, "_hub", None)
    if hub is None or getattr(_transport._tls, "dispatcher", None) is not transport:
        fn(*args)
        return

    def run():
        try:
            fn(*args)
        finally:
            with transport._news:
                transport._news.notify_all()
    try:
        hub.loop.call_soon_threadsafe(run)
    except RuntimeError:  # the loop is closed: nobody is left to schedule for
        fn(*args)


# The page's handlers of the driver's socket events (page.<kind>), as the page's own table takes them.
PAGE_EVENTS = {"websocket": _on_websocket, "websocket_frame": _on_frame, "websocket_error": _on_error,
               "websocket_close": _on_close}
