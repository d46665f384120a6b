"""expect(): assertions on pages, locators and API responses that retry until they hold or time out,
and soft assertions.
"""

import contextlib
import contextvars
import re
import time
import urllib.parse

from ._errors import Error, TargetClosed, TimeoutError
from ._str_utils import _normalize_ws
from ._helpers import _UNSET
from ._aria_template import _aria_parse, _aria_tree_matches, _dedent_snapshot
from ._js_handle import _encode
from ._locator import Locator
from ._page import Page, _locator_handlers_checkpoint


class _ExpectStrict(Exception):
    pass


_PROBE_JS = r"""(els, q) => {
  const visible = e => {
    if (!e.isConnected) return false;
    const st = getComputedStyle(e);
    if (st.visibility !== 'visible') return false;
    if (st.display === 'contents') return Array.from(e.children).some(visible);
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const disabledNative = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET'];
  const disabled = e => {
    if (disabledNative.includes(e.tagName) && e.disabled) return true;
    if (disabledNative.includes(e.tagName) && e.closest('fieldset[disabled]')) {
      const fs = e.closest('fieldset[disabled]');
      const legend = fs.querySelector(':scope > legend');
      if (!legend || !legend.contains(e)) return true;
    }
    for (let n = e; n; n = n.parentElement) if (n.getAttribute('aria-disabled') === 'true') return true;
    return false;
  };
  const checked = e => {
    if (e.tagName === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio'))
      return e.indeterminate ? 'mixed' : e.checked;
    const a = e.getAttribute('aria-checked');
    if (a === 'true') return true;
    if (a === 'mixed') return 'mixed';
    if (a === 'false') return false;
    return 'error';
  };
  const editable = e => {
    const tags = ['INPUT', 'TEXTAREA', 'SELECT'];
    if (!tags.includes(e.tagName) && !e.isContentEditable && !['textbox', 'searchbox', 'combobox', 'spinbutton', 'checkbox', 'radio', 'gridcell', 'slider', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'listbox', 'grid', 'columnheader', 'rowheader'].includes(e.getAttribute('role') || ''))
      return 'error';
    if (disabled(e)) return false;
    if (e.readOnly) return false;
    if (e.getAttribute('aria-readonly') === 'true') return false;
    return true;
  };
  const text = e => q.inner ? e.innerText : (e.textContent || '');
  // A <label> (or its content) stands for the control it labels, as in actions.
  const control = e => {
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return e;
    const label = e.closest('label');
    return label && label.control ? label.control : e;
  };
  const one = e => {
    switch (q.what) {
      case 'visible': return visible(e);
      case 'enabled': return !disabled(e);
      case 'checked': return checked(e);
      case 'editable': return editable(e);
      case 'focused': { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a === e; }
      case 'empty': return ['INPUT', 'TEXTAREA'].includes(e.tagName) ? !e.value : !(e.textContent || '').trim();
      case 'text': return text(e);
      case 'attribute': return e.getAttribute(q.name);
      case 'class': return e.getAttribute('class') || '';
      case 'css': return getComputedStyle(e).getPropertyValue(q.name) || getComputedStyle(e)[q.name];
      case 'id': return e.id;
      case 'property': return e[q.name];
      case 'value':
        e = control(e);
        if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return {error: 'Not an input element'};
        return e.value;
      case 'values':
        e = control(e);
        if (e.tagName !== 'SELECT' || !e.multiple) return {error: 'Error: Not a select element with a multiple attribute'};
        return Array.from(e.selectedOptions).map(o => o.value);
      case 'viewport': {
        // the share of the element's box inside the viewport (0 for an element with no box)
        const r = e.getBoundingClientRect();
        const w = innerWidth, h = innerHeight;
        if (r.width === 0 || r.height === 0) return 0;
        const iw = Math.max(0, Math.min(r.right, w) - Math.max(r.left, 0));
        const ih = Math.max(0, Math.min(r.bottom, h) - Math.max(r.top, 0));
        return (iw * ih) / (r.width * r.height);
      }
      case 'role': return e.getAttribute('role') || q.implicit(e);
      default: return null;
    }
  };
  if (q.what === 'role') {
    const implicit = {A: e => e.hasAttribute('href') ? 'link' : '', BUTTON: () => 'button', H1: () => 'heading', H2: () => 'heading',
      H3: () => 'heading', H4: () => 'heading', H5: () => 'heading', H6: () => 'heading', UL: () => 'list', OL: () => 'list',
      LI: () => 'listitem', NAV: () => 'navigation', MAIN: () => 'main', TEXTAREA: () => 'textbox', SELECT: e => e.multiple || e.size > 1 ? 'listbox' : 'combobox',
      IMG: e => e.getAttribute('alt') === '' ? 'presentation' : 'img', TABLE: () => 'table', FORM: () => 'form', DIALOG: () => 'dialog',
      INPUT: e => ({checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox'})[e.type] || 'textbox'};
    q.implicit = e => (implicit[e.tagName] || (() => ''))(e);
  }
  if (q.what === 'count') return els.length;
  if (q.all) return els.map(one);
  return {count: els.length, value: els.length ? one(els[0]) : null};
}"""


