"""The bridge under playwright.async_api: each async class is a thin view of the sync implementation's object
(playwright._impl), so both APIs are one implementation.

An awaited method runs the implementation's method on a worker thread of the Hub, in the caller's contextvars
context. The transports those threads make are shared (see _transport._Transport): many calls are in flight
at once on one driver connection, so asyncio.gather over actions on several pages overlaps them. A cancelled
task stops waiting at once; its worker finishes the driver's call and the answer is dropped, so the connection
stays usable. Callbacks the implementation calls (event listeners, route handlers, predicates, exposed
functions) run on the event loop and may be coroutines: a listener is scheduled and not waited for, as in
Playwright; the others are awaited by the implementation's thread, which needs their result.

Only this package imports asyncio: a script that uses the sync API never loads it.
"""

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import re
import sys
import threading
import traceback

from playwright._impl import _errors, _transport
from playwright._impl._errors import Error
from playwright._impl._events import _fit_args


class Hub:
    """One async_playwright(): its event loop and the worker threads that run the implementation's calls."""

    # Enough for many pages waiting at once; a thread is started only when every other one is busy.
    MAX_WORKERS = 128

    def __init__(self, loop):
        self.loop = loop
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.MAX_WORKERS,
                                                          thread_name_prefix="wright-async",
                                                          initializer=self._worker_started)
        self._tasks = set()  # listener coroutines scheduled and not yet done (kept from the collector)

    def _worker_started(self):
        _transport._tls.hub = self

    async def run(self, fn, *args, **kwargs):
        ctx = contextvars.copy_context()
        token = _transport._Cancel()

        def call():
            _transport._tls.cancel = token
            try:
                return ctx.run(fn, *args, **kwargs)
            finally:
                _transport._tls.cancel = None
        try:
            return await self.loop.run_in_executor(self.pool, call)
        except asyncio.CancelledError:
            # The task was cancelled: the driver ends the call's work (a click does not happen later) and
            # the worker stops waiting; the connection is left as it was.
            token.cancel()
            raise
        except Error as exc:
            # The error's stack is where the script awaited the call, not the worker thread's.
            exc.stack = _errors.format_frames(traceback.extract_stack()[:-1])
            raise

    def keep(self, task):
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task):
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            print("Error in an event listener of playwright.async_api:", file=sys.stderr)
            _errors.print_exception(exc)

    closed = False

    def close(self):
        self.closed = True
        self.pool.shutdown(wait=False)


# impl class -> async class, filled by wrapper_class(); looked up along the impl object's MRO.
_ASYNC_OF = {}

# Methods that are plain calls in Playwright's async API (everything else callable is awaited), by class.
_LOCATING = {"locator", "get_by_alt_text", "get_by_label", "get_by_placeholder", "get_by_role", "get_by_test_id",
             "get_by_text", "get_by_title", "frame_locator"}
_EMITTING = {"on", "once", "remove_listener", "off"}
_PLAIN = {
    "Request": {"is_navigation_request"},
    "JSHandle": {"as_element"},
    "ElementHandle": {"as_element"},
    "FileChooser": {"is_multiple"},
    "Frame": _LOCATING | {"is_detached"},
    "FrameLocator": _LOCATING | {"nth"},
    "Locator": _LOCATING | {"nth", "describe", "filter", "or_", "and_"},
    "Selectors": {"set_test_id_attribute"},
    "Page": _LOCATING | _EMITTING | {"frame", "set_default_navigation_timeout", "set_default_timeout",
                                     "is_closed"},
    "BrowserContext": _EMITTING | {"set_default_navigation_timeout", "set_default_timeout", "is_closed"},
    "Browser": _EMITTING | {"is_connected"},
    "CDPSession": _EMITTING,
    "Worker": _EMITTING,
    "WebSocket": _EMITTING | {"is_closed"},
    "WebSocketRoute": {"connect_to_server", "send", "on_message", "on_close"},
}
# Arguments that are listeners (scheduled, not waited for); every other callable argument is awaited.
_LISTENER_METHODS = {"on", "once", "remove_listener", "off", "on_message", "on_close"}


def wrap(value, hub, memo=None):
    """The async view of what the implementation returned (containers copied, cycles kept as cycles)."""
    if value is None or isinstance(value, (str, int, float, bool, bytes)):
        return value
    if isinstance(value, tuple) and type(value) is not tuple:
        return value  # a named tuple (urlparse's ParseResult) is a value of its own, kept as it is
    if isinstance(value, (list, dict, tuple)):
        memo = {} if memo is None else memo
        done = memo.get(id(value))
        if done is not None:
            return done
        if isinstance(value, tuple):
            return tuple(wrap(v, hub, memo) for v in value)
        if isinstance(value, list):
            out = memo[id(value)] = []
            out.extend(wrap(v, hub, memo) for v in value)
            return out
        out = memo[id(value)] = {}
        for k, v in value.items():
            out[k] = wrap(v, hub, memo)
        return out
    cls = _async_class_of(type(value))
    if cls is None:
        return value
    view = value.__dict__.get("_async_view") if hasattr(value, "__dict__") else None
    if view is None or view._hub is not hub:
        view = cls._from_impl(value, hub)
        try:
            value.__dict__["_async_view"] = view
        except (AttributeError, TypeError):
            pass
    return view


