"""Small helpers shared across the client: URL globs and matching, viewports, paths, points."""

import base64
import os
import re

from . import _glob


def _glob_regex(glob):
    """Playwright's URL glob: ** any characters, * any but "/", ? one character, {a,b} alternatives."""
    out, i, in_group = ["^"], 0, False
    while i < len(glob):
        c = glob[i]
        if c == "*" and glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append(".")
        elif c == "{":
            out.append("(")
            in_group = True
        elif c == "}" and in_group:
            out.append(")")
            in_group = False
        elif c == "," and in_group:
            out.append("|")
        elif c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    out.append("$")
    return "".join(out)


def _url_matches(pattern, url, base=None):
    """Whether url matches a Playwright URL pattern: str (exact or glob, see _glob), re.Pattern or a predicate."""
    if pattern is None:
        return True
    if callable(pattern) and not isinstance(pattern, re.Pattern):
        return bool(pattern(url))
    if isinstance(pattern, re.Pattern):
        return pattern.search(url) is not None
    resolved = _glob.resolve_glob(base, pattern)
    if not any(ch in resolved for ch in "*{\\"):
        return resolved == url or resolved == url.split("#", 1)[0]
    return re.search(_glob.glob_to_regex_pattern(resolved), url) is not None


def _viewport(value, who):
    if value is None:
        return None
    if isinstance(value, dict):
        width, height = value.get("width"), value.get("height")
    else:
        try:
            width, height = value
        except (TypeError, ValueError):
            raise ValueError("%s: viewport must be (width, height) or {'width': w, 'height': h}, not %r"
                             % (who, value)) from None
    for v in (width, height):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError("%s: viewport width and height must be positive ints, not %r" % (who, value))
    return {"width": width, "height": height}


_UNSET = object()


def _abs_path(path):
    path = os.path.abspath(os.path.join(os.getcwd(), os.fspath(path)))
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    return path


def _screenshot_bytes(result, path):
    if path:
        try:
            with open(result.get("path") or path, "rb") as f:
                return f.read()
        except OSError:
            return None
    data = result.get("data")
    return base64.b64decode(data) if data else b""


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


_LOAD_STATES = ("load", "domcontentloaded", "networkidle", "commit")


def _point(position):
    if position is None:
        return None
    if isinstance(position, dict):
        return {"x": position["x"], "y": position["y"]}
    x, y = position
    return {"x": x, "y": y}
