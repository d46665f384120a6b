"""Standard modules the client uses only now and then, imported the first time one of their names is used.

A five-line script (launch, new page, goto, title, close) never formats a traceback, inspects a callback's
signature, encodes a date, builds a multipart form or spawns a driver (inside a run its browser is a socket
away), yet importing the modules for all that was a fifth of the client's import. `inspect = lazy("inspect")`
binds a stand-in whose first attribute read imports the module; every read after goes to the module itself.
"""


class _LazyModule:
    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        # __import__ answers from sys.modules once the module is in: no import machinery after the first read.
        return getattr(__import__(self._name), attr)

    def __setattr__(self, attr, value):
        setattr(__import__(self._name), attr, value)

    def __repr__(self):
        return "<lazy module %r>" % self._name


def lazy(name):
    """A stand-in for the top-level standard module `name`, imported at its first use."""
    return _LazyModule(name)