# A short preview of an element for call logs: <input/>, <div id="a">Text</div>.
_PREVIEW_JS = r"""els => els.map(e => {
  const attrs = Array.from(e.attributes).slice(0, 5).map(a => a.value === '' ? ' ' + a.name : ' ' + a.name + '="' + a.value.slice(0, 50) + '"').join('');
  const tag = e.tagName.toLowerCase();
  const text = (e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 50);
  if (!text && !e.children.length) return '<' + tag + attrs + '/>';
  return '<' + tag + attrs + '>' + (e.children.length && !text ? '…' : text) + '</' + tag + '>';
})"""


def _text_matches(expected, actual, ignore_case, substring, normalize=True):
    if actual is None:
        return False
    if isinstance(expected, re.Pattern):
        # ignore_case None keeps the pattern's own flags; True or False overrides its IGNORECASE.
        flags = expected.flags
        if ignore_case is not None:
            flags = (flags | re.IGNORECASE) if ignore_case else (flags & ~re.IGNORECASE)
        return re.search(expected.pattern, actual, flags) is not None
    exp, act = str(expected), actual
    if normalize:
        exp, act = _normalize_ws(exp), _normalize_ws(act)
    if ignore_case:
        exp, act = exp.lower(), act.lower()
    return exp in act if substring else exp == act


def _short_number(x):
    """A ratio as people write it: 1, 0.25, 0.333."""
    return ("%.3f" % x).rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def _fmt_expected(expected):
    if isinstance(expected, re.Pattern):
        return "pattern '%s'" % expected.pattern
    if isinstance(expected, (list, tuple)):
        return "'%s'" % [e.pattern if isinstance(e, re.Pattern) else e for e in expected]
    return "'%s'" % (expected,)


class _AriaAssertions:
    """to_match_aria_snapshot for locators and pages."""

    def _aria_locator(self):
        return self._actual.locator("body") if isinstance(self._actual, Page) else self._actual

    def to_match_aria_snapshot(self, expected, timeout=None):
        template = _aria_parse(expected, template=True)
        loc = self._aria_locator()
        state = {}

        def check():
            try:
                snap = loc.aria_snapshot(timeout=timeout or _Assertions._default_timeout)
            except TimeoutError:
                # Not there (or not rendered) in time: the assertion fails, as Playwright's does.
                return False, state.get("snap", "")
            state["snap"] = snap
            return _aria_tree_matches(_aria_parse(snap), template), snap

        subject = "Page" if isinstance(self._actual, Page) else "Locator"
        try:
            self._retry("to_match_aria_snapshot", check, "to match Aria snapshot", timeout=timeout, subject=subject)
        except AssertionError as exc:
            raise AssertionError("%s\nExpected:\n%s\nReceived:\n%s" % (
                exc, _dedent_snapshot(expected), state.get("snap", ""))) from None

    def not_to_match_aria_snapshot(self, expected, timeout=None):
        self._not.to_match_aria_snapshot(expected, timeout)


