"""Files: set_input_files, file choosers, downloads and drag-and-drop of files."""

import base64
import os

from ._errors import Error, TargetClosed
from ._lazy import lazy

mimetypes = lazy("mimetypes")


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
    dirs = [p for p in paths if os.path.isdir(p)]
    if len(dirs) > 1:
        raise Error("set_input_files: Multiple directories are not supported", type="InvalidParams")
    if dirs and len(paths) > 1:
        raise Error("set_input_files: File paths must be all files or a single directory", type="InvalidParams")
    return paths, payloads


def _check_directory_input(paths, is_directory_input):
    """A directory goes only to an <input webkitdirectory>; uploading one is not built yet (named)."""
    if not (paths and os.path.isdir(paths[0])):
        return
    if not is_directory_input():
        raise Error("set_input_files: File input does not support directories, pass individual files instead",
                    type="InvalidParams")
    raise Error("set_input_files: uploading a directory (an <input webkitdirectory>) is not supported by wright's "
                "Playwright client yet; pass the directory's files", type="Error")


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
        self._deleted = False

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

    def _refused(self):
        # A context made with accept_downloads=False cancels every download: Playwright names the option.
        ctx = self._page._context
        options = getattr(ctx, "_options", None) or {}
        return options.get("accept_downloads") is False

    def failure(self):
        """None once the download completed; why it failed ("canceled", ...) otherwise."""
        failure = self._wait().get("failure") or None
        if failure and self._refused():
            return _REFUSED
        return failure

    def path(self):
        """Where the finished download is (waits for it); raises if it failed."""
        self._check_kept("Download.path")
        state = self._wait()
        if state.get("failure"):
            raise Error("download failed: %s" % self.failure())
        if not state.get("path"):
            raise Error("the download was deleted")
        import pathlib
        return pathlib.Path(state["path"])

    def save_as(self, path):
        """Copy the finished download to path (waits for it)."""
        self._check_kept("Download.save_as")
        if self._refused() and self._wait().get("failure"):
            raise Error("Download.save_as: " + _REFUSED, method="Download.save_as")
        self._bcall("download.save_as", path=os.path.abspath(os.fspath(path)))

    def _check_kept(self, api):
        if self._deleted:
            # Playwright's artifact is gone with delete(): its calls say so as a closed target's do.
            raise TargetClosed("%s: Target page, context or browser has been closed (the download was deleted)"
                               % api, method=api)

    def cancel(self):
        self._bcall("download.cancel")
        self._state = None

    def delete(self):
        self._bcall("download.delete")
        self._state = None
        self._deleted = True


_REFUSED = "Pass 'accept_downloads=True' when you are creating your browser context."
