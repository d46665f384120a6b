"""Worker: a dedicated web worker of a page (page.workers, page.on("worker"))."""

from ._events import _Emitter
from ._helpers import _UNSET
from ._js_handle import _js_call, _named_after
from ._errors import Error


class Worker(_Emitter):
    """A dedicated worker the page started. Evaluate in it; its console messages are the page's too.

    Events: "close" (the worker ended: terminated, or its document went away), "console".
    """

    def __init__(self, page, worker_id, url):
        super().__init__()
        self._page = page
        self._id = worker_id
        self._url = url or ""
        self._closed = False

    def __repr__(self):
        return "<Worker url=%r>" % self._url

    @property
    def url(self):
        return self._url

    def evaluate(self, expression, arg=_UNSET):
        return self._jscall("Worker.evaluate", expression, arg, False)

    def evaluate_handle(self, expression, arg=_UNSET):
        return self._jscall("Worker.evaluate_handle", expression, arg, True)

    def _jscall(self, api, expression, arg, as_handle):
        if self._closed:
            raise Error("%s: Target page, context or browser has been closed" % api, type="TargetClosed",
                        method=api)
        try:
            return _js_call(self._page, expression, arg, return_handle=as_handle, worker=self._id)
        except Error as exc:
            raise _named_after(exc, api) from None

    # What expect_event()'s waiter asks of its target: the page's timeout and connection.
    def _timeout_ms(self):
        return self._page._timeout_ms()

    def _transport_of(self):
        return self._page._transport_of()

    def _on_close(self):
        if self._closed:
            return
        self._closed = True
        self._emit("close", self)
