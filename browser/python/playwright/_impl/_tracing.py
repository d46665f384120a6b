"""Tracing: context.tracing, which records a Playwright trace (trace.zip) that Playwright's trace viewer opens.

The driver records (browser/trace): DOM snapshots, screenshots, console messages and network requests. This
module tells it which calls of the API the script made: the public methods in the tables below
(_FRAME_ACTIONS, _LOCATOR_ACTIONS, ...) are wrapped, at the first context, so that while its context is
tracing a call is bracketed by tracing.before / tracing.after with Playwright's protocol names and params
(which the viewer words as "Click", 'Navigate to "/page"', ...) and the script's stack. A call made inside
another traced call (page.click runs a locator's click) is part of the outer one.
"""

import functools
import os
import threading

from . import _har_router
from ._errors import Error
from ._events import _EventWaiter
from ._fetch import APIRequestContext
from ._frame import Frame
from ._input import Keyboard, Mouse
from ._locator import Locator
from ._network import Disposable
from ._page import Page
from ._lazy import lazy

inspect = lazy("inspect")
traceback = lazy("traceback")

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_state = threading.local()  # .depth: traced calls running on this thread
_auto_count = []  # the traces WRIGHT_TRACE started in this process


class Tracing:
    """context.tracing: start(), start_chunk(), stop_chunk(path=), stop(path=), group(), group_end()."""

    def __init__(self, context):
        _install()
        self._context = context
        self._started = False  # tracing.start ran and tracing.stop did not yet
        self._recording = False  # a chunk is being recorded
        self._sources = False  # sources=True: the script files go into the zip
        self._files = set()  # the script files seen in the recorded stacks
        self._auto_path = None  # where a trace WRIGHT_TRACE asked for goes when the context closes
        self._har = None  # the HAR start_har() records (_har_router)

    def _tcall(self, method, **params):
        return self._context._ccall(method, **params)

    def start(self, name=None, title=None, snapshots=None, screenshots=None, sources=None, live=None):
        """Start recording: snapshots (DOM before/after each action), screenshots, sources (the script's files)."""
        if self._started:
            raise Error("Tracing.start: Tracing has been already started")
        viewport = self._context._options.get("viewport")
        if self._context._options.get("no_viewport"):
            viewport = None
        elif viewport is None:
            viewport = self._context._browser._viewport
        self._tcall("tracing.start", name=name, snapshots=bool(snapshots), screenshots=bool(screenshots),
                    sdk_language="python", viewport=dict(viewport) if viewport else None)
        self._started = True
        self._sources = bool(sources)
        self.start_chunk(title=title, name=name)

    def start_chunk(self, title=None, name=None):
        """Start a new chunk of the running tracing; stop_chunk(path=) writes it."""
        if not self._started:
            raise Error("Tracing.start_chunk: Must start tracing before starting a new chunk")
        self._tcall("tracing.start_chunk", name=name, title=title)
        self._recording = True
        self._files = set()

    def stop_chunk(self, path=None):
        """End the chunk; with path, write its trace.zip there (without, it is discarded)."""
        if not self._recording:
            raise Error("Tracing.stop_chunk: Must start tracing before stopping")
        self._recording = False
        traces_dir = getattr(self._context._browser, "_traces_dir", None)
        self._tcall("tracing.stop_chunk", path=os.path.abspath(os.fspath(path)) if path else None,
                    traces_dir=os.fspath(traces_dir) if traces_dir else None,
                    sources=sorted(self._files) if self._sources else None)

    def stop(self, path=None):
        """End tracing; with path, write the last chunk's trace.zip there. Without a start it does nothing."""
        if not self._started:
            return
        if self._recording:
            self.stop_chunk(path)
        self._started = False
        self._tcall("tracing.stop")

    def _auto_start(self):
        """WRIGHT_TRACE=path (wright's gate sets it for a final run): every context records a trace, written
        when it closes (or its browser does) to path for the first context, path-2.zip, ... for later ones."""
        path = os.environ.get("WRIGHT_TRACE")
        if not path or self._started:
            return
        try:
            self.start(snapshots=True, screenshots=True, sources=True)
        except Error:
            return  # the script runs untraced rather than failing for it
        _auto_count.append(path)
        n = len(_auto_count)
        stem, ext = os.path.splitext(path)
        self._auto_path = path if n == 1 else "%s-%d%s" % (stem, n, ext or ".zip")

    def _context_closing(self):
        """The context closes: a tracing still running ends, its open chunk discarded (as in Playwright),
        or written where WRIGHT_TRACE said; a HAR start_har() records is written."""
        har, self._har = self._har, None
        if har is not None:
            try:
                har.export()
            except Error:
                pass
        if not self._started:
            return
        path, self._auto_path = self._auto_path, None
        try:
            if path and self._recording:
                self.stop(path)
            else:
                self._started = self._recording = False
                self._tcall("tracing.stop")
        except Error:
            self._started = self._recording = False

    def group(self, name, location=None):
        """Open a group: the actions until group_end() are listed under name in the viewer."""
        if self._recording:
            self._tcall("tracing.group", name=name, location=dict(location) if location else None)
        return Disposable(self.group_end)

    def group_end(self):
        if self._recording:
            self._tcall("tracing.group_end")

    def start_har(self, path, content=None, mode=None, url_filter=None):
        """Record the context's traffic into a HAR at path (a .zip keeps bodies beside it) until stop_har()."""
        if self._har is not None:
            raise Error("Tracing.start_har: HAR recording has already been started")
        if content is None:
            content = "attach" if os.fspath(path).endswith(".zip") else "embed"
        self._har = _har_router._Recording(self._context, path, content=content, mode=mode or "full",
                                           url=url_filter)
        return Disposable(self.stop_har)

    def stop_har(self):
        """Write the HAR start_har() records; without one it does nothing."""
        har, self._har = self._har, None
        if har is not None:
            har.export()

    # the actions

    def _stack(self):
        frames = []
        for fs in reversed(traceback.extract_stack()):
            path = os.path.abspath(fs.filename)
            if path.startswith(_PACKAGE_DIR + os.sep) or fs.filename.startswith("<"):
                continue
            frames.append({"file": path, "line": fs.lineno or 0, "column": 0, "function": fs.name})
            if self._sources:
                self._files.add(path)
        return frames

    def _before(self, klass, method, params, page, title=None, snapshot=True):
        action = {"class": klass, "method": method, "params": params, "stack": self._stack()}
        if title:
            action["title"] = title
        page_id = page.id if page is not None and not page._closed else None
        if page_id:
            action["page"] = page_id
        try:
            result = self._tcall("tracing.before", action=action, snapshot=bool(snapshot and page_id))
        except Error:
            return None  # a trace that cannot be written never fails the script's own call
        return (result.get("call_id") or None, page_id, snapshot)

    def _after(self, call, error=None):
        if not call or not call[0]:
            return
        call_id, page_id, snapshot = call
        try:
            self._tcall("tracing.after", call_id=call_id, page=page_id, error=str(error) if error else None,
                        snapshot=bool(snapshot and page_id))
        except Error:
            pass


