"""Locator, the locator builders Page, Frame and Locator share, and FrameLocator."""

import json
import re
import time

from ._errors import Error, StrictModeViolation, TimeoutError
from ._str_utils import _api_description, _join, _role_part, _test_id_part, _text_body
from ._helpers import _UNSET, _abs_path, _as_list, _point, _screenshot_bytes
from ._js_handle import _ArgumentTypeError, _decode, _encode, _js_call, _js_type_name, _named_after
from ._files import _DROP_JS, _check_directory_input, _drop_file, _input_files
from ._input import _check_touch


class _Locating:
    """The locator builders Page and Locator share."""

    def _sub(self, part):
        raise NotImplementedError

    def locator(self, selector, has_text=None, has_not_text=None, has=None, has_not=None):
        """A locator for a selector (CSS, `text=`, `role=`, `aria-ref=eN`, ... joined by ` >> `)."""
        if isinstance(selector, Locator):
            if selector.page is not self._owner_page():
                raise Error("locator(): the inner locator belongs to another page", type="InvalidParams")
            # The inner locator's whole chain applies inside each match, as one part
            selector = "internal:chain=" + json.dumps(selector.selector, ensure_ascii=False)
        if not isinstance(selector, str) or not selector.strip():
            raise ValueError("locator(): selector must be a non-empty str, not %r" % (selector,))
        loc = self._sub(selector)
        if has_text is not None or has_not_text is not None or has is not None or has_not is not None:
            loc = loc.filter(has_text=has_text, has_not_text=has_not_text, has=has, has_not=has_not)
        return loc

    def get_by_role(self, role, name=None, exact=False, checked=None, disabled=None, expanded=None,
                    include_hidden=None, level=None, pressed=None, selected=None, description=None):
        return self._sub(_role_part(role, name=name, exact=exact, checked=checked, disabled=disabled,
                                    expanded=expanded, include_hidden=include_hidden, level=level,
                                    pressed=pressed, selected=selected, description=description))

    def get_by_text(self, text, exact=False):
        # internal:text= as Playwright sends it: "t"s is the element's whole
        # text, where text="t" would match one of its own text runs.
        body = _text_body(text, exact)
        if exact and not isinstance(text, re.Pattern):
            body += "s"
        return self._sub("internal:text=" + body)

    def get_by_label(self, text, exact=False):
        return self._sub("label=" + _text_body(text, exact))

    def get_by_placeholder(self, text, exact=False):
        return self._sub("placeholder=" + _text_body(text, exact))

    def get_by_alt_text(self, text, exact=False):
        return self._sub("alt=" + _text_body(text, exact))

    def get_by_title(self, text, exact=False):
        return self._sub("title=" + _text_body(text, exact))

    def get_by_test_id(self, test_id):
        return self._sub(_test_id_part(test_id))


# One overlay per document (<x-pw-glass>, as Playwright names it), with a box over each element.
_HIGHLIGHT_JS = r"""([els, style]) => {
  for (const old of document.querySelectorAll('x-pw-glass')) old.remove();
  if (!els.length) return;
  const glass = document.createElement('x-pw-glass');
  glass.style.cssText = 'position:fixed;inset:0;z-index:2147483647;pointer-events:none;display:block';
  for (const el of els) {
    const r = el.getBoundingClientRect();
    const box = document.createElement('x-pw-highlight');
    box.style.cssText = 'position:fixed;display:block;box-sizing:border-box;left:' + r.left + 'px;top:' + r.top +
      'px;width:' + r.width + 'px;height:' + r.height + 'px;background:rgba(111,168,220,0.49);' +
      'outline:1px solid rgba(111,168,220,0.9);' + (style || '');
    glass.appendChild(box);
  }
  document.documentElement.appendChild(glass);
}"""


