"""Selector strings: the quoting of text, regexes, roles and test ids that locators build (the driver
parses them), and the short descriptions error messages give of a selector.
"""

import json
import re


def _json_body(text):
    """A JSON string literal for text that cannot be mistaken for a ` >> ` chain separator."""
    # ">>" inside a quoted body is written as JSON escapes: the string decodes to
    # the same text, and no driver, however it splits chains, sees a separator.
    return json.dumps(text, ensure_ascii=False).replace(">>", "\\u003e\\u003e")


_REGEX_CHAR = {"/": "\\/", "\n": "\\n", "\r": "\\r", '"': "\\x22", "'": "\\x27"}


def _regex_body(pattern):
    """A Python re.Pattern as a JavaScript regex literal `/source/flags`."""
    if not isinstance(pattern.pattern, str):
        raise TypeError("a bytes pattern cannot be matched against page text; use a str pattern")
    if pattern.flags & re.VERBOSE:
        raise ValueError("re.VERBOSE patterns cannot be sent to the browser; write the pattern without it")
    flags = ""
    if pattern.flags & re.IGNORECASE:
        flags += "i"
    if pattern.flags & re.MULTILINE:
        flags += "m"
    if pattern.flags & re.DOTALL:
        flags += "s"
    src = pattern.pattern
    # Written so that a driver splitting chains at ` >> ` outside quotes and
    # brackets sees one body: quotes become \x22 / \x27, brackets inside a
    # character class are escaped, and ">>" becomes ">\x3e". Python-only
    # syntax is translated: (?P<n>...), (?P=n), \A, \Z, a "]" first in a class.
    out = []
    i = 0
    in_class = False
    class_start = 0
    prev_gt = False
    while i < len(src):
        c = src[i]
        gt = False
        if c == "\\" and i + 1 < len(src):
            nxt = src[i + 1]
            if nxt == "A" and not in_class:
                out.append("^")
            elif nxt == "Z" and not in_class:
                out.append("$")
            else:
                out.append(src[i : i + 2])
            i += 2
            prev_gt = False
            continue
        if in_class:
            if c == "]" and i > class_start:
                in_class = False
                out.append("]")
            elif c in "[]()":
                out.append("\\" + c)
            elif c == "^" and i == class_start and src[i - 1] == "[":
                out.append("^")
                class_start = i + 1
            else:
                out.append(_REGEX_CHAR.get(c, c))
            i += 1
            prev_gt = False
            continue
        if c == "[":
            in_class = True
            class_start = i + 1
            out.append("[")
        elif src.startswith("(?P<", i):
            out.append("(?<")  # named group
            i += 4
            prev_gt = False
            continue
        elif src.startswith("(?P=", i) and src.find(")", i) > 0:
            end = src.find(")", i)
            out.append("\\k<%s>" % src[i + 4 : end])  # named back-reference
            i = end + 1
            prev_gt = False
            continue
        elif c == ">" and prev_gt:
            out.append("\\x3e")
        else:
            out.append(_REGEX_CHAR.get(c, c))
            gt = c == ">"
        prev_gt = gt
        i += 1
    return "/%s/%s" % ("".join(out), flags)


def _text_body(value, exact, what="text"):
    """BODY for text=, role name, label=, ...: exact -> "t", otherwise "t"i; a pattern -> /re/flags."""
    if isinstance(value, re.Pattern):
        return _regex_body(value)
    if not isinstance(value, str):
        raise TypeError("%s must be a str or a compiled re.Pattern, not %s" % (what, type(value).__name__))
    body = _json_body(value)
    return body if exact else body + "i"


def _role_part(role, name=None, exact=False, checked=None, disabled=None, expanded=None,
               include_hidden=None, level=None, pressed=None, selected=None, description=None):
    if not isinstance(role, str) or not re.fullmatch(r"[A-Za-z][A-Za-z-]*", role):
        raise ValueError("get_by_role: role must be an ARIA role name such as 'button' or 'link', not %r" % (role,))
    part = "role=" + role
    for attr, value in (("checked", checked), ("disabled", disabled), ("expanded", expanded),
                        ("pressed", pressed), ("selected", selected)):
        if value is None:
            continue
        if value is True:
            part += "[%s]" % attr
        elif value is False:
            part += "[%s=false]" % attr
        elif value == "mixed" and attr in ("checked", "pressed"):
            part += '[%s="mixed"]' % attr
        else:
            raise ValueError("get_by_role: %s must be True, False or None, not %r" % (attr, value))
    if level is not None:
        if isinstance(level, bool) or not isinstance(level, int):
            raise ValueError("get_by_role: level must be an int, not %r" % (level,))
        part += "[level=%d]" % level
    if include_hidden:
        part += "[include-hidden]"
    if name is not None:
        part += "[name=%s]" % _text_body(name, exact, "name")
    if description is not None:
        part += "[description=%s]" % _text_body(description, exact, "description")
    return part


def _test_id_part(test_id):
    if isinstance(test_id, re.Pattern):
        return "internal:testid=[data-testid=%s]" % _regex_body(test_id)
    if not isinstance(test_id, str):
        raise TypeError("get_by_test_id: the id must be a str, not %s" % type(test_id).__name__)
    if re.fullmatch(r"[A-Za-z0-9_.:-]+", test_id):
        return "testid=" + test_id
    return "testid=" + _json_body(test_id)


def _join(chain, part):
    return part if not chain else chain + " >> " + part


def _api_description(selector):
    """How Playwright's messages name a locator: get_by_role("button", name="Close"), locator("#id")."""
    m = re.fullmatch(r'role=([\w-]+)(?:\[name=("(?:[^"\\]|\\.)*")(i?)\])?', selector)
    if m:
        if m.group(2) is None:
            return 'get_by_role("%s")' % m.group(1)
        return 'get_by_role("%s", name=%s%s)' % (m.group(1), m.group(2), "" if m.group(3) else ", exact=True")
    m = re.fullmatch(r'(?:internal:)?(text|label|placeholder|alt|title)=("(?:[^"\\]|\\.)*")(i?)', selector)
    if m:
        kind = {"alt": "alt_text"}.get(m.group(1), m.group(1))
        return "get_by_%s(%s%s)" % (kind, m.group(2), "" if m.group(3) else ", exact=True")
    return "locator(%s)" % json.dumps(selector)


def _normalize_ws(text):
    return " ".join(str(text).split())