def _page_of(obj):
    if isinstance(obj, Page):
        return obj
    actual = getattr(obj, "_actual", None)  # an expect() of a locator or page
    if actual is not None:
        return _page_of(actual)
    owner = getattr(obj, "_owner_page", None)
    if owner is not None:
        return owner()
    return getattr(obj, "_page", None)


def _tracing_of(obj):
    """The context tracing whose chunk obj's call belongs to, or None."""
    if isinstance(obj, APIRequestContext):
        # context.request and page.request: their calls are the browser context's actions.
        context = getattr(obj._backend, "_context", None)
        tracing = getattr(context, "tracing", None)
        return tracing if isinstance(tracing, Tracing) and tracing._recording else None
    context = obj if hasattr(obj, "tracing") and not isinstance(obj, Page) else None
    if context is None:
        page = _page_of(obj)
        context = getattr(page, "_context", None) if page is not None else None
    tracing = getattr(context, "tracing", None)
    if isinstance(tracing, Tracing) and tracing._recording:
        return tracing
    return None


def _traced(fn, klass, method, params, title, snapshot):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def traced(self, *args, **kwargs):
        tracing = _tracing_of(self)
        if tracing is None or getattr(_state, "depth", 0):
            return fn(self, *args, **kwargs)
        try:
            bound = sig.bind(self, *args, **kwargs).arguments
        except TypeError:
            return fn(self, *args, **kwargs)  # the call's own error says what is wrong
        call = tracing._before(klass, method, _params(self, bound, params), _page_of(self),
                               title(bound) if callable(title) else title, snapshot)
        _state.depth = 1
        try:
            result = fn(self, *args, **kwargs)
        except BaseException as exc:
            _state.depth = 0
            tracing._after(call, exc)
            raise
        _state.depth = 0
        tracing._after(call)
        return result

    return traced


def _params(obj, bound, spec):
    """The protocol params of one call: spec maps a protocol name to an argument's name, or to a function."""
    out = {}
    if isinstance(obj, Locator):
        out["selector"] = obj.selector
    for name, source in spec.items():
        value = source(bound) if callable(source) else bound.get(source)
        if value is not None and not callable(value):
            out[name] = value if isinstance(value, (str, int, float, bool)) else str(value)
    return out