# An approximation of the accessible name / description computation.
_ACCESSIBLE_JS = """(e, kind) => {
  const byIds = ids => ids.split(/\\s+/).map(id => document.getElementById(id)).filter(Boolean)
    .map(n => (n.textContent || '').trim()).join(' ');
  const norm = s => (s || '').replace(/\\s+/g, ' ').trim();
  if (kind === 'errormessage') {
    // ARIA exposes an error message only while the field says it is invalid.
    const invalid = e.getAttribute('aria-invalid');
    if (invalid === null || invalid === 'false' || !e.getAttribute('aria-errormessage')) return '';
    return norm(byIds(e.getAttribute('aria-errormessage')));
  }
  if (kind === 'description') {
    if (e.getAttribute('aria-describedby')) return norm(byIds(e.getAttribute('aria-describedby')));
    return norm(e.getAttribute('aria-description') || e.getAttribute('title') || '');
  }
  if (e.getAttribute('aria-labelledby')) return norm(byIds(e.getAttribute('aria-labelledby')));
  if (e.getAttribute('aria-label')) return norm(e.getAttribute('aria-label'));
  if (e.labels && e.labels.length) return norm(Array.from(e.labels).map(l => l.textContent).join(' '));
  if (e.tagName === 'IMG' || (e.tagName === 'INPUT' && e.type === 'image')) return norm(e.getAttribute('alt') || e.title);
  if (e.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(e.type)) return norm(e.value);
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return norm(e.title || e.placeholder || '');
  return norm(e.textContent || e.title || '');
}"""


_DISPATCH_JS = """(el, {type, init}) => {
  const kinds = {
    click: MouseEvent, dblclick: MouseEvent, mousedown: MouseEvent, mouseup: MouseEvent, mouseenter: MouseEvent,
    mouseleave: MouseEvent, mousemove: MouseEvent, mouseover: MouseEvent, mouseout: MouseEvent, contextmenu: MouseEvent,
    auxclick: MouseEvent,
    keydown: KeyboardEvent, keyup: KeyboardEvent, keypress: KeyboardEvent,
    pointerdown: PointerEvent, pointerup: PointerEvent, pointermove: PointerEvent, pointerover: PointerEvent,
    pointerout: PointerEvent, pointerenter: PointerEvent, pointerleave: PointerEvent, pointercancel: PointerEvent,
    focus: FocusEvent, blur: FocusEvent, focusin: FocusEvent, focusout: FocusEvent,
    drag: DragEvent, dragstart: DragEvent, dragend: DragEvent, dragenter: DragEvent, dragleave: DragEvent,
    dragover: DragEvent, drop: DragEvent,
    wheel: WheelEvent, input: InputEvent, beforeinput: InputEvent,
    touchstart: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchend: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchmove: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchcancel: typeof TouchEvent === 'function' ? TouchEvent : Event,
  };
  const Kind = kinds[type] || Event;
  const opts = Object.assign({bubbles: true, cancelable: true, composed: true}, init || {});
  el.dispatchEvent(new Kind(type, opts));
}"""


