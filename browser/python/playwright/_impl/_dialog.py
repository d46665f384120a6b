"""Dialog, what page.on("dialog") listeners get."""

from ._errors import Error, TargetClosed


class Dialog:
    """An alert, confirm, prompt or beforeunload dialog; answer it with accept() or dismiss()."""

    def __init__(self, page, params):
        self._page = page
        self.type = params.get("type") or "alert"
        self.message = params.get("message") or ""
        self.default_value = params.get("default_value") or ""
        self._handled = False

    def __repr__(self):
        return "<Dialog type=%s message=%r>" % (self.type, self.message)

    @property
    def page(self):
        return self._page

    def accept(self, prompt_text=None):
        self._answer(True, prompt_text)

    def dismiss(self):
        try:
            self._answer(False, None)
        except TargetClosed:
            pass  # the page is gone, and its dialog with it: nothing left to dismiss

    def _answer(self, accept, prompt_text):
        if self._handled:
            raise Error("Cannot accept dialog which is already handled!", type="Error")
        self._handled = True
        self._page._call("page.dialog_answer", accept=accept, prompt_text=prompt_text)
