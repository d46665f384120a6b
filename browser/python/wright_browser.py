"""wright_browser: drive Chromium from Python through `wright driver` (standard library only).

    from wright_browser import launch, TimeoutError

    with launch() as browser:                             # starts `wright driver`; always ended on exit
        page = browser.new_page()
        page.goto("https://example.org")
        print(page.aria_snapshot(interactive_only=True))  # YAML outline, actionable nodes carry [ref=eN]
        page.locator("aria-ref=e7").click()               # act on a ref from that snapshot
        page.get_by_label("Email").fill("me@example.org")
        page.get_by_role("button", name="Save").click()   # waits until visible, enabled, uncovered
        page.get_by_text("Saved").wait_for(timeout=5000)
        page.screenshot(path="screenshots/saved.png")

Locators are lazy and strict: one match, or a StrictModeViolation listing the candidates (narrow the
locator or use .first / .nth(i)). Errors: Error > TimeoutError, StrictModeViolation, StaleRef,
NavigationError, TargetClosed, ... Live mode: `browser = connect()` attaches to a running driver.
Final scripts: `run_dir = next_run_dir(); log = ActionLog(run_dir); log.step(1, "..."); log.screenshot(page, "x")`.
"""

import atexit
import base64
import builtins
import collections
import itertools
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

__all__ = [
    "launch",
    "connect",
    "Browser",
    "Page",
    "Locator",
    "Keyboard",
    "Mouse",
    "Response",
    "Error",
    "TimeoutError",
    "StrictModeViolation",
    "StaleRef",
    "NavigationError",
    "TargetClosed",
    "TargetClosedError",
    "InvalidSelector",
    "EvaluationError",
    "BlockedURL",
    "InvalidParams",
    "BrowserError",
    "ProtocolError",
    "ActionLog",
    "next_run_dir",
]

# ---------------------------------------------------------------------------
# Errors


class Error(Exception):
    """Anything the browser side raised. str(error) is the driver's message, whole."""

    def __init__(self, message, type=None, method=None):
        super().__init__(message)
        self.message = message
        self.type = type or self.__class__.__name__
        self.method = method

    @property
    def name(self):
        return self.type


class TimeoutError(Error, builtins.TimeoutError):
    """A wait ran out of time. Also a builtins.TimeoutError, so either `except` catches it."""


class StrictModeViolation(Error):
    """A locator used for an action matched more than one element."""


class StaleRef(Error):
    """An aria-ref=eN from an older snapshot: take a new aria_snapshot()."""


class NavigationError(Error):
    """A navigation failed (DNS, refused connection, aborted, ...)."""


class TargetClosed(Error):
    """The page, the browser or the driver is gone."""


TargetClosedError = TargetClosed  # Playwright's name


class InvalidSelector(Error):
    """The selector could not be parsed."""


class EvaluationError(Error):
    """JavaScript passed to evaluate() threw."""


class BlockedURL(Error):
    """The URL is outside the domains this run may visit."""


class InvalidParams(Error):
    """A call was given arguments the driver (or the client) cannot use."""


class BrowserError(Error):
    """Chromium reported an error the other types do not cover."""


class ProtocolError(Error):
    """The driver did not understand the request (a client/driver version mismatch)."""


_ERROR_TYPES = {
    cls.__name__: cls
    for cls in (
        TimeoutError,
        StrictModeViolation,
        StaleRef,
        NavigationError,
        TargetClosed,
        InvalidSelector,
        EvaluationError,
        BlockedURL,
        InvalidParams,
        BrowserError,
        ProtocolError,
    )
}


def _error_from(error, method):
    """The exception for one JSON-RPC error object."""
    if not isinstance(error, dict):
        return ProtocolError("%s: malformed error from the driver: %r" % (method, error), method=method)
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = "%s failed (the driver gave no message)" % method
    data = error.get("data")
    kind = data.get("type") if isinstance(data, dict) else None
    cls = _ERROR_TYPES.get(kind)
    if cls is None:
        code = error.get("code")
        if code in (-32700, -32601):
            cls = ProtocolError
        elif code == -32602:
            cls = InvalidParams
        else:
            cls = Error
    return cls(message, type=kind or cls.__name__, method=method)


# ---------------------------------------------------------------------------
# Selector building. Locators only build these strings; the driver parses them.


def _json_body(text):
    """A JSON string literal for text that cannot be mistaken for a ` >> ` chain separator."""
    # ">>" inside a quoted body is written as JSON escapes: the string decodes to
    # the same text, and no driver, however it splits chains, sees a separator.
    return json.dumps(text, ensure_ascii=False).replace(">>", "\\u003e\\u003e")


_REGEX_CHAR = {"/": "\\/", "\n": "\\n", "\r": "\\r", '"': "\\x22", "'": "\\x27"}


