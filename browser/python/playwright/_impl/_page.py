"""Page: one tab, its navigation, content, evaluation, screenshots, ARIA snapshot and locator handlers."""

import collections
import json
import os
import re
import time
import urllib.parse

from . import _errors, _websocket
from ._errors import Error, StrictModeViolation, TargetClosed, TimeoutError
from ._str_utils import _api_description, _regex_body
from ._helpers import _LOAD_STATES, _UNSET, _abs_path, _screenshot_bytes, _url_matches, _viewport
from ._events import _Emitter, _fit_args
from ._js_handle import _decode, _encode, _js_call, _js_type_name, _named_after
from ._console_message import ConsoleMessage
from ._worker import Worker
from ._dialog import Dialog
from ._fetch import _page_request
from ._network import Disposable, PageError, Request, Response, Route, WebError, _Routing, _route_through
from ._network import PAGE_EVENTS as _NETWORK_EVENTS, _timing_ended
from ._input import Keyboard, Mouse, Touchscreen
from ._files import Download, FileChooser
from ._locator import FrameLocator, Locator, _HIGHLIGHT_JS, _Locating
from ._element_handle import ElementHandle
from ._waiter import _NavigationWaiter, _against_base, _describe_pattern, _url_predicate
from ._frame import Frame, _SET_CONTENT_JS, _check_referer
from ._pdf import _pdf
from ._video import Screencast
from ._lazy import lazy

datetime, inspect, traceback = lazy("datetime"), lazy("inspect"), lazy("traceback")


# add_script_tag / add_style_tag: insert the tag, settle on its load (or error).
_ADD_TAG_JS = """({tag, url, content, type}) => {
  let el;
  if (tag === 'script') {
    el = document.createElement('script');
    if (type) el.type = type;
    if (url !== null && url !== undefined) el.src = url; else el.text = content;
  } else if (url !== null && url !== undefined) {
    el = document.createElement('link');
    el.rel = 'stylesheet';
    el.href = url;
  } else {
    el = document.createElement('style');
    el.appendChild(document.createTextNode(content));
  }
  const external = url !== null && url !== undefined;
  const settled = new Promise((resolve, reject) => {
    el.onload = () => resolve(el);
    el.onerror = () => reject(new Error(tag === 'script' ? 'Failed to load script at ' + url : 'Error loading style ' + url));
    if (!external && tag === 'script') resolve(el);
  });
  // Inline content a Content Security Policy refuses is dropped silently but
  // for a securitypolicyviolation event, which comes in a task of its own.
  let refused = null;
  const onViolation = e => { refused = e; };
  if (!external) document.addEventListener('securitypolicyviolation', onViolation);
  (document.head || document.documentElement).appendChild(el);
  if (external) return settled;
  return new Promise(resolve => setTimeout(resolve, 0)).then(() => {
    document.removeEventListener('securitypolicyviolation', onViolation);
    if (refused) {
      el.remove();
      throw new Error("the page's Content Security Policy refused the inline " + tag + ' (' + refused.violatedDirective + ')');
    }
    return el;
  });
}"""


# Navigations: their default timeout is the navigation timeout, and their load states are Playwright's.
_NAV_CALLS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                        "page.wait_for_url"))


# What a screenshot's options paint on the page for the capture, removed right after it: one <style> and one
# box per masked element, each marked so that the removal finds them in every frame they went into.
_STYLE_JS = """(css) => {
  const root = document.documentElement;
  if (!root || !css) return;
  const s = document.createElement('style');
  s.setAttribute('data-wright-shot', '');
  s.textContent = css;
  root.appendChild(s);
}"""
_MASK_JS = """(els, color) => {
  for (const e of els) {
    const r = e.getBoundingClientRect();
    const d = document.createElement('div');
    d.setAttribute('data-wright-shot', '');
    d.style.cssText = 'position:absolute;z-index:2147483647;pointer-events:none;margin:0;padding:0;border:0;' +
      'left:' + (r.left + scrollX) + 'px;top:' + (r.top + scrollY) + 'px;width:' + r.width + 'px;height:' +
      r.height + 'px;background:' + color;
    document.documentElement.appendChild(d);
  }
}"""
_UNDECORATE_JS = "() => document.querySelectorAll('[data-wright-shot]').forEach(e => e.remove())"
_NO_ANIMATIONS_CSS = ("*, *::before, *::after { animation-play-state: paused !important; "
                      "animation-delay: -1ms !important; animation-duration: 0s !important; "
                      "animation-iteration-count: 1 !important; transition: none !important; }")
_HIDE_CARET_CSS = "*, *::before, *::after { caret-color: transparent !important; }"


def _screenshot_decorations(page, mask, mask_color, style, animations, caret):
    """Apply a screenshot's style, animations, caret and mask options; returns what undoes them."""
    if animations not in (None, "allow", "disabled"):
        raise Error('screenshot: animations must be "allow" or "disabled", not %r' % (animations,),
                    type="InvalidParams")
    if caret not in (None, "hide", "initial"):
        raise Error('screenshot: caret must be "hide" or "initial", not %r' % (caret,), type="InvalidParams")
    css = [style or ""]
    if animations == "disabled":
        css.append(_NO_ANIMATIONS_CSS)
    if caret != "initial":
        css.append(_HIDE_CARET_CSS)
    frames = [page.main_frame]
    page.main_frame.evaluate(_STYLE_JS, "\n".join(c for c in css if c))
    for locator in mask or []:
        frame = getattr(locator, "_frame", None)
        if frame is not None and frame not in frames:
            frames.append(frame)
        locator.evaluate_all(_MASK_JS, mask_color or "#FF00FF")

    def undo():
        for frame in frames:
            try:
                frame.evaluate(_UNDECORATE_JS)
            except Error:
                pass  # the page moved on: nothing of ours is left on it
    return undo