_FRAME_ACTIONS = {
    # python name: (protocol method, {protocol param: python argument})
    "goto": ("goto", {"url": "url"}), "set_content": ("setContent", {}), "click": ("click", {"selector": "selector"}),
    "dblclick": ("dblclick", {"selector": "selector"}), "fill": ("fill", {"selector": "selector", "value": "value"}),
    "type": ("type", {"selector": "selector", "text": "text"}), "press": ("press", {"selector": "selector", "key": "key"}),
    "check": ("check", {"selector": "selector"}), "uncheck": ("uncheck", {"selector": "selector"}),
    "set_checked": ("check", {"selector": "selector"}), "hover": ("hover", {"selector": "selector"}),
    "focus": ("focus", {"selector": "selector"}), "tap": ("tap", {"selector": "selector"}),
    "select_option": ("selectOption", {"selector": "selector"}),
    "set_input_files": ("setInputFiles", {"selector": "selector"}),
    "dispatch_event": ("dispatchEvent", {"selector": "selector", "type": "type"}),
    "drag_and_drop": ("dragAndDrop", {"source": "source", "target": "target"}),
    "evaluate": ("evaluateExpression", {"expression": "expression"}),
    "evaluate_handle": ("evaluateExpressionHandle", {"expression": "expression"}),
    "eval_on_selector": ("evalOnSelector", {"selector": "selector"}),
    "eval_on_selector_all": ("evalOnSelectorAll", {"selector": "selector"}),
    "wait_for_selector": ("waitForSelector", {"selector": "selector"}),
    "wait_for_function": ("waitForFunction", {}), "wait_for_timeout": ("waitForTimeout", {"timeout": "timeout"}),
    "content": ("content", {}), "title": ("title", {}), "add_script_tag": ("addScriptTag", {}),
    "add_style_tag": ("addStyleTag", {}), "text_content": ("textContent", {"selector": "selector"}),
    "inner_text": ("innerText", {"selector": "selector"}), "inner_html": ("innerHTML", {"selector": "selector"}),
    "get_attribute": ("getAttribute", {"selector": "selector", "name": "name"}),
    "input_value": ("inputValue", {"selector": "selector"}), "is_visible": ("isVisible", {"selector": "selector"}),
    "is_hidden": ("isHidden", {"selector": "selector"}), "is_enabled": ("isEnabled", {"selector": "selector"}),
    "is_disabled": ("isDisabled", {"selector": "selector"}), "is_checked": ("isChecked", {"selector": "selector"}),
    "is_editable": ("isEditable", {"selector": "selector"}),
}

_LOCATOR_ACTIONS = {
    "click": ("click", {}), "dblclick": ("dblclick", {}), "fill": ("fill", {"value": "value"}),
    "clear": ("fill", {"value": lambda b: ""}), "press": ("press", {"key": "key"}),
    "type": ("type", {"text": "text"}), "press_sequentially": ("type", {"text": "text"}),
    "check": ("check", {}), "uncheck": ("uncheck", {}), "set_checked": ("check", {}), "hover": ("hover", {}),
    "focus": ("focus", {}), "blur": ("blur", {}), "tap": ("tap", {}), "select_option": ("selectOption", {}),
    "select_text": ("selectText", {}), "set_input_files": ("setInputFiles", {}),
    "dispatch_event": ("dispatchEvent", {"type": "type"}), "drag_to": ("dragAndDrop", {}),
    "evaluate": ("evalOnSelector", {"expression": "expression"}),
    "evaluate_all": ("evalOnSelectorAll", {"expression": "expression"}),
    "evaluate_handle": ("evaluateExpressionHandle", {"expression": "expression"}),
    "wait_for": ("waitForSelector", {"state": "state"}), "count": ("queryCount", {}),
    "text_content": ("textContent", {}), "inner_text": ("innerText", {}), "inner_html": ("innerHTML", {}),
    "get_attribute": ("getAttribute", {"name": "name"}), "input_value": ("inputValue", {}),
    "is_visible": ("isVisible", {}), "is_hidden": ("isHidden", {}), "is_enabled": ("isEnabled", {}),
    "is_disabled": ("isDisabled", {}), "is_checked": ("isChecked", {}), "is_editable": ("isEditable", {}),
    "all_text_contents": ("evalOnSelectorAll", {}), "all_inner_texts": ("evalOnSelectorAll", {}),
    "scroll_into_view_if_needed": ("scrollIntoViewIfNeeded", {}), "screenshot": ("screenshot", {}),
}

