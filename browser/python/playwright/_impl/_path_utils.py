"""Path helpers that Playwright's test-suite and plugins import."""

import inspect
import os
from pathlib import Path


def get_file_dirname() -> Path:
    """The directory of the module that calls this function."""
    caller = inspect.stack()[1]
    return Path(os.path.dirname(os.path.abspath(caller.filename)))