class Locator(_Locating):
    """A page and a selector chain, resolved again on every call (nothing is held in the browser)."""

    def __init__(self, page, selector, api="Locator"):
        self.page = page
        self.selector = selector
        self._api = api  # the class its errors name: "Locator.click: ...", or an ElementHandle's

    def __repr__(self):
        return "<Locator frame=%r selector=%r>" % (self.page.main_frame, self.selector)

    def _owner_page(self):
        return self.page

    def _sub(self, part):
        return Locator(self.page, _join(self.selector, part))

    def describe(self, description):
        """The same locator with a description for people (shown by .description); locators made from it
        have none of their own."""
        described = Locator(self.page, self.selector, self._api)
        described._description = description
        return described

    @property
    def description(self):
        return self.__dict__.get("_description")

    def _call(self, method, timeout=None, wait=True, **params):
        try:
            return self.page._call(method, timeout, wait, selector=self.selector, **params)
        except Error as exc:
            raise self._api_error(exc) from None

    def _api_error(self, exc):
        """The driver's error in Playwright's words: "Locator.click: ...", the locator named as written
        (waiting for get_by_role("button", name="Save"))."""
        method = exc.method or ""
        if not method.startswith("locator."):
            return exc
        api = self._api + "." + method[len("locator."):]
        renamed = _named_after(exc, api)
        if renamed is exc:
            return exc
        described = _api_description(self.selector)
        if not described.startswith("locator(") and "waiting for " + self.selector in renamed.message:
            renamed = type(renamed)(renamed.message.replace("waiting for " + self.selector, "waiting for " + described),
                                    type=renamed.type, method=api)
            renamed.stack = exc.stack
        return renamed

    # narrowing

    @property
    def first(self):
        return self._sub("nth=0")

    @property
    def last(self):
        return self._sub("nth=-1")

    def nth(self, index):
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError("nth() takes an int, not %r" % (index,))
        return self._sub("nth=%d" % index)

    def filter(self, has_text=None, has_not_text=None, has=None, has_not=None, visible=None):
        """Keep the matches whose text contains has_text (str, case-insensitive, or re.Pattern) or not
        (has_not_text), that hold a match of the locator has (or not: has_not), that are visible."""
        loc = self
        if has_text is not None:
            loc = loc._sub("has-text=" + _text_body(has_text, exact=False, what="has_text"))
        if has_not_text is not None:
            loc = loc._sub("internal:has-not-text=" + _text_body(has_not_text, exact=False, what="has_not_text"))
        for name, inner in (("has", has), ("has-not", has_not)):
            if inner is not None:
                loc = loc._sub("internal:%s=%s" % (name, json.dumps(self._inner_selector(name, inner),
                                                                         ensure_ascii=False)))
        if visible is not None:
            loc = loc._sub("visible=" + ("true" if visible else "false"))
        return loc

    def or_(self, locator):
        """Matches of this locator or of the other (same page), in document order."""
        return self._sub("internal:or=" + json.dumps(self._inner_selector("or", locator), ensure_ascii=False))

    def and_(self, locator):
        """Matches of this locator that the other (same page) matches too."""
        return self._sub("internal:and=" + json.dumps(self._inner_selector("and", locator), ensure_ascii=False))

    def _inner_selector(self, name, inner):
        """The selector of a locator given to filter(has=/has_not=): same page, searched inside each match."""
        if not isinstance(inner, Locator):
            raise TypeError("filter(%s=...) takes a Locator, not %s" % (name.replace("-", "_"), type(inner).__name__))
        if inner.page is not self.page:
            raise Error("filter(%s=...): the inner locator belongs to another page" % name.replace("-", "_"),
                        type="InvalidParams")
        first = inner.selector.split(">>")[0].strip()
        if first.startswith("handle=") and self._frame_element(first):
            # A child frame's locator (its chain starts at the <iframe>): it searches another document.
            raise Error('Inner "%s" locator must belong to the same frame. filter(%s=...) searches inside '
                        'each match of this locator; build the inner locator from the same frame' % (
                            name, name.replace("-", "_")), type="InvalidParams")
        if first.startswith(("handle=", "aria-ref=")):
            raise Error("filter(%s=...): the inner locator starts at a fixed element (%s); use a selector that "
                        "searches" % (name.replace("-", "_"), first), type="InvalidParams")
        return inner.selector

    def _frame_element(self, part):
        """Whether the fixed element of a handle= part is a frame's <iframe> (or <frame>)."""
        try:
            return bool(Locator(self.page, part).evaluate_all("els => els.some(e => /^i?frame$/i.test(e.tagName))"))
        except Error:
            return False

    def all(self):
        """A locator for each current match (no waiting)."""
        return [self.nth(i) for i in range(self.count())]

    # actions

    def click(self, button=None, click_count=None, delay=None, force=None, modifiers=None, position=None,
              timeout=None, no_wait_after=None, steps=None, scroll=None):
        """scroll="none": do not scroll; wait until the element is in the viewport where it is."""
        self._call("locator.click", timeout, button=button, click_count=click_count, delay=delay,
                   force=force or None, modifiers=modifiers, position=_point(position), steps=steps, scroll=scroll,
                   no_wait_after=no_wait_after or None)

    def dblclick(self, button=None, delay=None, force=None, modifiers=None, position=None, timeout=None,
                 no_wait_after=None, steps=None, scroll=None):
        self._call("locator.dblclick", timeout, button=button, delay=delay, force=force or None,
                   modifiers=modifiers, position=_point(position), steps=steps, scroll=scroll,
                   no_wait_after=no_wait_after or None)

    def tap(self, force=None, modifiers=None, position=None, timeout=None, no_wait_after=None, trial=None):
        """A touch at the element's point (a context with has_touch), as Playwright's tap."""
        _check_touch(self.page)
        if trial:
            return self.wait_for(state="visible", timeout=timeout)
        self._call("locator.tap", timeout, force=force or None, modifiers=modifiers, position=_point(position),
                   no_wait_after=no_wait_after or None)

    def fill(self, value, force=None, timeout=None):
        if not isinstance(value, str):
            raise _ArgumentTypeError("fill: value: expected string, got %s (fill() takes a str, not %s; convert it "
                                     "first: str(x))" % (_js_type_name(value), type(value).__name__))
        self._call("locator.fill", timeout, value=value, force=force or None)

    def clear(self, force=None, timeout=None):
        self.fill("", force=force, timeout=timeout)

    def press(self, key, timeout=None, no_wait_after=None):
        self._call("locator.press", timeout, key=key, no_wait_after=no_wait_after or None)

    def press_sequentially(self, text, delay=None, timeout=None):
        self._call("locator.press_sequentially", timeout, text=text, delay=delay)

    type = press_sequentially  # Playwright's older name

    def check(self, force=None, timeout=None):
        self._call("locator.check", timeout, force=force or None)

    def uncheck(self, force=None, timeout=None):
        self._call("locator.uncheck", timeout, force=force or None)

    def set_checked(self, checked, force=None, timeout=None):
        self._call("locator.set_checked", timeout, checked=bool(checked), force=force or None)

    def select_option(self, value=None, label=None, index=None, timeout=None, force=None, element=None,
                      no_wait_after=None):
        """Select options by value=, label=, index= or element= (each one item or a list); returns the
        selected values. Nothing to select (None or []) deselects every option.

        A positional str (or list of str) matches an option's value or, failing
        that, its label.
        """
        if element is not None:
            elements = element if isinstance(element, (list, tuple)) else [element]
            picked = [e.evaluate("o => o.index") for e in elements]
            index = picked + ([] if index is None else ([index] if isinstance(index, int) else list(index)))
        if value is None and label is None and index is None:
            value = []
        for name, given in (("value", value), ("label", label)):
            # A None among the items is a mistake, not "nothing": Playwright names the type it got.
            if isinstance(given, (list, tuple)) and any(v is None for v in given):
                raise Error("Locator.select_option: options[%d].%s: expected string, got object"
                            % ([v is None for v in given].index(True), name), type="InvalidParams")
        result = self._call("locator.select_option", timeout, value=value, label=label, index=index,
                            force=force or None)
        return result.get("values") or []

    def hover(self, force=None, timeout=None):
        self._call("locator.hover", timeout, force=force or None)

    def focus(self, timeout=None):
        self._call("locator.focus", timeout)

    def scroll_into_view_if_needed(self, timeout=None):
        self._call("locator.scroll_into_view_if_needed", timeout)

    # reading

    def inner_text(self, timeout=None):
        return self._call("locator.inner_text", timeout).get("value")

    def text_content(self, timeout=None):
        return self._call("locator.text_content", timeout).get("value")

    def inner_html(self, timeout=None):
        return self._call("locator.inner_html", timeout).get("value")

    def input_value(self, timeout=None):
        return self._call("locator.input_value", timeout).get("value")

    def get_attribute(self, name, timeout=None):
        return self._call("locator.get_attribute", timeout, name=name).get("value")

    def is_visible(self, timeout=None):
        return bool(self._call("locator.is_visible").get("value"))  # timeout: ignored, as in Playwright

    def is_hidden(self, timeout=None):
        return bool(self._call("locator.is_hidden").get("value"))

    def is_enabled(self):
        return bool(self._call("locator.is_enabled").get("value"))

    def is_disabled(self):
        return bool(self._call("locator.is_disabled").get("value"))

    def is_checked(self):
        return bool(self._call("locator.is_checked").get("value"))

    def is_editable(self):
        return bool(self._call("locator.is_editable").get("value"))

    def count(self):
        return int(self._call("locator.count").get("value") or 0)

    def all_inner_texts(self):
        return list(self._call("locator.all_inner_texts").get("value") or [])

    def all_text_contents(self):
        return list(self._call("locator.all_text_contents").get("value") or [])

    def wait_for(self, state=None, timeout=None):
        """Wait until the locator is attached / detached / visible (default) / hidden."""
        self._call("locator.wait_for", timeout, state=state)

    def screenshot(self, path=None, timeout=None, type=None, quality=None, omit_background=None, animations=None,
                   caret=None, scale=None, mask=None, mask_color=None, style=None):
        """The element's image. With type, quality, omit_background or scale it is the page's screenshot
        clipped to the element once scrolled into view; mask, style, animations and caret as for the page."""
        from ._page import _screenshot_decorations

        if any(v is not None for v in (type, quality, omit_background, scale)):
            self.scroll_into_view_if_needed(timeout=timeout)
            box = self.bounding_box(timeout=timeout)
            if not box or not box["width"] or not box["height"]:
                raise Error("Locator.screenshot: the element is not visible", type="Error")
            return self.page.screenshot(path=path, timeout=timeout, type=type, quality=quality, clip=box,
                                        omit_background=omit_background, animations=animations, caret=caret,
                                        scale=scale, mask=mask, mask_color=mask_color, style=style)
        target = _abs_path(path) if path else None
        undo = _screenshot_decorations(self.page, mask, mask_color, style, animations, caret)
        try:
            result = self._call("locator.screenshot", timeout, path=target)
        finally:
            undo()
        return _screenshot_bytes(result, target)

    def bounding_box(self, timeout=None):
        """{x, y, width, height} in CSS pixels, or None when the element is not rendered."""
        return self._call("locator.bounding_box", timeout).get("value")

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, timeout=None, depth=None, mode=None,
                      boxes=None):
        """The element's subtree as ARIA snapshot YAML in Playwright's format (no refs; mode="ai" adds
        wright's [ref=eN] markers). depth: levels below the top-level lines (Playwright's option)."""
        if depth is not None:
            max_depth = depth + 1
        result = self._call("locator.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None,
                            no_refs=None if mode == "ai" else True)
        return result.get("snapshot", "")

    # Content, evaluation, handles, highlighting and events

    def element_handle(self, timeout=None):
        self.wait_for(state="attached", timeout=timeout)
        found = self.page._query(self.selector)
        if len(found) > 1:
            raise StrictModeViolation("strict mode violation: %s resolved to %d elements" % (self._describe(), len(found)))
        if not found:
            raise TimeoutError("element_handle: the element went away after it appeared", method="element_handle")
        return found[0]

    def element_handles(self):
        return self.page._query(self.selector)

    def _describe(self):
        return "locator(%r)" % self.selector

    def evaluate(self, expression, arg=_UNSET, timeout=None):
        """Call a JavaScript function with the element (and arg); returns its value."""
        el = self.element_handle(timeout=timeout)
        try:
            return el.evaluate(expression, arg)
        finally:
            el.dispose()

    def evaluate_handle(self, expression, arg=_UNSET, timeout=None):
        el = self.element_handle(timeout=timeout)
        return el.evaluate_handle(expression, arg)

    def evaluate_all(self, expression, arg=_UNSET):
        """Call a JavaScript function with every current match (a list) and arg; no waiting."""
        params = {"selector": self.selector, "source": expression}
        if arg is not _UNSET:
            handles = []
            params["arg"] = _encode(arg, handles)
            if handles:
                params["handles"] = handles
        return _decode(self.page._call("locator.evaluate_all", None, False, **params).get("value"))

    def _accessible(self, kind):
        return self.evaluate(_ACCESSIBLE_JS, kind)

    def dispatch_event(self, type, event_init=None, timeout=None):
        self.evaluate(_DISPATCH_JS, {"type": type, "init": event_init or {}}, timeout=timeout)

    def frame_locator(self, selector):
        """Locators inside the frame(s) that selector finds within this locator."""
        return FrameLocator(self.page, _join(self.selector, selector))

    @property
    def content_frame(self):
        """This locator's <iframe> as a FrameLocator."""
        return FrameLocator(self.page, self.selector)

    def blur(self, timeout=None):
        self.evaluate("e => e.blur()", timeout=timeout)

    def wait_for_function(self, expression, arg=_UNSET, polling=None, timeout=None):
        """Wait until expression(element, arg) is truthy for the locator's element; returns its value."""
        page = self._owner_page()
        limit = timeout if timeout is not None else page._timeout_ms()
        deadline = time.monotonic() + (limit / 1000.0 if limit else 1e9)
        interval = (polling if isinstance(polling, (int, float)) else 100) / 1000.0
        while True:
            left = max(1, int((deadline - time.monotonic()) * 1000))
            value = self.evaluate(expression, arg, timeout=left)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError("Timeout %dms exceeded.\nwaiting for %s to satisfy the function"
                                   % (limit, self.selector), method="wait_for_function")
            page.wait_for_timeout(interval * 1000)

    def select_text(self, force=None, timeout=None):
        el = self.element_handle(timeout=timeout)
        try:
            el.select_text()
        finally:
            el.dispose()

    def drop(self, payload, position=None, timeout=None):
        """Drop files and/or data onto the element, as from another application: dragenter, dragover and
        drop at its centre (or position, from its padding box's top-left) with a DataTransfer holding
        payload["files"] (paths or {name, mimeType, buffer}) and payload["data"] ({mime type: str}).
        A target whose dragover is not cancelled refuses the drop: dragleave, then an Error."""
        if not isinstance(payload, dict) or not (payload.get("files") or payload.get("data")):
            raise Error("Locator.drop: payload must be a dict with files= (paths or {name, mimeType, buffer}) "
                        "and/or data= ({mime type: text})", type="InvalidParams")
        files = [_drop_file(f) for f in _as_list(payload.get("files"))]
        data = payload.get("data") or {}
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise Error("Locator.drop: data must map mime types to str, such as {'text/plain': 'hello'}",
                        type="InvalidParams")
        self.scroll_into_view_if_needed(timeout=timeout)
        accepted = self.evaluate(_DROP_JS, {"files": files, "data": data, "position": _point(position)},
                                 timeout=timeout)
        if not accepted:
            raise Error("Locator.drop: the target did not accept the drop (its dragover listener did not call "
                        "preventDefault()), so nothing was dropped", type="Error")

    def highlight(self, style=None):
        """Outline every current match on the page (until hide_highlight() or the next highlight()),
        in an overlay that takes no pointer events: for screenshots and people watching."""
        _js_call(self._owner_page(), _HIGHLIGHT_JS, [self.element_handles(), style])

    def hide_highlight(self):
        _js_call(self._owner_page(), _HIGHLIGHT_JS, [[], None])

    # Files and drag and drop

    def set_input_files(self, files, timeout=None, no_wait_after=None):
        """Set the files of an <input type=file>: paths, {name, mimeType, buffer} dicts, or a list; [] clears it."""
        paths, payloads = _input_files(files)
        _check_directory_input(paths, lambda: self.evaluate("e => !!e.webkitdirectory", timeout=timeout))
        params = {"paths": paths}
        if payloads:
            params = {"payloads": payloads}
        self._call("locator.set_input_files", timeout, **params)

    def drag_to(self, target, force=None, no_wait_after=None, timeout=None, trial=None, source_position=None,
                target_position=None, steps=None):
        """Press the mouse on this element, move onto target (in steps) and release it there."""
        if target.page is not self.page:
            raise Error("drag_to: the target must be a locator of the same page", type="InvalidParams")
        self._call("locator.drag_to", timeout, target=target.selector, force=force or None, trial=trial or None,
                   source_position=_point(source_position) if source_position else None,
                   target_position=_point(target_position) if target_position else None, steps=steps)


