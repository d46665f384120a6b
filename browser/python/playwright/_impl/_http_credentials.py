"""http_credentials: the browser context option that answers HTTP auth challenges.

The driver answers them (page.set_http_credentials, context.set_defaults): once per request, only for
`origin` when it is set, and the context's API requests (context.request) send them too.
"""

from ._errors import Error


def _http_credentials(value, api_name="new_context"):
    """The option checked and in the driver's shape: {username, password, origin?, send?}."""
    if not isinstance(value, dict):
        raise Error("%s: http_credentials must be a dict with username and password, got %r"
                    % (api_name, type(value).__name__), type="InvalidParams")
    for key in ("username", "password"):
        if not isinstance(value.get(key), str):
            raise Error("%s: http_credentials needs a string %s" % (api_name, key), type="InvalidParams")
    unknown = sorted(set(value) - {"username", "password", "origin", "send"})
    if unknown:
        raise Error("%s: http_credentials has unknown key(s) %s" % (api_name, ", ".join(unknown)),
                    type="InvalidParams")
    send = value.get("send") or "unauthorized"
    if send not in ("unauthorized", "always"):
        raise Error("%s: http_credentials send must be 'unauthorized' or 'always', got %r" % (api_name, send),
                    type="InvalidParams")
    creds = {"username": value["username"], "password": value["password"], "send": send}
    if value.get("origin"):
        creds["origin"] = str(value["origin"])
    return creds


def _apply_to_page(context, page):
    """A page the client creates gets its context's credentials (popups get them from the driver)."""
    creds = context._http_credentials
    if creds is not None:
        page._call("page.set_http_credentials", http_credentials=creds)
