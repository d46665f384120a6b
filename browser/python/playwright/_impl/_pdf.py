"""page.pdf(): Playwright's paper formats and CSS lengths, turned into the inches the driver's page.pdf takes."""

import base64
import os
import re

from ._errors import Error
from ._helpers import _abs_path

# Paper formats in inches (width, height), as Playwright names them.
_FORMATS = {
    "letter": (8.5, 11), "legal": (8.5, 14), "tabloid": (11, 17), "ledger": (17, 11),
    "a0": (33.1, 46.8), "a1": (23.4, 33.1), "a2": (16.54, 23.4), "a3": (11.7, 16.54),
    "a4": (8.27, 11.7), "a5": (5.83, 8.27), "a6": (4.13, 5.83),
}

_UNIT_PER_INCH = {"px": 96.0, "in": 1.0, "cm": 2.54, "mm": 25.4}


def _inches(value, what):
    """A length (a number of CSS pixels, or a string with px, in, cm or mm) in inches; None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise Error("pdf: %s: expected a number or a string such as '2cm', got %r" % (what, value))
    if isinstance(value, (int, float)):
        return value / 96.0
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(px|in|cm|mm)?\s*", str(value).lower())
    if not m:
        raise Error("pdf: %s: cannot read the length %r (use a number of pixels or a string with px, in, cm "
                    "or mm, such as '2cm')" % (what, value))
    return float(m.group(1)) / _UNIT_PER_INCH[m.group(2) or "px"]


def _paper(format, width, height):
    if format is not None:
        size = _FORMATS.get(str(format).lower())
        if size is None:
            raise Error("pdf: unknown paper format %r (one of %s)" % (format, ", ".join(sorted(_FORMATS))))
        return size
    return _inches(width, "width"), _inches(height, "height")


def _pdf(page, path=None, format=None, width=None, height=None, margin=None, **options):
    """The PDF's bytes; written to path too when given (by the client: the driver writes no file)."""
    paper_w, paper_h = _paper(format, width, height)
    margin = margin or {}
    params = {k: v for k, v in options.items() if v is not None}
    params["width"], params["height"] = paper_w, paper_h
    params["margin"] = {side: _inches(margin.get(side), "margin." + side) or 0
                        for side in ("top", "right", "bottom", "left")}
    result = page._call("page.pdf", **params)
    data = base64.b64decode(result.get("data") or "")
    if path is not None:
        target = _abs_path(path)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    return data
