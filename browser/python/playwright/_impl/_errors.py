"""The errors the client raises: Error and its kinds, and the mapping from the driver's error answers."""

import builtins
import sys
from ._lazy import lazy

traceback = lazy("traceback")


class Error(Exception):
    """Anything the browser side raised. str(error) is the driver's message, whole."""

    def __init__(self, message, type=None, method=None):
        super().__init__(message)
        self.message = message
        self.type = type or self.__class__.__name__
        self.method = method
        self.stack = format_frames(traceback.extract_stack()[:-1])

    @property
    def name(self):
        return self.type


def format_frames(frames):
    """A stack as traceback.format_stack() prints it, without the ^^^ markers under each line.

    Python 3.11's traceback module finds those markers with ast.parse on every frame; on Python before
    3.12 (before CPython's gh-106905 fix) an ast.parse that runs while another is converting its tree, as
    one run by a finalizer the collector calls in the middle of it, makes the outer one raise
    "SystemError: AST constructor recursion depth mismatch". An Error is made on any thread and at any
    time (a callback, a finalizer, a failing call under the async API's worker threads), so its stack
    must not parse anything; this is cheaper too.
    """
    out = []
    for fs in frames:
        out.append('  File "%s", line %s, in %s\n' % (fs.filename, fs.lineno, fs.name))
        if fs.line:
            out.append("    %s\n" % fs.line.strip())
    return "".join(out)


def format_exception(exc):
    """An exception and its traceback (with its causes), formatted as format_frames() does: no ast.parse."""
    out, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        part = ["Traceback (most recent call last):\n"] if exc.__traceback__ is not None else []
        part.append(format_frames(traceback.extract_tb(exc.__traceback__)))
        part.extend(traceback.format_exception_only(type(exc), exc))
        out.insert(0, "".join(part))
        if exc.__cause__ is not None:
            out.insert(0, "\nThe above exception was the direct cause of the following exception:\n\n")
            exc = exc.__cause__
        elif exc.__context__ is not None and not exc.__suppress_context__:
            out.insert(0, "\nDuring handling of the above exception, another exception occurred:\n\n")
            exc = exc.__context__
        else:
            exc = None
    return "".join(out)


def print_exception(exc, file=None):
    """Print an exception as format_exception() formats it, to stderr unless file is given."""
    (file or sys.stderr).write(format_exception(exc))


class CallbackCancelled(Error):
    """The task that ran a callback of the script (a route handler, a predicate) was cancelled."""


class TimeoutError(Error, builtins.TimeoutError):
    """A wait ran out of time. Also a builtins.TimeoutError, so either `except` catches it."""


class StrictModeViolation(Error):
    """A locator used for an action matched more than one element."""


class StaleRef(Error):
    """An aria-ref=eN from an older snapshot: take a new aria_snapshot()."""


class NavigationError(Error):
    """A navigation failed (DNS, refused connection, aborted, ...)."""


class TargetClosed(Error):
    """The page, the browser or the driver is gone."""


TargetClosedError = TargetClosed  # Playwright's name


class InvalidSelector(Error):
    """The selector could not be parsed."""


class EvaluationError(Error):
    """JavaScript passed to evaluate() threw."""


class BlockedURL(Error):
    """The URL is outside the domains this run may visit."""


class InvalidParams(Error):
    """A call was given arguments the driver (or the client) cannot use."""


class BrowserError(Error):
    """Chromium reported an error the other types do not cover."""


class ProtocolError(Error):
    """The driver did not understand the request (a client/driver version mismatch)."""


_ERROR_TYPES = {
    cls.__name__: cls
    for cls in (
        TimeoutError,
        StrictModeViolation,
        StaleRef,
        NavigationError,
        TargetClosed,
        InvalidSelector,
        EvaluationError,
        BlockedURL,
        InvalidParams,
        BrowserError,
        ProtocolError,
    )
}


# Tracebacks print an error as module.Class, and scripts have caught these by wright_browser's names
# since before the playwright package held them: they keep that module name, so what a script (or the
# model reading its traceback) sees is unchanged.
for _cls in (Error, *_ERROR_TYPES.values()):
    _cls.__module__ = "wright_browser"
del _cls


def _error_from(error, method):
    """The exception for one JSON-RPC error object."""
    if not isinstance(error, dict):
        return ProtocolError("%s: malformed error from the driver: %r" % (method, error), method=method)
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = "%s failed (the driver gave no message)" % method
    data = error.get("data")
    kind = data.get("type") if isinstance(data, dict) else None
    cls = _ERROR_TYPES.get(kind)
    if cls is None:
        code = error.get("code")
        if code in (-32700, -32601):
            cls = ProtocolError
        elif code == -32602:
            cls = InvalidParams
        else:
            cls = Error
    return cls(message, type=kind or cls.__name__, method=method)