class _Assertions:
    _default_timeout = 5000

    def __init__(self, actual, message=None, negated=False):
        self._actual = actual
        self._message = message
        self._negated = negated

    @property
    def _not(self):
        return type(self)(self._actual, self._message, not self._negated)

    def _retry(self, name, check, describe, expected=_UNSET, timeout=None, subject="Locator"):
        """Poll check() -> (ok, actual) until ok != negated, else raise AssertionError."""
        limit = timeout if timeout is not None else _Assertions._default_timeout
        deadline = time.monotonic() + limit / 1000.0
        actual = None
        while True:
            settled = True
            try:
                _locator_handlers_checkpoint(self._actual, deadline)
                ok, actual = check()
            except _ExpectStrict as exc:
                raise Error(str(exc), type="StrictModeViolation") from None
            except Error as exc:
                if isinstance(exc, (TargetClosed, TimeoutError)):
                    raise
                # A navigation in progress (a click that loads the next page)
                # is what assertions wait through, as Playwright's do.
                if "the page navigated while" not in exc.message or time.monotonic() >= deadline:
                    raise AssertionError(exc.message) from None
                settled = False
            if settled and bool(ok) != self._negated:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05 if limit > 200 else 0.01)
        verb = ("not " if self._negated else "") + describe
        if self._message:
            text = self._message
            if expected is not _UNSET:
                text += "\nExpected value: %s" % _fmt_expected(expected)
        else:
            text = "%s expected %s" % (subject, verb)
            if expected is not _UNSET:
                text += " %s" % _fmt_expected(expected)
        text += "\nActual value: %s" % (actual,)
        shown = "not_" + name if self._negated and not name.startswith("not_") else name
        text += "\nCall log:\n  - Expect \"%s\" with timeout %sms" % (shown, limit)
        if subject == "Locator":
            text += "\n  - waiting for %s" % self._actual._describe()
            try:
                previews = self._actual.evaluate_all(_PREVIEW_JS)
            except Error:
                previews = []
            if len(previews) == 1:
                text += "\n  - locator resolved to %s" % previews[0]
            if isinstance(actual, str) and not actual.startswith("<element"):
                text += "\n  - unexpected value \"%s\"" % actual
            if name != "to_match_aria_snapshot":  # that one shows the snapshot it received already
                text += self._aria_section()
        raise AssertionError(text)

    def _aria_section(self):
        """The page's ARIA snapshot, for a failed locator assertion: what the page holds instead."""
        try:
            snap = self._actual.page.locator("body").aria_snapshot(max_chars=4000, timeout=1000)
        except Error:
            return ""
        return "\nAria snapshot:\n" + snap if snap.strip() else ""


class PageAssertions(_AriaAssertions, _Assertions):
    def to_have_title(self, title_or_reg_exp, timeout=None):
        self._retry("to_have_title", lambda: (lambda t: (_text_matches(title_or_reg_exp, t, None, False), t))(
            self._actual.title()), "to be", title_or_reg_exp, timeout, "Page title")

    def not_to_have_title(self, title_or_reg_exp, timeout=None):
        self._not.to_have_title(title_or_reg_exp, timeout)

    def to_have_url(self, url_or_reg_exp, timeout=None, ignore_case=None):
        page = self._actual
        expected = url_or_reg_exp
        base = page.context._options.get("base_url") if page._context is not None else None
        if isinstance(expected, str) and base:
            expected = urllib.parse.urljoin(base, expected)
        self._retry("to_have_url", lambda: (lambda u: (_text_matches(expected, u, ignore_case, False, False), u))(
            page.url), "to be", expected, timeout, "Page URL")

    def not_to_have_url(self, url_or_reg_exp, timeout=None, ignore_case=None):
        self._not.to_have_url(url_or_reg_exp, timeout, ignore_case)


