"""wright has no Node.js Playwright driver: its driver is `wright driver`."""

from ._errors import Error


def compute_driver_executable():
    raise Error("wright has no Node.js Playwright driver (its driver is `wright driver`); tools that run "
                "Playwright's own driver, such as the trace viewer or codegen, are not available")
