"""url_matches(base_url, url, match) under the name Playwright's own tests import it from."""

import re

from ._glob import glob_matches


def url_matches(base_url, url_string, match):
    """Whether url_string matches match: a glob (resolved against base_url), a re.Pattern or a predicate."""
    if not match:
        return True
    if isinstance(match, str):
        return glob_matches(match, url_string, base_url)
    if isinstance(match, re.Pattern):
        return match.search(url_string) is not None
    return bool(match(url_string))