def _check_header_values(api, headers):
    """Header values are strings in Playwright; any other is refused by name, as its protocol does."""
    for i, value in enumerate((headers or {}).values()):
        if not isinstance(value, str):
            raise Error("%s: headers[%d].value: expected string, got %s" % (api, i, _js_type_name(value)),
                        type="InvalidParams", method=api)


def _call_locator_handler(handler, locator):
    """Call handler(locator) when it takes a positional argument, else handler()."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return handler(locator)
    takes = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    return handler(locator) if takes else handler()


def _locator_handlers_checkpoint(actual, deadline):
    """expect()'s turn for the page's locator handlers before each retry."""
    page = actual if isinstance(actual, Page) else getattr(actual, "_owner_page", lambda: None)()
    if page is None or not page._locator_handlers:
        return
    left = max(1, int((deadline - time.monotonic()) * 1000))
    page._call("page.run_locator_handlers", left)


class WebStorage:
    """page.local_storage / page.session_storage: the current origin's Web Storage, read and written
    in the page's main frame."""

    def __init__(self, page, kind):
        self._page = page
        self._kind = kind

    def __repr__(self):
        return "<WebStorage %s of %r>" % (self._kind, self._page)

    def _run(self, source, arg=None):
        return self._page.evaluate("([kind, arg]) => (%s)(window[kind], arg)" % source, [self._kind, arg])

    def get_item(self, name):
        """The value stored under name, or None."""
        return self._run("(s, name) => s.getItem(name)", name)

    def set_item(self, name, value):
        self._run("(s, [name, value]) => { s.setItem(name, value); }", [name, str(value)])

    def remove_item(self, name):
        self._run("(s, name) => { s.removeItem(name); }", name)

    def clear(self):
        self._run("(s) => { s.clear(); }")

    def items(self):
        """Every entry as {"name", "value"}, in the storage's order."""
        return self._run("(s) => { const out = []; for (let i = 0; i < s.length; i++) { const name = s.key(i);"
                         " out.push({name, value: s.getItem(name)}); } return out; }")


# The navigations, which set_default_navigation_timeout governs before set_default_timeout.
_PAGE_NAVIGATIONS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_url",
                               "page.wait_for_load_state"))


# The page methods that wait and so take a timeout (every locator method does).
_PAGE_WAITS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                         "page.wait_for_url", "page.wait_for_selector", "page.screenshot", "page.aria_snapshot"))


