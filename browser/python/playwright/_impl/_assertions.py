"""The expect() assertion classes and the soft-assertion scope, where Playwright's plugins import them.

They live in wright_browser; this module only names them at Playwright's import path.
"""

from wright_browser import APIResponseAssertions, LocatorAssertions, PageAssertions  # noqa: F401
from wright_browser import _soft_scope  # noqa: F401 - opens a scope in which expect.soft() collects failures
