"""ElementHandle: a handle to one element, with the element actions of Playwright's API."""

import functools

from ._errors import Error, TimeoutError
from ._str_utils import _join
from ._helpers import _UNSET
from ._js_handle import JSHandle, _evaluate_all
from ._locator import Locator


def _element_action(name):
    """ElementHandle's method name: its locator's, with that method's signature and documentation."""
    action = getattr(Locator, name)

    @functools.wraps(action)
    def act(self, *args, **kwargs):
        return action(self._locator, *args, **kwargs)
    return act


class ElementHandle(JSHandle):
    """A handle on one element (query_selector(), wait_for_selector(), evaluate_handle()).

    Its actions are those of a locator of its own (`handle=<id>` as the selector), so they wait for
    the element to be actionable as locators do, and their errors name ElementHandle.
    """

    def __init__(self, page, handle_id, description="node"):
        super().__init__(page, handle_id, {"type": "object", "subtype": "node", "description": description})
        self._locator = Locator(page, "handle=" + handle_id, api="ElementHandle")
        self._selector = self._locator.selector

    # Playwright's ElementHandle actions and queries that a locator has.
    bounding_box = _element_action("bounding_box")
    check = _element_action("check")
    click = _element_action("click")
    dblclick = _element_action("dblclick")
    dispatch_event = _element_action("dispatch_event")
    fill = _element_action("fill")
    focus = _element_action("focus")
    get_attribute = _element_action("get_attribute")
    hover = _element_action("hover")
    inner_html = _element_action("inner_html")
    inner_text = _element_action("inner_text")
    input_value = _element_action("input_value")
    is_checked = _element_action("is_checked")
    is_disabled = _element_action("is_disabled")
    is_editable = _element_action("is_editable")
    is_enabled = _element_action("is_enabled")
    is_hidden = _element_action("is_hidden")
    is_visible = _element_action("is_visible")
    press = _element_action("press")
    screenshot = _element_action("screenshot")
    scroll_into_view_if_needed = _element_action("scroll_into_view_if_needed")
    select_option = _element_action("select_option")
    set_checked = _element_action("set_checked")
    set_input_files = _element_action("set_input_files")
    tap = _element_action("tap")
    text_content = _element_action("text_content")
    type = _element_action("type")
    uncheck = _element_action("uncheck")

    def __repr__(self):
        return "<ElementHandle %s>" % self._description

    def as_element(self):
        return self

    def owner_frame(self):
        """The frame whose document holds the node (its CDP frame id, so the page's one Frame object)."""
        fid = self._page._call("page.node_frames", handle=self._id).get("owner")
        if not fid:
            return None
        page = self._page if self._owns_frame(self._page, fid) else self._page_of_frame(fid)
        return page._frame_for(fid, main=fid == page._main_id())

    @staticmethod
    def _owns_frame(page, fid):
        return fid == page._main_id() or fid in page._frames_by_id() or any(
            f.get("frame") == fid for f in page._frame_tree())

    def _page_of_frame(self, fid):
        """The page whose frame fid is: a node adopted into another page's document (a popup's, through
        window.opener) belongs to that page's frame. The handle's own page when no other has it."""
        for other in self._page.context.pages:
            if other is not self._page and self._owns_frame(other, fid):
                return other
        return self._page

    def content_frame(self):
        """The frame an <iframe> or <frame> element shows; None for other elements."""
        fid = self._page._call("page.node_frames", handle=self._id).get("content")
        if not fid:
            return None
        frame = self._page._frame_for(fid)
        if frame._owner is None:
            frame._owner = self
        return frame

    def query_selector(self, selector):
        found = self._page._query(_join(self._selector, selector))
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._page._query(_join(self._selector, selector))

    def eval_on_selector(self, selector, expression, arg=_UNSET):
        el = self.query_selector(selector)
        if el is None:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return el.evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        return _evaluate_all(self._page, self.query_selector_all(selector), expression, arg)

    def wait_for_selector(self, selector, state=None, timeout=None):
        loc = Locator(self._page, _join(self._selector, selector))
        return self._page._wait_selector(loc, state, timeout)

    def wait_for_element_state(self, state, timeout=None):
        checks = {"visible": "is_visible", "hidden": "is_hidden", "enabled": "is_enabled",
                  "disabled": "is_disabled", "editable": "is_editable"}
        if state == "stable":
            return self.bounding_box(timeout=timeout) and None
        if state not in checks:
            raise Error("state: expected one of (visible|hidden|stable|enabled|disabled|editable)",
                        type="InvalidParams")
        def check():
            if state != "hidden" and not self.evaluate("e => e.isConnected"):
                raise Error("Element is not attached to the DOM: the handle's element was removed", type="Error")
            return getattr(self, checks[state])()

        limit = timeout if timeout is not None else self._page._timeout_ms()
        try:
            self._page._poll(check, limit, "wait_for_element_state: element is not %s" % state)
        except TimeoutError:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for the element to be %s" % (limit, state),
                               method="wait_for_element_state") from None

    def select_text(self, force=None, timeout=None):
        if not force:
            self.scroll_into_view_if_needed(timeout=timeout)  # waits for it to be visible and stable
        self.evaluate("e => { if (e.select) { e.focus(); e.select(); return; } const r = document.createRange();"
                      " r.selectNodeContents(e); const s = window.getSelection(); s.removeAllRanges();"
                      " s.addRange(r); }")
