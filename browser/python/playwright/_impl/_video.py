"""Video recording (record_video_dir) and page.screencast: the page as Chromium paints it.

The driver does the work: it subscribes to the page's screencast, encodes a WebM video with ffmpeg
(page.video_*) and sends frames to this client one at a time (page.screencast_*). What lives here is
Playwright's API on top: Video, Screencast, and the context options that start a recording.
"""

import base64
import os

from ._errors import Error
from ._helpers import _abs_path
from ._lazy import lazy
from ._network import Disposable

pathlib = lazy("pathlib")


class Video:
    """The video of one page (page.video); its file is finished when the page closes."""

    def __init__(self, page):
        self._page = page
        self._path = None  # the file the driver records into, once it started

    def __repr__(self):
        return "<Video page=%s>" % (self._page,)

    def _start(self, directory, size):
        params = {"dir": os.path.abspath(os.fspath(directory))}
        if size:
            if not isinstance(size, dict) or "width" not in size or "height" not in size:
                raise Error("record_video_size must be {'width': int, 'height': int}, got %r" % (size,),
                            type="InvalidParams")
            params.update(width=int(size["width"]), height=int(size["height"]))
        self._path = self._page._call("page.video_start", **params).get("path")

    def path(self):
        """Where the video is written; it is complete once the page is closed."""
        if not self._path:
            raise Error("Video recording has not been started.")
        return pathlib.Path(self._path)

    def save_as(self, path):
        """Copy the finished video to path (the page must be closed)."""
        if not self._page._closed:
            raise Error("Page is not yet closed. Close the page prior to calling save_as")
        if not self._path:
            raise Error("Video recording has not been started.")
        self._page._call("page.video_save_as", path=_abs_path(path))

    def delete(self):
        """Remove the video file (once it is finished, if the page is still open)."""
        if self._path:
            self._page._call("page.video_delete")


def _record_if_asked(page, options):
    """Start the page's video when its context has record_video_dir (new_context / new_page options)."""
    directory = options.get("record_video_dir")
    if directory is None or page._video is not None:
        return
    video = Video(page)
    page._video = video
    video._start(directory, options.get("record_video_size"))


VIDEO_OPTIONS = ("record_video_dir", "record_video_size")


class Screencast:
    """page.screencast: the page's frames as Chromium paints them, to a callback."""

    def __init__(self, page):
        self._page = page
        self._started = False
        self._on_frame = None
        self._waiting = None  # the newest frame that came while a callback ran
        self._busy = False  # a callback runs: frames that come meanwhile wait for it
        self._actions = None  # show_actions() settings while actions are annotated

    def __repr__(self):
        return "<Screencast page=%s>" % (self._page,)

    def start(self, on_frame=None, path=None, quality=None, size=None):
        """Deliver frames to on_frame({data, timestamp, viewportWidth, viewportHeight}) until stop()."""
        if self._started:
            raise Error("Screencast is already started")
        if path is not None:
            raise Error("screencast.start(path=...) is not supported by wright; record a video with the "
                        "context option record_video_dir instead", type="InvalidParams")
        params = {"send_frames": on_frame is not None}
        if size is not None:
            params.update(width=int(size["width"]), height=int(size["height"]))
        if quality is not None:
            params["quality"] = int(quality)
        self._page._call("page.screencast_start", **params)
        self._started = True
        self._on_frame = on_frame
        return Disposable(self.stop)

    def stop(self):
        """Stop the frames (nothing happens when none were asked for)."""
        self._started = False
        self._on_frame = None
        self._waiting = None
        self._page._call("page.screencast_stop")

    def show_actions(self, duration=None, position=None, font_size=None, cursor=None):
        """Name each action in the page while it runs (so screencast frames and videos show it)."""
        _check_choice("position", position, tuple(_POSITIONS))
        _check_choice("cursor", cursor, ("none", "pointer"))
        self._actions = {"duration": 500 if duration is None else max(0, float(duration)),
                         "position": position or "top-right", "fontSize": int(font_size or 16),
                         "pointer": cursor != "none"}
        return Disposable(self.hide_actions)

    def hide_actions(self):
        self._actions = None

    def show_overlay(self, html, duration=None):
        """Show html over the page (pointer events pass through it) for duration ms, or until the
        Disposable it returns is disposed; frames and videos show it, the page's own layout is untouched."""
        if not isinstance(html, str):
            raise Error("Screencast.show_overlay: html: expected string, got %s" % type(html).__name__,
                        type="InvalidParams")
        oid = self._overlay({"html": html, "duration": duration})
        return Disposable(lambda: self._remove_overlay(oid))

    def show_chapter(self, title, description=None, duration=None):
        """A centred title card (with an optional description) over the page for duration ms (2 s)."""
        self._overlay({"title": str(title), "description": None if description is None else str(description),
                       "duration": 2000 if duration is None else duration})

    def hide_overlays(self):
        """Hide every overlay of show_overlay/show_chapter until show_overlays()."""
        self._page._call("page.evaluate", expression=_OVERLAYS_JS, arg={"op": "hide"})

    def show_overlays(self):
        self._page._call("page.evaluate", expression=_OVERLAYS_JS, arg={"op": "show"})

    def _overlay(self, spec):
        if spec.get("duration") is not None:
            spec["duration"] = max(0, float(spec["duration"]))
        return self._page._call("page.evaluate", expression=_OVERLAYS_JS, arg=dict(spec, op="add")).get("value")

    def _remove_overlay(self, oid):
        try:
            self._page._call("page.evaluate", expression=_OVERLAYS_JS, arg={"op": "remove", "id": oid})
        except Error:
            pass  # the page went: so did the overlay

    def _annotate(self, method, params):
        """Before an action: a label naming it (and its selector) over the page for the set duration."""
        if self._actions is None or method not in _ANNOTATED:
            return
        what = method.split(".", 1)[1].replace("_", " ")
        label = dict(self._actions, text=what + ("  " + params["selector"] if params.get("selector") else ""))
        label["css"] = _POSITIONS[label["position"]]
        try:
            self._page._call("page.evaluate", expression=_LABEL_JS, arg=label)
        except Error:
            pass  # a page that cannot show the label still gets its action

    def _on_event(self, params):
        """A page.screencastframe event. Frames are handled one at a time: one that comes while a callback
        runs (its own calls dispatch events) waits for it, and only the newest waits."""
        self._waiting = params
        if self._busy:
            return
        self._busy = True
        try:
            while self._waiting is not None:
                frame, self._waiting = self._waiting, None
                self._deliver(frame)
        finally:
            self._busy = False

    def _deliver(self, params):
        failure = None
        try:
            if self._on_frame is not None:
                self._on_frame({
                    "data": base64.b64decode(params.get("data") or ""),
                    "timestamp": params.get("timestamp", 0),
                    "viewportWidth": params.get("viewport_width", 0),
                    "viewportHeight": params.get("viewport_height", 0),
                })
        except Exception as exc:  # noqa: BLE001 - raised by the script's next call, as in Playwright
            failure = exc
        transport = self._page._browser._transport
        # The acknowledgement is ours, not the script's: an earlier callback's failure waits for the
        # script's own next call rather than break this one.
        pending, transport._listener_error = transport._listener_error, None
        try:
            self._page._call("page.screencast_ack")  # the driver sends the next frame now
        except Error:
            pass
        finally:
            transport._listener_error = pending or transport._listener_error or failure