def _regex_body(pattern):
    """A Python re.Pattern as a JavaScript regex literal `/source/flags`."""
    if not isinstance(pattern.pattern, str):
        raise TypeError("a bytes pattern cannot be matched against page text; use a str pattern")
    if pattern.flags & re.VERBOSE:
        raise ValueError("re.VERBOSE patterns cannot be sent to the browser; write the pattern without it")
    flags = ""
    if pattern.flags & re.IGNORECASE:
        flags += "i"
    if pattern.flags & re.MULTILINE:
        flags += "m"
    if pattern.flags & re.DOTALL:
        flags += "s"
    src = pattern.pattern
    # Written so that a driver splitting chains at ` >> ` outside quotes and
    # brackets sees one body: quotes become \x22 / \x27, brackets inside a
    # character class are escaped, and ">>" becomes ">\x3e". Python-only
    # syntax is translated: (?P<n>...), (?P=n), \A, \Z, a "]" first in a class.
    out = []
    i = 0
    in_class = False
    class_start = 0
    prev_gt = False
    while i < len(src):
        c = src[i]
        gt = False
        if c == "\\" and i + 1 < len(src):
            nxt = src[i + 1]
            if nxt == "A" and not in_class:
                out.append("^")
            elif nxt == "Z" and not in_class:
                out.append("$")
            else:
                out.append(src[i : i + 2])
            i += 2
            prev_gt = False
            continue
        if in_class:
            if c == "]" and i > class_start:
                in_class = False
                out.append("]")
            elif c in "[]()":
                out.append("\\" + c)
            elif c == "^" and i == class_start and src[i - 1] == "[":
                out.append("^")
                class_start = i + 1
            else:
                out.append(_REGEX_CHAR.get(c, c))
            i += 1
            prev_gt = False
            continue
        if c == "[":
            in_class = True
            class_start = i + 1
            out.append("[")
        elif src.startswith("(?P<", i):
            out.append("(?<")  # named group
            i += 4
            prev_gt = False
            continue
        elif src.startswith("(?P=", i) and src.find(")", i) > 0:
            end = src.find(")", i)
            out.append("\\k<%s>" % src[i + 4 : end])  # named back-reference
            i = end + 1
            prev_gt = False
            continue
        elif c == ">" and prev_gt:
            out.append("\\x3e")
        else:
            out.append(_REGEX_CHAR.get(c, c))
            gt = c == ">"
        prev_gt = gt
        i += 1
    return "/%s/%s" % ("".join(out), flags)


def _text_body(value, exact, what="text"):
    """BODY for text=, role name, label=, ...: exact -> "t", otherwise "t"i; a pattern -> /re/flags."""
    if isinstance(value, re.Pattern):
        return _regex_body(value)
    if not isinstance(value, str):
        raise TypeError("%s must be a str or a compiled re.Pattern, not %s" % (what, type(value).__name__))
    body = _json_body(value)
    return body if exact else body + "i"


def _role_part(role, name=None, exact=False, checked=None, disabled=None, expanded=None,
               include_hidden=None, level=None, pressed=None, selected=None):
    if not isinstance(role, str) or not re.fullmatch(r"[A-Za-z][A-Za-z-]*", role):
        raise ValueError("get_by_role: role must be an ARIA role name such as 'button' or 'link', not %r" % (role,))
    part = "role=" + role
    for attr, value in (("checked", checked), ("disabled", disabled), ("expanded", expanded),
                        ("pressed", pressed), ("selected", selected)):
        if value is None:
            continue
        if value is True:
            part += "[%s]" % attr
        elif value is False:
            part += "[%s=false]" % attr
        elif value == "mixed" and attr in ("checked", "pressed"):
            part += '[%s="mixed"]' % attr
        else:
            raise ValueError("get_by_role: %s must be True, False or None, not %r" % (attr, value))
    if level is not None:
        if isinstance(level, bool) or not isinstance(level, int):
            raise ValueError("get_by_role: level must be an int, not %r" % (level,))
        part += "[level=%d]" % level
    if include_hidden:
        part += "[include-hidden]"
    if name is not None:
        part += "[name=%s]" % _text_body(name, exact, "name")
    return part


def _test_id_part(test_id):
    if not isinstance(test_id, str):
        raise TypeError("get_by_test_id: the id must be a str, not %s" % type(test_id).__name__)
    if re.fullmatch(r"[A-Za-z0-9_.:-]+", test_id):
        return "testid=" + test_id
    return "testid=" + _json_body(test_id)


def _join(chain, part):
    return part if not chain else chain + " >> " + part


# ---------------------------------------------------------------------------
# Transport: one JSON-RPC channel to a driver, one request in flight at a time.

_live = set()  # transports that own a driver process, ended at exit or SIGTERM
_live_lock = threading.Lock()
_atexit_installed = False
_sigterm_installed = False


def _encode_request(rid, method, params):
    try:
        text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
                          separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidParams("%s: cannot send the arguments (%s); arguments must be JSON values: dict, "
                            "list, str, int, float, bool or None" % (method, exc), method=method) from None
    return (text + "\n").encode("utf-8")


class _Transport:
    def __init__(self):
        self._call_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._inbox = queue.Queue()
        self._ids = itertools.count(1)
        self._gone = None  # why the channel can no longer be used
        self._shut = False

    # subclasses: _send(bytes), _peer_exited() -> bool, _wait_reader(), _death_message(method), shutdown()

    def call(self, method, params, guard_s=None):
        rid = next(self._ids)
        data = _encode_request(rid, method, params)
        with self._call_lock:
            if self._gone:
                raise TargetClosed("%s: %s" % (method, self._gone), method=method)
            try:
                self._send(data)
            except (OSError, ValueError):
                raise self._died(method) from None
            return self._await(rid, method, guard_s)

    def _await(self, rid, method, guard_s):
        deadline = None if guard_s is None else time.monotonic() + guard_s
        while True:
            try:
                kind, msg = self._inbox.get(timeout=0.2)
            except queue.Empty:
                if self._peer_exited():
                    # The answer may still be in the pipe: read it to the end first.
                    self._wait_reader()
                    while True:
                        try:
                            kind, msg = self._inbox.get_nowait()
                        except queue.Empty:
                            raise self._died(method) from None
                        if kind == "msg" and msg.get("id") == rid:
                            return _result(msg, method)
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(
                        "%s: the driver did not answer within %.0f s; it may be stuck. Close the browser "
                        "and launch a new one." % (method, guard_s), method=method)
                continue
            if kind == "eof":
                raise self._died(method)
            if msg.get("id") == rid:
                return _result(msg, method)
            # Anything else is an answer to a call we gave up on, or a notification.

    def _died(self, method):
        message = self._death_message(method)
        with self._state_lock:
            if not self._gone:
                self._gone = message
        self.shutdown(grace=2.0)
        return TargetClosed("%s: %s" % (method, message), method=method)

    def _reader(self, stream):
        try:
            for line in stream:
                line = line.strip()
                if not line:
                    continue
                try:
                    msg = json.loads(line.decode("utf-8", "replace"))
                except ValueError:
                    self._note("(not JSON on the driver's output) " + line.decode("utf-8", "replace")[:500])
                    continue
                if isinstance(msg, dict):
                    self._inbox.put(("msg", msg))
        except (OSError, ValueError):
            pass
        finally:
            self._inbox.put(("eof", None))

    def _note(self, line):
        pass


