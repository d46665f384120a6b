"""Internals kept under Playwright's module names for code that imports them."""
