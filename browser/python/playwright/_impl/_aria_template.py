"""ARIA snapshot templates (to_match_aria_snapshot): parsing the YAML template and matching it
against a snapshot.
"""

import json
import re

from ._errors import Error
from ._str_utils import _normalize_ws


_ARIA_BOOL_ATTRS = ("checked", "disabled", "expanded", "pressed", "selected", "active")


class _AriaNode:
    __slots__ = ("role", "name", "attrs", "props", "kids", "mode", "text")

    def __init__(self, role=None, name=None, text=None):
        self.role, self.name, self.text = role, name, text
        self.attrs, self.props, self.kids, self.mode = {}, {}, [], None


def _yaml_scalar(s):
    """A YAML flow scalar as this format writes it: "json-like", 'single' or plain."""
    s = s.strip()
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        try:
            return json.loads(s)
        except ValueError:
            return s[1:-1]
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        return s[1:-1].replace("''", "'")
    return s


def _aria_split_item(rest):
    """Split a list item's text into (key, value or None when there is no colon)."""
    if rest[:1] in ("'", '"'):
        q = rest[0]
        i = 1
        while i < len(rest):
            if q == '"' and rest[i] == "\\":
                i += 2
                continue
            if rest[i] == q:
                if q == "'" and rest[i + 1:i + 2] == "'":
                    i += 2
                    continue
                break
            i += 1
        key, tail = _yaml_scalar(rest[:i + 1]), rest[i + 1:].strip()
        if tail.startswith(":"):
            return key, tail[1:].strip()
        return key, None
    inside = None
    i = 0
    while i < len(rest):
        c = rest[i]
        if inside:
            if c == "\\":
                i += 2
                continue
            if c == inside:
                inside = None
        elif c in ('"', "/") and i > 0 and rest[i - 1] == " ":
            inside = c
        elif c == ":" and (i + 1 == len(rest) or rest[i + 1] == " "):
            return rest[:i].strip(), rest[i + 1:].strip()
        i += 1
    return rest.strip(), None


def _aria_text_value(raw, template):
    """A text or property value: in a template, /.../ is a pattern (also compared as written)."""
    value = _yaml_scalar(raw)
    if template and len(value) >= 2 and value[0] == "/" and value[-1] == "/":
        try:
            return (re.compile(value[1:-1]), value)
        except re.error:
            return value
    return value


def _aria_parse_key(key, template):
    """role "name" [attr] [attr=value] -> a node (name may be a pattern in a template)."""
    m = re.match(r"\s*([A-Za-z][\w-]*)\s*", key)
    if not m:
        raise Error("aria snapshot: cannot read %r (expected a role)" % key)
    node = _AriaNode(role=m.group(1))
    rest = key[m.end():]
    if rest.startswith('"'):
        i = 1
        while i < len(rest) and rest[i] != '"':
            i += 2 if rest[i] == "\\" else 1
        node.name = _yaml_scalar(rest[:i + 1])
        rest = rest[i + 1:]
    elif rest.startswith("/") and template:
        i = 1
        while i < len(rest) and rest[i] != "/":
            i += 2 if rest[i] == "\\" else 1
        try:
            node.name = re.compile(rest[1:i])
        except re.error as exc:
            raise Error("aria snapshot: bad pattern %r: %s" % (rest[:i + 1], exc)) from None
        rest = rest[i + 1:]
    for am in re.finditer(r"\[\s*([\w-]+)\s*(?:=\s*([^\]]*?)\s*)?\]", rest):
        node.attrs[am.group(1)] = "true" if am.group(2) is None else am.group(2)
    return node


def _aria_parse(text, template=False):
    """Parse snapshot YAML into a root node whose kids are the top-level items."""
    root = _AriaNode(role="fragment")
    stack = [(-1, root)]
    for raw_line in str(text).split("\n"):
        if not raw_line.strip():
            continue
        indent = len(raw_line) - len(raw_line.lstrip())
        body = raw_line.strip()
        if not body.startswith("-"):
            raise Error("aria snapshot: expected a list item (\"- ...\"), got %r" % body)
        body = body[1:].strip()
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        key, value = _aria_split_item(body)
        if key == "text":
            parent.kids.append(_AriaNode(text=_aria_text_value(value or "", template)))
            continue
        if key.startswith("/"):
            if key == "/children":
                parent.mode = (value or "").strip()
            else:
                parent.props[key[1:]] = _aria_text_value(value or "", template)
            continue
        node = _aria_parse_key(key, template)
        if value:
            node.kids.append(_AriaNode(text=_aria_text_value(value, template)))
        parent.kids.append(node)
        stack.append((indent, node))
    return root


def _aria_text_matches(actual, want):
    if want is None or want == "":
        return True
    if actual is None:
        return False
    actual = _normalize_ws(actual)
    if isinstance(want, tuple):
        pattern, raw = want
        return actual == raw or pattern.search(actual) is not None
    if isinstance(want, re.Pattern):
        return want.search(actual) is not None
    return actual == _normalize_ws(want)


def _aria_node_matches(node, tmpl, deep):
    if tmpl.role is None:
        return node.role is None and _aria_text_matches(node.text, tmpl.text)
    if node.role is None or (tmpl.role != "fragment" and tmpl.role != node.role):
        return False
    for attr, want in tmpl.attrs.items():
        have = node.attrs.get(attr, "false" if attr in _ARIA_BOOL_ATTRS else None)
        if have != want:
            return False
    if tmpl.name is not None and not _aria_text_matches(node.name or "", tmpl.name):
        return False
    for prop, want in tmpl.props.items():
        if not _aria_text_matches(node.props.get(prop), want):
            return False
    mode = tmpl.mode or ("deep-equal" if deep else "contain")
    if mode == "contain":
        return _aria_contains(node.kids, tmpl.kids)
    if mode in ("equal", "deep-equal"):
        deeper = mode == "deep-equal"
        return len(node.kids) == len(tmpl.kids) and all(
            _aria_node_matches(n, t, deeper) for n, t in zip(node.kids, tmpl.kids))
    raise Error("aria snapshot: /children must be contain, equal or deep-equal, not %r" % tmpl.mode)


def _aria_contains(kids, wanted):
    i = 0
    for t in wanted:
        while i < len(kids) and not _aria_node_matches(kids[i], t, False):
            i += 1
        if i == len(kids):
            return False
        i += 1
    return True


def _aria_tree_matches(root, tmpl):
    """Whether some node of the snapshot tree (the root included) matches the template."""
    target = tmpl.kids[0] if len(tmpl.kids) == 1 and tmpl.mode is None else tmpl
    todo = [root]
    while todo:
        node = todo.pop()
        if _aria_node_matches(node, target, False):
            return True
        todo.extend(k for k in node.kids if k.role is not None)
        if target.role is None and any(_aria_node_matches(k, target, False) for k in node.kids):
            return True
    return False


def _dedent_snapshot(text):
    lines = [line for line in str(text).split("\n") if line.strip()]
    cut = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return "\n".join(line[cut:] for line in lines)
