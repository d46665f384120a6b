"""Frames: Frame (the main frame and child frames) and the frame events keep up to date."""

import os
import re
import urllib.parse

from ._errors import Error, StrictModeViolation, TargetClosed, TimeoutError
from ._str_utils import _join
from ._helpers import _UNSET, _url_matches
from ._js_handle import _js_call
from ._network import Response
from ._locator import Locator, _Locating
from ._element_handle import ElementHandle
from ._waiter import _NavigationWaiter


_SET_CONTENT_JS = """async ({html, state, timeout}) => {
  const done = new Promise(resolve => {
    const ready = () => state === 'commit' ||
      (state === 'domcontentloaded' ? document.readyState !== 'loading' : document.readyState === 'complete');
    const check = () => { if (ready()) resolve('ok'); else setTimeout(check, 10); };
    document.open();
    document.write(html);
    // A written document is "complete" at close(), before its images load;
    // its load event waits for them (document.open() dropped older listeners).
    const waitLoad = state === 'load' || state === 'networkidle';
    if (waitLoad) window.addEventListener('load', () => resolve('ok'), {once: true});
    document.close();
    if (!waitLoad) check();
  });
  if (!timeout) return done;
  return Promise.race([done, new Promise(r => setTimeout(() => r('timeout'), timeout))]);
}"""