_ENTER_FRAME = "internal:control=enter-frame"


class FrameLocator:
    """page.frame_locator(selector): locators inside the frame the selector finds."""

    def __init__(self, page, selector):
        self._page = page
        self._selector = selector

    def __repr__(self):
        return "<FrameLocator frame=%r selector=%r>" % (self._page.main_frame, self._selector)

    def locator(self, selector, **kwargs):
        return self._loc().locator(selector, **kwargs)

    def _loc(self):
        # The driver enters the one frame the selector finds (more than one is a strict-mode violation).
        return Locator(self._page, _join(self._selector, _ENTER_FRAME))

    def get_by_role(self, *a, **k):
        return self._loc().get_by_role(*a, **k)

    def get_by_text(self, *a, **k):
        return self._loc().get_by_text(*a, **k)

    def get_by_label(self, *a, **k):
        return self._loc().get_by_label(*a, **k)

    def get_by_placeholder(self, *a, **k):
        return self._loc().get_by_placeholder(*a, **k)

    def get_by_alt_text(self, *a, **k):
        return self._loc().get_by_alt_text(*a, **k)

    def get_by_title(self, *a, **k):
        return self._loc().get_by_title(*a, **k)

    def get_by_test_id(self, *a, **k):
        return self._loc().get_by_test_id(*a, **k)

    def frame_locator(self, selector):
        return FrameLocator(self._page, _join(_join(self._selector, _ENTER_FRAME), selector))

    @property
    def first(self):
        return FrameLocator(self._page, _join(self._selector, "nth=0"))

    @property
    def last(self):
        return FrameLocator(self._page, _join(self._selector, "nth=-1"))

    def nth(self, index):
        return FrameLocator(self._page, _join(self._selector, "nth=%d" % index))

    @property
    def owner(self):
        return Locator(self._page, self._selector)