def _result(msg, method):
    if "error" in msg and msg["error"] is not None:
        raise _error_from(msg["error"], method)
    result = msg.get("result")
    return result if isinstance(result, dict) else {}


class _PipeTransport(_Transport):
    """`wright driver` as a child process speaking over its stdin/stdout."""

    def __init__(self, argv, user_data_dir=None, own_user_data_dir=False):
        super().__init__()
        self._stderr_tail = collections.deque(maxlen=12)
        self._user_data_dir = user_data_dir
        self._own_user_data_dir = own_user_data_dir
        try:
            # A session of its own: a Ctrl-C or a kill of the script's process
            # group reaches the script, which then ends the driver in order.
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, start_new_session=True, close_fds=True)
        except OSError as exc:
            raise Error("launch: cannot start %s: %s" % (" ".join(argv), exc), type="BrowserError") from None
        self.pid = self._proc.pid
        self._out_thread = threading.Thread(target=self._reader, args=(self._proc.stdout,),
                                            name="wright-driver-stdout", daemon=True)
        self._err_thread = threading.Thread(target=self._forward_stderr, name="wright-driver-stderr", daemon=True)
        self._out_thread.start()
        self._err_thread.start()
        with _live_lock:
            _live.add(self)

    def _send(self, data):
        self._proc.stdin.write(data)
        self._proc.stdin.flush()

    def _peer_exited(self):
        return self._proc.poll() is not None

    def _wait_reader(self):
        self._out_thread.join(1.0)

    def _forward_stderr(self):
        # The driver's log goes to the script's stderr; the last lines are kept
        # for the error that reports the driver's death.
        try:
            for raw in self._proc.stderr:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self._stderr_tail.append(line)
                err = sys.stderr
                if err is not None:
                    try:
                        err.write(line + "\n")
                        err.flush()
                    except (OSError, ValueError):
                        pass
        except (OSError, ValueError):
            pass

    def _note(self, line):
        self._stderr_tail.append(line)

    def _death_message(self, method):
        try:
            code = self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            how = "closed its output but is still running (it was ended)"
        elif code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:
                sig = "signal %d" % -code
            how = "was killed by %s (exit code %d)" % (sig, code)
        else:
            how = "exited with code %d" % code
        self._err_thread.join(0.5)
        tail = [line for line in self._stderr_tail if line.strip()]
        msg = "the wright driver %s before answering; the browser and its pages are gone." % how
        if tail:
            msg += " Last driver stderr lines:\n  " + "\n  ".join(tail[-8:])
        else:
            msg += " It wrote nothing to stderr."
        return msg

    def shutdown(self, grace=5.0):
        """End the driver: close its stdin (it closes the browser and exits), then TERM, then KILL."""
        with self._state_lock:
            if self._shut:
                return
            self._shut = True
            if not self._gone:
                self._gone = "the browser was closed"
        with _live_lock:
            _live.discard(self)
        proc = self._proc
        try:
            proc.stdin.close()
        except Exception:  # noqa: BLE001 - may be mid-write when a signal arrives
            pass
        for sig, wait in ((None, grace), (signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            if sig is not None and proc.poll() is None:
                try:
                    os.killpg(proc.pid, sig)  # the leader is alive, so the group id is still ours
                except OSError:
                    pass
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        _end_chromium(self._user_data_dir)
        if self._own_user_data_dir and self._user_data_dir:
            shutil.rmtree(self._user_data_dir, ignore_errors=True)
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except Exception:  # noqa: BLE001
                pass


def _processes_with_arg(arg):
    """The pids of the processes that have arg as one of their arguments.

    Linux: read from /proc. Elsewhere (macOS has no /proc): from ps, whose
    output joins the arguments with spaces, so arg must stand between spaces
    or at the end of the line.
    """
    if os.path.isdir("/proc/self"):
        want = arg.encode()
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % entry, "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if want in args:
                pids.append(int(entry))
        return pids
    try:
        out = subprocess.run(["ps", "-ww", "-ax", "-o", "pid=,args="], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    pids = []
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if pid.isdigit() and (" " + args + " ").find(" " + arg + " ") >= 0 and int(pid) != os.getpid():
            pids.append(int(pid))
    return pids


def _end_chromium(user_data_dir):
    """Kill what is left of the Chromium that ran on user_data_dir.

    The driver closes Chromium itself; this matters when the driver died first
    (killed, crashed) and left Chromium orphaned. Chromium names its main
    process in the profile's SingletonLock ("host-pid"); every process of it
    carries --user-data-dir=<dir> on its command line, and that directory is
    ours alone, so nothing else can match.
    """
    if not user_data_dir:
        return
    marker = "--user-data-dir=" + user_data_dir

    def ours():
        return _processes_with_arg(marker)

    try:
        lock_pid = int(os.readlink(os.path.join(user_data_dir, "SingletonLock")).rsplit("-", 1)[1])
    except (OSError, ValueError, IndexError):
        lock_pid = None
    for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0)):
        pids = ours()
        if not pids:
            return
        if lock_pid in pids:
            try:
                if os.getpgid(lock_pid) == lock_pid:
                    os.killpg(lock_pid, sig)
            except OSError:
                pass
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + pause
        while time.monotonic() < deadline and ours():
            time.sleep(0.05)


class _SocketTransport(_Transport):
    """A connection to `wright driver --socket PATH` (live mode); the driver is not ours."""

    def __init__(self, path):
        super().__init__()
        import socket

        self.path = path
        self.pid = None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(path)
        except OSError as exc:
            self._sock.close()
            raise Error("connect: cannot reach the wright driver at %s (%s); is `wright driver --socket %s` "
                        "running?" % (path, exc, path), type="TargetClosed") from None
        self._eof = threading.Event()
        self._file = self._sock.makefile("rb")
        self._thread = threading.Thread(target=self._read, name="wright-driver-socket", daemon=True)
        self._thread.start()

    def _read(self):
        try:
            self._reader(self._file)
        finally:
            self._eof.set()

    def _send(self, data):
        self._sock.sendall(data)

    def _peer_exited(self):
        return self._eof.is_set()

    def _wait_reader(self):
        self._thread.join(1.0)

    def _death_message(self, method):
        return "the wright driver closed the connection on %s; the browser may be gone." % self.path

    def shutdown(self, grace=5.0):
        with self._state_lock:
            if self._shut:
                return
            self._shut = True
            if not self._gone:
                self._gone = "this connection was closed"
        import socket

        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()


def _close_all(grace):
    with _live_lock:
        transports = list(_live)
    for t in transports:
        try:
            t.shutdown(grace=grace)
        except Exception:  # noqa: BLE001 - exit paths must not raise
            pass


def _on_sigterm(previous, signum, frame):
    _close_all(grace=2.0)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_exit_hooks():
    global _atexit_installed, _sigterm_installed
    if not _atexit_installed:
        _atexit_installed = True
        atexit.register(_close_all, 5.0)
    # Signal handlers can only be set from the main thread; a launch from
    # another thread leaves it to a later one.
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return
    _sigterm_installed = True
    try:
        previous = signal.getsignal(signal.SIGTERM)
        if previous is not signal.SIG_IGN:
            signal.signal(signal.SIGTERM, lambda s, f: _on_sigterm(previous, s, f))
    except (ValueError, OSError):
        pass


def _driver_binary():
    configured = os.environ.get("WRIGHT_BIN")
    if configured:
        found = shutil.which(configured) if os.sep not in configured else configured
        if not found or not os.access(found, os.X_OK):
            raise Error("launch: WRIGHT_BIN=%s is not an executable file; point it at the wright binary or "
                        "unset it to use `wright` from PATH" % configured, type="BrowserError")
        return found
    found = shutil.which("wright")
    if not found:
        raise Error("launch: cannot find the wright binary: set WRIGHT_BIN to its path or put `wright` on PATH",
                    type="BrowserError")
    return found


def _guard_seconds(timeout_ms):
    # The driver enforces timeouts itself; this only stops the client from
    # waiting forever on a driver that is alive but no longer answering.
    return timeout_ms / 1000.0 + 30.0


# ---------------------------------------------------------------------------
# Public API


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
    return Browser(transport, result, timeout or 10000, owns_driver=True)


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
    return Browser(transport, result, 10000, owns_driver=False)


def _viewport(value, who):
    if value is None:
        return None
    if isinstance(value, dict):
        width, height = value.get("width"), value.get("height")
    else:
        try:
            width, height = value
        except (TypeError, ValueError):
            raise ValueError("%s: viewport must be (width, height) or {'width': w, 'height': h}, not %r"
                             % (who, value)) from None
    for v in (width, height):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError("%s: viewport width and height must be positive ints, not %r" % (who, value))
    return {"width": width, "height": height}


class Browser:
    """One browser behind one driver connection. Get it from launch() or connect()."""

    def __init__(self, transport, launched, default_timeout, owns_driver):
        self._transport = transport
        self.id = launched.get("browser", "b1")
        self._default_timeout = default_timeout
        self._owns_driver = owns_driver
        self._pages = {}
        self._closed = False
        for pid in launched.get("pages") or []:
            self._page(pid)

    def __repr__(self):
        return "<Browser %s%s>" % (self.id, " closed" if self._closed else "")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def _call(self, method, params, timeout_ms=None):
        guard = None if timeout_ms is False else _guard_seconds(timeout_ms or self._default_timeout)
        return self._transport.call(method, params, guard_s=guard)

    def _page(self, page_id):
        page = self._pages.get(page_id)
        if page is None:
            page = Page(self, page_id)
            self._pages[page_id] = page
        return page

    def _page_infos(self):
        return self._call("browser.pages", {"browser": self.id}).get("pages") or []

    @property
    def pages(self):
        """Open pages (popups included), in the order they were created."""
        return [self._page(info["page"]) for info in self._page_infos()]

    def new_page(self):
        result = self._call("browser.new_page", {"browser": self.id})
        return self._page(result["page"])

    def is_connected(self):
        return not self._closed and not self._transport._gone

    def close(self):
        """Close the browser and end the driver (for connect(): only disconnect). Never raises."""
        if self._closed:
            return
        self._closed = True
        grace = 5.0
        if self._owns_driver and not self._transport._gone:
            try:
                # A healthy driver answers within seconds; a stuck one must not
                # hold the script for a whole action timeout.
                self._transport.call("browser.close", {"browser": self.id}, guard_s=10.0)
            except TimeoutError:
                grace = 0.5  # it did not answer: no point waiting for it to exit by itself
            except Error:
                pass
        self._transport.shutdown(grace=grace)


class Response:
    """What a navigation returned: the final url and the HTTP status (None when unknown)."""

    def __init__(self, url, status):
        self.url = url
        self.status = status

    @property
    def ok(self):
        return self.status is None or 200 <= self.status < 300

    def __repr__(self):
        return "<Response %s %s>" % (self.status, self.url)


_UNSET = object()


class _Locating:
    """The locator builders Page and Locator share."""

    def _sub(self, part):
        raise NotImplementedError

    def locator(self, selector, has_text=None, has_not_text=None, has=None, has_not=None):
        """A locator for a selector (CSS, `text=`, `role=`, `aria-ref=eN`, ... joined by ` >> `)."""
        if isinstance(selector, Locator):
            if selector.page is not self._owner_page():
                raise Error("locator(): the inner locator belongs to another page", type="InvalidParams")
            selector = selector.selector
        if not isinstance(selector, str) or not selector.strip():
            raise ValueError("locator(): selector must be a non-empty str, not %r" % (selector,))
        loc = self._sub(selector)
        if has_text is not None or has_not_text is not None or has is not None or has_not is not None:
            loc = loc.filter(has_text=has_text, has_not_text=has_not_text, has=has, has_not=has_not)
        return loc

    def get_by_role(self, role, name=None, exact=False, checked=None, disabled=None, expanded=None,
                    include_hidden=None, level=None, pressed=None, selected=None):
        return self._sub(_role_part(role, name=name, exact=exact, checked=checked, disabled=disabled,
                                    expanded=expanded, include_hidden=include_hidden, level=level,
                                    pressed=pressed, selected=selected))

    def get_by_text(self, text, exact=False):
        return self._sub("text=" + _text_body(text, exact))

    def get_by_label(self, text, exact=False):
        return self._sub("label=" + _text_body(text, exact))

    def get_by_placeholder(self, text, exact=False):
        return self._sub("placeholder=" + _text_body(text, exact))

    def get_by_alt_text(self, text, exact=False):
        return self._sub("alt=" + _text_body(text, exact))

    def get_by_title(self, text, exact=False):
        return self._sub("title=" + _text_body(text, exact))

    def get_by_test_id(self, test_id):
        return self._sub(_test_id_part(test_id))


class Keyboard:
    """page.keyboard: keys go to the focused element."""

    def __init__(self, page):
        self._page = page

    def press(self, key):
        """Press a key or chord by Playwright's names: "Enter", "Tab", "Control+A", "Shift+ArrowDown"."""
        self._page._call("page.keyboard.press", key=key)

    def type(self, text, delay=None):
        """Type text character by character (delay ms between keys)."""
        self._page._call("page.keyboard.type", text=text, delay=delay)


class Mouse:
    """page.mouse: coordinates are CSS pixels from the viewport's top left."""

    def __init__(self, page):
        self._page = page

    def click(self, x, y, button=None, click_count=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=click_count)

    def dblclick(self, x, y, button=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=2)

    def move(self, x, y):
        self._page._call("page.mouse.move", x=x, y=y)

    def wheel(self, delta_x, delta_y):
        self._page._call("page.mouse.wheel", delta_x=delta_x, delta_y=delta_y)


def _abs_path(path):
    path = os.path.abspath(os.path.join(os.getcwd(), os.fspath(path)))
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    return path


def _screenshot_bytes(result, path):
    if path:
        try:
            with open(result.get("path") or path, "rb") as f:
                return f.read()
        except OSError:
            return None
    data = result.get("data")
    return base64.b64decode(data) if data else b""


class _PopupWaiter:
    """The value of page.expect_popup(): the popup opened inside the with block."""

    def __init__(self, page, timeout):
        self._page = page
        self._timeout = timeout
        self._value = None
        self._before = set()

    def __enter__(self):
        self._before = {info["page"] for info in self._page._browser._page_infos()}
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            return False
        browser = self._page._browser
        limit = self._timeout or self._page._default_timeout or browser._default_timeout
        deadline = time.monotonic() + limit / 1000.0
        while True:
            infos = browser._page_infos()
            new = [i for i in infos if i["page"] not in self._before]
            mine = [i for i in new if i.get("opener") == self._page.id] or \
                [i for i in new if i.get("opener") is None]
            if mine:
                self._value = browser._page(mine[0]["page"])
                return False
            if time.monotonic() >= deadline:
                raise TimeoutError("expect_popup: no popup opened from page %s within %d ms; check that the "
                                   "action inside the with block really opens a new tab or window"
                                   % (self._page.id, limit), method="expect_popup")
            time.sleep(0.05)

    def is_done(self):
        return self._value is not None

    @property
    def value(self):
        if self._value is None:
            raise Error("expect_popup: the popup is known only after the with block has ended",
                        type="InvalidParams")
        return self._value


# The page methods that wait and so take a timeout (every locator method does).
_PAGE_WAITS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                         "page.wait_for_url", "page.wait_for_selector", "page.screenshot", "page.aria_snapshot"))


