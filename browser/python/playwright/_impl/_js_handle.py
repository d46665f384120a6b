"""Values that cross into the page and back (Playwright's evaluate semantics), and JSHandle."""

import builtins
import math
import re
import urllib.parse

from . import _errors
from ._errors import Error, InvalidParams
from ._str_utils import _regex_body
from ._helpers import _UNSET
from ._lazy import lazy

datetime = lazy("datetime")


class _ArgumentTypeError(Error, builtins.TypeError):
    """An argument of the wrong type: an Error, as in Playwright, and a TypeError, as it always was here."""


def _js_type_name(value):
    """The JavaScript type name Playwright's messages use for a Python value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "object"


def _encode(value, handles, seen=None):
    if seen is None:
        seen = {}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else {"bi": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"n": "NaN"}
        if math.isinf(value):
            return {"n": "Infinity" if value > 0 else "-Infinity"}
        if value == 0 and math.copysign(1.0, value) < 0:
            return {"n": "-0"}
        return value
    if isinstance(value, JSHandle):
        if value._disposed:
            raise Error("JSHandle is disposed: an argument is a handle that was disposed (no object with guid %s "
                        "remains); pass a live handle" % value._id, type="TargetClosed")
        if value._id is None:
            return value._value_encoded
        handles.append(value._id)
        return {"h": len(handles) - 1}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return {"d": value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")}
    if isinstance(value, re.Pattern):
        return {"r": {"p": _regex_body(value)[1:].rsplit("/", 1)[0], "f": _regex_body(value).rsplit("/", 1)[1]}}
    if isinstance(value, urllib.parse.ParseResult):
        return {"url": value.geturl()}
    if isinstance(value, Exception):
        # An exception crosses as an Error: its name, message and stack (Python's traceback).
        message = value.message if isinstance(value, Error) else str(value)
        name = getattr(value, "_name", None) or type(value).__name__
        stack = getattr(value, "_stack", None)
        if stack is None:
            stack = _errors.format_exception(value)
        return {"e": {"n": name, "m": message, "s": stack}}
    key = id(value)
    if key in seen:
        return {"ref": seen[key]}
    if isinstance(value, (list, tuple)):
        seen[key] = len(seen)
        return {"a": [_encode(v, handles, seen) for v in value], "id": seen[key]}
    if isinstance(value, dict):
        seen[key] = len(seen)
        return {"o": [[str(k), _encode(v, handles, seen)] for k, v in value.items()], "id": seen[key]}
    raise InvalidParams("cannot pass a %s to the browser: use None, bool, int, float, str, list, dict, datetime, "
                        "re.Pattern, a urlparse() result or a JSHandle" % type(value).__name__)


def _decode(value, refs=None):
    if refs is None:
        refs = {}
    if not isinstance(value, dict):
        return value
    if "u" in value:
        return None
    if "node" in value or "win" in value:
        # A DOM node or window returned by value stands as a reference, as Playwright shows it.
        return "ref: <Window>" if "win" in value else "ref: <%s>" % (
            value["node"] if isinstance(value["node"], str) else "Node")
    if "n" in value:
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}[value["n"]]
    if "bi" in value:
        return int(value["bi"])
    if "d" in value:
        if value["d"] is None:
            return None
        return datetime.datetime.fromisoformat(value["d"].replace("Z", "+00:00"))
    if "r" in value:
        flags = 0
        for ch, bit in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL)):
            if ch in value["r"]["f"]:
                flags |= bit
        return re.compile(value["r"]["p"], flags)
    if "url" in value:
        return urllib.parse.urlparse(value["url"])
    if "e" in value:
        err = Error(value["e"]["m"], type=value["e"]["n"])
        err.stack = value["e"]["s"]
        return err
    if "ta" in value:
        return list(value["ta"])
    if "ref" in value:
        return refs.get(value["ref"])
    if "a" in value:
        out = []
        refs[value.get("id")] = out
        out.extend(_decode(v, refs) for v in value["a"])
        return out
    if "o" in value:
        out = {}
        refs[value.get("id")] = out
        for k, v in value["o"]:
            out[k] = _decode(v, refs)
        return out
    return value


def _named_after(exc, api):
    """The error of a driver call, named after the API method that made it (Playwright's "Page.evaluate: ...")."""
    prefix = (exc.method or "") + ": "
    if not exc.method or not exc.message.startswith(prefix):
        return exc
    renamed = type(exc)(api + ": " + exc.message[len(prefix):], type=exc.type, method=api)
    renamed.stack = exc.stack
    return renamed


def _js_call(page, source, arg=_UNSET, element=None, return_handle=False, timeout=None, context=None, worker=None,
             no_await=False):
    """One js.call: source with arg (transferred), optionally on an element handle id."""
    if not isinstance(source, str):
        raise TypeError("expression must be a str of JavaScript, not %s" % type(source).__name__)
    params = {"page": page.id, "source": source}
    handles = []
    if arg is not _UNSET:
        params["arg"] = _encode(arg, handles)
        if handles:
            params["handles"] = handles
    if element:
        params["element"] = element
    if context:
        params["context"] = context
    if worker:
        params["worker"] = worker
    if no_await:
        params["no_await"] = True
    if return_handle:
        params["return_handle"] = True
    if timeout is not None:
        params["timeout"] = timeout
    result = page._browser._call("js.call", params, timeout_ms=False)
    if not return_handle:
        return _decode(result.get("value"))
    return _handle_for(page, result)


def _handle_for(page, result):
    hid = result.get("handle")
    if hid and result.get("subtype") == "node":
        return ElementHandle(page, hid, result.get("description") or "node")
    handle = JSHandle(page, hid or None, result)
    return handle


class JSHandle:
    """A reference to a JavaScript value that lives in the page (page.evaluate_handle())."""

    def __init__(self, page, handle_id, info=None):
        self._page = page
        self._id = handle_id
        self._disposed = False
        info = info or {}
        self._type = info.get("type") or "object"
        self._subtype = info.get("subtype") or ""
        self._description = info.get("description") or ""
        self._value_encoded = info.get("value")

    def __repr__(self):
        return "<JSHandle preview=%s>" % self._preview

    def __str__(self):
        return self._preview

    @property
    def _preview(self):
        # An attribute, as in Playwright's handles (tools read handle._impl_obj._preview). A primitive shows
        # its value as JavaScript writes it, a node its markup, an object of a named class (Window, Promise)
        # that name, any other object its kind.
        if self._id is None:
            v = _decode(self._value_encoded)
            if v is None:
                return "undefined" if self._value_encoded == {"u": 1} else "null"
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, float):
                if v != v:
                    return "NaN"
                if v in (float("inf"), float("-inf")):
                    return "Infinity" if v > 0 else "-Infinity"
                if v == 0 and str(v).startswith("-"):
                    return "-0"
                if v.is_integer():
                    return str(int(v))
            return str(v)
        if self._subtype == "node":
            try:
                return "JSHandle@" + self._jscall(_NODE_PREVIEW_JS, _UNSET, False)
            except Error:
                return "JSHandle@node"
        if self._subtype == "promise":
            return "Promise"
        if self._subtype in ("array", "date", "regexp", "error", "map", "set", "proxy"):
            return "JSHandle@%s" % self._subtype
        if self._type == "object" and not self._subtype and re.fullmatch(r"[A-Z][A-Za-z0-9_]*", self._description) \
                and self._description != "Object":
            return self._description
        return "JSHandle@%s" % (self._type if self._type != "function" else "function")

    def evaluate(self, expression, arg=_UNSET, timeout=None):
        return self._jscall(expression, arg, False)

    def evaluate_handle(self, expression, arg=_UNSET, timeout=None):
        return self._jscall(expression, arg, True)

    def _jscall(self, expression, arg, as_handle):
        if self._disposed:
            raise Error("JSHandle is disposed", type="TargetClosed")
        if self._id is None:
            # A primitive held by value: pass it first, before the argument.
            return _js_call(self._page, "(__p) => (%s)(__p[0], __p[1])" % expression,
                            [self, None if arg is _UNSET else arg], return_handle=as_handle)
        return _js_call(self._page, expression, arg, element=self._id, return_handle=as_handle)

    def json_value(self):
        if self._id is None:
            return _decode(self._value_encoded)
        return self.evaluate("v => v")

    def get_property(self, property_name):
        # Not awaited: a property that holds a promise is a handle on the promise, as in Playwright.
        if self._disposed:
            raise Error("JSHandle is disposed", type="TargetClosed")
        if self._id is None:
            return self.evaluate_handle("(o, name) => o[name]", property_name)
        return _js_call(self._page, "(o, name) => o[name]", property_name, element=self._id, return_handle=True,
                        no_await=True)

    def get_properties(self):
        names = self.evaluate("o => Object.keys(o)")
        return {name: self.get_property(name) for name in names}

    def as_element(self):
        return None

    def dispose(self):
        if self._disposed:
            return
        self._disposed = True
        if self._id is not None:
            try:
                self._page._browser._call("js.dispose", {"page": self._page.id, "handle": self._id})
            except Error:
                pass