class Page(_Routing, _Emitter, _Locating):
    """One tab. Get it from browser.new_page(), browser.pages or page.expect_popup()."""

    def __init__(self, browser, page_id):
        _Emitter.__init__(self)
        self._browser = browser
        self.id = page_id
        self._default_timeout = None
        self._closed = False
        self.keyboard = Keyboard(self)
        self.mouse = Mouse(self)
        self.touchscreen = Touchscreen(self)
        self._context = None
        self._owned_context = None
        self._viewport = browser._viewport if browser is not None else None
        self._default_navigation_timeout = None
        self._requests = {}
        self._nav_response = None
        self._bindings = {}
        self._ws_routes = None  # page.route_web_socket (_web_socket_route.py)
        self._ws_sockets = {}  # routed WebSockets of the page, by the page's id for them
        self._ws_backlog = collections.deque()  # their news from the page, handled in order
        self._routing_on = False
        self._routes = []  # page.route() entries, newest last
        self._main_frame_id = None  # the CDP id of the main frame, once the driver said it
        self._main_frame = Frame(self, main=True)  # one object, as each child frame is
        self._child_frames = {}  # CDP frame id -> the one Frame object of that child frame
        self._frame_navs = {}  # CDP frame id -> the Response of its last navigation
        self._recent_requests = collections.deque(maxlen=100)  # page.requests()
        self._media = None  # emulate_media() state, from the context's on first use
        self._extra_headers = None  # set_extra_http_headers(), merged with the context's
        self._choosers_on = False  # the driver intercepts file choosers once someone listens
        self._downloads_on = False  # a page without a context asks the driver for downloads
        self._locator_handlers = {}  # uid -> [handler, times left, locator]
        self.local_storage = WebStorage(self, "localStorage")
        self.session_storage = WebStorage(self, "sessionStorage")
        self._request = None  # page.request when the page has no context of the client's (_fetch.py)
        self._video = None  # its Video, when the context records (_video.py)
        self.screencast = Screencast(self)

    @property
    def request(self):
        return _page_request(self)

    def __repr__(self):
        return "<Page url=%r>" % (self.url if not self._closed else "",)

    def _owner_page(self):
        return self

    def _sub(self, part):
        return Locator(self, part)

    def _call(self, method, _timeout=None, _wait=True, **params):
        if isinstance(_timeout, datetime.timedelta):
            _timeout = _timeout.total_seconds() * 1000
        if method in _NAV_CALLS:
            _timeout = self._navigation_timeout(_timeout, params)
        body = {"page": self.id}
        for key, value in params.items():
            if value is not None:
                body[key] = value
        timeout = _timeout
        if isinstance(timeout, datetime.timedelta):
            timeout = timeout.total_seconds() * 1000
        if timeout is None and method in _PAGE_NAVIGATIONS:
            timeout = self._default_navigation_timeout
            if timeout is None and self._context is not None:
                timeout = getattr(self._context, "_default_navigation_timeout", None)
        if timeout is None and (method.startswith("locator.") or method in _PAGE_WAITS):
            timeout = self._default_timeout
        if timeout is not None:
            body["timeout"] = timeout
        self.screencast._annotate(method, body)
        return self._browser._call(method, body, timeout_ms=timeout if _wait else False)

    @property
    def browser(self):
        return self._browser

    def set_default_timeout(self, timeout):
        """Timeout (ms) for this page's calls that are given none; None restores the browser's."""
        self._default_timeout = timeout

    # navigation

    def goto(self, url, wait_until=None, timeout=None, referer=None):
        """Navigate; returns the main document's Response (None for about: and data: URLs, which have none)."""
        _check_referer(self, url, referer)
        if self._context is not None and self._context._options.get("base_url"):
            url = urllib.parse.urljoin(self._context._options["base_url"], url)
        self._nav_response = None
        result = self._call("page.goto", timeout, url=url, wait_until=wait_until, referer=referer or "")
        final = result.get("url", url)
        if re.match(r"(?i)^(about|data):", url):
            return None
        nav = self._nav_response
        if nav is not None:
            return nav
        return Response(final, result.get("status"), self)

    def reload(self, wait_until=None, timeout=None):
        self._nav_response = None
        result = self._call("page.reload", timeout, wait_until=wait_until)
        if re.match(r"(?i)^(about|data):", result.get("url") or ""):
            return None
        return self._nav_response or Response(result.get("url"), None)

    def go_back(self, wait_until=None, timeout=None):
        """Back one history entry; None when there is none."""
        self._nav_response = None
        result = self._call("page.go_back", timeout, wait_until=wait_until)
        return (self._nav_response or Response(result["url"], None)) if result.get("url") else None

    def go_forward(self, wait_until=None, timeout=None):
        """Forward one history entry; None when there is none."""
        self._nav_response = None
        result = self._call("page.go_forward", timeout, wait_until=wait_until)
        return (self._nav_response or Response(result["url"], None)) if result.get("url") else None

    @property
    def url(self):
        return self._call("page.url").get("url", "")

    def title(self):
        return self._call("page.title").get("title", "")

    def content(self):
        return self._call("page.content").get("html", "")

    # waiting

    def wait_for_load_state(self, state="load", timeout=None):
        self._call("page.wait_for_load_state", timeout, state=state)

    def wait_for_url(self, url, wait_until=None, timeout=None):
        """Wait until the page's URL matches: exact, a glob with * / **, a re.Pattern, or a predicate."""
        if callable(url) and not isinstance(url, re.Pattern):
            self._poll(lambda: url(self.url), timeout, "wait_for_url: the URL predicate never held")
            if wait_until:
                self.wait_for_load_state(wait_until, timeout=timeout)
            return
        target = _regex_body(url) if isinstance(url, re.Pattern) else _against_base(self, url)
        self._call("page.wait_for_url", timeout, url=target, wait_until=wait_until)

    def wait_for_function(self, expression, arg=_UNSET, timeout=None, polling=100):
        """Evaluate expression every `polling` ms ("raf": every animation frame) until it returns something
        truthy; returns a JSHandle of that value, as Playwright does."""
        if polling == "raf":
            polling = 16
        elif isinstance(polling, bool) or not isinstance(polling, (int, float)):
            raise Error("Unknown polling option: %s" % polling, type="InvalidParams")
        last = []

        def check():
            try:
                handle = self.evaluate_handle(expression, arg)
            except Error as exc:
                if "Cannot find context" in str(exc) or "Execution context was destroyed" in str(exc):
                    return None  # the document went away mid-call: poll the next one
                raise
            # An object is truthy; a primitive comes back by value.
            value = True if handle._id else _decode(handle._value_encoded)
            last[:] = [value]
            return handle if value else None

        return self._poll(check, timeout, "wait_for_function: %r never returned a truthy value" % expression,
                          polling, lambda: "last value: %r" % (last[0] if last else None))

    def _poll(self, check, timeout, what, polling=100, detail=None):
        limit = timeout or self._default_timeout or self._browser._default_timeout
        deadline = time.monotonic() + limit / 1000.0
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() >= deadline:
                message = "Timeout %dms exceeded.\n%s within %d ms" % (limit, what, limit)
                if detail:
                    message += " (%s)" % detail()
                raise TimeoutError(message, method=what.split(":")[0])
            time.sleep(polling / 1000.0)

    # content

    def screenshot(self, path=None, full_page=False, timeout=None, type=None, quality=None, clip=None,
                   omit_background=None, animations=None, caret=None, scale=None, mask=None, mask_color=None,
                   style=None):
        """A PNG of the viewport (full_page: the whole page; type "jpeg" or "webp", with quality). clip: an area
        {x, y, width, height} in CSS pixels; mask: locators painted over (mask_color, default #FF00FF); style:
        CSS applied for the capture; animations="disabled" stops CSS animations and transitions; caret: "hide"
        (the default) or "initial". Written to path if given; returns the bytes."""
        target = _abs_path(path) if path else None
        if type is None and path:
            ext = str(path).lower().rsplit(".", 1)[-1]
            type = {"jpg": "jpeg", "jpeg": "jpeg", "webp": "webp"}.get(ext)
        if clip is not None:
            clip = {k: float(clip[k]) for k in ("x", "y", "width", "height")}
        undo = _screenshot_decorations(self, mask, mask_color, style, animations, caret)
        try:
            result = self._call("page.screenshot", timeout, path=target, full_page=True if full_page else None,
                                type=type, quality=quality, clip=clip, omit_background=omit_background or None,
                                scale=scale)
        finally:
            undo()
        return _screenshot_bytes(result, target)

    def request_gc(self):
        """Collect the page's garbage now (objects only a WeakRef holds are gone after it)."""
        self._call("page.request_gc")

    def pdf(self, scale=None, display_header_footer=None, header_template=None, footer_template=None,
            print_background=None, landscape=None, page_ranges=None, format=None, width=None, height=None,
            prefer_css_page_size=None, margin=None, path=None, outline=None, tagged=None):
        """The page printed to PDF (Chromium headless); written to path if given."""
        return _pdf(self, path=path, format=format, width=width, height=height, margin=margin, scale=scale,
                    display_header_footer=display_header_footer, header_template=header_template,
                    footer_template=footer_template, print_background=print_background, landscape=landscape,
                    page_ranges=page_ranges, prefer_css_page_size=prefer_css_page_size, outline=outline,
                    tagged=tagged)

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, ref=None, timeout=None, depth=None,
                      mode=None, boxes=None):
        """The page as ARIA snapshot YAML; elements that can be acted on carry [ref=eN] (wright's extra).
        depth: levels below the top-level lines (Playwright's option)."""
        if depth is not None:
            max_depth = depth + 1
        result = self._call("page.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None, ref=ref)
        return result.get("snapshot", "")

    # page-wide state

    def set_viewport_size(self, viewport_size=None, width=None, height=None):
        size = _viewport(viewport_size if viewport_size is not None else (width, height), "set_viewport_size")
        self._call("page.set_viewport_size", width=size["width"], height=size["height"])
        self._viewport = size

    def bring_to_front(self):
        self._call("page.bring_to_front")

    def close(self, run_before_unload=None, reason=None):
        if self._closed:
            return
        if run_before_unload:
            # The page's beforeunload handlers run first and may keep it open (a "beforeunload"
            # dialog that is dismissed); the "close" event tells when it went.
            self._call("page.close_before_unload")
            return
        try:
            self._call("page.close")
        except TargetClosed:
            pass
        self._closed = True
        if self._owned_context is not None:
            self._owned_context.close()

    def is_closed(self):
        if self._closed:
            return True
        try:
            return self.id not in {i["page"] for i in self._browser._page_infos()}
        except TargetClosed:
            return True

    def opener(self):
        """The page that opened this one, or None."""
        infos = self._browser._page_infos()
        open_ids = {i["page"] for i in infos}
        for info in infos:
            if info["page"] == self.id and info.get("opener") in open_ids:
                return self._browser._page(info["opener"])
        return None

    def console_messages(self, clear=False, filter=None):
        """Console messages since the page opened (the last 200 or so), oldest first: ConsoleMessage
        objects (.type, .text, .location, .page), which also answer msg["type"], ["text"], ["url"], ["line"]."""
        records = self._call("page.console_messages", clear=clear or None, filter=filter).get("messages") or []
        return [ConsoleMessage(self, r) for r in records]

    def clear_console_messages(self):
        self._call("page.console_messages", clear=True)

    def page_errors(self, clear=False, filter=None):
        """Uncaught JavaScript errors, oldest first: PageError objects (.message, .name, .stack), which
        also answer e["message"] and e["stack"]."""
        records = self._call("page.page_errors", clear=clear or None, filter=filter).get("errors") or []
        return [PageError(r) for r in records]

    def clear_page_errors(self):
        self._call("page.page_errors", clear=True)

    def dialogs(self, clear=False):
        """Dialogs seen so far (all accepted as they opened): [{type, message, default_value}]."""
        return self._call("page.dialogs", clear=clear or None).get("dialogs") or []

    # Playwright's page-level shortcuts: page.click(selector) acts on the first
    # match (strict=True makes several matches an error, as locators do).

    def _strict_selectors(self):
        # new_context(strict_selectors=True): the page's selector methods are strict unless told otherwise.
        ctx = self._context
        return bool(ctx is not None and (getattr(ctx, "_options", None) or {}).get("strict_selectors"))

    def _first(self, selector, strict):
        loc = self.locator(selector)
        return loc if strict or self._strict_selectors() else loc.first

    def click(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).click(**kwargs)

    def dblclick(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).dblclick(**kwargs)

    def tap(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).tap(**kwargs)

    def fill(self, selector, value, strict=False, **kwargs):
        return self._first(selector, strict).fill(value, **kwargs)

    def type(self, selector, text, strict=False, **kwargs):
        return self._first(selector, strict).press_sequentially(text, **kwargs)

    def press(self, selector, key, strict=False, **kwargs):
        return self._first(selector, strict).press(key, **kwargs)

    def check(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).check(**kwargs)

    def uncheck(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).uncheck(**kwargs)

    def select_option(self, selector, value=None, strict=False, **kwargs):
        return self._first(selector, strict).select_option(value, **kwargs)

    def hover(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).hover(**kwargs)

    def focus(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).focus(**kwargs)

    def inner_text(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).inner_text(**kwargs)

    def text_content(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).text_content(**kwargs)

    def inner_html(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).inner_html(**kwargs)

    def input_value(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).input_value(**kwargs)

    def get_attribute(self, selector, name, strict=False, **kwargs):
        return self._first(selector, strict).get_attribute(name, **kwargs)

    def is_visible(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_visible()

    def is_hidden(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_hidden()

    def is_enabled(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_enabled()

    def is_checked(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_checked()

    # Events the driver sends, and the expect_* waiters

    def _timeout_ms(self):
        return self._default_timeout or self._browser._default_timeout

    def _transport_of(self):
        return self._browser._transport

    def _listener_added(self, event):
        if event == "dialog":
            self._browser._answer_dialogs()
        self._files_listener_added(event)

    def _on_driver_event(self, method, params):
        """One driver notification for this page (page.<kind>), handed to the handler of its kind."""
        kind = method[len("page."):]
        handler = _PAGE_EVENTS.get(kind)
        if handler is not None:
            handler(self, kind, params)

    def _each(self, event, value, context_events=()):
        """Emit event on the page, then context_events (default: the same name) on its context."""
        self._emit(event, value)
        if self._context is not None:
            for name in context_events or (event,):
                self._context._emit(name, value)

    def _on_console(self, kind, params):
        message = ConsoleMessage(self, params)
        worker = self._workers_by_id().get(params.get("worker")) if params.get("worker") else None
        if worker is not None:
            message._worker = worker
            worker._emit("console", message)
        self._each("console", message)

    def _on_page_error(self, kind, params):
        err = Error(params.get("message") or "", type=params.get("name") or "Error")
        err.stack = params.get("stack") or ""
        self._emit("pageerror", err)
        if self._context is not None:
            self._context._emit("weberror", WebError(self, err, {"url": params.get("url") or "",
                                                                 "line": params.get("line") or 0,
                                                                 "column": params.get("column") or 0}))

    def _on_dialog(self, kind, params):
        ctx = self._context
        dialog = Dialog(self, params)
        if self._has_listeners("dialog") or (ctx is not None and ctx._has_listeners("dialog")):
            self._each("dialog", dialog)
        elif self._browser._dialogs_ours:
            # Playwright's rule: a dialog nobody listens to is dismissed, but a beforeunload one
            # is accepted, so that leaving the page is not refused by nobody.
            if dialog.type == "beforeunload":
                dialog.accept()
            else:
                dialog.dismiss()

    def _on_load(self, kind, params):
        self._emit(kind, self)
        if kind == "load" and self._context is not None:
            self._context._emit("pageload", self)

    def _on_frame_navigated(self, kind, params):
        ctx = self._context
        if ctx is not None and not params.get("same_document"):
            ctx._note_origin(params.get("url"))
        if params.get("main") and params.get("frame"):
            self._main_frame_id = params.get("frame")
        frame = self._frame_for(params.get("frame"), bool(params.get("main")))
        if frame is None or frame._detached:
            return  # a late event of a frame already gone
        if not params.get("same_document"):
            self._detach_below(params.get("frame"), bool(params.get("main")))
        self._each("framenavigated", frame)

    def _on_response(self, kind, params):
        req = self._requests.get(params.get("request"))
        if req is None:
            return
        url = req.url if req._url_overridden else params.get("url")
        resp = Response(url, params.get("status"), self, req, params.get("headers"),
                        params.get("status_text"), params.get("from_cache"))
        resp._network = params
        req._response = resp
        _timing_ended(req, params.get("timing"), None)
        if req._navigation and req._main_frame:
            self._nav_response = resp
        if req._navigation and req._frame_id:
            self._frame_nav_responses()[req._frame_id] = resp
        self._each("response", resp)

    def _on_request_end(self, kind, params):
        req = self._requests.pop(params.get("request"), None)
        if req is None:
            return
        if kind == "requestfailed":
            req.failure = params.get("error") or "failed"
        else:
            req._finished = True
            _timing_ended(req, None, params.get("timestamp"))
        self._each(kind, req)

    def _on_close(self, kind, params):
        self._closed = True
        workers, self._workers = list(self._workers_by_id().values()), {}
        for worker in workers:
            worker._on_close()
        self._each("close", self, ("close_page", "pageclose"))

    def _frames_by_id(self):
        return self._child_frames

    def _frame_nav_responses(self):
        return self._frame_navs

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
            frame = frames[fid] = Frame(self, fid, parent)
        elif parent and not frame._parent_id:
            frame._parent_id = parent
        return frame

    def _main_id(self):
        if not self._main_frame_id:
            self._frame_tree()
        return self._main_frame_id

    def _frame_tree(self):
        """The page's live frames from the driver: [{frame, parent, name, url}], the main frame first."""
        tree = self._call("page.frame_tree").get("frames") or []
        if tree:
            self._main_frame_id = tree[0]["frame"]
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
        want = bool(self._routes) or (self._context is not None and bool(self._context._routes))
        if want != self._routing_on:
            self._routing_on = want
            self._call("page.set_routing", enabled=want)

    def _on_route(self, kind, params):
        self._browser._transport._aside(self._run_route, params)

    def _run_route(self, params):
        req = self._requests.get(params.get("request"))
        if req is None:
            req = Request(self, params)
            self._requests[params.get("request")] = req
        route = Route(self, params, req)
        entries = [(self, e) for e in reversed(self._routes)]
        if self._context is not None:
            entries += [(self._context, e) for e in reversed(self._context._routes)]
        try:
            _route_through(route, req, entries)
        except Exception as exc:  # noqa: BLE001 - raised by the script's next call, as in Playwright
            transport = self._browser._transport
            if transport._handler_error is None:  # the first failure is the one to report
                transport._handler_error = exc

    def _on_binding(self, kind, params):
        self._browser._transport._aside(self._run_binding, params)

    def _run_binding(self, params):
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
            stack = _errors.format_frames(traceback.extract_tb(exc.__traceback__))
            ok, value = False, {"message": str(exc), "stack": stack}
        body = {"page": self.id, "name": name, "context": params.get("context"), "id": payload.get("id"),
                "ok": ok, "value": value}
        self._browser._transport.send("page.binding_result", {k: v for k, v in body.items() if v is not None})

    def expose_binding(self, name, callback, handle=None):
        """window[name](...) in the page calls callback(source, *args); its result resolves the page's promise."""
        if self._context is not None and name in self._context._bindings:
            raise Error('Function "%s" has been already registered in the browser context' % name)
        if name in self._bindings:
            raise Error('Function "%s" has been already registered' % name)
        self._bindings[name] = callback
        self._call("page.expose_binding", name=name)

    def expose_function(self, name, callback):
        """window[name](...) in the page calls callback(*args)."""
        self.expose_binding(name, lambda source, *args: callback(*_fit_args(callback, args)))

    def _on_request(self, kind, params):
        rid = params.get("request")
        prev = self._requests.get(rid)
        redirected_from = None
        if prev is not None and params.get("redirect_status") is not None:
            prev._response = Response(prev.url, params.get("redirect_status"), self, prev,
                                      params.get("redirect_headers"), params.get("redirect_status_text"))
            prev._finished = True
            _timing_ended(prev, params.get("redirect_timing"), params.get("timestamp"))
            redirected_from = prev
        req = Request(self, params, redirected_from)
        if prev is not None and redirected_from is None:
            req = prev  # made when its route was paused; the request event completes it
            req._navigation = bool(params.get("navigation"))
            req._main_frame = params.get("main_frame", True)
            req._frame_id = params.get("frame")
            req._wall_time, req._timestamp = params.get("wall_time") or req._wall_time, params.get("timestamp")
        if redirected_from is not None:
            redirected_from.redirected_to = req
            self._emit("response", redirected_from._response)
            self._emit("requestfinished", redirected_from)
        if len(self._requests) > 2000:
            self._requests.clear()
        self._requests[rid] = req
        self._recent_requests.append(req)
        self._emit("request", req)
        if self._context is not None:
            self._context._emit("request", req)

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

    @property
    def workers(self):
        """The page's running dedicated workers, oldest first."""
        return list(self._workers_by_id().values())

    def _workers_by_id(self):
        if self.__dict__.get("_workers") is None:
            self._workers = {}
        return self._workers

    def _on_worker(self, kind, params):
        worker = Worker(self, params.get("worker"), params.get("url"))
        self._workers_by_id()[worker._id] = worker
        self._emit("worker", worker)

    def _on_worker_closed(self, kind, params):
        worker = self._workers_by_id().pop(params.get("worker"), None)
        if worker is not None:
            worker._on_close()

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

    # Content, scripts, handles and queries by selector

    def set_content(self, html, timeout=None, wait_until=None):
        """Replace the document with html and wait for its load (or wait_until) event."""
        limit = self._navigation_timeout(timeout, {})
        if limit is None:
            limit = self._default_timeout or self._browser._default_timeout
        state = wait_until or "load"
        if state not in ("load", "domcontentloaded", "networkidle", "commit"):
            raise Error("set_content: wait_until must be load, domcontentloaded, networkidle or commit",
                        type="InvalidParams")
        ok = _js_call(self, _SET_CONTENT_JS, {"html": html, "state": state, "timeout": limit or 0})
        if ok == "timeout":
            raise TimeoutError("Timeout %dms exceeded waiting for the %s event of the new content" % (limit, state),
                               method="set_content")
        if state == "networkidle":
            self.wait_for_load_state("networkidle", timeout=timeout)

    def evaluate(self, expression, arg=_UNSET):
        """Run JavaScript: a function source is called with arg; anything else is evaluated."""
        try:
            return _js_call(self, expression, arg)
        except Error as exc:
            raise _named_after(exc, "Page.evaluate") from None

    def evaluate_handle(self, expression, arg=_UNSET):
        return _js_call(self, expression, arg, return_handle=True)

    def _query(self, selector, timeout=None):
        result = self._call("locator.element_handles", timeout, selector=selector)
        return [ElementHandle(self, hid) for hid in result.get("handles") or []]

    def query_selector(self, selector, strict=None):
        found = self._query(selector)
        if (strict or self._strict_selectors()) and len(found) > 1:
            raise StrictModeViolation("strict mode violation: \"%s\" resolved to %d elements" % (selector, len(found)))
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._query(selector)

    def eval_on_selector(self, selector, expression, arg=_UNSET, strict=None):
        el = self.query_selector(selector, strict)
        if el is None:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return el.evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        return self.locator(selector).evaluate_all(expression, arg)

    def wait_for_selector(self, selector, state=None, timeout=None, strict=None):
        """Wait for selector to reach state (default visible); returns an ElementHandle (None for detached/hidden)."""
        return self._wait_selector(self.locator(selector), state, timeout)

    def _wait_selector(self, loc, state, timeout):
        self._call("page.wait_for_selector", timeout, selector=loc.selector, state=state)
        if state in ("detached", "hidden"):
            return None
        found = self._query(loc.selector)
        return found[0] if found else None

    def add_script_tag(self, url=None, path=None, content=None, type=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        if url is None and content is None:
            raise Error("Provide an object with a `url`, `path` or `content` property", type="InvalidParams")
        return _js_call(self, _ADD_TAG_JS, {"tag": "script", "url": url, "content": content, "type": type or ""},
                        return_handle=True)

    def add_style_tag(self, url=None, path=None, content=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n/*# sourceURL=" + os.fspath(path).replace("\n", "") + "*/"
        if url is None and content is None:
            raise Error("Provide an object with a `url`, `path` or `content` property", type="InvalidParams")
        return _js_call(self, _ADD_TAG_JS, {"tag": "style", "url": url, "content": content, "type": ""},
                        return_handle=True)

    def add_init_script(self, script=None, path=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                script = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        if not isinstance(script, str):
            raise Error("Either path or script parameter must be specified", type="InvalidParams")
        sid = self._call("page.add_init_script", source=script).get("id")
        return Disposable(lambda: sid and not self.is_closed() and self._call("page.remove_init_script", id=sid))

    def dispatch_event(self, selector, type, event_init=None, strict=None, timeout=None):
        self._first(selector, bool(strict)).dispatch_event(type, event_init, timeout=timeout)

    def is_disabled(self, selector, strict=None, timeout=None):
        return self._first(selector, bool(strict)).is_disabled()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def is_editable(self, selector, strict=None, timeout=None):
        return self._first(selector, bool(strict)).is_editable()

    @property
    def main_frame(self):
        return self._main_frame

    @property
    def frames(self):
        """The main frame and every live child frame, parents before their children."""
        tree = self._frame_tree()
        return [self.main_frame] + [self._frame_for(i["frame"], parent=i["parent"]) for i in tree[1:]]

    def frame(self, name=None, url=None):
        for fr in self.frames:
            if name is not None and fr.name == name:
                return fr
            if url is not None and _url_matches(url, fr.url):
                return fr
        return None

    def frame_locator(self, selector):
        return FrameLocator(self, selector)

    @property
    def context(self):
        if self._context is None:
            opener = self.opener()
            if opener is not None:
                self._context = opener.context
                self._context._pages.append(self)
            else:
                self._context = self._browser._default_context()
        return self._context

    @property
    def clock(self):
        return self.context.clock

    def set_default_navigation_timeout(self, timeout):
        self._default_navigation_timeout = timeout

    @property
    def viewport_size(self):
        return getattr(self, "_viewport", None)

    # Files, downloads, drag and drop, media, headers and navigation timeouts

    def set_input_files(self, selector, files, timeout=None, strict=None, no_wait_after=None):
        return self._first(selector, strict).set_input_files(files, timeout=timeout)

    def drag_and_drop(self, source, target, source_position=None, target_position=None, force=None,
                      no_wait_after=None, timeout=None, strict=None, trial=None, steps=None):
        """Drag the element source matches onto the one target matches (HTML5 drag and drop too)."""
        self._first(source, strict).drag_to(self._first(target, strict), force=force, timeout=timeout, trial=trial,
                                            source_position=source_position, target_position=target_position,
                                            steps=steps)

    def emulate_media(self, media=_UNSET, color_scheme=_UNSET, reduced_motion=_UNSET, forced_colors=_UNSET,
                      contrast=_UNSET):
        """Render the page for a CSS media type and media features; an argument left out keeps its value,
        None (or "null") removes the override."""
        state = self._media
        if state is None:
            ctx = self._context
            state = dict(ctx._emulation) if ctx is not None else {}
            state = {k: state.get(k) for k in ("color_scheme", "reduced_motion", "forced_colors", "contrast")}
            self._media = state
        given = {"media": media, "color_scheme": color_scheme, "reduced_motion": reduced_motion,
                 "forced_colors": forced_colors, "contrast": contrast}
        for key, value in given.items():
            if value is not _UNSET:
                state[key] = value
        self._call("page.emulate_media", **{k: (v if v is not None else "") for k, v in state.items()})

    def set_extra_http_headers(self, headers):
        """Send these headers with every request of the page (on top of its context's)."""
        _check_header_values("Page.set_extra_http_headers", headers)
        merged = dict((self._context._emulation.get("extra_http_headers") or {}) if self._context is not None else {})
        # Header names are case-insensitive: the page's Foo replaces the context's fOo.
        for name in headers or {}:
            for old in [k for k in merged if k.lower() == str(name).lower()]:
                del merged[old]
        merged.update(headers or {})
        self._extra_headers = merged
        self._call("page.emulate", extra_http_headers=merged)

    def _navigation_timeout(self, timeout, params):
        """A navigation's timeout: the one given, else the page's or context's navigation timeout (else
        None: the default timeout). Its load state is checked here, with Playwright's message."""
        for name in ("wait_until", "state"):
            value = params.get(name)
            if value is not None and value not in _LOAD_STATES:
                raise Error("%s: expected one of (load|domcontentloaded|networkidle|commit)" % name,
                            type="InvalidParams")
        if timeout is not None:
            return timeout
        for owner in (self, self._context):
            if owner is not None and owner._default_navigation_timeout is not None:
                return owner._default_navigation_timeout
        return None

    def _on_file_event(self, kind, params):
        if kind == "filechooser":
            element = ElementHandle(self, params.get("handle"), "input")
            self._emit("filechooser", FileChooser(self, element, params.get("multiple")))
        elif kind == "download":
            download, ctx = Download(self, params), self._context
            if ctx is not None:  # deleted with the context, as Playwright's downloads are (BrowserContext.close)
                ctx.__dict__.setdefault("_downloads", []).append(download)
            self._emit("download", download)
            if ctx is not None:
                ctx._emit("download", download)

    def _files_listener_added(self, event):
        if event == "filechooser" and not self._choosers_on:
            self._choosers_on = True
            self._call("page.intercept_file_chooser", enabled=True)
        elif event == "download":
            ctx = self._context
            owner = ctx if ctx is not None else self._browser
            if not owner._downloads_on:
                owner._downloads_on = True
                self._browser._call("context.accept_downloads", {
                    "browser": self._browser.id, "context": ctx._id if ctx is not None else "",
                    "accept": True if ctx is None else ctx._options.get("accept_downloads", True) is not False})

    # Locator handlers

    def add_locator_handler(self, locator, handler, no_wait_after=None, times=None):
        if not isinstance(locator, Locator) or locator._owner_page() is not self:
            raise Error("Locator must belong to the main frame of this page")
        if times == 0:
            return
        uid = self._call("page.add_locator_handler", selector=locator.selector,
                         description=_api_description(locator.selector),
                         no_wait_after=True if no_wait_after else None)["uid"]
        self._locator_handlers[uid] = [handler, times, locator]

    def remove_locator_handler(self, locator):
        table = self._locator_handlers
        for uid, entry in list(table.items()):
            if entry[2].selector == locator.selector and entry[2]._owner_page() is locator._owner_page():
                del table[uid]
                self._call("page.remove_locator_handler", uid=uid)

    def _on_locator_handler(self, kind, params):
        self._browser._transport._aside(self._run_locator_handler, params)

    def _run_locator_handler(self, params):
        uid = params.get("uid")
        table = self._locator_handlers
        entry = table.get(uid)
        remove = entry is None
        try:
            if entry is not None and entry[1] != 0:
                if entry[1] is not None:
                    entry[1] -= 1
                remove = entry[1] == 0
                _call_locator_handler(entry[0], entry[2])
        finally:
            if remove:
                table.pop(uid, None)
            try:
                self._call("page.resolve_locator_handler", uid=uid, remove=True if remove else None)
            except Error:
                pass  # the page closed meanwhile (the handler may have closed it)

    # Playwright's page methods that map onto others

    @property
    def video(self):
        """The page's Video when its context records videos (record_video_dir), else None."""
        return self._video

    def requests(self):
        """The page's last 100 requests, oldest first (each keeps its response)."""
        return list(self._recent_requests)

    def set_checked(self, selector, checked, strict=False, **kwargs):
        return self._first(selector, strict).set_checked(checked, **kwargs)

    def pause(self):
        """Playwright opens its inspector here; wright has none, so this returns at once and the
        page's timeouts stay as they were."""

    def hide_highlight(self):
        """Remove what locator.highlight() drew."""
        _js_call(self, _HIGHLIGHT_JS, [[], None])


# The handler of each page event the driver sends (page.<kind>), called with (page, kind, params).
_PAGE_EVENTS = {
    "console": Page._on_console, "pageerror": Page._on_page_error, "dialog": Page._on_dialog,
    "load": Page._on_load, "domcontentloaded": Page._on_load, "binding": Page._on_binding,
    "locator_handler": Page._on_locator_handler, "route": Page._on_route,
    "framenavigated": Page._on_frame_navigated, "frameattached": Page._on_frame_event,
    "framedetached": Page._on_frame_event, "request": Page._on_request, "response": Page._on_response,
    "requestfinished": Page._on_request_end, "requestfailed": Page._on_request_end, **_NETWORK_EVENTS,
    "filechooser": Page._on_file_event, "download": Page._on_file_event, "close": Page._on_close,
    "screencastframe": lambda page, kind, params: page.screencast._on_event(params),
    "worker": Page._on_worker, "worker_closed": Page._on_worker_closed, **_websocket.PAGE_EVENTS,
}
