"""The proxy option of launch() and new_context() / new_page(): checked here, in Playwright's words, before
anything reaches the driver, which decides whether a proxy may apply at all (inside a wright run it may not:
the run's URL policy is the browser's network)."""

from ._errors import Error

_KEYS = ("server", "bypass", "username", "password")


def _js_type(value):
    """The JavaScript name of a Python value's type, as Playwright's own checks name what they got."""
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _proxy_settings(proxy):
    """proxy as the driver takes it: {"server", "bypass", "username", "password"} with None values dropped;
    None when no proxy is given."""
    if proxy is None:
        return None
    if not isinstance(proxy, dict):
        raise Error("proxy: expected object, got %s" % _js_type(proxy), type="InvalidParams")
    unknown = sorted(set(proxy) - set(_KEYS))
    if unknown:
        raise Error("proxy: unknown option(s) %s (known: %s)" % (", ".join(unknown), ", ".join(_KEYS)),
                    type="InvalidParams")
    out = {}
    for key in _KEYS:
        value = proxy.get(key)
        if value is None and key != "server":
            continue
        if not isinstance(value, str):
            raise Error("proxy.%s: expected string, got %s" % (key, _js_type(value)), type="InvalidParams")
        out[key] = value
    return out