_PAGE_ACTIONS = {
    "reload": ("Page", "reload", {}, None), "go_back": ("Page", "goBack", {}, None),
    "go_forward": ("Page", "goForward", {}, None), "close": ("Page", "close", {}, None),
    "screenshot": ("Page", "screenshot", {}, None), "bring_to_front": ("Page", "bringToFront", {}, None),
    "set_viewport_size": ("Page", "setViewportSize", {}, None), "emulate_media": ("Page", "emulateMedia", {}, None),
    "pdf": ("Page", "pdf", {}, None),
    "wait_for_load_state": ("Frame", "waitForEventInfo", {}, 'Wait for event "frame.wait_for_load_state"'),
    "wait_for_url": ("Frame", "waitForEventInfo", {}, 'Wait for event "frame.wait_for_url"'),
}

_INPUT_ACTIONS = {
    Mouse: {"move": ("mouseMove", {"x": "x", "y": "y"}, None), "click": ("mouseClick", {"x": "x", "y": "y"}, None),
            "dblclick": ("mouseClick", {"x": "x", "y": "y"}, "Double click"), "down": ("mouseDown", {}, None),
            "up": ("mouseUp", {}, None), "wheel": ("mouseWheel", {}, None)},
    Keyboard: {"down": ("keyboardDown", {"key": "key"}, None), "up": ("keyboardUp", {"key": "key"}, None),
               "insert_text": ("keyboardInsertText", {"text": "text"}, None),
               "type": ("keyboardType", {"text": "text"}, None), "press": ("keyboardPress", {"key": "key"}, None)},
}

_FETCH_METHODS = {"fetch": None, "get": "GET", "head": "HEAD", "post": "POST", "put": "PUT", "patch": "PATCH",
                  "delete": "DELETE"}

# Calls that act on no page's DOM: no snapshot is taken around them.
_NO_SNAPSHOT = frozenset(("wait_for_load_state", "wait_for_url", "close", "bring_to_front", "screenshot", "pdf"))


def _wrap(cls, name, klass, method, params, title=None, snapshot=True):
    fn = cls.__dict__.get(name)
    if fn is None or not callable(fn):
        return
    setattr(cls, name, _traced(fn, klass, method, params, title, snapshot))


_installed = []


def _install():
    """Wrap the actions, once: at the first context, when every class to wrap exists."""
    if _installed:
        return
    _installed.append(True)
    from ._browser_context import BrowserContext  # it imports this module, so only now

    _wrap(BrowserContext, "new_page", "BrowserContext", "newPage", {}, None, False)
    for cls in (Page, Frame):
        for name, (method, params) in _FRAME_ACTIONS.items():
            _wrap(cls, name, "Frame", method, params)
    for name, (klass, method, params, title) in _PAGE_ACTIONS.items():
        _wrap(Page, name, klass, method, params, title, name not in _NO_SNAPSHOT)
        _wrap(Frame, name, klass, method, params, title, name not in _NO_SNAPSHOT)
    for name, (method, params) in _LOCATOR_ACTIONS.items():
        _wrap(Locator, name, "Frame", method, params)
    for cls, table in _INPUT_ACTIONS.items():
        for name, (method, params, title) in table.items():
            _wrap(cls, name, "Page", method, params, title)
    for name, verb in _FETCH_METHODS.items():
        params = {"url": "url" if name != "fetch" else "url_or_request",
                  "method": (lambda b, v=verb: v) if verb else (lambda b: (b.get("method") or "GET").upper())}
        _wrap(APIRequestContext, name, "APIRequestContext", "fetch", params, None, False)
    from ._assertions import LocatorAssertions, PageAssertions

    for cls in (LocatorAssertions, PageAssertions):
        for name in dir(cls):
            if name.startswith(("to_", "not_to_")) and callable(getattr(cls, name)):
                fn = getattr(cls, name)
                setattr(cls, name, _traced(fn, "Frame", "expect", {"expression": lambda b, n=name: n},
                                           'Expect "%s"' % name, True))
    _wrap_waiter()


def _wrap_waiter():
    """expect_*() and wait_for_event(): the wait is an action from the with block's start to its end."""
    enter, exit_ = _EventWaiter.__enter__, _EventWaiter.__exit__

    def traced_enter(self):
        tracing = _tracing_of(self._target)
        if tracing is not None and not getattr(_state, "depth", 0):
            owner = "page" if isinstance(self._target, Page) else "browser_context"
            title = 'Wait for event "%s.expect_event(%s)"' % (owner, self._event)
            self._trace_call = (tracing, tracing._before("Page", "waitForEventInfo", {"event": self._event},
                                                         _page_of(self._target), title, False))
        return enter(self)

    def traced_exit(self, exc_type, exc, tb):
        try:
            return exit_(self, exc_type, exc, tb)
        except BaseException as err:
            exc = err
            raise
        finally:
            call, self._trace_call = self._trace_call, None
            if call is not None:
                call[0]._after(call[1], exc)

    _EventWaiter.__enter__, _EventWaiter.__exit__ = traced_enter, traced_exit

