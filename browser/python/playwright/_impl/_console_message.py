"""ConsoleMessage, what page.on("console") listeners get."""

import time

from ._js_handle import JSHandle, _handle_for


class ConsoleMessage:
    """A console.* call of a page (page.on("console"), expect_console_message())."""

    def __init__(self, page, params):
        self._page = page
        self.type = params.get("type") or "log"
        self.text = params.get("text") or ""
        self._args = params.get("args") or []
        line, column = params.get("line") or 0, params.get("column") or 0
        self.location = {"url": params.get("url") or "", "lineNumber": line, "columnNumber": column,
                         "line": line, "column": column}
        self.timestamp = params.get("timestamp") or time.time() * 1000
        self._record = {"type": self.type, "text": self.text, "url": self.location["url"], "line": line}

    # wright's page.console_messages() gave dicts: msg["text"] still works on these objects.
    def __getitem__(self, key):
        return self._record[key]

    def get(self, key, default=None):
        return self._record.get(key, default)

    def keys(self):
        return self._record.keys()

    def __repr__(self):
        return "<ConsoleMessage type=%s text=%s>" % (self.type, self.text)

    def __str__(self):
        return self.text

    @property
    def page(self):
        return self._page

    @property
    def worker(self):
        """The page's Worker that logged this message, or None for the page itself."""
        return self.__dict__.get("_worker")

    @property
    def args(self):
        out = []
        for a in self._args:
            if a.get("handle"):
                out.append(_handle_for(self._page, a))
            else:
                out.append(JSHandle(self._page, None, {"value": _prim_encoded(a.get("value")), "type": a.get("type")}))
        return out


def _prim_encoded(value):
    if value is None:
        return {"u": 1}
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity", "-0"):
        return {"n": value}
    return value