class Frame(_Locating):
    """A frame of a page: page.main_frame, page.frames, frame events, element_handle.content_frame().

    The page keeps one object per frame, so the same frame is the same object everywhere: its main
    frame, made with the page, and each child frame by its CDP frame id (from frame events, the frame
    tree, a request, a handle). The main frame is the page itself: its methods are the page's. A child
    frame is reached through its <iframe> element, looked up when first needed, so its locators are
    `<iframe> >> selector` chains; it is detached once its id leaves the page's frame tree.
    """

    def __init__(self, page, frame_id=None, parent_id=None, main=False):
        self._page = page
        self._main = main
        self._frame_id = frame_id  # a child frame's CDP id (the main frame's is page._main_frame_id)
        self._parent_id = parent_id
        self._parent_main_flag = False  # the driver said its parent is the main frame
        self._detached = False
        self._attached_seen = False  # its frameattached event was emitted
        self._owner = None  # a child frame's <iframe> ElementHandle, once looked up (or given)
        self._last = {"name": "", "url": ""}  # its last frame tree entry: a detached frame keeps it

    def __repr__(self):
        if self._main:
            try:
                return "<Frame name= url=%r>" % self._page.url
            except Error:
                return "<Frame main>"
        if not self._detached and not self._page.is_closed():
            try:
                self._info()
            except Error:
                pass
        return "<Frame name=%s url=%r>" % (self._last.get("name") or "", self._last.get("url") or "")

    def __eq__(self, other):
        if not isinstance(other, Frame) or other._page is not self._page or other._main != self._main:
            return False
        return self._main or other._frame_id == self._frame_id

    def __hash__(self):
        return hash((id(self._page), None if self._main else self._frame_id))

    def _owner_page(self):
        return self._page

    def _sub(self, part):
        if self._main:
            return Locator(self._page, part)
        return Locator(self._page, _join(self._element._selector, part))

    @property
    def _parent_main(self):
        if self._parent_main_flag:
            return True
        main = self._page._main_frame_id
        return bool(main) and self._parent_id == main

    @_parent_main.setter
    def _parent_main(self, value):
        self._parent_main_flag = value

    @property
    def _element(self):
        """The <iframe> of a child frame (None for the main frame)."""
        if self._main:
            return None
        if self._owner is None:
            self._check_attached("Frame was detached")
            handle = self._page._call("page.frame_owner", frame=self._frame_id).get("handle")
            self._owner = ElementHandle(self._page, handle)
        return self._owner

    def _info(self):
        """This child frame's entry of the page's frame tree (None once detached); remembers name and url."""
        if self._detached:
            return None
        for info in self._page._frame_tree():
            if info["frame"] == self._frame_id:
                self._last = info
                if info.get("parent") and not self._parent_id:
                    self._parent_id = info["parent"]
                return info
        self._detached = True
        return None

    def _check_attached(self, message, method=None):
        if self._page.is_closed() or self._info() is None:
            if method:
                message = method + ": " + message
            raise Error(message, type="Error", method=method)

    @property
    def page(self):
        return self._page

    @property
    def parent_frame(self):
        if self._main:
            return None
        if not self._parent_id and not self._parent_main:
            self._info()  # the parent is known from the tree (a detached frame keeps the one it had)
        if self._parent_main:
            return self._page.main_frame
        return self._page._frame_for(self._parent_id)

    @property
    def child_frames(self):
        if self._main:
            tree = self._page._frame_tree()
            if not tree:
                return []
            return [self._page._frame_for(i["frame"], parent=i["parent"]) for i in tree[1:]
                    if i["parent"] == tree[0]["frame"]]
        if self._info() is None:
            return []
        return [self._page._frame_for(i["frame"], parent=i["parent"]) for i in self._page._frame_tree()
                if i.get("parent") == self._frame_id]

    @property
    def name(self):
        if self._main:
            return ""
        info = self._info() or self._last
        if info.get("name"):
            return info["name"]
        if self._detached:
            return ""
        try:
            return self._element.get_attribute("id") or ""
        except Error:
            return ""

    @property
    def url(self):
        if self._main:
            return self._page.url
        info = self._info() or self._last
        return info.get("url") or ""

    def is_detached(self):
        if self._main:
            return self._page.is_closed()
        return self._info() is None

    def frame_element(self):
        if self._main:
            raise Error("Frame has been detached.", type="Error")
        self._check_attached("Frame has been detached.", "Frame.frame_element")
        return self._element

    def _doc(self):
        self._check_attached("Frame was detached")
        found = self._page._query(_join(self._element._selector, ":root"))
        if not found:
            raise Error("Frame was detached", type="TargetClosed")
        return found[0]

    def evaluate(self, expression, arg=_UNSET):
        if self._main:
            return self._page.evaluate(expression, arg)
        return _js_call(self._page, expression, arg, context=self._doc()._id)

    def evaluate_handle(self, expression, arg=_UNSET):
        if self._main:
            return self._page.evaluate_handle(expression, arg)
        return _js_call(self._page, expression, arg, context=self._doc()._id, return_handle=True)

    def content(self):
        return self.evaluate("() => { let s = ''; if (document.doctype) s = new XMLSerializer()"
                             ".serializeToString(document.doctype); return s + document.documentElement.outerHTML; }")

    def title(self):
        return self.evaluate("() => document.title")

    def set_content(self, html, timeout=None, wait_until=None):
        if self._main:
            return self._page.set_content(html, timeout=timeout, wait_until=wait_until)
        _js_call(self._page, _SET_CONTENT_JS, {"html": html, "state": wait_until or "load", "timeout": 0},
                 context=self._doc()._id)

    def query_selector(self, selector):
        found = self._page._query(self._sub(selector).selector)
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._page._query(self._sub(selector).selector)

    def wait_for_selector(self, selector, state=None, timeout=None):
        return self._page._wait_selector(self._sub(selector), state, timeout)

    def eval_on_selector(self, selector, expression, arg=_UNSET, strict=None):
        """Run expression on the first element selector matches in this frame."""
        if self._main:
            return self._page.eval_on_selector(selector, expression, arg, strict)
        found = self.query_selector_all(selector)
        if strict and len(found) > 1:
            raise StrictModeViolation("strict mode violation: \"%s\" resolved to %d elements" % (selector, len(found)))
        if not found:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return found[0].evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        """Run expression on the list of every element selector matches in this frame."""
        if self._main:
            return self._page.eval_on_selector_all(selector, expression, arg)
        return self._sub(selector).evaluate_all(expression, arg)

    def goto(self, url, wait_until=None, timeout=None, referer=None):
        """Navigate this frame; returns its document's Response (None for about: and data: URLs)."""
        if self._main:
            return self._page.goto(url, wait_until=wait_until, timeout=timeout, referer=referer)
        page = self._page
        _check_referer(page, url, referer)
        if page._context is not None and page._context._options.get("base_url"):
            url = urllib.parse.urljoin(page._context._options["base_url"], url)
        self._check_attached("Navigating frame was detached!", "Frame.goto")
        page._frame_nav_responses().pop(self._frame_id, None)
        result = page._call("page.frame_goto", page._navigation_timeout(timeout, {}), frame=self._frame_id,
                            url=url, wait_until=wait_until, referer=referer or "")
        if re.match(r"(?i)^(about|data):", url):
            return None
        nav = page._frame_nav_responses().get(self._frame_id)
        if nav is not None:
            return nav
        return Response(result.get("url", url), result.get("status"), page)

    def wait_for_load_state(self, state=None, timeout=None):
        """Wait until this frame's document reached state (load, domcontentloaded; networkidle as load)."""
        if self._main:
            return self._page.wait_for_load_state(state, timeout=timeout)
        state = state or "load"
        if state not in ("load", "domcontentloaded", "networkidle", "commit"):
            raise Error("state: expected one of (load|domcontentloaded|networkidle|commit)", type="InvalidParams")
        ready = "['interactive', 'complete']" if state == "domcontentloaded" else "['complete']"
        if state == "commit":
            return
        limit = timeout if timeout is not None else self._page._timeout_ms()

        def check():
            try:
                return self.evaluate("() => %s.includes(document.readyState)" % ready)
            except TargetClosed:
                raise
            except Error:
                self._check_attached("Navigating frame was detached!", "Frame.wait_for_load_state")
                return False  # the document is being replaced: ask the next one
        try:
            self._page._poll(check, limit, "waiting for the %s state of the frame" % state)
        except TimeoutError:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for the %s state of %s" % (limit, state, self.url),
                               method="Frame.wait_for_load_state") from None

    def expect_navigation(self, url=None, wait_until=None, timeout=None):
        """with frame.expect_navigation() as info: <action>; info.value is this frame's new document's Response."""
        return _NavigationWaiter(self._page, url, wait_until, timeout, frame=None if self._main else self)

    def wait_for_navigation(self, url=None, wait_until=None, timeout=None):
        with self.expect_navigation(url=url, wait_until=wait_until, timeout=timeout) as info:
            pass
        return info.value

    def wait_for_url(self, url, wait_until=None, timeout=None):
        if self._main:
            return self._page.wait_for_url(url, wait_until=wait_until, timeout=timeout)
        base = self._page._context._options.get("base_url") if self._page._context is not None else None
        if _url_matches(url, self.url, base):
            return self.wait_for_load_state(wait_until, timeout=timeout)
        with self.expect_navigation(url=url, wait_until=wait_until, timeout=timeout):
            pass

    def add_script_tag(self, url=None, path=None, content=None, type=None):
        """A <script> in this frame's document (its URL, file or text), as page.add_script_tag does in the main frame."""
        if self._main:
            return self._page.add_script_tag(url=url, path=path, content=content, type=type)
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        return self._add_tag("script", url, content, type or "")

    def add_style_tag(self, url=None, path=None, content=None):
        """A stylesheet in this frame's document (its URL, file or text)."""
        if self._main:
            return self._page.add_style_tag(url=url, path=path, content=content)
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n/*# sourceURL=" + os.fspath(path).replace("\n", "") + "*/"
        return self._add_tag("style", url, content, "")

    def _add_tag(self, tag, url, content, type):
        from ._page import _ADD_TAG_JS  # _page imports this module
        if url is None and content is None:
            raise Error("Provide an object with a `url`, `path` or `content` property", type="InvalidParams")
        return _js_call(self._page, _ADD_TAG_JS, {"tag": tag, "url": url, "content": content, "type": type},
                        context=self._doc()._id, return_handle=True)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._main:
            return getattr(self._page, name)
        if name in _SELECTOR_SHORTCUTS:
            def shortcut(selector, *args, **kwargs):
                strict = kwargs.pop("strict", False)
                loc = self._sub(selector)
                return getattr(loc if strict else loc.first, _SELECTOR_SHORTCUTS[name])(*args, **kwargs)
            return shortcut
        raise AttributeError("Frame.%s is only available on the main frame in wright" % name)


_SELECTOR_SHORTCUTS = {
    "click": "click", "dblclick": "dblclick", "fill": "fill", "type": "press_sequentially", "press": "press",
    "check": "check", "uncheck": "uncheck", "select_option": "select_option", "hover": "hover", "focus": "focus",
    "inner_text": "inner_text", "text_content": "text_content", "inner_html": "inner_html",
    "input_value": "input_value", "get_attribute": "get_attribute", "is_visible": "is_visible",
    "is_hidden": "is_hidden", "is_enabled": "is_enabled", "is_disabled": "is_disabled", "is_checked": "is_checked",
    "is_editable": "is_editable", "dispatch_event": "dispatch_event", "set_checked": "set_checked",
    "eval_on_selector": None, "tap": "tap",
}


def _check_referer(page, url, referer):
    """A referer given to goto may not repeat one the page's (or its context's) extra headers set."""
    headers = page._extra_headers
    if headers is None and page._context is not None:
        headers = page._context._emulation.get("extra_http_headers")
    if referer is not None and any(k.lower() == "referer" for k in (headers or {})):
        raise Error('"referer" is already specified as extra HTTP header (navigating to %s)' % url,
                    type="InvalidParams")
