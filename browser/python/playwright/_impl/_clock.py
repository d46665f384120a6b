"""Clock: Playwright's page.clock / context.clock on wright's fake clock (browser/clock/clock.js).

The clock belongs to a browser context. Each operation is applied at once in every frame of the
context's pages (evaluating the script, which the driver serves as clock.source, then the operation)
and recorded with the real time it was issued; the context's init script "clock" (the driver's
context.set_script) replays that list in every new document (a navigation, a new page, a popup), so a
document loaded later holds the same time.

Times (install, pause_at, set_fixed_time, set_system_time) are, as in Playwright's Python API, a
number of seconds since the epoch, a date string (parsed by the browser's Date) or a datetime.
Ticks (run_for, fast_forward) are milliseconds or "ss", "mm:ss", "hh:mm:ss".
"""

import json
import time as _time

from ._errors import Error, TargetClosed
from ._lazy import lazy

datetime = lazy("datetime")

_MAX_DATE = 8.64e15  # the largest time a JavaScript Date holds, in ms

# The in-page call: load the clock once per document, then apply one operation.
_APPLY = "(a) => {\n%s\nreturn globalThis.__wrightClock.apply(a.op, a.arg, a.at);\n}"
# A document that loaded before the context's init script existed: replay, unless it ran the script.
_ADOPT = "(log) => {\n%s\nglobalThis.__wrightClock.adopt(log);\n}"


def _time_arg(value, method):
    """A time as clock.js takes it: {"time": ms} or {"time": "a date string"}."""
    if isinstance(value, datetime.datetime):
        ms = round(value.timestamp() * 1000)
    elif isinstance(value, str):
        return {"time": value}
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        ms = round(value * 1000)
    else:
        raise Error("Clock.%s: time must be a number of seconds, a date string or a datetime, not %s"
                    % (method, type(value).__name__), type="InvalidParams")
    if not -_MAX_DATE <= ms <= _MAX_DATE:
        raise Error("Clock.%s: Invalid date: %d" % (method, ms), type="InvalidParams")
    return {"time": ms}


def _ticks_ms(value, method):
    """Ticks in ms: a number, or "ss" / "mm:ss" / "hh:mm:ss"."""
    if isinstance(value, str):
        parts = value.split(":")
        valid = 1 <= len(parts) <= 3 and all(p.isascii() and p.isdigit() for p in parts)
        if not valid or any(int(p) >= 60 for p in parts[1:]):
            raise Error("Clock.%s: invalid duration %r: use seconds, \"mm:ss\" or \"hh:mm:ss\"" % (method, value),
                        type="InvalidParams")
        ms = 0
        for p in parts:
            ms = ms * 60 + int(p)
        return ms * 1000
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return round(value)
    raise Error("Clock.%s: ticks must be a number of milliseconds (0 or more) or a duration string, not %r"
                % (method, value), type="InvalidParams")


class Clock:
    """The fake clock of one browser context (page.clock is its context's)."""

    def __init__(self, context):
        self._context = context
        self._log = []  # [op, arg, at]: what every new document replays
        self._paused = False  # consecutive advances while paused fold into one entry
        self._source = None  # clock.js, from the driver

    def install(self, time=None):
        arg = _time_arg(_time.time() if time is None else time, "install")
        self._apply("install", arg)
        self._paused = False

    def fast_forward(self, ticks):
        self._apply("fast_forward", {"ms": _ticks_ms(ticks, "fast_forward")})

    def run_for(self, ticks):
        self._apply("run_for", {"ms": _ticks_ms(ticks, "run_for")})

    def pause_at(self, time):
        self._apply("pause_at", _time_arg(time, "pause_at"))
        self._paused = True

    def resume(self):
        self._apply("resume", {})
        self._paused = False

    def set_fixed_time(self, time):
        self._apply("set_fixed_time", _time_arg(time, "set_fixed_time"))

    def set_system_time(self, time):
        self._apply("set_system_time", _time_arg(time, "set_system_time"))

    def _apply(self, op, arg):
        if self._source is None:
            self._source = self._context._browser._call("clock.source", {}).get("source") or ""
        frames = [frame for page in list(self._context.pages) for frame in self._frames(page)]
        # Stamped after the look-ups: a running clock counts the time between two calls' stamps.
        at = _time.time() * 1000
        failure = None
        for frame in frames:
            try:
                result = frame.evaluate(_APPLY % self._source, {"op": op, "arg": arg, "at": at})
            except TargetClosed:
                continue  # closed while we went through the pages
            except Error as e:
                failure = failure or e  # a timer's callback threw; the others ran
                continue
            if isinstance(result, dict) and result.get("invalid"):
                raise Error("Clock.%s: %s" % (op, result["invalid"]), type="InvalidParams")
        self._record(op, arg, at)
        if failure is not None:
            raise failure

    def _adopt(self, page):
        """A page that opened with a document of its own (a new tab's or a popup's first about:blank,
        made before any init script could run) gets the clock the later documents get."""
        if not self._log:
            return
        try:
            page.main_frame.evaluate(_ADOPT % self._source, self._log)
        except Error:
            pass  # it navigated meanwhile: the new document replays the list itself

    @staticmethod
    def _frames(page):
        try:
            return page.frames
        except TargetClosed:
            return []

    def _record(self, op, arg, at):
        last = self._log[-1] if self._log else None
        if self._paused and op in ("run_for", "fast_forward") and last and last[0] in ("run_for", "fast_forward"):
            last[1] = {"ms": last[1]["ms"] + arg["ms"]}  # paused, an advance does not depend on when
        else:
            self._log.append([op, arg, at])
        script = "%s\nglobalThis.__wrightClock.replay(%s);\n" % (self._source, json.dumps(self._log))
        # One call replaces it in every page of the context and in the pages it opens later.
        self._context._ccall("context.set_script", name="clock", source=script)
