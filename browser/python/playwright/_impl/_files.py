"""Files: set_input_files, file choosers, downloads and drag-and-drop of files."""

import base64
import mimetypes
import os

from ._errors import Error
from ._helpers import _LOAD_STATES, _UNSET, _point


def _drop_file(item):
    """A file for drop(): {name, type, b64} from a path or a {name, mimeType, buffer} dict."""
    if isinstance(item, dict):
        buffer = item.get("buffer") or b""
        if isinstance(buffer, str):
            buffer = buffer.encode()
        return {"name": item.get("name") or "file", "type": item.get("mimeType") or "",
                "b64": base64.b64encode(buffer).decode()}
    path = os.fspath(item)
    try:
        with open(path, "rb") as f:
            buffer = f.read()
    except OSError as exc:
        raise Error("Locator.drop: cannot read %s: %s" % (path, exc.strerror or exc), type="InvalidParams") from None
    return {"name": os.path.basename(path), "type": mimetypes.guess_type(path)[0] or "application/octet-stream",
            "b64": base64.b64encode(buffer).decode()}


_DROP_JS = r"""(el, {files, data, position}) => {
  const dt = new DataTransfer();
  for (const f of files) {
    const bytes = Uint8Array.from(atob(f.b64), c => c.charCodeAt(0));
    dt.items.add(new File([bytes], f.name, {type: f.type}));
  }
  for (const [type, value] of Object.entries(data)) dt.setData(type, value);
  const r = el.getBoundingClientRect();
  const x = position ? r.left + el.clientLeft + position.x : r.left + r.width / 2;
  const y = position ? r.top + el.clientTop + position.y : r.top + r.height / 2;
  const fire = type => el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, composed: true,
    clientX: x, clientY: y, dataTransfer: dt}));
  fire('dragenter');
  if (fire('dragover')) {  // not cancelled: the target does not take drops
    fire('dragleave');
    return false;
  }
  fire('drop');
  return true;
}"""


def _input_files(files):
    """set_input_files' argument (a path, a {name, mimeType, buffer} dict, or a list of them) as the
    driver's paths and payloads."""
    if not isinstance(files, (list, tuple)):
        files = [files]
    paths, payloads = [], []
    for f in files:
        if isinstance(f, dict):
            buf = f.get("buffer") or b""
            if isinstance(buf, str):
                buf = buf.encode("utf-8")
            payloads.append({"name": f.get("name") or "", "mimeType": f.get("mimeType") or "",
                             "buffer": base64.b64encode(bytes(buf)).decode("ascii")})
            continue
        path = os.fspath(f)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        paths.append(os.path.abspath(path))
    if paths and payloads:
        raise Error("set_input_files: give file paths or file payloads, not both", type="InvalidParams")
    return paths, payloads


class FileChooser:
    """The file chooser a page opened (page.expect_file_chooser(), page.on("filechooser"))."""

    def __init__(self, page, element, multiple):
        self._page = page
        self._element = element
        self._multiple = bool(multiple)

    def __repr__(self):
        return "<FileChooser page=%s element=%s>" % (self._page, self._element)

    @property
    def page(self):
        return self._page

    @property
    def element(self):
        return self._element

    def is_multiple(self):
        return self._multiple

    def set_files(self, files, timeout=None, no_wait_after=None):
        self._element.set_input_files(files, timeout=timeout)


class Download:
    """A file the page downloads (page.expect_download(), page.on("download")).

    The driver saves it in a directory of its own that goes with the browser: save_as() keeps a copy.
    """

    def __init__(self, page, params):
        self._page = page
        self._guid = params.get("download")
        self.url = params.get("url") or ""
        self.suggested_filename = params.get("suggested_filename") or ""
        self._state = None

    def __repr__(self):
        return "<Download url=%r suggested_filename=%r>" % (self.url, self.suggested_filename)

    @property
    def page(self):
        return self._page

    def _bcall(self, method, **params):
        body = {"browser": self._page._browser.id, "download": self._guid}
        body.update(params)
        return self._page._browser._call(method, body, timeout_ms=False)

    def _wait(self):
        if self._state is None:
            self._state = self._bcall("download.wait")
        return self._state

    def failure(self):
        """None once the download completed; why it failed ("canceled", ...) otherwise."""
        return self._wait().get("failure") or None

    def path(self):
        """Where the finished download is (waits for it); raises if it failed."""
        state = self._wait()
        if state.get("failure"):
            raise Error("download failed: %s" % state["failure"])
        if not state.get("path"):
            raise Error("the download was deleted")
        import pathlib
        return pathlib.Path(state["path"])

    def save_as(self, path):
        """Copy the finished download to path (waits for it)."""
        self._bcall("download.save_as", path=os.path.abspath(os.fspath(path)))

    def cancel(self):
        self._bcall("download.cancel")
        self._state = None

    def delete(self):
        self._bcall("download.delete")
        self._state = None