def _async_class_of(impl_cls):
    for k in impl_cls.__mro__:
        cls = _ASYNC_OF.get(k)
        if cls is not None:
            return cls
    return None


def unwrap(value, hub, listener=False, memo=None):
    """The implementation's view of an argument: async objects become theirs, callables are bridged."""
    if isinstance(value, AsyncBase):
        return value._impl_obj
    if isinstance(value, tuple) and type(value) is not tuple:
        return value  # a named tuple (urlparse's ParseResult) crosses as itself
    if isinstance(value, (list, dict, tuple)):
        memo = {} if memo is None else memo
        done = memo.get(id(value))
        if done is not None:
            return done
        if isinstance(value, tuple):
            return tuple(unwrap(v, hub, listener, memo) for v in value)
        if isinstance(value, list):
            out = memo[id(value)] = []
            out.extend(unwrap(v, hub, listener, memo) for v in value)
            return out
        out = memo[id(value)] = {}
        for k, v in value.items():
            out[k] = unwrap(v, hub, listener, memo)
        return out
    if callable(value) and not isinstance(value, (type, re.Pattern)) and _async_class_of(type(value)) is None:
        return Callback(value, hub, listener)
    return value


class Callback:
    """A user callable as the implementation calls it: on the event loop, its arguments seen as async objects.

    Equal to another Callback of the same callable, so remove_listener(event, f) and unroute(url, f) find
    what on() and route() were given.
    """

    def __init__(self, f, hub, listener):
        self.f = f
        self.hub = hub
        self.listener = listener
        # The implementation reads a callback's parameters (a route handler may take route alone, a locator
        # handler none): it sees the user's.
        try:
            self.__signature__ = inspect.signature(f)
        except (TypeError, ValueError):
            pass

    def __eq__(self, other):
        if isinstance(other, Callback):
            return self.f == other.f
        return self.f == other

    def __hash__(self):
        return hash(self.f)

    def __call__(self, *args):
        hub = self.hub
        views = _fit_args(self.f, tuple(wrap(a, hub) for a in args))
        on_loop = _loop_thread_is_current(hub.loop)
        if self.listener:
            if on_loop:
                self._run_listener(views)
            else:
                hub.loop.call_soon_threadsafe(self._run_listener, views)
            return None
        if on_loop:
            # The implementation called back on the loop's own thread (from a plain method): nothing may
            # block here, so a coroutine's result cannot be waited for.
            result = self.f(*views)
            if inspect.isawaitable(result):
                hub.keep(asyncio.ensure_future(result))
                return None
            return unwrap(result, hub)
        future = asyncio.run_coroutine_threadsafe(self._invoke(views), hub.loop)
        dispatcher = getattr(_transport._tls, "dispatcher", None)
        if dispatcher is not None:
            dispatcher._wait_dispatching(future.done)
        try:
            result = future.result()
        except concurrent.futures.CancelledError:
            # Its task was cancelled on the loop: said as an Error of the client's, which a route handler's
            # caller knows to drop (concurrent's CancelledError would otherwise pass for a handler's failure).
            raise _errors.CallbackCancelled("the task running %r was cancelled" % (self.f,)) from None
        return unwrap(result, hub)

    async def _invoke(self, views):
        result = self.f(*views)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _run_listener(self, views):
        try:
            result = self.f(*views)
        except Exception as exc:  # noqa: BLE001 - one listener's error must not stop the others
            _errors.print_exception(exc)
            return
        if inspect.isawaitable(result):
            self.hub.keep(asyncio.ensure_future(result))


def _loop_thread_is_current(loop):
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class AsyncBase:
    """What every async class shares: the implementation object it shows, and the Hub that runs its calls."""

    __slots__ = ("_impl_obj", "_hub", "__weakref__")
    _plain = frozenset()  # the class's methods that are plain calls (_PLAIN)

    @classmethod
    def _from_impl(cls, impl, hub):
        self = object.__new__(cls)
        self._impl_obj = impl
        self._hub = hub
        return self

    def __init__(self, *args, **kwargs):
        raise Error("%s objects come from playwright.async_api calls; they are not made directly"
                    % type(self).__name__)

    def __repr__(self):
        return repr(self._impl_obj)

    def __str__(self):
        return str(self._impl_obj)

    def __getattr__(self, name):
        # Attributes the implementation sets per object (request.url, response.status, ...).
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._impl_obj, name)
        if callable(value) and not isinstance(value, type) and _async_class_of(type(value)) is None:
            if name in type(self)._plain:
                return _plain_method(name).__get__(self)
            if name.startswith("expect_"):
                return _expect_method(name).__get__(self)
            return _awaited(name, value, self._hub)
        return wrap(value, self._hub)