# Actions show_actions() names, as the driver calls them.
_ANNOTATED = frozenset((
    "locator.click", "locator.dblclick", "locator.fill", "locator.press", "locator.press_sequentially",
    "locator.check", "locator.uncheck", "locator.set_checked", "locator.select_option", "locator.hover",
    "locator.focus", "locator.tap", "locator.drag_to", "locator.set_input_files", "locator.clear",
    "page.goto", "page.reload", "page.go_back", "page.go_forward", "page.keyboard.press", "page.keyboard.type",
    "page.mouse.click",
))

_POSITIONS = {
    "top-left": "top:8px;left:8px", "top": "top:8px;left:50%;transform:translateX(-50%)",
    "top-right": "top:8px;right:8px", "bottom-left": "bottom:8px;left:8px",
    "bottom": "bottom:8px;left:50%;transform:translateX(-50%)", "bottom-right": "bottom:8px;right:8px",
}

# The label lives in a closed shadow root that takes no pointer events, so the page's own selectors, styles
# and clicks never meet it; it removes itself after the duration.
_LABEL_JS = r"""(o) => {
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;z-index:2147483647;pointer-events:none;' + o.css;
  const label = document.createElement('div');
  label.textContent = (o.pointer ? '\u25B6 ' : '') + o.text;
  label.style.cssText = 'font:' + o.fontSize + 'px sans-serif;color:#fff;background:rgba(0,0,0,.75);' +
    'padding:4px 8px;border-radius:4px;white-space:nowrap;max-width:90vw;overflow:hidden;text-overflow:ellipsis';
  host.attachShadow({mode: 'closed'}).appendChild(label);
  (document.body || document.documentElement).appendChild(host);
  setTimeout(() => host.remove(), o.duration);
}"""


def _check_choice(name, value, choices):
    if value is not None and value not in choices:
        raise Error("show_actions: %s must be one of %s, got %r" % (name, ", ".join(choices), value),
                    type="InvalidParams")


# Overlays live in one closed shadow root at the top of the page, so the page's styles neither reach nor
# see into them; they let pointer events through, and hide/show toggles them all.
_OVERLAYS_JS = r"""(o) => {
  const key = '__wrightOverlays';
  let st = window[key];
  if (!st || !st.host.isConnected) {
    const host = document.createElement('div');
    host.style.cssText = 'position:fixed;inset:0;z-index:2147483646;pointer-events:none';
    st = { host, root: host.attachShadow({mode: 'closed'}), next: 1, items: new Map() };
    Object.defineProperty(window, key, { value: st, configurable: true });
    (document.body || document.documentElement).appendChild(host);
  }
  if (o.op === 'hide' || o.op === 'show') { st.host.style.display = o.op === 'hide' ? 'none' : ''; return null; }
  if (o.op === 'remove') { const el = st.items.get(o.id); if (el) { el.remove(); st.items.delete(o.id); } return null; }
  const el = document.createElement('div');
  if (o.title !== undefined) {
    el.style.cssText = 'position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;' +
      'justify-content:center;background:rgba(0,0,0,.6);color:#fff;font:28px sans-serif';
    const t = document.createElement('div'); t.textContent = o.title; el.appendChild(t);
    if (o.description) { const d = document.createElement('div'); d.textContent = o.description;
      d.style.cssText = 'font-size:16px;margin-top:8px'; el.appendChild(d); }
  } else {
    el.innerHTML = o.html;
  }
  const id = st.next++;
  st.items.set(id, el);
  st.root.appendChild(el);
  if (o.duration !== null && o.duration !== undefined)
    setTimeout(() => { el.remove(); st.items.delete(id); }, o.duration);
  return id;
}"""
