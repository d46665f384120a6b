"""Playwright's URL globs as regular expressions, and how a glob is resolved against a base URL.

A glob: `*` is any run of characters but "/", `**` any run at all (`**/` at a segment boundary also matches
nothing, so "a/**/b" matches "a/b"), `{x,y}` one of the alternatives, a backslash escapes the next character.
Everything else is itself: `?` and `[...]` are literal characters, not wildcards (a `?` in a URL glob is the
start of its query).
"""

import re
import urllib.parse

# Characters a regular expression would read as syntax.
_SPECIAL = set("$^+.*()|\\?{}[]")


def _literal(c):
    return "\\" + c if c in _SPECIAL else c


def glob_to_regex_pattern(glob):
    """The regular expression (anchored at both ends) of a URL glob."""
    out = ["^"]
    group = False
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "\\":
            # A backslash escapes the next character; a last one is itself.
            if i + 1 < n:
                out.append(_literal(glob[i + 1]))
                i += 2
            else:
                out.append("\\\\")
                i += 1
            continue
        if c == "*":
            stars = 1
            while i + stars < n and glob[i + stars] == "*":
                stars += 1
            before = glob[i - 1] if i > 0 else None
            after = glob[i + stars] if i + stars < n else None
            i += stars
            if stars == 1:
                out.append("[^/]*")
            elif after == "/":
                # "**/" takes its slash: after a slash it may match nothing at all ("a/**/b" matches "a/b").
                out.append("(?:.+/)?" if before == "/" else ".*/")
                i += 1
            else:
                out.append(".*")
            continue
        if c == "{":
            group = True
            out.append("(?:")
        elif c == "}" and group:
            group = False
            out.append(")")
        elif c == "," and group:
            out.append("|")
        else:
            out.append(_literal(c))
        i += 1
    out.append("$")
    return "".join(out)


# Schemes whose URLs always have a path ("http://host" is "http://host/").
_SPECIAL_SCHEMES = {"http", "https", "ws", "wss", "ftp", "file"}
# URLs that are never relative to a base URL.
_OPAQUE_PREFIXES = ("about:", "data:", "chrome:", "edge:", "file:")
_SCHEME = re.compile(r"^([A-Za-z0-9+.\-*{},]+):")


def _normalized(glob):
    """An absolute glob as a URL parser would write it: scheme and host in lower case, and a "/" path where
    the host ends the URL or a query follows it (for http-like schemes, and schemes given as a glob)."""
    m = _SCHEME.match(glob)
    if not m or not glob.startswith("//", m.end()):
        return glob
    scheme = m.group(1).lower()
    start = m.end() + 2
    end = start
    while end < len(glob) and glob[end] not in "/?#" and not glob.startswith("\\?", end):
        end += 1
    host, rest = glob[start:end].lower(), glob[end:]
    if (not rest or rest[0] != "/") and (scheme in _SPECIAL_SCHEMES or any(ch in scheme for ch in "*{")):
        rest = "/" + rest
    return scheme + "://" + host + rest


def resolve_glob(base_url, glob):
    """glob made absolute against base_url (a glob starting with "*" is left as it is)."""
    if not glob or glob[0] == "*":
        return glob
    glob = glob.replace("\\\\?", "?")  # an escaped "\\?" is a "?", which starts the query
    if glob.startswith(_OPAQUE_PREFIXES):
        return glob
    if not _SCHEME.match(glob) and base_url:
        glob = urllib.parse.urljoin(base_url, glob)
    return _normalized(glob)


def glob_matches(glob, url, base_url=None):
    return re.search(glob_to_regex_pattern(resolve_glob(base_url, glob)), url) is not None
