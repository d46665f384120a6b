"""The errors the client raises: Error and its kinds, and the mapping from the driver's error answers."""

import builtins
import traceback


class Error(Exception):
    """Anything the browser side raised. str(error) is the driver's message, whole."""

    def __init__(self, message, type=None, method=None):
        super().__init__(message)
        self.message = message
        self.type = type or self.__class__.__name__
        self.method = method
        self.stack = "".join(traceback.format_stack()[:-1])

    @property
    def name(self):
        return self.type


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