def _awaited(name, bound, hub):
    async def method(*args, **kwargs):
        args = unwrap(args, hub)
        kwargs = unwrap(kwargs, hub)
        return wrap(await hub.run(bound, *args, **kwargs), hub)

    method.__name__ = name
    return method


def _plain_method(name):
    listener = name in _LISTENER_METHODS

    def method(self, *args, **kwargs):
        hub = self._hub
        result = getattr(self._impl_obj, name)(*unwrap(args, hub, listener), **unwrap(kwargs, hub, listener))
        if result is self._impl_obj:
            return self
        return wrap(result, hub)

    method.__name__ = name
    return method


def _async_method(name):
    async def method(self, *args, **kwargs):
        hub = self._hub
        fn = getattr(self._impl_obj, name)
        result = await hub.run(fn, *unwrap(args, hub), **unwrap(kwargs, hub))
        return wrap(result, hub)

    method.__name__ = name
    return method


def _expect_method(name):
    def method(self, *args, **kwargs):
        hub = self._hub
        fn = getattr(self._impl_obj, name)
        return EventContextManager(hub, lambda: fn(*unwrap(args, hub), **unwrap(kwargs, hub)))

    method.__name__ = name
    return method


def _property(name, settable):
    def get(self):
        return wrap(getattr(self._impl_obj, name), self._hub)

    def put(self, value):
        setattr(self._impl_obj, name, unwrap(value, self._hub))

    return property(get, put if settable else None)


class EventInfo:
    """What `async with page.expect_...() as info` gives: `await info.value` once the event came."""

    def __init__(self, manager):
        self._manager = manager

    @property
    def value(self):
        return self._manager._value()

    def is_done(self):
        return self._manager._entered is not None and self._manager._entered.is_done()


class EventContextManager:
    """expect_event, expect_navigation, expect_popup, ...: the wait starts when the block is entered; leaving
    the block (or awaiting info.value) waits for the event, with the implementation's timeout and errors."""

    def __init__(self, hub, make):
        self._hub = hub
        self._make = make
        self._cm = None
        self._entered = None
        self._finish = None  # the future of the wait, once something awaits it

    async def __aenter__(self):
        def enter():
            self._cm = self._make()
            self._entered = self._cm.__enter__()
        await self._hub.run(enter)
        return EventInfo(self)

    async def __aexit__(self, exc_type, exc, tb):
        if exc_type is not None:
            if self._finish is None:
                await self._hub.run(self._cm.__exit__, exc_type, exc, tb)
            return False
        await self._wait()
        return False

    def _wait(self):
        if self._finish is None:
            self._finish = asyncio.ensure_future(self._hub.run(self._cm.__exit__, None, None, None))
        return self._finish

    async def _value(self):
        await self._wait()
        return wrap(self._entered.value, self._hub)


def wrapper_class(impl_cls, name=None, extra=None):
    """The async class of impl_cls: its properties read through, its methods awaited or plain (_PLAIN),
    its expect_* methods async context managers."""
    name = name or impl_cls.__name__
    plain = _PLAIN.get(name, set())
    ns = {"__slots__": (), "_plain": frozenset(plain), "__doc__": "playwright.async_api's %s (the implementation's, awaited)." % name,
          "__module__": "playwright.async_api"}
    for attr in dir(impl_cls):
        if attr.startswith("_"):
            continue
        raw = inspect.getattr_static(impl_cls, attr)
        if isinstance(raw, property):
            ns[attr] = _property(attr, raw.fset is not None)
        elif isinstance(raw, (staticmethod, classmethod)):
            continue
        elif inspect.isfunction(raw):
            if attr in plain:
                ns[attr] = _plain_method(attr)
            elif attr.startswith("expect_"):
                ns[attr] = _expect_method(attr)
            else:
                ns[attr] = _async_method(attr)
    if hasattr(impl_cls, "__getitem__"):
        def __getitem__(self, key):
            return wrap(self._impl_obj[key], self._hub)
        ns["__getitem__"] = __getitem__
    if hasattr(impl_cls, "__enter__"):
        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            await self._hub.run(self._impl_obj.__exit__, *exc)
            return False
        ns["__aenter__"], ns["__aexit__"] = __aenter__, __aexit__
    ns.update(extra or {})
    cls = type(name, (AsyncBase,), ns)
    _ASYNC_OF[impl_cls] = cls
    return cls