class _PageFiles:
    """Files, file choosers, downloads, drag and drop, pause; mixed into Page."""

    def set_input_files(self, selector, files, timeout=None, strict=None, no_wait_after=None):
        return self._first(selector, strict).set_input_files(files, timeout=timeout)

    def drag_and_drop(self, source, target, source_position=None, target_position=None, force=None,
                      no_wait_after=None, timeout=None, strict=None, trial=None, steps=None):
        """Drag the element source matches onto the one target matches (HTML5 drag and drop too)."""
        self._first(source, strict).drag_to(self._first(target, strict), force=force, timeout=timeout, trial=trial,
                                            source_position=source_position, target_position=target_position,
                                            steps=steps)

    def is_disabled(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_disabled()

    def is_editable(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_editable()

    def emulate_media(self, media=_UNSET, color_scheme=_UNSET, reduced_motion=_UNSET, forced_colors=_UNSET,
                      contrast=_UNSET):
        """Render the page for a CSS media type and media features; an argument left out keeps its value,
        None (or "null") removes the override."""
        state = self.__dict__.get("_media")
        if state is None:
            ctx = self._context
            state = dict(ctx._emulation) if ctx is not None else {}
            state = {k: state.get(k) for k in ("color_scheme", "reduced_motion", "forced_colors")}
            self._media = state
        given = {"media": media, "color_scheme": color_scheme, "reduced_motion": reduced_motion,
                 "forced_colors": forced_colors, "contrast": contrast}
        for key, value in given.items():
            if value is not _UNSET:
                state[key] = value
        self._call("page.emulate_media", **{k: (v if v is not None else "") for k, v in state.items()})

    def set_extra_http_headers(self, headers):
        """Send these headers with every request of the page (on top of its context's)."""
        merged = dict((self._context._emulation.get("extra_http_headers") or {}) if self._context is not None else {})
        merged.update(headers or {})
        self._extra_headers = merged
        self._call("page.emulate", extra_http_headers=merged)

    def _check_referer(self, url, referer):
        headers = self.__dict__.get("_extra_headers")
        if headers is None and self._context is not None:
            headers = self._context._emulation.get("extra_http_headers")
        if referer is not None and any(k.lower() == "referer" for k in (headers or {})):
            raise Error('"referer" is already specified as extra HTTP header (navigating to %s)' % url,
                        type="InvalidParams")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def _navigation_timeout(self, timeout, params):
        """A navigation's timeout: the one given, else the page's or context's navigation timeout (else
        None: the default timeout). Its load state is checked here, with Playwright's message."""
        for name in ("wait_until", "state"):
            value = params.get(name)
            if value is not None and value not in _LOAD_STATES:
                raise Error("%s: expected one of (load|domcontentloaded|networkidle|commit)" % name,
                            type="InvalidParams")
        if timeout is not None:
            return timeout
        for owner in (self, self._context):
            if owner is not None and owner._default_navigation_timeout is not None:
                return owner._default_navigation_timeout
        return None

    def _on_file_event(self, kind, params):
        if kind == "filechooser":
            element = ElementHandle(self, params.get("handle"), "input")
            self._emit("filechooser", FileChooser(self, element, params.get("multiple")))
        elif kind == "download":
            download = Download(self, params)
            self._emit("download", download)
            if self._context is not None:
                self._context._emit("download", download)

    def _files_listener_added(self, event):
        if event == "filechooser" and not self.__dict__.get("_choosers_on"):
            self._choosers_on = True
            self._call("page.intercept_file_chooser", enabled=True)
        elif event == "download":
            ctx = self._context
            owner = ctx if ctx is not None else self._browser
            if not owner.__dict__.get("_downloads_on"):
                owner._downloads_on = True
                self._browser._call("context.accept_downloads", {
                    "browser": self._browser.id, "context": ctx._id if ctx is not None else "",
                    "accept": True if ctx is None else ctx._options.get("accept_downloads", True) is not False})


class _LocatorFiles:
    """set_input_files and drag_to; mixed into Locator."""

    def set_input_files(self, files, timeout=None, no_wait_after=None):
        """Set the files of an <input type=file>: paths, {name, mimeType, buffer} dicts, or a list; [] clears it."""
        paths, payloads = _input_files(files)
        params = {"paths": paths}
        if payloads:
            params = {"payloads": payloads}
        self._call("locator.set_input_files", timeout, **params)

    def drag_to(self, target, force=None, no_wait_after=None, timeout=None, trial=None, source_position=None,
                target_position=None, steps=None):
        """Press the mouse on this element, move onto target (in steps) and release it there."""
        if target.page is not self.page:
            raise Error("drag_to: the target must be a locator of the same page", type="InvalidParams")
        self._call("locator.drag_to", timeout, target=target.selector, force=force or None, trial=trial or None,
                   source_position=_point(source_position) if source_position else None,
                   target_position=_point(target_position) if target_position else None, steps=steps)


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global ElementHandle
    from ._element_handle import ElementHandle
