"""Page: one tab, its navigation, content, evaluation, screenshots, ARIA snapshot and locator handlers."""

import datetime
import inspect
import os
import re
import time
import urllib.parse

from ._errors import Error, StrictModeViolation, TargetClosed, TimeoutError
from ._str_utils import _api_description, _regex_body
from ._helpers import _UNSET, _abs_path, _screenshot_bytes, _url_matches, _viewport
from ._js_handle import _decode, _js_call, _named_after
from ._console_message import ConsoleMessage
from ._fetch import APIRequestContext
from ._network import Disposable, PageError, Response, _Routing
from ._input import Keyboard, Mouse
from ._files import _PageFiles
from ._locator import FrameLocator, Locator, _HIGHLIGHT_JS, _Locating
from ._element_handle import ElementHandle
from ._page_events import _PageEvents
from ._frame import Frame, _SET_CONTENT_JS


class _PageExtras:
    """Playwright's page API beyond wright's core (content, scripts, handles); mixed into Page."""

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
        if strict and len(found) > 1:
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
        return Frame(self)

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

    def set_default_navigation_timeout(self, timeout):
        self._default_navigation_timeout = timeout

    @property
    def viewport_size(self):
        return getattr(self, "_viewport", None)


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


def _call_locator_handler(handler, locator):
    """Call handler(locator) when it takes a positional argument, else handler()."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return handler(locator)
    takes = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    return handler(locator) if takes else handler()


class _PageLocatorHandlers:
    """page.add_locator_handler: run a callback whenever an overlay's locator is visible before an action.

    The driver checks the handlers' locators at every attempt of an action (and of expect()'s
    retries); when one is visible it asks this client to run the handler, then, unless
    no_wait_after, waits for the locator to be hidden before going on. times= limits how often a
    handler runs; actions the handler makes itself do not run handlers."""

    def add_locator_handler(self, locator, handler, no_wait_after=None, times=None):
        if not isinstance(locator, Locator) or locator._owner_page() is not self:
            raise Error("Locator must belong to the main frame of this page")
        if times == 0:
            return
        uid = self._call("page.add_locator_handler", selector=locator.selector,
                         description=_api_description(locator.selector),
                         no_wait_after=True if no_wait_after else None)["uid"]
        self.__dict__.setdefault("_locator_handlers", {})[uid] = [handler, times, locator]

    def remove_locator_handler(self, locator):
        table = self.__dict__.get("_locator_handlers", {})
        for uid, entry in list(table.items()):
            if entry[2].selector == locator.selector and entry[2]._owner_page() is locator._owner_page():
                del table[uid]
                self._call("page.remove_locator_handler", uid=uid)

    def _on_locator_handler(self, params):
        uid = params.get("uid")
        table = self.__dict__.get("_locator_handlers", {})
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


def _locator_handlers_checkpoint(actual, deadline):
    """expect()'s turn for the page's locator handlers before each retry."""
    page = actual if isinstance(actual, Page) else getattr(actual, "_owner_page", lambda: None)()
    if page is None or not page.__dict__.get("_locator_handlers"):
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


class _PageCompat:
    """Page methods of Playwright's API that map onto others."""

    @property
    def request(self):
        """An APIRequestContext bound to this page: its requests carry the page's cookies."""
        if self.__dict__.get("_api_request") is None:
            self._api_request = APIRequestContext(self)
        return self._api_request

    def requests(self):
        """The page's last 100 requests, oldest first (each keeps its response)."""
        return list(self.__dict__.get("_recent_requests", ()))

    def set_checked(self, selector, checked, strict=False, **kwargs):
        return self._first(selector, strict).set_checked(checked, **kwargs)

    def pause(self):
        """Playwright opens its inspector here; wright has none, so this returns at once and the
        page's timeouts stay as they were."""

    def hide_highlight(self):
        """Remove what locator.highlight() drew."""
        _js_call(self, _HIGHLIGHT_JS, [[], None])


