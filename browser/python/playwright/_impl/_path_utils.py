"""Path helpers that Playwright's test-suite and plugins import."""

import os
from pathlib import Path
from ._lazy import lazy

inspect = lazy("inspect")


def get_file_dirname() -> Path:
    """The directory of the module that calls this function."""
    caller = inspect.stack()[1]
    return Path(os.path.dirname(os.path.abspath(caller.filename)))