class Page(_Locating):
    """One tab. Get it from browser.new_page(), browser.pages or page.expect_popup()."""

    def __init__(self, browser, page_id):
        self._browser = browser
        self.id = page_id
        self._default_timeout = None
        self._closed = False
        self.keyboard = Keyboard(self)
        self.mouse = Mouse(self)

    def __repr__(self):
        return "<Page %s%s>" % (self.id, " closed" if self._closed else "")

    def _owner_page(self):
        return self

    def _sub(self, part):
        return Locator(self, part)

    def _call(self, method, _timeout=None, _wait=True, **params):
        body = {"page": self.id}
        for key, value in params.items():
            if value is not None:
                body[key] = value
        timeout = _timeout
        if timeout is None and (method.startswith("locator.") or method in _PAGE_WAITS):
            timeout = self._default_timeout
        if timeout is not None:
            body["timeout"] = timeout
        return self._browser._call(method, body, timeout_ms=timeout if _wait else False)

    @property
    def browser(self):
        return self._browser

    def set_default_timeout(self, timeout):
        """Timeout (ms) for this page's calls that are given none; None restores the browser's."""
        self._default_timeout = timeout

    # navigation

    def goto(self, url, wait_until=None, timeout=None):
        result = self._call("page.goto", timeout, url=url, wait_until=wait_until)
        return Response(result.get("url", url), result.get("status"))

    def reload(self, wait_until=None, timeout=None):
        result = self._call("page.reload", timeout, wait_until=wait_until)
        return Response(result.get("url"), None)

    def go_back(self, wait_until=None, timeout=None):
        """Back one history entry; None when there is none."""
        result = self._call("page.go_back", timeout, wait_until=wait_until)
        return Response(result["url"], None) if result.get("url") else None

    def go_forward(self, wait_until=None, timeout=None):
        """Forward one history entry; None when there is none."""
        result = self._call("page.go_forward", timeout, wait_until=wait_until)
        return Response(result["url"], None) if result.get("url") else None

    @property
    def url(self):
        return self._call("page.url").get("url", "")

    def title(self):
        return self._call("page.title").get("title", "")

    def content(self):
        return self._call("page.content").get("html", "")

    # waiting

    def wait_for_load_state(self, state="load", timeout=None):
        self._call("page.wait_for_load_state", timeout, state=state)

    def wait_for_url(self, url, wait_until=None, timeout=None):
        """Wait until the page's URL matches: exact, a glob with * / **, a re.Pattern, or a predicate."""
        if callable(url) and not isinstance(url, re.Pattern):
            self._poll(lambda: url(self.url), timeout, "wait_for_url: the URL predicate never held")
            if wait_until:
                self.wait_for_load_state(wait_until, timeout=timeout)
            return
        target = _regex_body(url) if isinstance(url, re.Pattern) else url
        self._call("page.wait_for_url", timeout, url=target, wait_until=wait_until)

    def wait_for_timeout(self, timeout):
        """Sleep timeout milliseconds (prefer waiting for something visible)."""
        time.sleep(max(0, timeout) / 1000.0)

    def wait_for_selector(self, selector, state=None, timeout=None):
        """Wait for selector to reach state (default visible); returns its Locator (None for detached/hidden)."""
        self._call("page.wait_for_selector", timeout, selector=selector, state=state)
        if state in ("detached", "hidden"):
            return None
        return self.locator(selector)

    def wait_for_function(self, expression, arg=_UNSET, timeout=None, polling=100):
        """Evaluate expression every `polling` ms until it returns something truthy; returns that value."""
        last = []

        def check():
            value = self.evaluate(expression, arg)
            last[:] = [value]
            return value

        return self._poll(check, timeout, "wait_for_function: %r never returned a truthy value" % expression,
                          polling, lambda: "last value: %r" % (last[0] if last else None))

    def _poll(self, check, timeout, what, polling=100, detail=None):
        limit = timeout or self._default_timeout or self._browser._default_timeout
        deadline = time.monotonic() + limit / 1000.0
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() >= deadline:
                message = "%s within %d ms" % (what, limit)
                if detail:
                    message += " (%s)" % detail()
                raise TimeoutError(message, method=what.split(":")[0])
            time.sleep(polling / 1000.0)

    # content

    def screenshot(self, path=None, full_page=False, timeout=None):
        """A PNG of the viewport (full_page: the whole page). Written to path if given; returns the bytes."""
        target = _abs_path(path) if path else None
        result = self._call("page.screenshot", timeout, path=target, full_page=True if full_page else None)
        return _screenshot_bytes(result, target)

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, ref=None, timeout=None):
        """The page as ARIA snapshot YAML; elements that can be acted on carry [ref=eN]."""
        result = self._call("page.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None, ref=ref)
        return result.get("snapshot", "")

    def evaluate(self, expression, arg=_UNSET):
        """Run JavaScript: a function source is called with arg; anything else is evaluated. Returns JSON."""
        params = {"expression": expression}
        if arg is not _UNSET:
            params["arg"] = arg
        body = {"page": self.id}
        body.update(params)
        return self._browser._call("page.evaluate", body, timeout_ms=False).get("value")

    # page-wide state

    def set_viewport_size(self, viewport_size=None, width=None, height=None):
        size = _viewport(viewport_size if viewport_size is not None else (width, height), "set_viewport_size")
        self._call("page.set_viewport_size", width=size["width"], height=size["height"])

    def bring_to_front(self):
        self._call("page.bring_to_front")

    def close(self):
        if self._closed:
            return
        self._call("page.close")
        self._closed = True

    def is_closed(self):
        if self._closed:
            return True
        try:
            return self.id not in {i["page"] for i in self._browser._page_infos()}
        except TargetClosed:
            return True

    def opener(self):
        """The page that opened this one, or None."""
        for info in self._browser._page_infos():
            if info["page"] == self.id and info.get("opener"):
                return self._browser._page(info["opener"])
        return None

    def console_messages(self, clear=False):
        """Console messages since the page opened: [{type, text, url, line}]."""
        return self._call("page.console_messages", clear=clear or None).get("messages") or []

    def page_errors(self, clear=False):
        """Uncaught JavaScript errors: [{message, stack}]."""
        return self._call("page.page_errors", clear=clear or None).get("errors") or []

    def dialogs(self, clear=False):
        """Dialogs seen so far (all accepted as they opened): [{type, message, default_value}]."""
        return self._call("page.dialogs", clear=clear or None).get("dialogs") or []

    def expect_popup(self, timeout=None):
        """with page.expect_popup() as info: <action that opens a tab>; then info.value is the new Page."""
        return _PopupWaiter(self, timeout)

    def on(self, event, handler):
        raise Error("page.on(%r): wright has no event handlers. Dialogs are accepted as they open and listed by "
                    "page.dialogs(); console output is in page.console_messages(), errors in page.page_errors(); "
                    "for a new tab use `with page.expect_popup() as info:`." % (event,), type="InvalidParams")

    # Playwright's page-level shortcuts: page.click(selector) acts on the first
    # match (strict=True makes several matches an error, as locators do).

    def _first(self, selector, strict):
        loc = self.locator(selector)
        return loc if strict else loc.first

    def click(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).click(**kwargs)

    def dblclick(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).dblclick(**kwargs)

    def fill(self, selector, value, strict=False, **kwargs):
        return self._first(selector, strict).fill(value, **kwargs)

    def type(self, selector, text, strict=False, **kwargs):
        return self._first(selector, strict).press_sequentially(text, **kwargs)

    def press(self, selector, key, strict=False, **kwargs):
        return self._first(selector, strict).press(key, **kwargs)

    def check(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).check(**kwargs)

    def uncheck(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).uncheck(**kwargs)

    def select_option(self, selector, value=None, strict=False, **kwargs):
        return self._first(selector, strict).select_option(value, **kwargs)

    def hover(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).hover(**kwargs)

    def focus(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).focus(**kwargs)

    def inner_text(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).inner_text(**kwargs)

    def text_content(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).text_content(**kwargs)

    def inner_html(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).inner_html(**kwargs)

    def input_value(self, selector, strict=False, **kwargs):
        return self._first(selector, strict).input_value(**kwargs)

    def get_attribute(self, selector, name, strict=False, **kwargs):
        return self._first(selector, strict).get_attribute(name, **kwargs)

    def is_visible(self, selector):
        return self.locator(selector).is_visible()

    def is_hidden(self, selector):
        return self.locator(selector).is_hidden()

    def is_enabled(self, selector):
        return self.locator(selector).is_enabled()

    def is_checked(self, selector):
        return self.locator(selector).is_checked()


class Locator(_Locating):
    """A page and a selector chain, resolved again on every call (nothing is held in the browser)."""

    def __init__(self, page, selector):
        self.page = page
        self.selector = selector

    def __repr__(self):
        return "<Locator %s %r>" % (self.page.id, self.selector)

    def _owner_page(self):
        return self.page

    def _sub(self, part):
        return Locator(self.page, _join(self.selector, part))

    def _call(self, method, timeout=None, wait=True, **params):
        return self.page._call(method, timeout, wait, selector=self.selector, **params)

    # narrowing

    @property
    def first(self):
        return self._sub("nth=0")

    @property
    def last(self):
        return self._sub("nth=-1")

    def nth(self, index):
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError("nth() takes an int, not %r" % (index,))
        return self._sub("nth=%d" % index)

    def filter(self, has_text=None, has_not_text=None, has=None, has_not=None, visible=None):
        """Keep the matches whose text contains has_text (str, case-insensitive, or re.Pattern) / that are visible."""
        for name, value in (("has_not_text", has_not_text), ("has", has), ("has_not", has_not)):
            if value is not None:
                raise Error("filter(%s=...) is not supported by wright; use has_text=, visible=, or a narrower "
                            "locator chain" % name, type="InvalidParams")
        loc = self
        if has_text is not None:
            loc = loc._sub("has-text=" + _text_body(has_text, exact=False, what="has_text"))
        if visible is not None:
            loc = loc._sub("visible=" + ("true" if visible else "false"))
        return loc

    def all(self):
        """A locator for each current match (no waiting)."""
        return [self.nth(i) for i in range(self.count())]

    # actions

    def click(self, button=None, click_count=None, delay=None, force=None, modifiers=None, position=None,
              timeout=None):
        self._call("locator.click", timeout, button=button, click_count=click_count, delay=delay,
                   force=force or None, modifiers=modifiers, position=_point(position))

    def dblclick(self, button=None, delay=None, force=None, modifiers=None, position=None, timeout=None):
        self._call("locator.dblclick", timeout, button=button, delay=delay, force=force or None,
                   modifiers=modifiers, position=_point(position))

    def fill(self, value, force=None, timeout=None):
        if not isinstance(value, str):
            raise TypeError("fill() takes a str, not %s; convert it first (str(x))" % type(value).__name__)
        self._call("locator.fill", timeout, value=value, force=force or None)

    def clear(self, force=None, timeout=None):
        self.fill("", force=force, timeout=timeout)

    def press(self, key, timeout=None):
        self._call("locator.press", timeout, key=key)

    def press_sequentially(self, text, delay=None, timeout=None):
        self._call("locator.press_sequentially", timeout, text=text, delay=delay)

    type = press_sequentially  # Playwright's older name

    def check(self, force=None, timeout=None):
        self._call("locator.check", timeout, force=force or None)

    def uncheck(self, force=None, timeout=None):
        self._call("locator.uncheck", timeout, force=force or None)

    def set_checked(self, checked, force=None, timeout=None):
        self._call("locator.set_checked", timeout, checked=bool(checked), force=force or None)

    def select_option(self, value=None, label=None, index=None, timeout=None, force=None):
        """Select options by value=, label= or index= (each one item or a list); returns the selected values.

        A positional str (or list of str) matches an option's value or, failing
        that, its label.
        """
        if value is not None and label is None and index is None:
            wanted = [value] if isinstance(value, str) else list(value)
            if all(isinstance(v, str) for v in wanted):
                # The protocol selects by value or by label, not "either": ask the
                # page which of the two each string names.
                resolved = self.evaluate(
                    "(el, wanted) => wanted.map(w => {"
                    " const opts = Array.from(el.options || []);"
                    " if (opts.some(o => o.value === w)) return w;"
                    " const byLabel = opts.find(o => (o.label || o.textContent || '').trim() === w.trim());"
                    " return byLabel ? byLabel.value : w; })", wanted, timeout=timeout)
                value = resolved[0] if isinstance(value, str) else resolved
        if value is None and label is None and index is None:
            raise ValueError("select_option() needs value=, label= or index=")
        result = self._call("locator.select_option", timeout, value=value, label=label, index=index,
                            force=force or None)
        return result.get("values") or []

    def hover(self, force=None, timeout=None):
        self._call("locator.hover", timeout, force=force or None)

    def focus(self, timeout=None):
        self._call("locator.focus", timeout)

    def scroll_into_view_if_needed(self, timeout=None):
        self._call("locator.scroll_into_view_if_needed", timeout)

    # reading

    def inner_text(self, timeout=None):
        return self._call("locator.inner_text", timeout).get("value")

    def text_content(self, timeout=None):
        return self._call("locator.text_content", timeout).get("value")

    def inner_html(self, timeout=None):
        return self._call("locator.inner_html", timeout).get("value")

    def input_value(self, timeout=None):
        return self._call("locator.input_value", timeout).get("value")

    def get_attribute(self, name, timeout=None):
        return self._call("locator.get_attribute", timeout, name=name).get("value")

    def is_visible(self):
        return bool(self._call("locator.is_visible").get("value"))

    def is_hidden(self):
        return bool(self._call("locator.is_hidden").get("value"))

    def is_enabled(self):
        return bool(self._call("locator.is_enabled").get("value"))

    def is_disabled(self):
        return bool(self._call("locator.is_disabled").get("value"))

    def is_checked(self):
        return bool(self._call("locator.is_checked").get("value"))

    def is_editable(self):
        return bool(self._call("locator.is_editable").get("value"))

    def count(self):
        return int(self._call("locator.count").get("value") or 0)

    def all_inner_texts(self):
        return list(self._call("locator.all_inner_texts").get("value") or [])

    def all_text_contents(self):
        return list(self._call("locator.all_text_contents").get("value") or [])

    def wait_for(self, state=None, timeout=None):
        """Wait until the locator is attached / detached / visible (default) / hidden."""
        self._call("locator.wait_for", timeout, state=state)

    def screenshot(self, path=None, timeout=None):
        target = _abs_path(path) if path else None
        result = self._call("locator.screenshot", timeout, path=target)
        return _screenshot_bytes(result, target)

    def bounding_box(self, timeout=None):
        """{x, y, width, height} in CSS pixels, or None when the element is not rendered."""
        return self._call("locator.bounding_box", timeout).get("value")

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, timeout=None):
        result = self._call("locator.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None)
        return result.get("snapshot", "")

    def evaluate(self, expression, arg=_UNSET, timeout=None):
        """Call a JavaScript function with the element (and arg); returns its JSON value."""
        params = {"expression": expression}
        if arg is not _UNSET:
            params["arg"] = arg
        # No client-side guard: like Playwright, evaluate() may run as long as the script does.
        return self._call("locator.evaluate", timeout, False, **params).get("value")


def _point(position):
    if position is None:
        return None
    if isinstance(position, dict):
        return {"x": position["x"], "y": position["y"]}
    x, y = position
    return {"x": x, "y": y}


# ---------------------------------------------------------------------------
# Helpers for final scripts


def next_run_dir(base="final_runs"):
    """Create and return the next run folder, base/run_<N+1> (N: the largest existing run number).

    When WRIGHT_RUN_DIR is set (wright's gate runs the script into a folder it
    made), that folder is returned instead.
    """
    given = os.environ.get("WRIGHT_RUN_DIR")
    if given:
        os.makedirs(given, exist_ok=True)
        return given
    base = os.fspath(base)
    os.makedirs(base, exist_ok=True)
    largest = 0
    for name in os.listdir(base):
        m = re.fullmatch(r"run_([0-9]+)", name)
        if m and os.path.isdir(os.path.join(base, name)):
            largest = max(largest, int(m.group(1)))
    n = largest + 1
    while True:
        path = os.path.join(base, "run_%d" % n)
        try:
            os.mkdir(path)
            return path
        except FileExistsError:  # another process took it, or a file has that name
            n += 1


class ActionLog:
    """The record a final script leaves in its run folder.

    step(n, text) appends `step <n> action: <text>` to final_script_log.txt (and
    prints it); screenshot(page, name) saves screenshots/final_execution_<k>_<name>.png.
    """

    def __init__(self, run_dir):
        self.run_dir = os.path.abspath(os.fspath(run_dir))
        os.makedirs(self.run_dir, exist_ok=True)
        self.log_path = os.path.join(self.run_dir, "final_script_log.txt")
        self.screenshot_dir = os.path.join(self.run_dir, "screenshots")
        self._shots = 0
        if os.path.isdir(self.screenshot_dir):
            for name in os.listdir(self.screenshot_dir):
                m = re.match(r"final_execution_([0-9]+)_", name)
                if m:
                    self._shots = max(self._shots, int(m.group(1)))

    def step(self, n, action):
        text = " ".join(str(action).split())
        if text.lower().startswith("action:"):
            text = text[len("action:"):].strip()
        line = "step %s action: %s" % (n, text)
        # When stdout already is the log (the gate runs `script > final_script_log.txt`),
        # writing it twice would interleave two file offsets: print only.
        if not _stdout_is(self.log_path):
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        try:
            print(line, flush=True)
        except (OSError, ValueError):
            pass
        return line

    def screenshot(self, page, name, full_page=False):
        self._shots += 1
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", str(name)).strip("_") or "shot"
        path = os.path.join(self.screenshot_dir, "final_execution_%d_%s.png" % (self._shots, safe))
        page.screenshot(path=path, full_page=full_page)
        return path


def _stdout_is(path):
    try:
        out = os.fstat(sys.stdout.fileno())
        target = os.stat(path)
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (target.st_dev, target.st_ino)
