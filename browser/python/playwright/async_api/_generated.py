"""The async classes under the module name Playwright's own code and tests import them from
(`from playwright.async_api._generated import Browser`): the same objects as playwright.async_api's."""

import playwright.async_api as _api

globals().update({k: v for k, v in vars(_api).items() if not k.startswith("_")})
