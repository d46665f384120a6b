"""Video recording (record_video_dir) and page.screencast: the page as Chromium paints it.

The driver does the work: it subscribes to the page's screencast, encodes a WebM video with ffmpeg
(page.video_*) and sends frames to this client one at a time (page.screencast_*). What lives here is
Playwright's API on top: Video, Screencast, and the context options that start a recording.
"""

import base64
import os
import pathlib

from ._errors import Error
from ._helpers import _abs_path
from ._network import Disposable


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
        """Annotate actions in the screencast (accepted; wright draws no annotations yet)."""
        _check_choice("position", position, ("top-left", "top", "top-right", "bottom-left", "bottom", "bottom-right"))
        _check_choice("cursor", cursor, ("none", "pointer"))
        return Disposable(self.hide_actions)

    def hide_actions(self):
        pass

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


def _check_choice(name, value, choices):
    if value is not None and value not in choices:
        raise Error("show_actions: %s must be one of %s, got %r" % (name, ", ".join(choices), value),
                    type="InvalidParams")
