"""ElementHandle: a handle to one element, with the element actions of Playwright's API."""

from ._errors import Error, TimeoutError
from ._str_utils import _join
from ._helpers import _UNSET
from ._js_handle import JSHandle, _evaluate_all
from ._locator import Locator


class ElementHandle(JSHandle, Locator):
    """A handle on one element (query_selector(), wait_for_selector(), evaluate_handle()).

    Its actions are a locator's (`handle=<id>` as the selector), so they wait for
    the element to be actionable as locators do.
    """

    def __init__(self, page, handle_id, description="node"):
        JSHandle.__init__(self, page, handle_id, {"type": "object", "subtype": "node", "description": description})
        Locator.__init__(self, page, "handle=" + handle_id)

    def __repr__(self):
        return "<ElementHandle %s>" % self._description

    def as_element(self):
        return self

    def owner_frame(self):
        """The frame whose document holds the node (its CDP frame id, so the page's one Frame object)."""
        fid = self._page._call("page.node_frames", handle=self._id).get("owner")
        if not fid:
            return None
        return self._page._frame_for(fid, main=fid == self._page._main_id())

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
        found = self._page._query(_join(self.selector, selector))
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._page._query(_join(self.selector, selector))

    def eval_on_selector(self, selector, expression, arg=_UNSET):
        el = self.query_selector(selector)
        if el is None:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return el.evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        return _evaluate_all(self._page, self.query_selector_all(selector), expression, arg)

    def wait_for_selector(self, selector, state=None, timeout=None):
        loc = Locator(self._page, _join(self.selector, selector))
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