class APIResponseAssertions(_Assertions):
    def to_be_ok(self):
        resp = self._actual
        if bool(resp.ok) == self._negated:
            what = "not to be OK" if self._negated else "to be OK"
            lines = ["%s\nResponse status expected %s\nActual: %s %s" % (
                self._message or "Response", what, resp.status, resp.url)]
            method = getattr(resp, "_method", None) or getattr(getattr(resp, "request", None), "method", "GET")
            lines.append("\u2192 %s %s" % (method, resp.url))
            lines.append("\u2190 %s %s" % (resp.status, resp.status_text))
            ctype = (resp.headers.get("content-type") or "") if isinstance(resp.headers, dict) else ""
            if not self._negated and re.match(r"^(text/|application/(json|xml|javascript))", ctype):
                try:
                    lines.append("Response Text:\n" + resp.text()[:1000])
                except Error:
                    pass
            raise AssertionError("\n".join(lines))

    def not_to_be_ok(self):
        self._not.to_be_ok()


class LocatorAssertions(_AriaAssertions, _Assertions):
    def _probe(self, what, **q):
        q["what"] = what
        return self._actual.evaluate_all(_PROBE_JS, q)

    def _single(self, what, **q):
        r = self._probe(what, **q)
        if r["count"] > 1:
            raise _ExpectStrict("strict mode violation: %s resolved to %d elements" % (
                self._actual._describe(), r["count"]))
        return r

    def _state(self, name, what, want, describe, timeout, absent=False):
        def check():
            r = self._single(what)
            if r["count"] == 0:
                return absent, "<element(s) not found>"
            v = r["value"]
            if v == "error":
                raise Error("Not a checkbox or radio button", type="Error")
            return v == want, v
        self._retry(name, check, describe, timeout=timeout)

    def to_be_attached(self, attached=None, timeout=None):
        want = attached is None or attached

        def check():
            n = self._probe("count")
            return (n >= 1) == want, "attached" if n else "detached"
        self._retry("to_be_attached", check, "to be attached" if want else "to be detached", timeout=timeout)

    def to_be_checked(self, timeout=None, checked=None, indeterminate=None):
        if checked is not None and indeterminate:
            # A failed assertion, as in Playwright (not a retry: no page state can satisfy it).
            raise AssertionError("Locator expected to be %s\nCan't assert indeterminate and checked at the same "
                                 "time: pass either checked= or indeterminate=True" % (
                                     "checked" if checked else "unchecked"))
        want = "mixed" if indeterminate else (checked is None or checked)
        desc = "to be indeterminate" if indeterminate else ("to be checked" if want is True else "to be unchecked")
        self._state("to_be_checked", "checked", want, desc, timeout)

    def to_be_disabled(self, timeout=None):
        self._state("to_be_disabled", "enabled", False, "to be disabled", timeout)

    def to_be_enabled(self, enabled=None, timeout=None):
        want = enabled is None or enabled
        self._state("to_be_enabled", "enabled", want, "to be enabled" if want else "to be disabled", timeout)

    def to_be_editable(self, editable=None, timeout=None):
        want = editable is None or editable

        def check():
            r = self._single("editable")
            if r["count"] == 0:
                return False, "<element(s) not found>"
            if r["value"] == "error":
                raise Error("Element is not an <input>, <textarea>, <select> or [contenteditable] and does not "
                            "have a role allowing [aria-readonly]", type="Error")
            return r["value"] == want, r["value"]
        self._retry("to_be_editable", check, "to be editable" if want else "to be readonly", timeout=timeout)

    def to_be_empty(self, timeout=None):
        self._state("to_be_empty", "empty", True, "to be empty", timeout)

    def to_be_focused(self, timeout=None):
        self._state("to_be_focused", "focused", True, "to be focused", timeout)

    def to_be_visible(self, visible=None, timeout=None):
        want = visible is None or visible

        def check():
            r = self._single("visible")
            v = bool(r["count"]) and r["value"]
            return v == want, "visible" if v else "hidden"
        self._retry("to_be_visible", check, "to be visible" if want else "to be hidden", timeout=timeout)

    def to_be_hidden(self, timeout=None):
        def check():
            r = self._single("visible")
            v = bool(r["count"]) and r["value"]
            return not v, "visible" if v else "hidden"
        self._retry("to_be_hidden", check, "to be hidden", timeout=timeout)

    def to_be_in_viewport(self, ratio=None, timeout=None):
        """The element intersects the viewport; with ratio, at least that share of it is inside."""
        def check():
            r = self._single("viewport")
            if r["count"] == 0:
                return False, "<element(s) not found>"
            seen = r["value"]
            ok = seen >= ratio if ratio else seen > 0
            return ok, "viewport ratio %s" % _short_number(seen)
        self._retry("to_be_in_viewport", check, "to be in viewport", timeout=timeout)

    def _texts(self, name, expected, substring, use_inner_text, ignore_case, timeout, describe):
        for item in expected if isinstance(expected, (list, tuple)) else [expected]:
            if not isinstance(item, (str, re.Pattern)):
                raise Error("%s: value must be a string or regular expression, not %s"
                            % (name, type(item).__name__), type="Error")
        if isinstance(expected, (list, tuple)):
            def check():
                texts = self._probe("text", all=True, inner=bool(use_inner_text))
                if substring:
                    # each expected item in order, in some element
                    i = 0
                    for t in texts:
                        if i < len(expected) and _text_matches(expected[i], t, ignore_case, True):
                            i += 1
                    return i == len(expected), texts
                ok = len(texts) == len(expected) and all(
                    _text_matches(e, t, ignore_case, False) for e, t in zip(expected, texts))
                return ok, texts
        else:
            def check():
                r = self._single("text", inner=bool(use_inner_text))
                if r["count"] == 0:
                    return False, "<element(s) not found>"
                return _text_matches(expected, r["value"], ignore_case, substring), r["value"]
        self._retry(name, check, describe, expected, timeout)

    def to_have_text(self, expected, use_inner_text=None, timeout=None, ignore_case=None):
        self._texts("to_have_text", expected, False, use_inner_text, ignore_case, timeout, "to have text")

    def to_contain_text(self, expected, use_inner_text=None, timeout=None, ignore_case=None):
        self._texts("to_contain_text", expected, True, use_inner_text, ignore_case, timeout, "to contain text")

    def _value(self, assertion, what, expected, describe, timeout, match, **q):
        def check():
            r = self._single(what, **q)
            if r["count"] == 0:
                return False, "<element(s) not found>"
            v = r["value"]
            if isinstance(v, dict) and "error" in v:
                raise Error(v["error"], type="Error")
            return match(v), v
        self._retry(assertion, check, describe, expected, timeout)

    def to_have_attribute(self, name, value=None, ignore_case=None, timeout=None):
        if value is None:
            self._value("to_have_attribute", "attribute", _UNSET, "to have attribute", timeout,
                        lambda v: v is not None, name=name)
            return
        self._value("to_have_attribute", "attribute", value, "to have attribute", timeout,
                    lambda v: _text_matches(value, v, ignore_case, False, False), name=name)

    def to_have_class(self, expected, timeout=None):
        if isinstance(expected, (list, tuple)):
            def check():
                classes = self._probe("class", all=True)
                ok = len(classes) == len(expected) and all(
                    _text_matches(e, c, None, False) for e, c in zip(expected, classes))
                return ok, classes
            self._retry("to_have_class", check, "to have class", expected, timeout)
            return
        self._value("to_have_class", "class", expected, "to have class", timeout,
                    lambda v: _text_matches(expected, v, None, False))

    def to_contain_class(self, expected, timeout=None):
        if isinstance(expected, (list, tuple)):
            # One class string per element, in order: every element must carry all the classes of its string.
            def check():
                classes = self._probe("class", all=True)
                ok = len(classes) == len(expected) and all(
                    all(c in have.split() for c in str(want).split()) for want, have in zip(expected, classes))
                return ok, classes
            self._retry("to_contain_class", check, "to contain class", expected, timeout)
            return
        want = expected.split() if isinstance(expected, str) else []
        self._value("to_contain_class", "class", expected, "to contain class", timeout,
                    lambda v: all(c in v.split() for c in want))

    def to_have_count(self, count, timeout=None):
        def check():
            n = self._probe("count")
            return n == count, n
        self._retry("to_have_count", check, "to have count", count, timeout)

    def to_have_css(self, name, value, timeout=None):
        self._value("to_have_css", "css", value, "to have CSS", timeout,
                    lambda v: _text_matches(value, v, None, False, False), name=name)

    def to_have_id(self, id, timeout=None):
        self._value("to_have_id", "id", id, "to have id", timeout, lambda v: _text_matches(id, v, None, False, False))

    def to_have_js_property(self, name, value, timeout=None):
        # Compared in their transferred form, as the page would see them: a naive datetime is UTC there.
        want = _encode(value, [])
        self._value("to_have_js_property", "property", value, "to have JS Property", timeout,
                    lambda v: _encode(v, []) == want, name=name)

    def to_have_value(self, value, timeout=None):
        self._value("to_have_value", "value", value, "to have Value", timeout,
                    lambda v: _text_matches(value, v, None, False, False))

    def to_have_values(self, values, timeout=None):
        def match(v):
            return len(v) == len(values) and all(_text_matches(e, a, None, False, False) for e, a in zip(values, v))
        self._value("to_have_values", "values", list(values), "to have Values", timeout, match)

    def to_have_role(self, role, timeout=None):
        if not isinstance(role, str):
            raise Error('"role" argument in to_have_role must be a string', type="InvalidParams")
        self._value("to_have_role", "role", role, "to have role", timeout, lambda v: v == role)

    def to_have_accessible_name(self, name, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("name")
            return _text_matches(name, actual, ignore_case, False), actual
        self._retry("to_have_accessible_name", check, "to have accessible name", name, timeout)

    def to_have_accessible_description(self, description, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("description")
            return _text_matches(description, actual, ignore_case, False), actual
        self._retry("to_have_accessible_description", check, "to have accessible description", description, timeout)

    def to_have_accessible_error_message(self, error_message, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("errormessage")
            return _text_matches(error_message, actual, ignore_case, False), actual
        self._retry("to_have_accessible_error_message", check, "to have accessible error message", error_message,
                    timeout)


def _negations(cls):
    for name in list(vars(cls)):
        if name.startswith("to_") and not hasattr(cls, "not_" + name):
            def make(n):
                def negated(self, *args, **kwargs):
                    return getattr(self._not, n)(*args, **kwargs)
                negated.__name__ = "not_" + n
                return negated
            setattr(cls, "not_" + name, make(name))
    return cls


_negations(LocatorAssertions)


class _Expect:
    """expect(page | locator | response, message=None): Playwright's retrying assertions."""

    def __call__(self, actual, message=None):
        if isinstance(actual, Page):
            return PageAssertions(actual, message)
        if isinstance(actual, Locator):
            return LocatorAssertions(actual, message)
        if hasattr(actual, "status") and hasattr(actual, "ok"):
            return APIResponseAssertions(actual, message)
        raise ValueError("expect() takes a Page, a Locator or a Response, not %s" % type(actual).__name__)

    def soft(self, actual, message=None):
        """A soft assertion: a failure is collected by the enclosing soft-assertion scope (which a
        test runner's plugin sets up) instead of ending the script. Outside such a scope it is an error."""
        if _soft_errors.get() is None:
            raise RuntimeError("expect.soft() needs a soft-assertion scope, which a test runner plugin "
                               "(such as pytest-playwright) sets up; use expect() in scripts")
        return _SoftAssertions(self(actual, message))

    def set_options(self, timeout=_UNSET):
        if timeout is not _UNSET:
            _Assertions._default_timeout = 5000 if timeout is None else timeout


expect = _Expect()


# The failures soft assertions collect; None outside a scope.
_soft_errors = contextvars.ContextVar("wright_soft_errors", default=None)


@contextlib.contextmanager
def _soft_scope():
    """Collect the failures of expect.soft() inside it; yields the list."""
    errors = []
    token = _soft_errors.set(errors)
    try:
        yield errors
    finally:
        _soft_errors.reset(token)


class _SoftAssertions:
    """Wraps an assertions object: a failing assertion is recorded, not raised."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if not callable(attr) or not (name.startswith("to_") or name.startswith("not_to_")):
            return attr

        def soft(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except AssertionError as err:
                errors = _soft_errors.get()
                if errors is None:
                    raise
                errors.append(err)
        return soft