class _PageStorage:
    """Web Storage of the page (Playwright's page.local_storage and page.session_storage)."""

    @property
    def local_storage(self):
        if self.__dict__.get("_local_storage") is None:
            self._local_storage = WebStorage(self, "localStorage")
        return self._local_storage

    @property
    def session_storage(self):
        if self.__dict__.get("_session_storage") is None:
            self._session_storage = WebStorage(self, "sessionStorage")
        return self._session_storage


# The navigations, which set_default_navigation_timeout governs before set_default_timeout.
_PAGE_NAVIGATIONS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_url",
                               "page.wait_for_load_state"))


# The page methods that wait and so take a timeout (every locator method does).
_PAGE_WAITS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                         "page.wait_for_url", "page.wait_for_selector", "page.screenshot", "page.aria_snapshot"))


class Page(_Routing, _PageEvents, _PageExtras, _PageFiles, _PageStorage, _PageLocatorHandlers, _PageCompat,
           _Locating):
    """One tab. Get it from browser.new_page(), browser.pages or page.expect_popup()."""

    def __init__(self, browser, page_id):
        self._browser = browser
        self.id = page_id
        self._default_timeout = None
        self._closed = False
        self.keyboard = Keyboard(self)
        self.mouse = Mouse(self)
        self._context = None
        self._owned_context = None
        self._viewport = getattr(browser, "_viewport", None)
        self._default_navigation_timeout = None
        self._requests = {}
        self._nav_response = None
        self._bindings = {}
        self._routing_on = False

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
        self._check_referer(url, referer)
        if self._context is not None and self._context._options.get("base_url"):
            url = urllib.parse.urljoin(self._context._options["base_url"], url)
        self._nav_response = None
        result = self._call("page.goto", timeout, url=url, wait_until=wait_until)
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
        result = self._call("page.go_back", timeout, wait_until=wait_until)
        return Response(result["url"], None) if result.get("url") else None

    def go_forward(self, wait_until=None, timeout=None):
        """Forward one history entry; None when there is none."""
        result = self._call("page.go_forward", timeout, wait_until=wait_until)
        return Response(result["url"], None) if result.get("url") else None

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
        target = _regex_body(url) if isinstance(url, re.Pattern) else url
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

    def screenshot(self, path=None, full_page=False, timeout=None, type=None, quality=None):
        """A PNG of the viewport (full_page: the whole page; type "jpeg" with quality for a JPEG).
        Written to path if given; returns the bytes."""
        target = _abs_path(path) if path else None
        if type is None and path and str(path).lower().endswith((".jpg", ".jpeg")):
            type = "jpeg"
        result = self._call("page.screenshot", timeout, path=target, full_page=True if full_page else None,
                            type=type, quality=quality)
        return _screenshot_bytes(result, target)

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
        records = self._call("page.console_messages", clear=clear or None).get("messages") or []
        return [ConsoleMessage(self, r) for r in records]

    def clear_console_messages(self):
        self._call("page.console_messages", clear=True)

    def page_errors(self, clear=False, filter=None):
        """Uncaught JavaScript errors, oldest first: PageError objects (.message, .name, .stack), which
        also answer e["message"] and e["stack"]."""
        records = self._call("page.page_errors", clear=clear or None).get("errors") or []
        return [PageError(r) for r in records]

    def clear_page_errors(self):
        self._call("page.page_errors", clear=True)

    def dialogs(self, clear=False):
        """Dialogs seen so far (all accepted as they opened): [{type, message, default_value}]."""
        return self._call("page.dialogs", clear=clear or None).get("dialogs") or []

    # Playwright's page-level shortcuts: page.click(selector) acts on the first
    # match (strict=True makes several matches an error, as locators do).

    def _first(self, selector, strict):
        loc = self.locator(selector)
        return loc if strict else loc.first

    def click(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).click(**kwargs)

    def dblclick(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).dblclick(**kwargs)

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