# How a node handle prints (str(handle)): its tag and attributes (shortest first), its text when
# short and alone, "…" for element children; a text node as #text=...; line breaks as ↵.
_NODE_PREVIEW_JS = r"""n => {
  const flat = s => s.replace(/\n/g, '\u21b5');
  if (n.nodeType === 3) return '#text=' + flat(n.nodeValue || '');
  if (n.nodeType !== 1) return n.nodeName;
  const tag = n.localName;
  const attrs = Array.from(n.attributes, a => a.value === '' ? ' ' + a.name : ' ' + a.name + '="' + a.value + '"');
  attrs.sort((x, y) => x.length - y.length);
  const open = '<' + tag + attrs.join('');
  if (/^(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)$/.test(tag)) return open + '/>';
  let inner = '\u2026';
  if (!n.firstElementChild) {
    const t = n.textContent || '';
    inner = t.length <= 50 ? flat(t) : flat(t.slice(0, 49)) + '\u2026';
  }
  return open + '>' + inner + '</' + tag + '>';
}"""


def _evaluate_all(page, elements, expression, arg=_UNSET):
    return _js_call(page, "(__p) => (%s)(__p[0], __p[1])" % expression,
                    [list(elements), None if arg is _UNSET else arg])


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global ElementHandle
    from ._element_handle import ElementHandle
