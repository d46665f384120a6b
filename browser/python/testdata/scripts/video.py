"""A page records a video (record_video_dir under TMPDIR) while the test ends the script (argv[1]):
"sigint" is a Ctrl-C to the script, "driver" a SIGKILL of the driver under it. The test then checks
that no ffmpeg is left and that the video plays or is gone."""

import os
import sys

from support import url
from playwright.sync_api import sync_playwright

mode = sys.argv[1]
p = sync_playwright().start()
browser = p.chromium.launch()
page = browser.new_page(record_video_dir=os.path.join(os.environ["TMPDIR"], "videos"))
page.goto(url("counter.html"))
page.evaluate("() => { const f = () => { document.body.style.background ="
              " document.body.style.background === 'red' ? 'blue' : 'red'; requestAnimationFrame(f); }; f(); }")
print("VIDEO", page.video.path(), flush=True)
print("DRIVER_PID", browser._transport.pid, flush=True)
try:
    page.wait_for_timeout(60000)
except KeyboardInterrupt:
    print("INTERRUPTED", flush=True)
    raise
