"""Events: the listener registry Browser, BrowserContext and Page share (on/once/remove_listener), and
the waiter behind every expect_* and wait_for_event.
"""


from ._errors import Error, TargetClosed, TimeoutError
from ._lazy import lazy

inspect = lazy("inspect")


def _fit_args(f, args):
    """The arguments a listener or exposed function takes: as in Playwright's sync API, one that
    accepts fewer parameters than it is given gets the first ones (lambda: ... for an event)."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return args
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return args
    return args[:sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))]


class _Emitter:
    """on / once / remove_listener, as Playwright's objects have them."""

    def __init__(self):
        self._listeners = {}  # event -> [(listener, once)], in the order they were added

    def _listeners_for(self, event):
        return self._listeners.setdefault(event, [])

    def on(self, event, f):
        self._listeners_for(event).append((f, False))
        self._listener_added(event)
        return self

    def once(self, event, f):
        self._listeners_for(event).append((f, True))
        self._listener_added(event)
        return self

    def remove_listener(self, event, f):
        entries = self._listeners_for(event)
        for i, (g, _) in enumerate(entries):
            if g is f or g == f:
                del entries[i]
                break
        return self

    off = remove_listener

    def _listener_added(self, event):
        pass

    def _has_listeners(self, event):
        return bool(self._listeners.get(event))

    def _emit(self, event, *args):
        entries = list(self._listeners.get(event, ()))
        for f, once in entries:
            if once:
                self.remove_listener(event, f)
            f(*_fit_args(f, args))

    def _waiter(self, event, predicate, timeout, what=None):
        return _EventWaiter(self, event, predicate, timeout, what)

    def expect_event(self, event, predicate=None, timeout=None):
        return self._waiter(event, predicate, timeout)

    def wait_for_event(self, event, predicate=None, timeout=None):
        waiter = self._waiter(event, predicate, timeout)
        with waiter:
            pass
        return waiter.value


class _EventWaiter:
    """The value of expect_*(): set by the first matching event; waited for when the with block ends."""

    def __init__(self, target, event, predicate, timeout, what=None):
        self._target = target
        self._event = event
        self._predicate = predicate
        self._timeout = timeout
        self._what = what or 'event "%s"' % event
        self._done = False
        self._value = None
        self._error = None
        self._trace_call = None  # (tracing, call) while a trace records this wait (_tracing.py)

    def _listener(self, *args):
        if self._done:
            return
        value = args[0] if args else None
        try:
            if self._predicate is not None and not self._predicate(value):
                return
        except Exception as exc:  # noqa: BLE001 - the predicate's error is the waiter's
            self._error = exc
        self._done = True
        self._value = value

    def _closed(self, *args):
        if not self._done and self._event != "close":
            self._error = TargetClosed("Target page, context or browser has been closed", method="expect_event")
            self._done = True

    def __enter__(self):
        self._target.on(self._event, self._listener)
        if hasattr(self._target, "_closed") and self._event != "close":
            self._target.on("close", self._closed)
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                return False
            self._wait()
        finally:
            self._target.remove_listener(self._event, self._listener)
            self._target.remove_listener("close", self._closed)
        return False

    def _wait(self):
        limit = self._timeout
        if limit is None:
            limit = self._target._timeout_ms()
        transport = self._target._transport_of()
        transport.pump(limit / 1000.0 if limit else 1e9, lambda: self._done)
        if self._error is not None:
            raise self._error
        if not self._done:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for %s" % (limit, self._what),
                               method="expect_event")

    def is_done(self):
        return self._done

    @property
    def value(self):
        if not self._done:
            raise Error("the event is known only after the with block has ended", type="InvalidParams")
        return self._value
