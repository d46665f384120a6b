"""Starting a browser: launch (a driver of this process's own), connect (a running driver) and the
sandboxed spawn socket.
"""

import os
import shutil
import tempfile

from ._errors import Error
from ._helpers import _viewport
from ._transport import _PipeTransport, _SocketTransport, _driver_binary, _guard_seconds, _install_exit_hooks
from ._browser import Browser


def launch(headless=True, viewport=(1280, 1800), slow_mo=0, timeout=10000, executable=None, cdp_url=None,
           args=None, user_data_dir=None):
    """Start `wright driver` (WRIGHT_BIN, else `wright` on PATH) and a browser; returns a Browser.

    Use it as a context manager, or call close(). The driver and Chromium are
    also ended at interpreter exit and on SIGTERM. viewport is (width, height),
    a {"width", "height"} dict, or None for the driver's default; timeouts are
    in milliseconds; cdp_url attaches to a remote browser instead of starting one.
    """
    params = {"headless": bool(headless), "slow_mo": slow_mo, "timeout": timeout}
    size = _viewport(viewport, "launch")
    if size is not None:
        params["viewport"] = size
    spawn = os.environ.get("WRIGHT_DRIVER_SPAWN")
    if spawn and not cdp_url:
        return _launch_spawned(spawn, params, size, timeout)
    if executable:
        executable = os.fspath(executable)
        if os.sep not in executable:
            executable = shutil.which(executable) or executable  # a name on PATH
        params["executable"] = os.path.abspath(executable)
    if cdp_url:
        params["cdp_url"] = cdp_url
    if args:
        params["args"] = [str(a) for a in args]
    own_dir = False
    if user_data_dir:
        user_data_dir = os.path.abspath(os.fspath(user_data_dir))
    elif not cdp_url:
        # A profile of our own lets us find (and end) this Chromium even if the
        # driver dies without closing it.
        user_data_dir = tempfile.mkdtemp(prefix="wright-chromium-")
        own_dir = True
    if user_data_dir:
        params["user_data_dir"] = user_data_dir
    try:
        binary = _driver_binary()
    except Error:
        if own_dir:
            shutil.rmtree(user_data_dir, ignore_errors=True)
        raise
    _install_exit_hooks()
    # Only a profile we made is ours to clean up: a caller's profile may belong
    # to a Chromium we must not touch.
    try:
        transport = _PipeTransport([binary, "driver"], user_data_dir if own_dir else None, own_dir)
    except Error:
        if own_dir:
            shutil.rmtree(user_data_dir, ignore_errors=True)
        raise
    try:
        result = transport.call("browser.launch", params, guard_s=_guard_seconds(max(timeout or 0, 60000)))
    except BaseException:
        transport.shutdown(grace=2.0)
        raise
    browser = Browser(transport, result, timeout or 10000, owns_driver=True)
    browser._viewport = size
    browser._subscribe()
    return browser


def _launch_spawned(path, params, size, timeout):
    """A browser of wright's own, outside the run's sandbox, behind the socket at path.

    Inside a sandboxed run wright starts the driver and Chromium for each
    connection itself, so that secrets are typed where the script cannot see
    them; the browser, its executable and its flags are wright's choice.
    """
    transport = _SocketTransport(path)
    try:
        result = transport.call("browser.launch", params, guard_s=_guard_seconds(max(timeout or 0, 60000)))
    except BaseException:
        transport.shutdown()
        raise
    browser = Browser(transport, result, timeout or 10000, owns_driver=True)
    browser._viewport = size
    browser._subscribe()
    return browser


def connect(socket_path=None):
    """Attach to a running `wright driver --socket PATH` (default: $WRIGHT_DRIVER_SOCKET).

    The browser belongs to the driver: close() on the returned Browser only
    disconnects.
    """
    path = socket_path or os.environ.get("WRIGHT_DRIVER_SOCKET")
    if not path:
        raise Error("connect: no socket path given and WRIGHT_DRIVER_SOCKET is not set", type="InvalidParams")
    transport = _SocketTransport(os.fspath(path))
    try:
        result = transport.call("browser.launch", {}, guard_s=_guard_seconds(60000))
    except BaseException:
        transport.shutdown()
        raise
    browser = Browser(transport, result, 10000, owns_driver=False)
    browser._subscribe()
    return browser
