"""BrowserContext: cookies, storage state, permissions, routes and the pages of one context."""

import json
import os
import re
import urllib.parse

from ._cdp_session import _new_cdp_session
from ._clock import Clock
from ._errors import Error, TargetClosed
from ._helpers import _UNSET, _url_matches, _viewport
from ._events import _Emitter, _fit_args
from ._fetch import _context_request
from ._http_credentials import _apply_to_page, _http_credentials
from ._network import Disposable, _Routing
from ._proxy import _proxy_settings
from ._video import VIDEO_OPTIONS, _record_if_asked
from ._tracing import Tracing
from . import _har_router


def _check_geolocation(geolocation):
    """Playwright's bounds on a geolocation, checked before anything reaches the browser."""
    if geolocation is None:
        return
    for name, low, high in (("longitude", -180, 180), ("latitude", -90, 90), ("accuracy", 0, float("inf"))):
        value = geolocation.get(name, 0 if name == "accuracy" else None)
        if value is None:
            raise Error("geolocation.%s: expected a number" % name, type="InvalidParams")
        if not low <= value <= high:
            raise Error("geolocation.%s: precondition %s <= %s <= %s failed." % (
                name, low, name.upper(), "Infinity" if high == float("inf") else high), type="InvalidParams")


class BrowserContext(_Routing, _Emitter):
    """A group of pages with shared options (browser.new_context()).

    Options wright applies: viewport / no_viewport, base_url, default timeouts
    and init scripts. Options it does not support yet raise an Error naming
    them, rather than being silently ignored.
    """

    # Options applied to each page through the driver's page.emulate.
    _EMULATED = ("user_agent", "locale", "timezone_id", "extra_http_headers", "java_script_enabled", "bypass_csp",
                 "color_scheme", "reduced_motion", "forced_colors", "contrast", "offline", "geolocation", "is_mobile",
                 "has_touch", "device_scale_factor")
    _SUPPORTED = frozenset(_EMULATED + ("viewport", "no_viewport", "base_url", "accept_downloads", "screen",
                                        "strict_selectors", "service_workers", "permissions", "storage_state",
                                        "ignore_https_errors", "default_browser_type", "http_credentials", "proxy") + _har_router.OPTIONS + VIDEO_OPTIONS)

    def __init__(self, browser, options=None, isolated=True, closes_browser=False):
        options = {k: v for k, v in (options or {}).items() if v is not None}
        unsupported = sorted(set(options) - self._SUPPORTED)
        if unsupported:
            raise Error("new_context: wright does not support the option(s) %s yet" % ", ".join(unsupported),
                        type="InvalidParams")
        if options.get("no_viewport"):
            # Without a viewport of its own the page has the window's metrics: nothing to scale or emulate.
            for key, name in (("device_scale_factor", "deviceScaleFactor"), ("is_mobile", "isMobile")):
                if key in options and options[key] is not False:
                    raise Error('Browser.new_context: "%s" option is not supported with null "viewport"' % name,
                                type="InvalidParams", method="Browser.new_context")
        _Emitter.__init__(self)
        self._browser = browser
        self._options = options
        self._routes = []  # context.route() entries, newest last
        self._origins = {}  # origins its pages have visited: storage_state() reads their storage
        self._downloads_on = False  # the driver reports downloads once someone listens
        self._quiet = set()  # popups adopted before the driver announced them: their "page" event waits
        self._pages = []
        self._closed = False
        self._page_owned = False  # made by browser.new_page() for one page
        self._default_timeout = None
        self._default_navigation_timeout = None
        self._init_scripts = []
        self._closes_browser = closes_browser  # a persistent context is its browser's one context
        self._bindings = {}
        self._ws_routes = None  # context.route_web_socket (_web_socket_route.py)
        self._emulation = {k: options[k] for k in self._EMULATED if k in options}
        self._request = None  # context.request, made on first use (_fetch.py)
        self._http_credentials = None  # _http_credentials.py
        if "http_credentials" in options:
            self._http_credentials = _http_credentials(options["http_credentials"])
        self._id = ""
        self.tracing = Tracing(self)
        self._har_recordings = []  # HARs written when it closes (_har_router)
        self._har_routers = []  # archives its route_from_har answers from
        self._clock = Clock(self)
        if isolated:
            proxy = _proxy_settings(options.get("proxy"))  # the driver refuses one under a URL policy
            params = {"browser": browser.id} if proxy is None else {"browser": browser.id, "proxy": proxy}
            self._id = browser._call("browser.new_context", params).get("context") or ""
        recording = _har_router.start_from_options(self, options)
        if recording is not None:
            self._har_recordings.append(recording)
        if options.get("permissions"):
            self.grant_permissions(options["permissions"])
        state = options.get("storage_state")
        if state is not None:
            self._load_storage_state(state)
        if (self._emulation or self._init_scripts or "viewport" in options or options.get("ignore_https_errors")
                or self._http_credentials is not None):
            self._sync_defaults()
        self.tracing._auto_start()

    def _sync_defaults(self):
        """Tell the driver what this context's popups get before their first script runs."""
        emulation = dict(self._emulation)
        viewport = self._options.get("viewport")
        if viewport is not None and not self._options.get("no_viewport"):
            emulation["viewport"] = _viewport(viewport, "new_context")
        self._ccall("context.set_defaults", emulation=emulation or None, init_scripts=list(self._init_scripts),
                    bindings=list(self._bindings), routing=bool(self._routes),
                    ignore_https_errors=bool(self._options.get("ignore_https_errors")),
                    http_credentials=self._http_credentials)

    @property
    def request(self):
        return _context_request(self)

    def _ccall(self, method, **params):
        body = {"browser": self._browser.id, "context": self._id}
        body.update({k: v for k, v in params.items() if v is not None})
        return self._browser._call(method, body)

    # cookies, permissions, storage

    def cookies(self, urls=None):
        cookies = self._ccall("context.cookies").get("cookies") or []
        if urls is None:
            return cookies
        if isinstance(urls, str):
            urls = [urls]
        parsed = [urllib.parse.urlparse(u) for u in urls]

        def matches(c):
            for u in parsed:
                host = u.hostname or ""
                dom = c["domain"].lstrip(".")
                if not (host == dom or (c["domain"].startswith(".") and host.endswith("." + dom))):
                    continue
                if not (u.path or "/").startswith(c["path"]):
                    continue
                if c["secure"] and u.scheme != "https" and host not in ("localhost", "127.0.0.1"):
                    continue
                return True
            return False
        return [c for c in cookies if matches(c)]

    def add_cookies(self, cookies):
        for c in cookies:
            if "url" not in c and not ("domain" in c and "path" in c):
                raise Error("Cookie should have a url or a domain/path pair", type="InvalidParams")
            url = c.get("url") or ""
            # Pages with no origin of their own hold no cookies (Playwright says which cookie).
            if url == "about:blank":
                raise Error('Blank page can not have cookie "%s"' % c.get("name"), type="InvalidParams")
            if url.startswith("data:"):
                raise Error('Data URL page can not have cookie "%s"' % c.get("name"), type="InvalidParams")
        self._ccall("context.add_cookies", cookies=list(cookies))

    def clear_cookies(self, name=None, domain=None, path=None):
        if name is None and domain is None and path is None:
            self._ccall("context.clear_cookies")
            return
        keep = []
        for c in self.cookies():
            hit = all(_url_matches(v, c[k]) if isinstance(v, re.Pattern) else v == c[k]
                      for k, v in (("name", name), ("domain", domain), ("path", path)) if v is not None)
            if not hit:
                keep.append(c)
        self._ccall("context.clear_cookies")
        if keep:
            self.add_cookies([{k: v for k, v in c.items() if not (k == "expires" and v == -1)} for c in keep])

    def grant_permissions(self, permissions, origin=None):
        self._ccall("context.grant_permissions", permissions=list(permissions), origin=origin)

    def clear_permissions(self):
        self._ccall("context.grant_permissions", permissions=[])

    def set_geolocation(self, geolocation):
        _check_geolocation(geolocation)
        self._emulation["geolocation"] = geolocation
        self._sync_defaults()
        for page in self.pages:
            page._call("page.emulate", geolocation=geolocation)

    def set_extra_http_headers(self, headers):
        from ._page import _check_header_values
        _check_header_values("BrowserContext.set_extra_http_headers", headers)
        self._emulation["extra_http_headers"] = dict(headers)
        self._sync_defaults()
        for page in self.pages:
            page._call("page.emulate", extra_http_headers=dict(headers))

    def set_offline(self, offline):
        self._emulation["offline"] = bool(offline)
        self._sync_defaults()
        for page in self.pages:
            page._call("page.emulate", offline=bool(offline))

    def storage_state(self, path=None, indexed_db=None):
        """Cookies and the localStorage (with indexed_db=True also the IndexedDB) of every origin the context's
        pages have shown, as Playwright's storage state; written to path if given. An origin no open page shows
        is read from a blank document of that origin in a hidden page (nothing is fetched from the network)."""
        found = {}
        for page in self.pages:
            try:
                item = page.evaluate(_STORAGE_READ_JS, bool(indexed_db))
            except Error:
                continue
            if item.get("origin") not in (None, "", "null"):
                found.setdefault(item["origin"], item)
        rest = [o for o in self._origins if o not in found]
        if rest:
            found.update(self._read_storage_elsewhere(rest, bool(indexed_db)))
        origins = []
        for item in found.values():
            if not item["localStorage"] and not item.get("indexedDB"):
                continue
            if not indexed_db:
                item.pop("indexedDB", None)
            origins.append(item)
        state = {"cookies": self.cookies(), "origins": origins}
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(state, f)
        return state

    def set_storage_state(self, storage_state):
        """Replace this context's cookies and storage with storage_state (a dict as storage_state() returns, or
        the path of its JSON): its cookies are cleared and the localStorage and IndexedDB of every origin its
        pages have shown or the state names are emptied, then the state's are written, once, as Playwright does."""
        if not isinstance(storage_state, dict):
            with open(storage_state, "r", encoding="utf-8") as f:
                storage_state = json.load(f)
        self.clear_cookies()
        wanted = {}
        for origin in self._origins:
            wanted[origin] = {"origin": origin, "items": {}, "indexedDB": []}
        for item in storage_state.get("origins") or []:
            origin = item.get("origin")
            if origin:
                wanted[origin] = {"origin": origin, "items": {i["name"]: i["value"] for i in item.get("localStorage") or []},
                                  "indexedDB": item.get("indexedDB") or []}
        for page in self.pages:
            if not wanted:
                break
            try:
                origin = page.evaluate("() => location.origin")
                if origin in wanted:
                    page.evaluate(_STORAGE_RESET_JS, wanted[origin])
                    del wanted[origin]
            except Error:
                continue  # a page that closed or navigated: its origin is done elsewhere
        if wanted:
            self._in_blank_documents(list(wanted), lambda page, origin: page.evaluate(_STORAGE_RESET_JS, wanted[origin]))
        for origin in wanted:
            self._origins[origin] = True
        if storage_state.get("cookies"):
            self.add_cookies([{k: v for k, v in c.items() if not (k == "expires" and v == -1)}
                              for c in storage_state["cookies"]])

    def _read_storage_elsewhere(self, origins, indexed_db):
        """Read the storage of origins from a hidden page of this context that shows an empty document of each."""
        return self._in_blank_documents(origins, lambda page, origin: page.evaluate(_STORAGE_READ_JS, indexed_db))

    def _in_blank_documents(self, origins, fn):
        """fn(page, origin) in a hidden page of this context that shows an empty document of each origin (nothing
        is fetched from the network); their results by origin, leaving out those that failed."""
        result = {}
        page = self._browser._page(self._ccall("context.new_page")["page"])
        try:
            page.route("**/*", lambda route: route.fulfill(body="<html></html>", content_type="text/html"))
            for origin in origins:
                try:
                    page.goto(origin + "/", wait_until="domcontentloaded")
                    item = fn(page, origin)
                except Error:
                    continue
                result[origin] = item
        finally:
            try:
                page.close()
            except Error:
                pass
        return result

    def _note_origin(self, url):
        """Remember an http(s) origin a page of this context showed, for storage_state()."""
        parts = urllib.parse.urlsplit(url or "")
        if parts.scheme in ("http", "https") and parts.netloc:
            self._origins["%s://%s" % (parts.scheme, parts.netloc)] = True

    def _load_storage_state(self, state):
        if not isinstance(state, dict):
            with open(state, "r", encoding="utf-8") as f:
                state = json.load(f)
        if state.get("cookies"):
            self.add_cookies([{k: v for k, v in c.items() if not (k == "expires" and v == -1)}
                              for c in state["cookies"]])
        for origin in state.get("origins") or []:
            items = {i["name"]: i["value"] for i in origin.get("localStorage") or []}
            self._init_scripts.append("(%s)(%s)" % (_STORAGE_WRITE_JS, json.dumps(
                {"origin": origin.get("origin"), "items": items, "indexedDB": origin.get("indexedDB") or []})))

    def __repr__(self):
        return "<BrowserContext browser=%s>" % (self.browser,)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def browser(self):
        return self._browser

    @property
    def pages(self):
        open_ids = {info["page"]: info for info in self._browser._page_infos()}
        for info in open_ids.values():
            page = self._browser._page(info["page"])
            if page._context is None and info.get("opener"):
                opener = self._browser._page(info["opener"])
                if opener._context is self:
                    page._context = self
                    self._pages.append(page)
            elif page._context is None and not info.get("opener") and not info.get("context") and (
                    getattr(self._browser, "_over_cdp", False) and self is self._browser._default_ctx):
                # A tab another client (or the user) opened in the browser's own context since we attached.
                self._adopt(page)
        self._pages = [p for p in self._pages if p.id in open_ids]
        return list(self._pages)

    def new_cdp_session(self, page):
        """A raw CDP session on page (a Page or a Frame of this context)."""
        return _new_cdp_session(self._browser, page)

    def new_page(self):
        if self._closed:
            raise TargetClosed("new_page: the context is closed", method="new_page")
        if self._page_owned:
            # browser.new_page()'s context belongs to its one page (closing the page closes it), as in Playwright.
            raise Error("new_page: Please use browser.new_context() to make a context for more than one page",
                        type="InvalidParams")
        result = self._ccall("context.new_page")
        page = self._browser._page(result["page"])
        self._adopt(page)
        if self._init_scripts:
            # The tab's first document (about:blank) began before the scripts were added; in Playwright it
            # runs them too, so a page that is never navigated has what they set up (and calls what they call).
            # One round trip for all; one that throws is the page's error, never the caller's nor the next's.
            try:
                page.evaluate("(sources) => { for (const s of sources) { try { (0, eval)(s); } catch (e) {"
                              " setTimeout(() => { throw e; }); } } }", list(self._init_scripts))
            except Error:
                pass
        return page

    def _timeout_ms(self):
        return self._default_timeout or self._browser._default_timeout

    def _transport_of(self):
        return self._browser._transport

    def _listener_added(self, event):
        if event == "dialog":
            self._browser._answer_dialogs()
        elif event == "download" and not self._downloads_on:
            # The context's pages' downloads are reported to it (context.expect_event("download")).
            self._downloads_on = True
            self._ccall("context.accept_downloads", accept=self._options.get("accept_downloads", True) is not False)

    def expose_binding(self, name, callback, handle=None):
        """As page.expose_binding, for every page of the context, present and future."""
        if name in self._bindings:
            raise Error('Function "%s" has been already registered' % name)
        for page in self.pages:
            if name in page._bindings:
                raise Error('Function "%s" has been already registered in one of the pages' % name)
        self._bindings[name] = callback
        self._sync_defaults()
        for page in self.pages:
            page._call("page.expose_binding", name=name)

    def expose_function(self, name, callback):
        self.expose_binding(name, lambda source, *args: callback(*_fit_args(callback, args)))

    def _routes_changed(self):
        self._sync_defaults()
        for page in self.pages:
            page._routes_changed()

    def expect_page(self, predicate=None, timeout=None):
        return self._waiter("page", predicate, timeout)

    def expect_console_message(self, predicate=None, timeout=None):
        return self._waiter("console", predicate, timeout)

    def _adopt(self, page, popup=False, quiet=False):
        page._context = self
        self._pages.append(page)
        _record_if_asked(page, self._options)
        metrics = any(k in self._emulation for k in ("is_mobile", "has_touch", "device_scale_factor"))
        if popup:
            # The driver gave the popup this context's defaults (_sync_defaults) before it ran.
            page._routing_on = bool(self._routes)
        elif self._emulation:
            extra = {}
            if metrics:
                vp = self._options.get("viewport") or self._browser._viewport
                extra["viewport"] = _viewport(vp, "new_context") if vp else None
            page._call("page.emulate", **dict(self._emulation, **extra))
        if self._options.get("ignore_https_errors") and not popup:
            page._call("page.ignore_https_errors")
        self._clock._adopt(page)
        if not popup:
            _apply_to_page(self, page)
        if quiet:
            self._quiet.add(page)  # its "page" event waits for browser.page
        else:
            self._emit("page", page)
        if popup:
            return
        if self._default_timeout is not None:
            page._default_timeout = self._default_timeout
        viewport = self._options.get("viewport", _UNSET)
        if self._options.get("no_viewport"):
            viewport = None
        if viewport is not _UNSET and viewport is not None and not metrics:
            page.set_viewport_size(viewport)
        elif viewport is not _UNSET and viewport is not None:
            page._viewport = _viewport(viewport, "new_context")
        elif viewport is _UNSET:
            page._viewport = self._browser._viewport
        # The bindings first: an init script may call an exposed function, in the page's first document too.
        for name in self._bindings:
            page._call("page.expose_binding", name=name)
        for script in self._init_scripts:
            page.add_init_script(script)
        if self._routes:
            page._routes_changed()

    @property
    def clock(self):
        return self._clock

    def set_default_timeout(self, timeout):
        self._default_timeout = timeout
        for page in self._pages:
            page._default_timeout = timeout

    def set_default_navigation_timeout(self, timeout):
        self._default_navigation_timeout = timeout

    def add_init_script(self, script=None, path=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                script = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        if not isinstance(script, str):
            raise Error("Either path or script parameter must be specified", type="InvalidParams")
        self._init_scripts.append(script)
        self._sync_defaults()
        added = [page.add_init_script(script) for page in self.pages]

        def dispose():
            if script in self._init_scripts:
                self._init_scripts.remove(script)
                self._sync_defaults()
            for d in added:
                d.dispose()
        return Disposable(dispose)

    def is_closed(self):
        return self._closed

    def close(self, reason=None):
        if self._closed:
            return
        self._closed = True
        _context_request(self).dispose(reason)  # context.request, made now if need be, says why it is closed
        if not self._browser.is_connected():
            return
        self.tracing._context_closing()
        har_error = _har_router.finish(self)  # before the pages close: bodies are read from them
        for page in self.pages:
            try:
                page.close()
            except Error:
                pass
        # Its downloads' files go with it (Playwright deletes a context's artifacts when it closes).
        for download in self.__dict__.pop("_downloads", []):
            try:
                download.delete()
            except Error:
                pass
        if self._id:
            try:
                self._ccall("context.close")
            except Error:
                pass
        if self in self._browser._contexts:
            self._browser._contexts.remove(self)
        self._emit("close", self)
        if self._closes_browser:
            self._browser.close()
        if har_error is not None:
            raise har_error


# set_content: replace the document and settle when the wanted event fired.
# Reads the page's origin, its localStorage and (when asked) its IndexedDB databases in Playwright's storage-state
# form. Record keys and values that are not plain JSON (dates, binary) are written as their JSON form.
_STORAGE_READ_JS = r"""async (withIDB) => {
  const origin = location.origin;
  const localStorage = Object.keys(window.localStorage).map(name => ({name, value: window.localStorage.getItem(name)}));
  if (!withIDB || !indexedDB.databases) return {origin, localStorage};
  const plain = v => v === undefined ? undefined : JSON.parse(JSON.stringify(v));
  const req = r => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
  const dbs = [];
  for (const info of await indexedDB.databases()) {
    const db = await req(indexedDB.open(info.name));
    const stores = [];
    for (const storeName of db.objectStoreNames) {
      const store = db.transaction(storeName, 'readonly').objectStore(storeName);
      const keys = await req(store.getAllKeys());
      const values = await req(store.getAll());
      const s = {name: storeName, autoIncrement: store.autoIncrement, records: [], indexes: []};
      if (typeof store.keyPath === 'string') s.keyPath = store.keyPath;
      else if (Array.isArray(store.keyPath)) s.keyPathArray = store.keyPath;
      keys.forEach((key, i) => s.records.push(store.keyPath === null ? {key: plain(key), value: plain(values[i])} : {value: plain(values[i])}));
      for (const indexName of store.indexNames) {
        const index = store.index(indexName);
        const x = {name: indexName, multiEntry: index.multiEntry, unique: index.unique};
        if (Array.isArray(index.keyPath)) x.keyPathArray = index.keyPath; else x.keyPath = index.keyPath;
        s.indexes.push(x);
      }
      stores.push(s);
    }
    dbs.push({name: db.name, version: db.version, stores});
    db.close();
  }
  return {origin, localStorage, indexedDB: dbs};
}"""


# Restores one origin's storage state in each new document of that origin, before the page's own scripts run:
# localStorage keys the page lacks, IndexedDB databases it lacks (created whole in their upgrade transaction).
_STORAGE_WRITE_JS = r"""({origin, items, indexedDB: dbs}) => {
  if (location.origin !== origin) return;
  for (const k in items) if (localStorage.getItem(k) === null) localStorage.setItem(k, items[k]);
  for (const d of dbs) {
    const open = indexedDB.open(d.name, d.version);
    open.onupgradeneeded = () => {
      const db = open.result;
      for (const s of d.stores) {
        if (db.objectStoreNames.contains(s.name)) continue;
        const keyPath = s.keyPathArray || s.keyPath || undefined;
        const store = db.createObjectStore(s.name, {autoIncrement: !!s.autoIncrement, keyPath});
        for (const x of s.indexes || [])
          store.createIndex(x.name, x.keyPathArray || x.keyPath, {unique: !!x.unique, multiEntry: !!x.multiEntry});
        for (const r of s.records || []) {
          if (keyPath !== undefined || r.key === undefined) store.put(r.value);
          else store.put(r.value, r.key);
        }
      }
    };
    open.onsuccess = () => open.result.close();
  }
}"""

# Empties an origin's localStorage and IndexedDB, then writes a storage state's (set_storage_state).
_STORAGE_RESET_JS = r"""async (state) => {
  if (location.origin !== state.origin) return;
  localStorage.clear();
  const dbs = indexedDB.databases ? await indexedDB.databases() : [];
  await Promise.all(dbs.map((d) => new Promise((done) => {
    const req = indexedDB.deleteDatabase(d.name);
    req.onsuccess = req.onerror = req.onblocked = done;
  })));
  (""" + _STORAGE_WRITE_JS + """)(state);
}"""
