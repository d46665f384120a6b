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
import contextlib
import contextvars
import datetime
import inspect
import itertools
import json
import math
import mimetypes
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
import traceback
import urllib.parse

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
        self.stack = "".join(traceback.format_stack()[:-1])

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
               include_hidden=None, level=None, pressed=None, selected=None, description=None):
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
    if description is not None:
        part += "[description=%s]" % _text_body(description, exact, "description")
    return part


def _test_id_part(test_id):
    if isinstance(test_id, re.Pattern):
        return "internal:testid=[data-testid=%s]" % _regex_body(test_id)
    if not isinstance(test_id, str):
        raise TypeError("get_by_test_id: the id must be a str, not %s" % type(test_id).__name__)
    if re.fullmatch(r"[A-Za-z0-9_.:-]+", test_id):
        return "testid=" + test_id
    return "testid=" + _json_body(test_id)


def _glob_regex(glob):
    """Playwright's URL glob: ** any characters, * any but "/", ? one character, {a,b} alternatives."""
    out, i, in_group = ["^"], 0, False
    while i < len(glob):
        c = glob[i]
        if c == "*" and glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append(".")
        elif c == "{":
            out.append("(")
            in_group = True
        elif c == "}" and in_group:
            out.append(")")
            in_group = False
        elif c == "," and in_group:
            out.append("|")
        elif c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    out.append("$")
    return "".join(out)


def _url_matches(pattern, url, base=None):
    """Whether url matches a Playwright URL pattern: str (exact or glob), re.Pattern or a predicate."""
    if pattern is None:
        return True
    if callable(pattern) and not isinstance(pattern, re.Pattern):
        return bool(pattern(url))
    if isinstance(pattern, re.Pattern):
        return pattern.search(url) is not None
    if base and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", pattern) and not pattern.startswith("*"):
        pattern = urllib.parse.urljoin(base, pattern)
    if not any(ch in pattern for ch in "*?{"):
        return pattern == url or pattern == url.split("#", 1)[0]
    return re.match(_glob_regex(pattern), url) is not None


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
        # Re-entrant: an event handler run while a call waits may make calls of its own.
        self._call_lock = threading.RLock()
        self._state_lock = threading.Lock()
        self._inbox = queue.Queue()
        self._ids = itertools.count(1)
        self._gone = None  # why the channel can no longer be used
        self._shut = False
        self._stash = {}  # answers that arrived while a nested call waited, by id
        self._waiting = set()  # ids of calls in flight on this thread's stack
        self.on_notify = None  # called with (method, params) for each driver event

    # subclasses: _send(bytes), _peer_exited() -> bool, _wait_reader(), _death_message(method), shutdown()

    def call(self, method, params, guard_s=None):
        rid = next(self._ids)
        data = _encode_request(rid, method, params)
        with self._call_lock:
            if self._gone:
                raise TargetClosed("%s: %s" % (method, self._gone), method=method)
            pending = self.__dict__.pop("_handler_error", None)
            if pending is not None:
                raise pending  # a route handler failed during an earlier call: the script's next call says so
            try:
                self._send(data)
            except (OSError, ValueError):
                raise self._died(method) from None
            self._waiting.add(rid)
            try:
                return self._await(rid, method, guard_s)
            finally:
                self._waiting.discard(rid)
                self._stash.pop(rid, None)

    def pump(self, seconds, until=None):
        """Run driver events for up to seconds (or until until() holds); returns until()'s last value."""
        deadline = time.monotonic() + max(0.0, seconds)
        with self._call_lock:
            while True:
                if until is not None and until():
                    return True
                left = deadline - time.monotonic()
                if left <= 0 or self._gone:
                    return bool(until and until())
                try:
                    kind, msg = self._inbox.get(timeout=min(left, 0.1))
                except queue.Empty:
                    if self._peer_exited():
                        return bool(until and until())
                    continue
                if kind == "eof":
                    self._inbox.put(("eof", None))
                    return bool(until and until())
                self._route(msg)

    def _route(self, msg):
        """An event is dispatched; an answer to a call further up the stack is kept for it."""
        if msg.get("id") is None and "method" in msg:
            self._dispatch(msg)
        elif msg.get("id") in self._waiting:
            self._stash[msg["id"]] = msg

    def _dispatch(self, msg):
        handler = self.on_notify
        if handler is None:
            return
        params = msg.get("params")
        try:
            handler(msg["method"], params if isinstance(params, dict) else {})
        except Exception:  # noqa: BLE001 - a listener's error must not break the call that ran it
            import traceback

            traceback.print_exc()

    def _await(self, rid, method, guard_s):
        deadline = None if guard_s is None else time.monotonic() + guard_s
        while True:
            if rid in self._stash:
                return _result(self._stash.pop(rid), method)
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
                self._inbox.put(("eof", None))  # for calls further up the stack
                raise self._died(method)
            if msg.get("id") == rid:
                return _result(msg, method)
            self._route(msg)

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
        self._contexts = []
        self._default_ctx = None
        self._viewport = None
        self._version = launched.get("version")
        self._browser_type = None
        self._dialogs_ours = False
        self._isolated_pages = False  # Playwright's rule: browser.new_page() makes a context
        for pid in launched.get("pages") or []:
            self._page(pid)

    def __repr__(self):
        return "<Browser type=%s version=%s>" % (self._browser_type, self.version)

    @property
    def _impl_obj(self):
        # Playwright's sync objects wrap an implementation object; here they are one and the same.
        return self

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

    def _subscribe(self, dialogs=False):
        """Ask the driver for events (page.on(...), expect_*); with dialogs, this client answers dialogs."""
        self._transport.on_notify = self._on_notify
        self._dialogs_ours = dialogs
        self._call("events.subscribe", {"browser": self.id, "dialogs": dialogs})

    def _answer_dialogs(self):
        if not self._dialogs_ours:
            self._subscribe(dialogs=True)

    def _on_notify(self, method, params):
        pid = params.get("page")
        if not pid or self._closed:
            return
        opener = params.get("opener")
        if opener and pid not in self._pages:
            # A popup's events can come before browser.page (its console
            # replayed while the driver attaches): it joins its opener's
            # context at the first, and is announced once it is ready.
            self._place_popup(self._page(pid), opener, announce=False)
        page = self._page(pid)
        if method == "browser.page":
            if opener:
                self._place_popup(page, opener, announce=True)
            return
        page._on_driver_event(method, params)

    def _place_popup(self, page, opener, announce):
        op = self._page(opener)
        if page._context is None and op._context is not None:
            op._context._adopt(page, popup=True, quiet=not announce)
        elif announce and page._context is not None and page in page._context.__dict__.get("_quiet", ()):
            page._context._quiet.discard(page)
            page._context._emit("page", page)
        if announce:
            op._emit("popup", page)

    def _new_page_raw(self):
        result = self._call("browser.new_page", {"browser": self.id})
        return self._page(result["page"])

    def new_page(self, **options):
        """A new page.

        Under Playwright's API (sync_playwright()) it gets a new context of its own, as in Playwright
        (options: as new_context(); closing the page closes it). A browser from launch() or connect()
        opens the page in the browser's default context instead, sharing its cookies and storage.
        """
        if not self._isolated_pages and not options:
            page = self._new_page_raw()
            self._default_context()._adopt(page)
            return page
        context = self.new_context(**options)
        page = context.new_page()
        page._owned_context = context
        return page

    def new_context(self, **options):
        """A new BrowserContext (Playwright's options: viewport, base_url, ...)."""
        if self._closed:
            raise TargetClosed("new_context: the browser has been closed", method="new_context")
        context = BrowserContext(self, options)
        self._contexts.append(context)
        if self.__dict__.get("_listeners"):
            _Emitter._emit(self, "context", context)
        return context

    @property
    def contexts(self):
        return list(self._contexts)

    @property
    def browser_type(self):
        return self._browser_type

    def _default_context(self):
        if self._default_ctx is None:
            self._default_ctx = BrowserContext(self, isolated=False)
        return self._default_ctx

    @property
    def version(self):
        return self._version or ""

    def is_connected(self):
        return not self._closed and not self._transport._gone

    def close(self, reason=None):
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
        if self.__dict__.get("_listeners"):
            _Emitter._emit(self, "disconnected", self)

    # Browser events ("context", "disconnected"), as _Emitter has them.

    def on(self, event, f):
        return _Emitter.on(self, event, f)

    def once(self, event, f):
        return _Emitter.once(self, event, f)

    def remove_listener(self, event, f):
        return _Emitter.remove_listener(self, event, f)

    off = remove_listener

    def _listeners_for(self, event):
        return _Emitter._listeners_for(self, event)

    def _listener_added(self, event):
        pass


# ---------------------------------------------------------------------------
# Events: page.on(...), context.on(...), expect_* waiters
#
# The driver sends events as JSON-RPC notifications; they run here, on the
# script's thread, while a call waits for its answer or a waiter pumps, as
# Playwright's sync API runs its listeners.


def _fit_args(f, args):
    """The arguments a listener or exposed function takes: as in Playwright's sync API, one that
    accepts fewer parameters than it is given gets the first ones (lambda: ... for an event)."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return args
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return args
    return args[:sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))]


class _Emitter:
    """on / once / remove_listener, as Playwright's objects have them."""

    def _listeners_for(self, event):
        table = self.__dict__.setdefault("_listeners", {})
        return table.setdefault(event, [])

    def on(self, event, f):
        self._listeners_for(event).append((f, False))
        self._listener_added(event)
        return self

    def once(self, event, f):
        self._listeners_for(event).append((f, True))
        self._listener_added(event)
        return self

    def remove_listener(self, event, f):
        entries = self._listeners_for(event)
        for i, (g, _) in enumerate(entries):
            if g is f or g == f:
                del entries[i]
                break
        return self

    off = remove_listener

    def _listener_added(self, event):
        pass

    def _has_listeners(self, event):
        return bool(self.__dict__.get("_listeners", {}).get(event))

    def _emit(self, event, *args):
        entries = list(self.__dict__.get("_listeners", {}).get(event, ()))
        for f, once in entries:
            if once:
                self.remove_listener(event, f)
            f(*_fit_args(f, args))

    def _waiter(self, event, predicate, timeout, what=None):
        return _EventWaiter(self, event, predicate, timeout, what)

    def expect_event(self, event, predicate=None, timeout=None):
        return self._waiter(event, predicate, timeout)

    def wait_for_event(self, event, predicate=None, timeout=None):
        waiter = self._waiter(event, predicate, timeout)
        with waiter:
            pass
        return waiter.value


class _EventWaiter:
    """The value of expect_*(): set by the first matching event; waited for when the with block ends."""

    def __init__(self, target, event, predicate, timeout, what=None):
        self._target = target
        self._event = event
        self._predicate = predicate
        self._timeout = timeout
        self._what = what or 'event "%s"' % event
        self._done = False
        self._value = None
        self._error = None

    def _listener(self, *args):
        if self._done:
            return
        value = args[0] if args else None
        try:
            if self._predicate is not None and not self._predicate(value):
                return
        except Exception as exc:  # noqa: BLE001 - the predicate's error is the waiter's
            self._error = exc
        self._done = True
        self._value = value

    def _closed(self, *args):
        if not self._done and self._event != "close":
            self._error = TargetClosed("Target page, context or browser has been closed", method="expect_event")
            self._done = True

    def __enter__(self):
        self._target.on(self._event, self._listener)
        if hasattr(self._target, "_closed") and self._event != "close":
            self._target.on("close", self._closed)
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                return False
            self._wait()
        finally:
            self._target.remove_listener(self._event, self._listener)
            self._target.remove_listener("close", self._closed)
        return False

    def _wait(self):
        limit = self._timeout
        if limit is None:
            limit = self._target._timeout_ms()
        transport = self._target._transport_of()
        transport.pump(limit / 1000.0 if limit else 1e9, lambda: self._done)
        if self._error is not None:
            raise self._error
        if not self._done:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for %s" % (limit, self._what),
                               method="expect_event")

    def is_done(self):
        return self._done

    @property
    def value(self):
        if not self._done:
            raise Error("the event is known only after the with block has ended", type="InvalidParams")
        return self._value


class ConsoleMessage:
    """A console.* call of a page (page.on("console"), expect_console_message())."""

    def __init__(self, page, params):
        self._page = page
        self.type = params.get("type") or "log"
        self.text = params.get("text") or ""
        self._args = params.get("args") or []
        line, column = params.get("line") or 0, params.get("column") or 0
        self.location = {"url": params.get("url") or "", "lineNumber": line, "columnNumber": column,
                         "line": line, "column": column}
        self.timestamp = params.get("timestamp") or time.time() * 1000
        self._record = {"type": self.type, "text": self.text, "url": self.location["url"], "line": line}

    # wright's page.console_messages() gave dicts: msg["text"] still works on these objects.
    def __getitem__(self, key):
        return self._record[key]

    def get(self, key, default=None):
        return self._record.get(key, default)

    def keys(self):
        return self._record.keys()

    def __repr__(self):
        return "<ConsoleMessage type=%s text=%s>" % (self.type, self.text)

    def __str__(self):
        return self.text

    @property
    def page(self):
        return self._page

    @property
    def args(self):
        out = []
        for a in self._args:
            if a.get("handle"):
                out.append(_handle_for(self._page, a))
            else:
                out.append(JSHandle(self._page, None, {"value": _prim_encoded(a.get("value")), "type": a.get("type")}))
        return out


def _prim_encoded(value):
    if value is None:
        return {"u": 1}
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity", "-0"):
        return {"n": value}
    return value


class Dialog:
    """An alert, confirm, prompt or beforeunload dialog; answer it with accept() or dismiss()."""

    def __init__(self, page, params):
        self._page = page
        self.type = params.get("type") or "alert"
        self.message = params.get("message") or ""
        self.default_value = params.get("default_value") or ""
        self._handled = False

    def __repr__(self):
        return "<Dialog type=%s message=%r>" % (self.type, self.message)

    @property
    def page(self):
        return self._page

    def accept(self, prompt_text=None):
        self._answer(True, prompt_text)

    def dismiss(self):
        try:
            self._answer(False, None)
        except TargetClosed:
            pass  # the page is gone, and its dialog with it: nothing left to dismiss

    def _answer(self, accept, prompt_text):
        if self._handled:
            raise Error("Cannot accept dialog which is already handled!", type="Error")
        self._handled = True
        self._page._call("page.dialog_answer", accept=accept, prompt_text=prompt_text)


class Request:
    """A request a page made (page.on("request"), expect_request(), response.request)."""

    def __init__(self, page, params, redirected_from=None):
        self._page = page
        self._id = params.get("request")
        self.url = params.get("url") or ""
        self.method = params.get("method") or "GET"
        self._headers = {k.lower(): v for k, v in (params.get("headers") or {}).items()}
        self.post_data = params.get("post_data")
        self.resource_type = params.get("resource_type") or "other"
        self._navigation = bool(params.get("navigation"))
        self._main_frame = params.get("main_frame", True)
        self._frame_id = params.get("frame")
        self.redirected_from = redirected_from
        self.redirected_to = None
        self._response = None
        self._finished = False
        self.failure = None
        self.timing = {"startTime": time.time() * 1000}

    def __repr__(self):
        return "<Request url=%r method=%r>" % (self.url, self.method)

    @property
    def headers(self):
        return dict(self._headers)

    def all_headers(self):
        return dict(self._headers)

    def header_value(self, name):
        return self._headers.get(name.lower())

    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._headers.items()]

    @property
    def post_data_buffer(self):
        return None if self.post_data is None else self.post_data.encode("utf-8")

    @property
    def post_data_json(self):
        if self.post_data is None:
            return None
        if self._headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return dict(urllib.parse.parse_qsl(self.post_data))
        try:
            return json.loads(self.post_data)
        except ValueError:
            raise Error("POST data is not a valid JSON object: " + self.post_data) from None

    @property
    def frame(self):
        return self._page._frame_for(self._frame_id, self._main_frame)

    def is_navigation_request(self):
        return self._navigation

    def response(self):
        if self._response is None and not self._finished and self.failure is None:
            self._page._transport_of().pump(self._page._timeout_ms() / 1000.0,
                                            lambda: self._response is not None or self._finished or
                                            self.failure is not None)
        return self._response

    def sizes(self):
        target = urllib.parse.urlsplit(self.url)
        path = (target.path or "/") + ("?" + target.query if target.query else "")
        head = "%s %s HTTP/1.1\r\nHost: %s\r\n" % (self.method, path, target.netloc)
        head += "".join("%s: %s\r\n" % (k, v) for k, v in self._headers.items()) + "\r\n"
        sizes = {"requestBodySize": len(self.post_data_buffer or b""), "requestHeadersSize": len(head.encode()),
                 "responseBodySize": 0, "responseHeadersSize": 0}
        resp = self.response()
        if resp is not None:
            lines = "".join("%s: %s\r\n" % (k, v) for k, v in (resp._headers or {}).items())
            sizes["responseHeadersSize"] = len(("HTTP/1.1 %s %s\r\n%s\r\n" % (resp.status, resp.status_text, lines)).encode())
            try:
                sizes["responseBodySize"] = len(resp.body())
            except Error:
                pass
        return sizes

    @property
    def service_worker(self):
        return None


class Response:
    """A response: what goto() returned, or page.on("response") / expect_response()."""

    def __init__(self, url, status, page=None, request=None, headers=None, status_text="", from_cache=False):
        self.url = url
        self.status = status
        self.status_text = status_text or ""
        self._page = page
        self._request = request
        self._headers = {k.lower(): v for k, v in (headers or {}).items()}
        self._from_cache = from_cache

    @property
    def ok(self):
        return self.status is None or self.status == 0 or 200 <= self.status < 300

    def __repr__(self):
        return "<Response url=%r request=%r>" % (self.url, self._request)

    @property
    def request(self):
        return self._request

    @property
    def frame(self):
        if self._request is not None and self._page is not None:
            return self._request.frame
        return self._page.main_frame if self._page else None

    @property
    def headers(self):
        return dict(self._headers)

    def all_headers(self):
        return dict(self._headers)

    def header_value(self, name):
        return self._headers.get(name.lower())

    def header_values(self, name):
        v = self._headers.get(name.lower())
        return [] if v is None else v.split("\n")

    def headers_array(self):
        out = []
        for k, v in self._headers.items():
            out.extend({"name": k, "value": item} for item in v.split("\n"))
        return out

    def finished(self):
        req, page = self._request, self._page

        def gone():
            ctx = page._context
            return page._closed or (ctx is not None and ctx.__dict__.get("_closed", False))

        if req is not None and not req._finished:
            if req.failure is None:
                page._transport_of().pump(page._timeout_ms() / 1000.0,
                                          lambda: req._finished or req.failure is not None or gone())
            if not req._finished and gone():
                raise TargetClosed("Response.finished: Target page, context or browser has been closed",
                                   method="Response.finished")
        return None if req is None or req.failure is None else req.failure

    def body(self):
        if self._request is None or self._page is None:
            raise Error("Response.body: this response has no recorded request (the page was not observed)")
        self.finished()
        data = self._page._call("network.response_body", request=self._request._id).get("data") or ""
        return base64.b64decode(data)

    def text(self):
        return self.body().decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text())

    def _net(self):
        return self.__dict__.get("_network") or {}

    def server_addr(self):
        """{"ipAddress", "port"} of the server that answered, when the browser knows it."""
        ip, port = self._net().get("remote_ip"), self._net().get("remote_port")
        if not ip:
            return None
        return {"ipAddress": ip if ":" not in ip or ip.startswith("[") else "[%s]" % ip, "port": port}

    def security_details(self):
        """The TLS certificate's summary (protocol, subjectName, issuer, validFrom, validTo), None for HTTP."""
        details = self._net().get("security")
        return {k: v for k, v in details.items() if v not in (None, "")} if details else None

    def http_version(self):
        proto = (self._net().get("protocol") or "http/1.1").lower()
        return {"h2": "HTTP/2.0", "h3": "HTTP/3.0", "http/1.0": "HTTP/1.0"}.get(proto, "HTTP/1.1")

    @property
    def from_service_worker(self):
        return False


class PageError(Error):
    """An uncaught error of the page, as page.page_errors() lists it (Playwright gives Error objects;
    e["message"] and e["stack"] keep wright's dict reading working)."""

    def __init__(self, record):
        stack = record.get("stack") or ""
        first = stack.split("\n", 1)[0]
        name = first.split(":", 1)[0] if ":" in first and " " not in first.split(":", 1)[0] else "Error"
        message = record.get("message") or ""
        if message.startswith("Uncaught "):
            message = message[len("Uncaught "):]
        m = re.match(r"((?:[A-Za-z_$][\w$]*)?(?:Error|Exception)): ", message)
        if m:
            name, message = m.group(1), message[m.end():]
        super().__init__(message, type=name)
        self.stack = stack
        self._record = dict(record)

    def __getitem__(self, key):
        return self._record[key]

    def get(self, key, default=None):
        return self._record.get(key, default)


class WebError:
    """context.on("weberror"): an uncaught error of one of the context's pages."""

    def __init__(self, page, error, location=None):
        self.page = page
        self.error = error
        self.location = location or {"url": "", "line": 0, "column": 0}


class Route:
    """A paused request that a route handler decides: fulfill(), abort(), continue_() or fallback()."""

    def __init__(self, page, params, request):
        self._page = page
        self._id = params.get("route")
        self.request = request
        self._handled = False
        self._fell_back = False
        self._overrides = {}

    def __repr__(self):
        return "<Route request=%r>" % self.request

    def _settle(self, _rpc, **params):
        if self._handled:
            raise Error("Route is already handled!", type="Error")
        self._handled = True
        body = {"page": self._page.id, "route": self._id}
        body.update({k: v for k, v in params.items() if v is not None})
        self._page._browser._call(_rpc, body)

    def abort(self, error_code=None):
        self._settle("route.abort", error_code=error_code or "failed")

    def fulfill(self, status=None, headers=None, body=None, json=None, path=None, content_type=None,
                response=None):
        import json as _json
        import mimetypes

        if response is not None:
            status = status if status is not None else response.status
            headers = headers if headers is not None else response.headers
            if body is None and json is None and path is None:
                body = response.body()
        hdrs = {k.lower(): str(v) for k, v in (headers or {}).items()}
        if json is not None:
            body = _json.dumps(json)
            hdrs.setdefault("content-type", "application/json")
        if path is not None:
            with open(path, "rb") as f:
                body = f.read()
            guessed = mimetypes.guess_type(os.fspath(path))[0]
            if guessed:
                hdrs.setdefault("content-type", guessed)
        if content_type:
            hdrs["content-type"] = content_type
        data = body.encode("utf-8") if isinstance(body, str) else (body or b"")
        if isinstance(body, str):
            hdrs.setdefault("content-type", "text/plain")
        if data:
            hdrs.setdefault("content-length", str(len(data)))
        self._settle("route.fulfill", status=status or 200, headers=hdrs,
                     body=base64.b64encode(data).decode("ascii"))

    def _merged(self, url, method, headers, post_data):
        ov = dict(self._overrides)
        for k, v in (("url", url), ("method", method), ("headers", headers), ("post_data", post_data)):
            if v is not None:
                ov[k] = v
        return ov

    def continue_(self, url=None, method=None, headers=None, post_data=None):
        ov = self._merged(url, method, headers, post_data)
        self._apply_overrides(url, method, headers, post_data)
        pd = ov.get("post_data")
        if pd is not None:
            if isinstance(pd, (dict, list)):
                pd = json.dumps(pd)
            pd = base64.b64encode(pd.encode("utf-8") if isinstance(pd, str) else pd).decode("ascii")
        self._settle("route.continue", url=ov.get("url"), method=ov.get("method"),
                     headers={k: str(v) for k, v in ov["headers"].items() if v is not None}
                     if ov.get("headers") is not None else None,
                     post_data=pd)

    def fallback(self, url=None, method=None, headers=None, post_data=None):
        if self._handled:
            raise Error("Route is already handled!", type="Error")
        self._overrides = self._merged(url, method, headers, post_data)
        self._apply_overrides(url, method, headers, post_data)
        self._fell_back = True

    def _apply_overrides(self, url, method, headers, post_data):
        """What a fallback or continue changes shows on route.request, for the next handlers and
        listeners (Playwright's rule); a header given as None is removed."""
        req = self.request
        if url is not None:
            req.url = url
            req._url_overridden = True
        if method is not None:
            req.method = method
        if headers is not None:
            req._headers = {str(k).lower(): str(v) for k, v in headers.items() if v is not None}
        if post_data is not None:
            if isinstance(post_data, (dict, list)):
                post_data = json.dumps(post_data)
            if isinstance(post_data, (bytes, bytearray)):
                post_data = bytes(post_data).decode("latin-1")
            req.post_data = post_data

    def fetch(self, url=None, method=None, headers=None, post_data=None, max_redirects=None, max_retries=None,
              timeout=None):
        """Make the request (with the overrides given and those of earlier fallbacks) and return the
        response, so that fulfill(response=...) can answer with it, changed or not."""
        ov = self._merged(url, method, headers, post_data)
        req = self.request
        hdrs = ov.get("headers") if ov.get("headers") is not None else req.headers
        data = ov.get("post_data") if ov.get("post_data") is not None else req.post_data_buffer
        if timeout is None:
            timeout = self._page._default_timeout or self._page._browser._default_timeout
        return _fetch(self._page, "Route.fetch", ov.get("url") or req.url, ov.get("method") or req.method, hdrs,
                      data, timeout, max_redirects)


class APIResponse:
    """What route.fetch() and page.request return: the whole response, body included."""

    def __init__(self, result):
        self.url = result.get("url") or ""
        self.status = result.get("status") or 0
        self.status_text = result.get("status_text") or ""
        self._pairs = [(k.lower(), v) for k, v in (result.get("headers") or [])]
        self._body = base64.b64decode(result.get("body") or "")

    def __repr__(self):
        return "<APIResponse url=%r status=%r status_text=%r>" % (self.url, self.status, self.status_text)

    @property
    def ok(self):
        return 200 <= self.status <= 299

    @property
    def headers(self):
        out = {}
        for k, v in self._pairs:
            out[k] = v if k not in out else out[k] + ("\n" if k == "set-cookie" else ", ") + v
        return out

    @property
    def headers_array(self):
        return [{"name": k, "value": v} for k, v in self._pairs]

    def body(self):
        return self._body

    def text(self):
        return self._body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text())

    def dispose(self):
        self._body = b""


# Headers the HTTP client sets itself: forwarding the browser's would garble the exchange (an
# Accept-Encoding it did not ask for leaves the body compressed).
_FETCH_DROPPED_HEADERS = frozenset(("host", "content-length", "connection", "accept-encoding", "keep-alive",
                                    "transfer-encoding"))


def _fetch(page, api, url, method=None, headers=None, data=None, timeout=None, max_redirects=None):
    """One request.fetch call; errors are named after the API method (Route.fetch, APIRequestContext.get)."""
    if isinstance(data, (dict, list)):
        data = json.dumps(data)
        headers = dict(headers or {})
        if not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
    if isinstance(data, str):
        data = data.encode("utf-8")
    hdrs = {str(k): str(v) for k, v in (headers or {}).items()
            if v is not None and str(k).lower() not in _FETCH_DROPPED_HEADERS}
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds() * 1000
    try:
        result = page._call("request.fetch", timeout if timeout else None, url=url, http_method=method, headers=hdrs,
                            post_data=base64.b64encode(data).decode("ascii") if data else None,
                            max_redirects=max_redirects)
    except Error as exc:
        text = exc.message.split(": ", 1)[1] if exc.message.startswith("request.fetch: ") else exc.message
        raise type(exc)("%s: %s" % (api, text), type=exc.type, method=api) from None
    return APIResponse(result)


class APIRequestContext:
    """page.request / context.request: HTTP requests made by the driver with the page's cookies, under
    the URL policy. Multipart bodies, HAR and storage_state of their own are not supported."""

    def __init__(self, page):
        self._page = page

    def fetch(self, url_or_request, params=None, method=None, headers=None, data=None, form=None,
              multipart=None, timeout=None, fail_on_status_code=None, ignore_https_errors=None,
              max_redirects=None, max_retries=None):
        if multipart is not None:
            raise Error("APIRequestContext.fetch: multipart bodies are not supported by wright")
        if isinstance(url_or_request, Request):
            req = url_or_request
            url, method = req.url, method or req.method
            headers = headers if headers is not None else req.headers
            if data is None and req.post_data is not None:
                data = req.post_data_buffer
        else:
            url = url_or_request
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        if form is not None:
            data = urllib.parse.urlencode(form)
            headers = dict(headers or {}, **{"content-type": "application/x-www-form-urlencoded"})
        resp = _fetch(self._page, "APIRequestContext.%s" % (method or "fetch").lower(), url, method or "GET",
                      headers, data, timeout, max_redirects)
        if fail_on_status_code and not resp.ok:
            raise Error("APIRequestContext.fetch: %d %s" % (resp.status, resp.status_text))
        return resp

    def get(self, url, **kwargs):
        return self.fetch(url, method="GET", **kwargs)

    def head(self, url, **kwargs):
        return self.fetch(url, method="HEAD", **kwargs)

    def post(self, url, **kwargs):
        return self.fetch(url, method="POST", **kwargs)

    def put(self, url, **kwargs):
        return self.fetch(url, method="PUT", **kwargs)

    def patch(self, url, **kwargs):
        return self.fetch(url, method="PATCH", **kwargs)

    def delete(self, url, **kwargs):
        return self.fetch(url, method="DELETE", **kwargs)

    def dispose(self, reason=None):
        pass


class _RouteEntry:
    def __init__(self, url, handler, times, base):
        self.url = url
        self.handler = handler
        self.times = times
        self.base = base
        self.count = 0

    def matches(self, url):
        return _url_matches(self.url, url, self.base)

    def run(self, route, request):
        self.count += 1
        try:
            nargs = len(inspect.signature(self.handler).parameters)
        except (TypeError, ValueError):
            nargs = 2
        if nargs == 1:
            self.handler(route)
        else:
            self.handler(route, request)

    def expired(self):
        return self.times is not None and self.count >= self.times


def _route_through(route, request, entries):
    """Run the matching handlers, newest first, until one does not fall back; else continue."""
    for owner, entry in entries:
        if not entry.matches(request.url) or entry.expired():
            continue
        route._fell_back = False
        entry.run(route, request)
        if entry.expired():
            owner._routes.remove(entry)
            owner._routes_changed()
        if not route._fell_back:
            return
    if not route._handled:
        route.continue_()


class Disposable:
    """What page.route() and context.route() return: dispose() (or leaving a with-block) undoes it."""

    def __init__(self, dispose):
        self._dispose = dispose

    def dispose(self):
        if self._dispose is not None:
            dispose, self._dispose = self._dispose, None
            dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dispose()
        return False


class _Routing:
    """page.route / context.route: shared by Page and BrowserContext."""

    def _base_url(self):
        ctx = self if isinstance(self, BrowserContext) else self._context
        return ctx._options.get("base_url") if ctx is not None else None

    def route(self, url, handler, times=None):
        """Route matching requests to handler; returns a Disposable (a context manager) that unroutes it."""
        routes = self.__dict__.setdefault("_routes", [])
        entry = _RouteEntry(url, handler, times, self._base_url())
        routes.append(entry)
        self._routes_changed()
        return Disposable(lambda: self._drop_route(entry))

    def _drop_route(self, entry):
        routes = self.__dict__.setdefault("_routes", [])
        if entry in routes:
            routes.remove(entry)
            self._routes_changed()

    def unroute(self, url, handler=None):
        routes = self.__dict__.setdefault("_routes", [])
        routes[:] = [e for e in routes if not (e.url == url and (handler is None or e.handler == handler))]
        self._routes_changed()

    def unroute_all(self, behavior=None):
        self.__dict__["_routes"] = []
        self._routes_changed()

    def route_from_har(self, *args, **kwargs):
        raise Error("route_from_har is not supported by wright (HAR is out of its scope)")

    def route_web_socket(self, *args, **kwargs):
        raise Error("route_web_socket is not supported by wright")


class BrowserContext(_Routing, _Emitter):
    """A group of pages with shared options (browser.new_context()).

    Options wright applies: viewport / no_viewport, base_url, default timeouts
    and init scripts. Options it does not support yet raise an Error naming
    them, rather than being silently ignored.
    """

    # Options applied to each page through the driver's page.emulate.
    _EMULATED = ("user_agent", "locale", "timezone_id", "extra_http_headers", "java_script_enabled", "bypass_csp",
                 "color_scheme", "reduced_motion", "forced_colors", "offline", "geolocation", "is_mobile",
                 "has_touch", "device_scale_factor")
    _SUPPORTED = frozenset(_EMULATED + ("viewport", "no_viewport", "base_url", "accept_downloads", "screen",
                                        "strict_selectors", "service_workers", "permissions", "storage_state",
                                        "ignore_https_errors"))

    def __init__(self, browser, options=None, isolated=True):
        options = {k: v for k, v in (options or {}).items() if v is not None}
        unsupported = sorted(set(options) - self._SUPPORTED)
        if unsupported:
            raise Error("new_context: wright does not support the option(s) %s yet" % ", ".join(unsupported),
                        type="InvalidParams")
        self._browser = browser
        self._options = options
        self._pages = []
        self._closed = False
        self._default_timeout = None
        self._default_navigation_timeout = None
        self._init_scripts = []
        self._closes_browser = False
        self._bindings = {}
        self._emulation = {k: options[k] for k in self._EMULATED if k in options}
        self._id = ""
        if isolated:
            self._id = browser._call("browser.new_context", {"browser": browser.id}).get("context") or ""
        if options.get("permissions"):
            self.grant_permissions(options["permissions"])
        state = options.get("storage_state")
        if state is not None:
            self._load_storage_state(state)
        if self._emulation or self._init_scripts or "viewport" in options or options.get("ignore_https_errors"):
            self._sync_defaults()

    def _sync_defaults(self):
        """Tell the driver what this context's popups get before their first script runs."""
        emulation = dict(self._emulation)
        viewport = self._options.get("viewport")
        if viewport is not None and not self._options.get("no_viewport"):
            emulation["viewport"] = _viewport(viewport, "new_context")
        self._ccall("context.set_defaults", emulation=emulation or None, init_scripts=list(self._init_scripts),
                    bindings=list(self._bindings), routing=bool(self.__dict__.get("_routes")),
                    ignore_https_errors=bool(self._options.get("ignore_https_errors")))

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
        self._emulation["geolocation"] = geolocation
        self._sync_defaults()
        for page in self.pages:
            page._call("page.emulate", geolocation=geolocation)

    def set_extra_http_headers(self, headers):
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
        rest = [o for o in self.__dict__.get("_origins", {}) if o not in found]
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

    def _read_storage_elsewhere(self, origins, indexed_db):
        """Read the storage of origins from a hidden page of this context that shows an empty document of each."""
        result = {}
        page = self._browser._page(self._ccall("context.new_page")["page"])
        try:
            page.route("**/*", lambda route: route.fulfill(body="<html></html>", content_type="text/html"))
            for origin in origins:
                try:
                    page.goto(origin + "/", wait_until="domcontentloaded")
                    item = page.evaluate(_STORAGE_READ_JS, indexed_db)
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
            self.__dict__.setdefault("_origins", {})["%s://%s" % (parts.scheme, parts.netloc)] = True

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
        self._pages = [p for p in self._pages if p.id in open_ids]
        return list(self._pages)

    def new_page(self):
        if self._closed:
            raise TargetClosed("new_page: the context is closed", method="new_page")
        result = self._ccall("context.new_page")
        page = self._browser._page(result["page"])
        self._adopt(page)
        return page

    def _timeout_ms(self):
        return self._default_timeout or self._browser._default_timeout

    def _transport_of(self):
        return self._browser._transport

    def _listener_added(self, event):
        if event == "dialog":
            self._browser._answer_dialogs()
        elif event == "download" and not self.__dict__.get("_downloads_on"):
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
        metrics = any(k in self._emulation for k in ("is_mobile", "has_touch", "device_scale_factor"))
        if popup:
            # The driver gave the popup this context's defaults (_sync_defaults) before it ran.
            page._routing_on = bool(self.__dict__.get("_routes"))
        elif self._emulation:
            extra = {}
            if metrics:
                vp = self._options.get("viewport") or self._browser._viewport
                extra["viewport"] = _viewport(vp, "new_context") if vp else None
            page._call("page.emulate", **dict(self._emulation, **extra))
        if self._options.get("ignore_https_errors") and not popup:
            page._call("page.ignore_https_errors")
        if quiet:
            self.__dict__.setdefault("_quiet", set()).add(page)  # its "page" event waits for browser.page
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
        for script in self._init_scripts:
            page.add_init_script(script)
        for name in self._bindings:
            page._call("page.expose_binding", name=name)
        if self.__dict__.get("_routes"):
            page._routes_changed()

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

    def close(self, reason=None):
        if self._closed:
            return
        self._closed = True
        if not self._browser.is_connected():
            return
        for page in self.pages:
            try:
                page.close()
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
                    include_hidden=None, level=None, pressed=None, selected=None, description=None):
        return self._sub(_role_part(role, name=name, exact=exact, checked=checked, disabled=disabled,
                                    expanded=expanded, include_hidden=include_hidden, level=level,
                                    pressed=pressed, selected=selected, description=description))

    def get_by_text(self, text, exact=False):
        # internal:text= as Playwright sends it: "t"s is the element's whole
        # text, where text="t" would match one of its own text runs.
        body = _text_body(text, exact)
        if exact and not isinstance(text, re.Pattern):
            body += "s"
        return self._sub("internal:text=" + body)

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

    def press(self, key, delay=None):
        """Press a key or chord by Playwright's names: "Enter", "Tab", "Control+A", "Shift+ArrowDown"."""
        self._page._call("page.keyboard.press", key=key)

    def type(self, text, delay=None):
        """Type text character by character (delay ms between keys)."""
        self._page._call("page.keyboard.type", text=text, delay=delay)

    def down(self, key):
        """Hold a key down (a held Shift/Control/Alt/Meta applies to what follows until up())."""
        self._page._call("page.keyboard.down", key=key)

    def up(self, key):
        self._page._call("page.keyboard.up", key=key)

    def insert_text(self, text):
        """Insert text without key events, as an input method does."""
        self._page._call("page.keyboard.insert_text", text=text)


class Mouse:
    """page.mouse: coordinates are CSS pixels from the viewport's top left."""

    def __init__(self, page):
        self._page = page

    def click(self, x, y, button=None, click_count=None, delay=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=click_count)

    def dblclick(self, x, y, button=None, delay=None):
        self._page._call("page.mouse.click", x=x, y=y, button=button, click_count=2)

    def move(self, x, y, steps=None):
        self._page._call("page.mouse.move_steps", x=x, y=y, steps=steps or 1)

    def down(self, button=None, click_count=None):
        self._page._call("page.mouse.down", button=button, click_count=click_count)

    def up(self, button=None, click_count=None):
        self._page._call("page.mouse.up", button=button, click_count=click_count)

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


class _PageEvents(_Emitter):
    """page.on(...) and the expect_* waiters; mixed into Page."""

    def _timeout_ms(self):
        return self._default_timeout or self._browser._default_timeout

    def _transport_of(self):
        return self._browser._transport

    def _listener_added(self, event):
        if event == "dialog":
            self._browser._answer_dialogs()
        self._files_listener_added(event)

    def _on_driver_event(self, method, params):
        ctx = self._context
        kind = method[len("page."):]
        if kind == "console":
            msg = ConsoleMessage(self, params)
            self._emit("console", msg)
            if ctx is not None:
                ctx._emit("console", msg)
        elif kind == "pageerror":
            err = Error(params.get("message") or "", type=params.get("name") or "Error")
            err.stack = params.get("stack") or ""
            self._emit("pageerror", err)
            if ctx is not None:
                ctx._emit("weberror", WebError(self, err, {"url": params.get("url") or "",
                                                         "line": params.get("line") or 0,
                                                         "column": params.get("column") or 0}))
        elif kind == "dialog":
            dialog = Dialog(self, params)
            if self._has_listeners("dialog") or (ctx is not None and ctx._has_listeners("dialog")):
                self._emit("dialog", dialog)
                if ctx is not None:
                    ctx._emit("dialog", dialog)
            elif self._browser._dialogs_ours:
                # Playwright's rule: a dialog nobody listens to is dismissed, but a beforeunload one
                # is accepted, so that leaving the page is not refused by nobody.
                if dialog.type == "beforeunload":
                    dialog.accept()
                else:
                    dialog.dismiss()
        elif kind in ("load", "domcontentloaded"):
            self._emit(kind, self)
            if kind == "load" and ctx is not None:
                ctx._emit("pageload", self)
        elif kind == "binding":
            self._on_binding(params)
        elif kind == "locator_handler":
            self._on_locator_handler(params)
        elif kind == "route":
            self._on_route(params)
        elif kind == "framenavigated":
            if ctx is not None and not params.get("same_document"):
                ctx._note_origin(params.get("url"))
            if params.get("main") and params.get("frame"):
                self.__dict__["_main_frame_id"] = params.get("frame")
            frame = self._frame_for(params.get("frame"), bool(params.get("main")))
            if frame is None or getattr(frame, "_detached", False):
                return  # a late event of a frame already gone
            if not params.get("same_document"):
                self._detach_below(params.get("frame"), bool(params.get("main")))
            self._emit("framenavigated", frame)
            if ctx is not None:
                ctx._emit("framenavigated", frame)
        elif kind in ("frameattached", "framedetached"):
            self._on_frame_event(kind, params)
        elif kind == "request":
            self._on_request(params)
        elif kind == "response":
            req = self._requests.get(params.get("request"))
            if req is None:
                return
            url = req.url if req.__dict__.get("_url_overridden") else params.get("url")
            resp = Response(url, params.get("status"), self, req, params.get("headers"),
                            params.get("status_text"), params.get("from_cache"))
            resp._network = params
            req._response = resp
            if req._navigation and req._main_frame:
                self._nav_response = resp
            if req._navigation and req._frame_id:
                self._frame_nav_responses()[req._frame_id] = resp
            self._emit("response", resp)
            if ctx is not None:
                ctx._emit("response", resp)
        elif kind in ("requestfinished", "requestfailed"):
            req = self._requests.pop(params.get("request"), None)
            if req is None:
                return
            if kind == "requestfailed":
                req.failure = params.get("error") or "failed"
            else:
                req._finished = True
            self._emit(kind, req)
            if ctx is not None:
                ctx._emit(kind, req)
        elif kind in ("filechooser", "download"):
            self._on_file_event(kind, params)
        elif kind == "close":
            self._closed = True
            self._emit("close", self)
            if ctx is not None:
                ctx._emit("close_page", self)
                ctx._emit("pageclose", self)

    def _frames_by_id(self):
        return self.__dict__.setdefault("_child_frames", {})

    def _frame_nav_responses(self):
        return self.__dict__.setdefault("_frame_navs", {})

    def _frame_for(self, fid, main=False, parent=None):
        """The one Frame object of the child frame with CDP id fid (made on first sight); the main frame for main."""
        if main:
            return self.main_frame
        if not fid:
            return None
        frames = self._frames_by_id()
        frame = frames.get(fid)
        if frame is None:
            if len(frames) > 500:  # detached frames are remembered for identity, not forever
                for k in [k for k, f in frames.items() if f._detached][:250]:
                    del frames[k]
            frame = frames[fid] = _EventFrame(self, fid, parent)
        elif parent and not frame._parent_id:
            frame._parent_id = parent
        return frame

    def _main_id(self):
        main = self.__dict__.get("_main_frame_id")
        if not main:
            self._frame_tree()
            main = self.__dict__.get("_main_frame_id")
        return main

    def _frame_tree(self):
        """The page's live frames from the driver: [{frame, parent, name, url}], the main frame first."""
        tree = self._call("page.frame_tree").get("frames") or []
        if tree:
            self.__dict__["_main_frame_id"] = tree[0]["frame"]
        return tree

    def _on_frame_event(self, kind, params):
        """frameattached / framedetached for the page and its context; the Frame is kept by its id."""
        fid = params.get("frame")
        if kind == "frameattached":
            frame = self._frame_for(fid, parent=params.get("parent"))
            if params.get("parent_main"):
                frame._parent_main = True
            if frame._attached_seen:
                return
            frame._attached_seen = True
        else:
            frame = self._frames_by_id().get(fid)
            if frame is None or frame._detached:
                return
            self._detach_below(fid, False)
            frame._detached = True
        self._emit(kind, frame)
        if self._context is not None:
            self._context._emit(kind, frame)

    def _detach_below(self, fid, main):
        """A frame got a new document (or went away): the frames inside the old one are detached."""
        for child in list(self._frames_by_id().values()):
            if child._detached or not (child._parent_main if main else child._parent_id == fid):
                continue
            self._on_frame_event("framedetached", {"frame": child._frame_id})

    def _routes_changed(self):
        want = bool(self.__dict__.get("_routes")) or (self._context is not None and
                                                        bool(self._context.__dict__.get("_routes")))
        if want != self._routing_on:
            self._routing_on = want
            self._call("page.set_routing", enabled=want)

    def _on_route(self, params):
        req = self._requests.get(params.get("request"))
        if req is None:
            req = Request(self, params)
            self._requests[params.get("request")] = req
        route = Route(self, params, req)
        entries = [(self, e) for e in reversed(self.__dict__.get("_routes", []))]
        if self._context is not None:
            entries += [(self._context, e) for e in reversed(self._context.__dict__.get("_routes", []))]
        try:
            _route_through(route, req, entries)
        except Exception as exc:  # noqa: BLE001 - raised by the script's next call, as in Playwright
            self._browser._transport.__dict__.setdefault("_handler_error", exc)

    def _on_binding(self, params):
        name = params.get("name")
        callback = self._bindings.get(name)
        if callback is None and self._context is not None:
            callback = self._context._bindings.get(name)
        try:
            payload = json.loads(params.get("payload") or "{}")
        except ValueError:
            return
        ok, value = True, None
        try:
            if callback is None:
                raise Error('no function "%s" is exposed' % name)
            args = _decode(payload.get("args")) or []
            source = {"page": self, "context": self.context, "frame": self.main_frame}
            value = _encode(callback(source, *args), [])
        except Exception as exc:  # noqa: BLE001 - the page's promise rejects with the error
            # The page's Error gets the callback's Python traceback as its stack.
            ok, value = False, {"message": str(exc), "stack": "".join(traceback.format_tb(exc.__traceback__))}
        self._call("page.binding_result", name=name, context=params.get("context"), id=payload.get("id"),
                   ok=ok, value=value)

    def expose_binding(self, name, callback, handle=None):
        """window[name](...) in the page calls callback(source, *args); its result resolves the page's promise."""
        if name in self._bindings or (self._context is not None and name in self._context._bindings):
            raise Error('Function "%s" has been already registered' % name)
        self._bindings[name] = callback
        self._call("page.expose_binding", name=name)

    def expose_function(self, name, callback):
        """window[name](...) in the page calls callback(*args)."""
        self.expose_binding(name, lambda source, *args: callback(*_fit_args(callback, args)))

    def _on_request(self, params):
        rid = params.get("request")
        prev = self._requests.get(rid)
        redirected_from = None
        if prev is not None and params.get("redirect_status") is not None:
            prev._response = Response(prev.url, params.get("redirect_status"), self, prev,
                                      params.get("redirect_headers"), params.get("redirect_status_text"))
            prev._finished = True
            redirected_from = prev
        req = Request(self, params, redirected_from)
        if prev is not None and redirected_from is None:
            req = prev  # made when its route was paused; the request event completes it
            req._navigation = bool(params.get("navigation"))
            req._main_frame = params.get("main_frame", True)
            req._frame_id = params.get("frame")
        if redirected_from is not None:
            redirected_from.redirected_to = req
            self._emit("response", redirected_from._response)
            self._emit("requestfinished", redirected_from)
        if len(self._requests) > 2000:
            self._requests.clear()
        self._requests[rid] = req
        self.__dict__.setdefault("_recent_requests", collections.deque(maxlen=100)).append(req)
        self._emit("request", req)
        if self._context is not None:
            self._context._emit("request", req)

    # waiters

    def expect_popup(self, predicate=None, timeout=None):
        """with page.expect_popup() as info: <action that opens a tab>; then info.value is the new Page."""
        return self._waiter("popup", predicate, timeout)

    def expect_console_message(self, predicate=None, timeout=None):
        return self._waiter("console", predicate, timeout)

    def expect_download(self, predicate=None, timeout=None):
        return self._waiter("download", predicate, timeout)

    def expect_file_chooser(self, predicate=None, timeout=None):
        return self._waiter("filechooser", predicate, timeout)

    def expect_websocket(self, predicate=None, timeout=None):
        return self._waiter("websocket", predicate, timeout)

    def expect_worker(self, predicate=None, timeout=None):
        return self._waiter("worker", predicate, timeout)

    def expect_request(self, url_or_predicate, timeout=None):
        return self._waiter("request", _url_predicate(url_or_predicate, self), timeout,
                            "request %s" % _describe_pattern(url_or_predicate))

    def expect_response(self, url_or_predicate, timeout=None):
        return self._waiter("response", _url_predicate(url_or_predicate, self), timeout,
                            "response %s" % _describe_pattern(url_or_predicate))

    def expect_request_finished(self, predicate=None, timeout=None):
        return self._waiter("requestfinished", predicate, timeout)

    def expect_navigation(self, url=None, wait_until=None, timeout=None):
        return _NavigationWaiter(self, url, wait_until, timeout)

    def wait_for_timeout(self, timeout):
        """Wait timeout milliseconds, running the page's events meanwhile."""
        self._transport_of().pump(max(0, timeout) / 1000.0)


def _describe_pattern(p):
    if isinstance(p, re.Pattern):
        return "matching /%s/" % p.pattern
    if callable(p):
        return "matching the predicate"
    return '"%s"' % p


def _url_predicate(url_or_predicate, page):
    if url_or_predicate is None:
        return None
    if callable(url_or_predicate) and not isinstance(url_or_predicate, re.Pattern):
        return url_or_predicate
    base = page._context._options.get("base_url") if page._context is not None else None
    return lambda r: _url_matches(url_or_predicate, r.url, base)


class _NavFailures:
    """Mixed into navigation waiters: a navigation of the waited frame that fails (a refused
    certificate, an unreachable host) ends the wait with its error instead of a timeout."""

    _failure = None

    def _navigation_failed(self, req):
        if not req._navigation or not self._frame_matches(req) or self._failure is not None:
            return
        if (req.failure or "net::ERR_ABORTED") == "net::ERR_ABORTED":
            return  # replaced by another navigation, which the waiter follows
        self._failure = NavigationError("%s at %s" % (req.failure, req.url), method="expect_navigation")
        if not self._done:
            self._error, self._done = self._failure, True

    def __enter__(self):
        self._page.on("requestfailed", self._navigation_failed)
        return super().__enter__()

    def __exit__(self, exc_type, exc, tb):
        try:
            return super().__exit__(exc_type, exc, tb)
        finally:
            self._page.remove_listener("requestfailed", self._navigation_failed)

    def _raise_failure(self):
        if self._failure is not None:
            raise self._failure


class _NavigationWaiter(_NavFailures, _EventWaiter):
    def __init__(self, page, url, wait_until, timeout):
        base = page._context._options.get("base_url") if page._context is not None else None

        def pred(frame):  # the page's navigations are its main frame's
            return not isinstance(frame, _EventFrame) and (url is None or _url_matches(url, frame.url, base))
        super().__init__(page, "framenavigated", pred, page._navigation_timeout(timeout, {}), "navigation")
        self._page = page
        self._wait_until = wait_until

    def _frame_matches(self, req):
        return req._main_frame

    def __enter__(self):
        self._page._nav_response = None
        return super().__enter__()

    def _wait(self):
        started = time.monotonic()
        super()._wait()
        self._raise_failure()
        limit = self._timeout if self._timeout is not None else self._page._timeout_ms()
        left = max(1, int(limit - (time.monotonic() - started) * 1000)) if limit else None
        self._page.wait_for_load_state(self._wait_until or "load", timeout=left)
        self._raise_failure()
        self._frame_value = self._value
        self._value = self._page._nav_response


class _PageExtras:
    """Playwright's page API beyond wright's core (content, scripts, handles); mixed into Page."""

    def set_content(self, html, timeout=None, wait_until=None):
        """Replace the document with html and wait for its load (or wait_until) event."""
        limit = self._navigation_timeout(timeout, {})
        if limit is None:
            limit = self._default_timeout or self._browser._default_timeout
        state = wait_until or "load"
        if state not in ("load", "domcontentloaded", "networkidle", "commit"):
            raise Error("set_content: wait_until must be load, domcontentloaded, networkidle or commit",
                        type="InvalidParams")
        ok = _js_call(self, _SET_CONTENT_JS, {"html": html, "state": state, "timeout": limit or 0})
        if ok == "timeout":
            raise TimeoutError("Timeout %dms exceeded waiting for the %s event of the new content" % (limit, state),
                               method="set_content")
        if state == "networkidle":
            self.wait_for_load_state("networkidle", timeout=timeout)

    def evaluate(self, expression, arg=_UNSET):
        """Run JavaScript: a function source is called with arg; anything else is evaluated."""
        try:
            return _js_call(self, expression, arg)
        except Error as exc:
            raise _named_after(exc, "Page.evaluate") from None

    def evaluate_handle(self, expression, arg=_UNSET):
        return _js_call(self, expression, arg, return_handle=True)

    def _query(self, selector, timeout=None):
        result = self._call("locator.element_handles", timeout, selector=selector)
        return [ElementHandle(self, hid) for hid in result.get("handles") or []]

    def query_selector(self, selector, strict=None):
        found = self._query(selector)
        if strict and len(found) > 1:
            raise StrictModeViolation("strict mode violation: \"%s\" resolved to %d elements" % (selector, len(found)))
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._query(selector)

    def eval_on_selector(self, selector, expression, arg=_UNSET, strict=None):
        el = self.query_selector(selector, strict)
        if el is None:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return el.evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        return self.locator(selector).evaluate_all(expression, arg)

    def wait_for_selector(self, selector, state=None, timeout=None, strict=None):
        """Wait for selector to reach state (default visible); returns an ElementHandle (None for detached/hidden)."""
        return self._wait_selector(self.locator(selector), state, timeout)

    def _wait_selector(self, loc, state, timeout):
        self._call("page.wait_for_selector", timeout, selector=loc.selector, state=state)
        if state in ("detached", "hidden"):
            return None
        found = self._query(loc.selector)
        return found[0] if found else None

    def add_script_tag(self, url=None, path=None, content=None, type=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        if url is None and content is None:
            raise Error("Provide an object with a `url`, `path` or `content` property", type="InvalidParams")
        return _js_call(self, _ADD_TAG_JS, {"tag": "script", "url": url, "content": content, "type": type or ""},
                        return_handle=True)

    def add_style_tag(self, url=None, path=None, content=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                content = f.read() + "\n/*# sourceURL=" + os.fspath(path).replace("\n", "") + "*/"
        if url is None and content is None:
            raise Error("Provide an object with a `url`, `path` or `content` property", type="InvalidParams")
        return _js_call(self, _ADD_TAG_JS, {"tag": "style", "url": url, "content": content, "type": ""},
                        return_handle=True)

    def add_init_script(self, script=None, path=None):
        if path is not None:
            with open(path, "r", encoding="utf-8") as f:
                script = f.read() + "\n//# sourceURL=" + os.fspath(path).replace("\n", "")
        if not isinstance(script, str):
            raise Error("Either path or script parameter must be specified", type="InvalidParams")
        sid = self._call("page.add_init_script", source=script).get("id")
        return Disposable(lambda: sid and not self.is_closed() and self._call("page.remove_init_script", id=sid))

    def dispatch_event(self, selector, type, event_init=None, strict=None, timeout=None):
        self._first(selector, bool(strict)).dispatch_event(type, event_init, timeout=timeout)

    def is_disabled(self, selector, strict=None, timeout=None):
        return self._first(selector, bool(strict)).is_disabled()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def is_editable(self, selector, strict=None, timeout=None):
        return self._first(selector, bool(strict)).is_editable()

    @property
    def main_frame(self):
        return Frame(self)

    @property
    def frames(self):
        """The main frame and every live child frame, parents before their children."""
        tree = self._frame_tree()
        return [self.main_frame] + [self._frame_for(i["frame"], parent=i["parent"]) for i in tree[1:]]

    def frame(self, name=None, url=None):
        for fr in self.frames:
            if name is not None and fr.name == name:
                return fr
            if url is not None and _url_matches(url, fr.url):
                return fr
        return None

    def frame_locator(self, selector):
        return FrameLocator(self, selector)

    @property
    def context(self):
        if self._context is None:
            opener = self.opener()
            if opener is not None:
                self._context = opener.context
                self._context._pages.append(self)
            else:
                self._context = self._browser._default_context()
        return self._context

    def set_default_navigation_timeout(self, timeout):
        self._default_navigation_timeout = timeout

    @property
    def viewport_size(self):
        return getattr(self, "_viewport", None)


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

_SET_CONTENT_JS = """async ({html, state, timeout}) => {
  const done = new Promise(resolve => {
    const ready = () => state === 'commit' ||
      (state === 'domcontentloaded' ? document.readyState !== 'loading' : document.readyState === 'complete');
    const check = () => { if (ready()) resolve('ok'); else setTimeout(check, 10); };
    document.open();
    document.write(html);
    // A written document is "complete" at close(), before its images load;
    // its load event waits for them (document.open() dropped older listeners).
    const waitLoad = state === 'load' || state === 'networkidle';
    if (waitLoad) window.addEventListener('load', () => resolve('ok'), {once: true});
    document.close();
    if (!waitLoad) check();
  });
  if (!timeout) return done;
  return Promise.race([done, new Promise(r => setTimeout(() => r('timeout'), timeout))]);
}"""

# add_script_tag / add_style_tag: insert the tag, settle on its load (or error).
_ADD_TAG_JS = """({tag, url, content, type}) => {
  let el;
  if (tag === 'script') {
    el = document.createElement('script');
    if (type) el.type = type;
    if (url !== null && url !== undefined) el.src = url; else el.text = content;
  } else if (url !== null && url !== undefined) {
    el = document.createElement('link');
    el.rel = 'stylesheet';
    el.href = url;
  } else {
    el = document.createElement('style');
    el.appendChild(document.createTextNode(content));
  }
  const external = url !== null && url !== undefined;
  const settled = new Promise((resolve, reject) => {
    el.onload = () => resolve(el);
    el.onerror = () => reject(new Error(tag === 'script' ? 'Failed to load script at ' + url : 'Error loading style ' + url));
    if (!external && tag === 'script') resolve(el);
  });
  // Inline content a Content Security Policy refuses is dropped silently but
  // for a securitypolicyviolation event, which comes in a task of its own.
  let refused = null;
  const onViolation = e => { refused = e; };
  if (!external) document.addEventListener('securitypolicyviolation', onViolation);
  (document.head || document.documentElement).appendChild(el);
  if (external) return settled;
  return new Promise(resolve => setTimeout(resolve, 0)).then(() => {
    document.removeEventListener('securitypolicyviolation', onViolation);
    if (refused) {
      el.remove();
      throw new Error("the page's Content Security Policy refused the inline " + tag + ' (' + refused.violatedDirective + ')');
    }
    return el;
  });
}"""


class _LocatorExtras:
    """Playwright's locator API on handles and value transfer; mixed into Locator."""

    def element_handle(self, timeout=None):
        self.wait_for(state="attached", timeout=timeout)
        found = self.page._query(self.selector)
        if len(found) > 1:
            raise StrictModeViolation("strict mode violation: %s resolved to %d elements" % (self._describe(), len(found)))
        if not found:
            raise TimeoutError("element_handle: the element went away after it appeared", method="element_handle")
        return found[0]

    def element_handles(self):
        return self.page._query(self.selector)

    def _describe(self):
        return "locator(%r)" % self.selector

    def evaluate(self, expression, arg=_UNSET, timeout=None):
        """Call a JavaScript function with the element (and arg); returns its value."""
        el = self.element_handle(timeout=timeout)
        try:
            return el.evaluate(expression, arg)
        finally:
            el.dispose()

    def evaluate_handle(self, expression, arg=_UNSET, timeout=None):
        el = self.element_handle(timeout=timeout)
        return el.evaluate_handle(expression, arg)

    def evaluate_all(self, expression, arg=_UNSET):
        """Call a JavaScript function with every current match (a list) and arg; no waiting."""
        params = {"selector": self.selector, "source": expression}
        if arg is not _UNSET:
            handles = []
            params["arg"] = _encode(arg, handles)
            if handles:
                params["handles"] = handles
        return _decode(self.page._call("locator.evaluate_all", None, False, **params).get("value"))

    def _accessible(self, kind):
        return self.evaluate(_ACCESSIBLE_JS, kind)

    def dispatch_event(self, type, event_init=None, timeout=None):
        self.evaluate(_DISPATCH_JS, {"type": type, "init": event_init or {}}, timeout=timeout)

    def frame_locator(self, selector):
        """Locators inside the frame(s) that selector finds within this locator."""
        return FrameLocator(self.page, _join(self.selector, selector))

    @property
    def content_frame(self):
        """This locator's <iframe> as a FrameLocator."""
        return FrameLocator(self.page, self.selector)

    def blur(self, timeout=None):
        self.evaluate("e => e.blur()", timeout=timeout)

    def wait_for_function(self, expression, arg=_UNSET, polling=None, timeout=None):
        """Wait until expression(element, arg) is truthy for the locator's element; returns its value."""
        page = self._owner_page()
        limit = timeout if timeout is not None else page._timeout_ms()
        deadline = time.monotonic() + (limit / 1000.0 if limit else 1e9)
        interval = (polling if isinstance(polling, (int, float)) else 100) / 1000.0
        while True:
            left = max(1, int((deadline - time.monotonic()) * 1000))
            value = self.evaluate(expression, arg, timeout=left)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError("Timeout %dms exceeded.\nwaiting for %s to satisfy the function"
                                   % (limit, self.selector), method="wait_for_function")
            page.wait_for_timeout(interval * 1000)

    def select_text(self, force=None, timeout=None):
        el = self.element_handle(timeout=timeout)
        try:
            el.select_text()
        finally:
            el.dispose()

    def drop(self, payload, position=None, timeout=None):
        """Drop files and/or data onto the element, as from another application: dragenter, dragover and
        drop at its centre (or position, from its padding box's top-left) with a DataTransfer holding
        payload["files"] (paths or {name, mimeType, buffer}) and payload["data"] ({mime type: str}).
        A target whose dragover is not cancelled refuses the drop: dragleave, then an Error."""
        if not isinstance(payload, dict) or not (payload.get("files") or payload.get("data")):
            raise Error("Locator.drop: payload must be a dict with files= (paths or {name, mimeType, buffer}) "
                        "and/or data= ({mime type: text})", type="InvalidParams")
        files = [_drop_file(f) for f in _as_list(payload.get("files"))]
        data = payload.get("data") or {}
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise Error("Locator.drop: data must map mime types to str, such as {'text/plain': 'hello'}",
                        type="InvalidParams")
        self.scroll_into_view_if_needed(timeout=timeout)
        accepted = self.evaluate(_DROP_JS, {"files": files, "data": data, "position": _point(position)},
                                 timeout=timeout)
        if not accepted:
            raise Error("Locator.drop: the target did not accept the drop (its dragover listener did not call "
                        "preventDefault()), so nothing was dropped", type="Error")

    def highlight(self, style=None):
        """Outline every current match on the page (until hide_highlight() or the next highlight()),
        in an overlay that takes no pointer events: for screenshots and people watching."""
        _js_call(self._owner_page(), _HIGHLIGHT_JS, [self.element_handles(), style])

    def hide_highlight(self):
        _js_call(self._owner_page(), _HIGHLIGHT_JS, [[], None])


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


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


# One overlay per document (<x-pw-glass>, as Playwright names it), with a box over each element.
_HIGHLIGHT_JS = r"""([els, style]) => {
  for (const old of document.querySelectorAll('x-pw-glass')) old.remove();
  if (!els.length) return;
  const glass = document.createElement('x-pw-glass');
  glass.style.cssText = 'position:fixed;inset:0;z-index:2147483647;pointer-events:none;display:block';
  for (const el of els) {
    const r = el.getBoundingClientRect();
    const box = document.createElement('x-pw-highlight');
    box.style.cssText = 'position:fixed;display:block;box-sizing:border-box;left:' + r.left + 'px;top:' + r.top +
      'px;width:' + r.width + 'px;height:' + r.height + 'px;background:rgba(111,168,220,0.49);' +
      'outline:1px solid rgba(111,168,220,0.9);' + (style || '');
    glass.appendChild(box);
  }
  document.documentElement.appendChild(glass);
}"""


# An approximation of the accessible name / description computation.
_ACCESSIBLE_JS = """(e, kind) => {
  const byIds = ids => ids.split(/\\s+/).map(id => document.getElementById(id)).filter(Boolean)
    .map(n => (n.textContent || '').trim()).join(' ');
  const norm = s => (s || '').replace(/\\s+/g, ' ').trim();
  if (kind === 'errormessage') {
    // ARIA exposes an error message only while the field says it is invalid.
    const invalid = e.getAttribute('aria-invalid');
    if (invalid === null || invalid === 'false' || !e.getAttribute('aria-errormessage')) return '';
    return norm(byIds(e.getAttribute('aria-errormessage')));
  }
  if (kind === 'description') {
    if (e.getAttribute('aria-describedby')) return norm(byIds(e.getAttribute('aria-describedby')));
    return norm(e.getAttribute('aria-description') || e.getAttribute('title') || '');
  }
  if (e.getAttribute('aria-labelledby')) return norm(byIds(e.getAttribute('aria-labelledby')));
  if (e.getAttribute('aria-label')) return norm(e.getAttribute('aria-label'));
  if (e.labels && e.labels.length) return norm(Array.from(e.labels).map(l => l.textContent).join(' '));
  if (e.tagName === 'IMG' || (e.tagName === 'INPUT' && e.type === 'image')) return norm(e.getAttribute('alt') || e.title);
  if (e.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(e.type)) return norm(e.value);
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return norm(e.title || e.placeholder || '');
  return norm(e.textContent || e.title || '');
}"""


_DISPATCH_JS = """(el, {type, init}) => {
  const kinds = {
    click: MouseEvent, dblclick: MouseEvent, mousedown: MouseEvent, mouseup: MouseEvent, mouseenter: MouseEvent,
    mouseleave: MouseEvent, mousemove: MouseEvent, mouseover: MouseEvent, mouseout: MouseEvent, contextmenu: MouseEvent,
    auxclick: MouseEvent,
    keydown: KeyboardEvent, keyup: KeyboardEvent, keypress: KeyboardEvent,
    pointerdown: PointerEvent, pointerup: PointerEvent, pointermove: PointerEvent, pointerover: PointerEvent,
    pointerout: PointerEvent, pointerenter: PointerEvent, pointerleave: PointerEvent, pointercancel: PointerEvent,
    focus: FocusEvent, blur: FocusEvent, focusin: FocusEvent, focusout: FocusEvent,
    drag: DragEvent, dragstart: DragEvent, dragend: DragEvent, dragenter: DragEvent, dragleave: DragEvent,
    dragover: DragEvent, drop: DragEvent,
    wheel: WheelEvent, input: InputEvent, beforeinput: InputEvent,
    touchstart: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchend: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchmove: typeof TouchEvent === 'function' ? TouchEvent : Event,
    touchcancel: typeof TouchEvent === 'function' ? TouchEvent : Event,
  };
  const Kind = kinds[type] || Event;
  const opts = Object.assign({bubbles: true, cancelable: true, composed: true}, init || {});
  el.dispatchEvent(new Kind(type, opts));
}"""


class _ArgumentTypeError(Error, builtins.TypeError):
    """An argument of the wrong type: an Error, as in Playwright, and a TypeError, as it always was here."""


def _js_type_name(value):
    """The JavaScript type name Playwright's messages use for a Python value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "object"


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


# Navigations: their default timeout is the navigation timeout, and their load states are Playwright's.
_NAV_CALLS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                        "page.wait_for_url"))
_LOAD_STATES = ("load", "domcontentloaded", "networkidle", "commit")

def _api_description(selector):
    """How Playwright's messages name a locator: get_by_role("button", name="Close"), locator("#id")."""
    m = re.fullmatch(r'role=([\w-]+)(?:\[name=("(?:[^"\\]|\\.)*")(i?)\])?', selector)
    if m:
        if m.group(2) is None:
            return 'get_by_role("%s")' % m.group(1)
        return 'get_by_role("%s", name=%s%s)' % (m.group(1), m.group(2), "" if m.group(3) else ", exact=True")
    m = re.fullmatch(r'(?:internal:)?(text|label|placeholder|alt|title)=("(?:[^"\\]|\\.)*")(i?)', selector)
    if m:
        kind = {"alt": "alt_text"}.get(m.group(1), m.group(1))
        return "get_by_%s(%s%s)" % (kind, m.group(2), "" if m.group(3) else ", exact=True")
    return "locator(%s)" % json.dumps(selector)


def _call_locator_handler(handler, locator):
    """Call handler(locator) when it takes a positional argument, else handler()."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return handler(locator)
    takes = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    return handler(locator) if takes else handler()


class _PageLocatorHandlers:
    """page.add_locator_handler: run a callback whenever an overlay's locator is visible before an action.

    The driver checks the handlers' locators at every attempt of an action (and of expect()'s
    retries); when one is visible it asks this client to run the handler, then, unless
    no_wait_after, waits for the locator to be hidden before going on. times= limits how often a
    handler runs; actions the handler makes itself do not run handlers."""

    def add_locator_handler(self, locator, handler, no_wait_after=None, times=None):
        if not isinstance(locator, Locator) or locator._owner_page() is not self:
            raise Error("Locator must belong to the main frame of this page")
        if times == 0:
            return
        uid = self._call("page.add_locator_handler", selector=locator.selector,
                         description=_api_description(locator.selector),
                         no_wait_after=True if no_wait_after else None)["uid"]
        self.__dict__.setdefault("_locator_handlers", {})[uid] = [handler, times, locator]

    def remove_locator_handler(self, locator):
        table = self.__dict__.get("_locator_handlers", {})
        for uid, entry in list(table.items()):
            if entry[2].selector == locator.selector and entry[2]._owner_page() is locator._owner_page():
                del table[uid]
                self._call("page.remove_locator_handler", uid=uid)

    def _on_locator_handler(self, params):
        uid = params.get("uid")
        table = self.__dict__.get("_locator_handlers", {})
        entry = table.get(uid)
        remove = entry is None
        try:
            if entry is not None and entry[1] != 0:
                if entry[1] is not None:
                    entry[1] -= 1
                remove = entry[1] == 0
                _call_locator_handler(entry[0], entry[2])
        finally:
            if remove:
                table.pop(uid, None)
            try:
                self._call("page.resolve_locator_handler", uid=uid, remove=True if remove else None)
            except Error:
                pass  # the page closed meanwhile (the handler may have closed it)


def _locator_handlers_checkpoint(actual, deadline):
    """expect()'s turn for the page's locator handlers before each retry."""
    page = actual if isinstance(actual, Page) else getattr(actual, "_owner_page", lambda: None)()
    if page is None or not page.__dict__.get("_locator_handlers"):
        return
    left = max(1, int((deadline - time.monotonic()) * 1000))
    page._call("page.run_locator_handlers", left)


class WebStorage:
    """page.local_storage / page.session_storage: the current origin's Web Storage, read and written
    in the page's main frame."""

    def __init__(self, page, kind):
        self._page = page
        self._kind = kind

    def __repr__(self):
        return "<WebStorage %s of %r>" % (self._kind, self._page)

    def _run(self, source, arg=None):
        return self._page.evaluate("([kind, arg]) => (%s)(window[kind], arg)" % source, [self._kind, arg])

    def get_item(self, name):
        """The value stored under name, or None."""
        return self._run("(s, name) => s.getItem(name)", name)

    def set_item(self, name, value):
        self._run("(s, [name, value]) => { s.setItem(name, value); }", [name, str(value)])

    def remove_item(self, name):
        self._run("(s, name) => { s.removeItem(name); }", name)

    def clear(self):
        self._run("(s) => { s.clear(); }")

    def items(self):
        """Every entry as {"name", "value"}, in the storage's order."""
        return self._run("(s) => { const out = []; for (let i = 0; i < s.length; i++) { const name = s.key(i);"
                         " out.push({name, value: s.getItem(name)}); } return out; }")


class _PageCompat:
    """Page methods of Playwright's API that map onto others."""

    @property
    def request(self):
        """An APIRequestContext bound to this page: its requests carry the page's cookies."""
        if self.__dict__.get("_api_request") is None:
            self._api_request = APIRequestContext(self)
        return self._api_request

    def requests(self):
        """The page's last 100 requests, oldest first (each keeps its response)."""
        return list(self.__dict__.get("_recent_requests", ()))

    def set_checked(self, selector, checked, strict=False, **kwargs):
        return self._first(selector, strict).set_checked(checked, **kwargs)

    def pause(self):
        """Playwright opens its inspector here; wright has none, so this returns at once and the
        page's timeouts stay as they were."""

    def hide_highlight(self):
        """Remove what locator.highlight() drew."""
        _js_call(self, _HIGHLIGHT_JS, [[], None])


class _PageStorage:
    """Web Storage of the page (Playwright's page.local_storage and page.session_storage)."""

    @property
    def local_storage(self):
        if self.__dict__.get("_local_storage") is None:
            self._local_storage = WebStorage(self, "localStorage")
        return self._local_storage

    @property
    def session_storage(self):
        if self.__dict__.get("_session_storage") is None:
            self._session_storage = WebStorage(self, "sessionStorage")
        return self._session_storage


# The navigations, which set_default_navigation_timeout governs before set_default_timeout.
_PAGE_NAVIGATIONS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_url",
                               "page.wait_for_load_state"))

# The page methods that wait and so take a timeout (every locator method does).
_PAGE_WAITS = frozenset(("page.goto", "page.reload", "page.go_back", "page.go_forward", "page.wait_for_load_state",
                         "page.wait_for_url", "page.wait_for_selector", "page.screenshot", "page.aria_snapshot"))


class Page(_Routing, _PageEvents, _PageExtras, _PageFiles, _PageStorage, _PageLocatorHandlers, _PageCompat,
           _Locating):
    """One tab. Get it from browser.new_page(), browser.pages or page.expect_popup()."""

    def __init__(self, browser, page_id):
        self._browser = browser
        self.id = page_id
        self._default_timeout = None
        self._closed = False
        self.keyboard = Keyboard(self)
        self.mouse = Mouse(self)
        self._context = None
        self._owned_context = None
        self._viewport = getattr(browser, "_viewport", None)
        self._default_navigation_timeout = None
        self._requests = {}
        self._nav_response = None
        self._bindings = {}
        self._routing_on = False

    def __repr__(self):
        return "<Page url=%r>" % (self.url if not self._closed else "",)

    def _owner_page(self):
        return self

    def _sub(self, part):
        return Locator(self, part)

    def _call(self, method, _timeout=None, _wait=True, **params):
        if isinstance(_timeout, datetime.timedelta):
            _timeout = _timeout.total_seconds() * 1000
        if method in _NAV_CALLS:
            _timeout = self._navigation_timeout(_timeout, params)
        body = {"page": self.id}
        for key, value in params.items():
            if value is not None:
                body[key] = value
        timeout = _timeout
        if isinstance(timeout, datetime.timedelta):
            timeout = timeout.total_seconds() * 1000
        if timeout is None and method in _PAGE_NAVIGATIONS:
            timeout = self._default_navigation_timeout
            if timeout is None and self._context is not None:
                timeout = getattr(self._context, "_default_navigation_timeout", None)
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

    def goto(self, url, wait_until=None, timeout=None, referer=None):
        """Navigate; returns the main document's Response (None for about: and data: URLs, which have none)."""
        self._check_referer(url, referer)
        if self._context is not None and self._context._options.get("base_url"):
            url = urllib.parse.urljoin(self._context._options["base_url"], url)
        self._nav_response = None
        result = self._call("page.goto", timeout, url=url, wait_until=wait_until)
        final = result.get("url", url)
        if re.match(r"(?i)^(about|data):", url):
            return None
        nav = self._nav_response
        if nav is not None:
            return nav
        return Response(final, result.get("status"), self)

    def reload(self, wait_until=None, timeout=None):
        self._nav_response = None
        result = self._call("page.reload", timeout, wait_until=wait_until)
        if re.match(r"(?i)^(about|data):", result.get("url") or ""):
            return None
        return self._nav_response or Response(result.get("url"), None)

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

    def wait_for_function(self, expression, arg=_UNSET, timeout=None, polling=100):
        """Evaluate expression every `polling` ms ("raf": every animation frame) until it returns something
        truthy; returns a JSHandle of that value, as Playwright does."""
        if polling == "raf":
            polling = 16
        elif isinstance(polling, bool) or not isinstance(polling, (int, float)):
            raise Error("Unknown polling option: %s" % polling, type="InvalidParams")
        last = []

        def check():
            try:
                handle = self.evaluate_handle(expression, arg)
            except Error as exc:
                if "Cannot find context" in str(exc) or "Execution context was destroyed" in str(exc):
                    return None  # the document went away mid-call: poll the next one
                raise
            # An object is truthy; a primitive comes back by value.
            value = True if handle._id else _decode(handle._value_encoded)
            last[:] = [value]
            return handle if value else None

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
                message = "Timeout %dms exceeded.\n%s within %d ms" % (limit, what, limit)
                if detail:
                    message += " (%s)" % detail()
                raise TimeoutError(message, method=what.split(":")[0])
            time.sleep(polling / 1000.0)

    # content

    def screenshot(self, path=None, full_page=False, timeout=None, type=None, quality=None):
        """A PNG of the viewport (full_page: the whole page; type "jpeg" with quality for a JPEG).
        Written to path if given; returns the bytes."""
        target = _abs_path(path) if path else None
        if type is None and path and str(path).lower().endswith((".jpg", ".jpeg")):
            type = "jpeg"
        result = self._call("page.screenshot", timeout, path=target, full_page=True if full_page else None,
                            type=type, quality=quality)
        return _screenshot_bytes(result, target)

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, ref=None, timeout=None, depth=None,
                      mode=None, boxes=None):
        """The page as ARIA snapshot YAML; elements that can be acted on carry [ref=eN] (wright's extra).
        depth: levels below the top-level lines (Playwright's option)."""
        if depth is not None:
            max_depth = depth + 1
        result = self._call("page.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None, ref=ref)
        return result.get("snapshot", "")

    # page-wide state

    def set_viewport_size(self, viewport_size=None, width=None, height=None):
        size = _viewport(viewport_size if viewport_size is not None else (width, height), "set_viewport_size")
        self._call("page.set_viewport_size", width=size["width"], height=size["height"])
        self._viewport = size

    def bring_to_front(self):
        self._call("page.bring_to_front")

    def close(self, run_before_unload=None, reason=None):
        if self._closed:
            return
        if run_before_unload:
            # The page's beforeunload handlers run first and may keep it open (a "beforeunload"
            # dialog that is dismissed); the "close" event tells when it went.
            self._call("page.close_before_unload")
            return
        try:
            self._call("page.close")
        except TargetClosed:
            pass
        self._closed = True
        if self._owned_context is not None:
            self._owned_context.close()

    def is_closed(self):
        if self._closed:
            return True
        try:
            return self.id not in {i["page"] for i in self._browser._page_infos()}
        except TargetClosed:
            return True

    def opener(self):
        """The page that opened this one, or None."""
        infos = self._browser._page_infos()
        open_ids = {i["page"] for i in infos}
        for info in infos:
            if info["page"] == self.id and info.get("opener") in open_ids:
                return self._browser._page(info["opener"])
        return None

    def console_messages(self, clear=False, filter=None):
        """Console messages since the page opened (the last 200 or so), oldest first: ConsoleMessage
        objects (.type, .text, .location, .page), which also answer msg["type"], ["text"], ["url"], ["line"]."""
        records = self._call("page.console_messages", clear=clear or None).get("messages") or []
        return [ConsoleMessage(self, r) for r in records]

    def clear_console_messages(self):
        self._call("page.console_messages", clear=True)

    def page_errors(self, clear=False, filter=None):
        """Uncaught JavaScript errors, oldest first: PageError objects (.message, .name, .stack), which
        also answer e["message"] and e["stack"]."""
        records = self._call("page.page_errors", clear=clear or None).get("errors") or []
        return [PageError(r) for r in records]

    def clear_page_errors(self):
        self._call("page.page_errors", clear=True)

    def dialogs(self, clear=False):
        """Dialogs seen so far (all accepted as they opened): [{type, message, default_value}]."""
        return self._call("page.dialogs", clear=clear or None).get("dialogs") or []

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

    def is_visible(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_visible()

    def is_hidden(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_hidden()

    def is_enabled(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_enabled()

    def is_checked(self, selector, strict=None, timeout=None):
        return self.locator(selector).is_checked()


class Locator(_LocatorExtras, _LocatorFiles, _Locating):
    """A page and a selector chain, resolved again on every call (nothing is held in the browser)."""

    def __init__(self, page, selector):
        self.page = page
        self.selector = selector

    def __repr__(self):
        return "<Locator frame=%r selector=%r>" % (self.page.main_frame, self.selector)

    def _owner_page(self):
        return self.page

    def _sub(self, part):
        return Locator(self.page, _join(self.selector, part))

    def _call(self, method, timeout=None, wait=True, **params):
        try:
            return self.page._call(method, timeout, wait, selector=self.selector, **params)
        except Error as exc:
            raise self._api_error(exc) from None

    def _api_error(self, exc):
        """The driver's error in Playwright's words: "Locator.click: ...", the locator named as written
        (waiting for get_by_role("button", name="Save"))."""
        method = exc.method or ""
        if not method.startswith("locator."):
            return exc
        api = type(self).__name__ + "." + method[len("locator."):]
        renamed = _named_after(exc, api)
        if renamed is exc:
            return exc
        described = _api_description(self.selector)
        if not described.startswith("locator(") and "waiting for " + self.selector in renamed.message:
            renamed = type(renamed)(renamed.message.replace("waiting for " + self.selector, "waiting for " + described),
                                    type=renamed.type, method=api)
            renamed.stack = exc.stack
        return renamed

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
        """Keep the matches whose text contains has_text (str, case-insensitive, or re.Pattern) or not
        (has_not_text), that hold a match of the locator has (or not: has_not), that are visible."""
        loc = self
        if has_text is not None:
            loc = loc._sub("has-text=" + _text_body(has_text, exact=False, what="has_text"))
        if has_not_text is not None:
            loc = loc._sub("internal:has-not-text=" + _text_body(has_not_text, exact=False, what="has_not_text"))
        for name, inner in (("has", has), ("has-not", has_not)):
            if inner is not None:
                loc = loc._sub("internal:%s=%s" % (name, json.dumps(self._inner_selector(name, inner),
                                                                         ensure_ascii=False)))
        if visible is not None:
            loc = loc._sub("visible=" + ("true" if visible else "false"))
        return loc

    def or_(self, locator):
        """Matches of this locator or of the other (same page), in document order."""
        return self._sub("internal:or=" + json.dumps(self._inner_selector("or", locator), ensure_ascii=False))

    def and_(self, locator):
        """Matches of this locator that the other (same page) matches too."""
        return self._sub("internal:and=" + json.dumps(self._inner_selector("and", locator), ensure_ascii=False))

    def _inner_selector(self, name, inner):
        """The selector of a locator given to filter(has=/has_not=): same page, searched inside each match."""
        if not isinstance(inner, Locator):
            raise TypeError("filter(%s=...) takes a Locator, not %s" % (name.replace("-", "_"), type(inner).__name__))
        if inner.page is not self.page:
            raise Error("filter(%s=...): the inner locator belongs to another page" % name.replace("-", "_"),
                        type="InvalidParams")
        first = inner.selector.split(">>")[0].strip()
        if first.startswith("handle=") and self._frame_element(first):
            # A child frame's locator (its chain starts at the <iframe>): it searches another document.
            raise Error('Inner "%s" locator must belong to the same frame. filter(%s=...) searches inside '
                        'each match of this locator; build the inner locator from the same frame' % (
                            name, name.replace("-", "_")), type="InvalidParams")
        if first.startswith(("handle=", "aria-ref=")):
            raise Error("filter(%s=...): the inner locator starts at a fixed element (%s); use a selector that "
                        "searches" % (name.replace("-", "_"), first), type="InvalidParams")
        return inner.selector

    def _frame_element(self, part):
        """Whether the fixed element of a handle= part is a frame's <iframe> (or <frame>)."""
        try:
            return bool(Locator(self.page, part).evaluate_all("els => els.some(e => /^i?frame$/i.test(e.tagName))"))
        except Error:
            return False

    def all(self):
        """A locator for each current match (no waiting)."""
        return [self.nth(i) for i in range(self.count())]

    # actions

    def click(self, button=None, click_count=None, delay=None, force=None, modifiers=None, position=None,
              timeout=None, no_wait_after=None, steps=None, scroll=None):
        """scroll="none": do not scroll; wait until the element is in the viewport where it is."""
        self._call("locator.click", timeout, button=button, click_count=click_count, delay=delay,
                   force=force or None, modifiers=modifiers, position=_point(position), steps=steps, scroll=scroll,
                   no_wait_after=no_wait_after or None)

    def dblclick(self, button=None, delay=None, force=None, modifiers=None, position=None, timeout=None,
                 no_wait_after=None, steps=None, scroll=None):
        self._call("locator.dblclick", timeout, button=button, delay=delay, force=force or None,
                   modifiers=modifiers, position=_point(position), steps=steps, scroll=scroll,
                   no_wait_after=no_wait_after or None)

    def fill(self, value, force=None, timeout=None):
        if not isinstance(value, str):
            raise _ArgumentTypeError("fill: value: expected string, got %s (fill() takes a str, not %s; convert it "
                                     "first: str(x))" % (_js_type_name(value), type(value).__name__))
        self._call("locator.fill", timeout, value=value, force=force or None)

    def clear(self, force=None, timeout=None):
        self.fill("", force=force, timeout=timeout)

    def press(self, key, timeout=None, no_wait_after=None):
        self._call("locator.press", timeout, key=key, no_wait_after=no_wait_after or None)

    def press_sequentially(self, text, delay=None, timeout=None):
        self._call("locator.press_sequentially", timeout, text=text, delay=delay)

    type = press_sequentially  # Playwright's older name

    def check(self, force=None, timeout=None):
        self._call("locator.check", timeout, force=force or None)

    def uncheck(self, force=None, timeout=None):
        self._call("locator.uncheck", timeout, force=force or None)

    def set_checked(self, checked, force=None, timeout=None):
        self._call("locator.set_checked", timeout, checked=bool(checked), force=force or None)

    def select_option(self, value=None, label=None, index=None, timeout=None, force=None, element=None,
                      no_wait_after=None):
        """Select options by value=, label=, index= or element= (each one item or a list); returns the
        selected values. Nothing to select (None or []) deselects every option.

        A positional str (or list of str) matches an option's value or, failing
        that, its label.
        """
        if element is not None:
            elements = element if isinstance(element, (list, tuple)) else [element]
            picked = [e.evaluate("o => o.index") for e in elements]
            index = picked + ([] if index is None else ([index] if isinstance(index, int) else list(index)))
        if value is None and label is None and index is None:
            value = []
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

    def is_visible(self, timeout=None):
        return bool(self._call("locator.is_visible").get("value"))  # timeout: ignored, as in Playwright

    def is_hidden(self, timeout=None):
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

    def aria_snapshot(self, interactive_only=False, max_depth=0, max_chars=0, timeout=None, depth=None, mode=None,
                      boxes=None):
        """The element's subtree as ARIA snapshot YAML in Playwright's format (no refs; mode="ai" adds
        wright's [ref=eN] markers). depth: levels below the top-level lines (Playwright's option)."""
        if depth is not None:
            max_depth = depth + 1
        result = self._call("locator.aria_snapshot", timeout, interactive_only=interactive_only or None,
                            max_depth=max_depth or None, max_chars=max_chars or None,
                            no_refs=None if mode == "ai" else True)
        return result.get("snapshot", "")


# ---------------------------------------------------------------------------
# Value transfer and handles (Playwright's evaluate semantics)
#
# Values cross js.call in a tagged JSON form (PROTOCOL.md, "Value transfer"),
# so what JSON alone loses survives the trip: undefined, NaN, ±Infinity, -0,
# BigInt, Date, RegExp, URL, typed arrays, cycles, and handles in arguments.


def _encode(value, handles, seen=None):
    if seen is None:
        seen = {}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else {"bi": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"n": "NaN"}
        if math.isinf(value):
            return {"n": "Infinity" if value > 0 else "-Infinity"}
        if value == 0 and math.copysign(1.0, value) < 0:
            return {"n": "-0"}
        return value
    if isinstance(value, JSHandle):
        if value._disposed:
            raise Error("JSHandle is disposed: an argument is a handle that was disposed (no object with guid %s "
                        "remains); pass a live handle" % value._id, type="TargetClosed")
        if value._id is None:
            return value._value_encoded
        handles.append(value._id)
        return {"h": len(handles) - 1}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return {"d": value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")}
    if isinstance(value, re.Pattern):
        return {"r": {"p": _regex_body(value)[1:].rsplit("/", 1)[0], "f": _regex_body(value).rsplit("/", 1)[1]}}
    if isinstance(value, urllib.parse.ParseResult):
        return {"url": value.geturl()}
    if isinstance(value, Exception):
        # An exception crosses as an Error: its name, message and stack (Python's traceback).
        message = value.message if isinstance(value, Error) else str(value)
        name = getattr(value, "_name", None) or type(value).__name__
        stack = getattr(value, "_stack", None)
        if stack is None:
            import traceback
            stack = "".join(traceback.format_exception(type(value), value, value.__traceback__))
        return {"e": {"n": name, "m": message, "s": stack}}
    key = id(value)
    if key in seen:
        return {"ref": seen[key]}
    if isinstance(value, (list, tuple)):
        seen[key] = len(seen)
        return {"a": [_encode(v, handles, seen) for v in value], "id": seen[key]}
    if isinstance(value, dict):
        seen[key] = len(seen)
        return {"o": [[str(k), _encode(v, handles, seen)] for k, v in value.items()], "id": seen[key]}
    raise InvalidParams("cannot pass a %s to the browser: use None, bool, int, float, str, list, dict, datetime, "
                        "re.Pattern, a urlparse() result or a JSHandle" % type(value).__name__)


def _decode(value, refs=None):
    if refs is None:
        refs = {}
    if not isinstance(value, dict):
        return value
    if "u" in value:
        return None
    if "node" in value or "win" in value:
        # A DOM node or window returned by value stands as a reference, as Playwright shows it.
        return "ref: <Window>" if "win" in value else "ref: <%s>" % (
            value["node"] if isinstance(value["node"], str) else "Node")
    if "n" in value:
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}[value["n"]]
    if "bi" in value:
        return int(value["bi"])
    if "d" in value:
        if value["d"] is None:
            return None
        return datetime.datetime.fromisoformat(value["d"].replace("Z", "+00:00"))
    if "r" in value:
        flags = 0
        for ch, bit in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL)):
            if ch in value["r"]["f"]:
                flags |= bit
        return re.compile(value["r"]["p"], flags)
    if "url" in value:
        return urllib.parse.urlparse(value["url"])
    if "e" in value:
        err = Error(value["e"]["m"], type=value["e"]["n"])
        err.stack = value["e"]["s"]
        return err
    if "ta" in value:
        return list(value["ta"])
    if "ref" in value:
        return refs.get(value["ref"])
    if "a" in value:
        out = []
        refs[value.get("id")] = out
        out.extend(_decode(v, refs) for v in value["a"])
        return out
    if "o" in value:
        out = {}
        refs[value.get("id")] = out
        for k, v in value["o"]:
            out[k] = _decode(v, refs)
        return out
    return value


def _named_after(exc, api):
    """The error of a driver call, named after the API method that made it (Playwright's "Page.evaluate: ...")."""
    prefix = (exc.method or "") + ": "
    if not exc.method or not exc.message.startswith(prefix):
        return exc
    renamed = type(exc)(api + ": " + exc.message[len(prefix):], type=exc.type, method=api)
    renamed.stack = exc.stack
    return renamed


def _js_call(page, source, arg=_UNSET, element=None, return_handle=False, timeout=None, context=None):
    """One js.call: source with arg (transferred), optionally on an element handle id."""
    if not isinstance(source, str):
        raise TypeError("expression must be a str of JavaScript, not %s" % type(source).__name__)
    params = {"page": page.id, "source": source}
    handles = []
    if arg is not _UNSET:
        params["arg"] = _encode(arg, handles)
        if handles:
            params["handles"] = handles
    if element:
        params["element"] = element
    if context:
        params["context"] = context
    if return_handle:
        params["return_handle"] = True
    if timeout is not None:
        params["timeout"] = timeout
    result = page._browser._call("js.call", params, timeout_ms=False)
    if not return_handle:
        return _decode(result.get("value"))
    return _handle_for(page, result)


def _handle_for(page, result):
    hid = result.get("handle")
    if hid and result.get("subtype") == "node":
        return ElementHandle(page, hid, result.get("description") or "node")
    handle = JSHandle(page, hid or None, result)
    return handle


class JSHandle:
    """A reference to a JavaScript value that lives in the page (page.evaluate_handle())."""

    def __init__(self, page, handle_id, info=None):
        self._page = page
        self._id = handle_id
        self._disposed = False
        info = info or {}
        self._type = info.get("type") or "object"
        self._subtype = info.get("subtype") or ""
        self._description = info.get("description") or ""
        self._value_encoded = info.get("value")

    def __repr__(self):
        return "<JSHandle preview=%s>" % self._preview()

    def __str__(self):
        return self._preview()

    def _preview(self):
        if self._id is None:
            v = _decode(self._value_encoded)
            if v is None:
                return "JSHandle@%s" % ("undefined" if self._value_encoded == {"u": 1} else "null")
            if isinstance(v, bool):
                return "JSHandle@%s" % ("true" if v else "false")
            return "JSHandle@%s" % v
        if self._subtype == "node":
            try:
                return "JSHandle@" + self._jscall(_NODE_PREVIEW_JS, _UNSET, False)
            except Error:
                return "JSHandle@node"
        if self._subtype in ("array", "date", "regexp", "error", "map", "set", "promise", "proxy"):
            return "JSHandle@%s" % self._subtype
        return "JSHandle@%s" % (self._type if self._type != "function" else "function")

    def evaluate(self, expression, arg=_UNSET, timeout=None):
        return self._jscall(expression, arg, False)

    def evaluate_handle(self, expression, arg=_UNSET, timeout=None):
        return self._jscall(expression, arg, True)

    def _jscall(self, expression, arg, as_handle):
        if self._disposed:
            raise Error("JSHandle is disposed", type="TargetClosed")
        if self._id is None:
            # A primitive held by value: pass it first, before the argument.
            return _js_call(self._page, "(__p) => (%s)(__p[0], __p[1])" % expression,
                            [self, None if arg is _UNSET else arg], return_handle=as_handle)
        return _js_call(self._page, expression, arg, element=self._id, return_handle=as_handle)

    def json_value(self):
        if self._id is None:
            return _decode(self._value_encoded)
        return self.evaluate("v => v")

    def get_property(self, property_name):
        return self.evaluate_handle("(o, name) => o[name]", property_name)

    def get_properties(self):
        names = self.evaluate("o => Object.keys(o)")
        return {name: self.get_property(name) for name in names}

    def as_element(self):
        return None

    def dispose(self):
        if self._disposed:
            return
        self._disposed = True
        if self._id is not None:
            try:
                self._page._browser._call("js.dispose", {"page": self._page.id, "handle": self._id})
            except Error:
                pass



class ElementHandle(JSHandle, Locator):
    """A handle on one element (query_selector(), wait_for_selector(), evaluate_handle()).

    Its actions are a locator's (`handle=<id>` as the selector), so they wait for
    the element to be actionable as locators do.
    """

    def __init__(self, page, handle_id, description="node"):
        JSHandle.__init__(self, page, handle_id, {"type": "object", "subtype": "node", "description": description})
        Locator.__init__(self, page, "handle=" + handle_id)

    def __repr__(self):
        return "<ElementHandle %s>" % self._description

    def as_element(self):
        return self

    def owner_frame(self):
        """The frame whose document holds the node (its CDP frame id, so the page's one Frame object)."""
        fid = self._page._call("page.node_frames", handle=self._id).get("owner")
        if not fid:
            return None
        return self._page._frame_for(fid, main=fid == self._page._main_id())

    def content_frame(self):
        """The frame an <iframe> or <frame> element shows; None for other elements."""
        fid = self._page._call("page.node_frames", handle=self._id).get("content")
        if not fid:
            return None
        frame = self._page._frame_for(fid)
        if frame._owner is None:
            frame._owner = self
        return frame

    def query_selector(self, selector):
        found = self._page._query(_join(self.selector, selector))
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._page._query(_join(self.selector, selector))

    def eval_on_selector(self, selector, expression, arg=_UNSET):
        el = self.query_selector(selector)
        if el is None:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return el.evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        return _evaluate_all(self._page, self.query_selector_all(selector), expression, arg)

    def wait_for_selector(self, selector, state=None, timeout=None):
        loc = Locator(self._page, _join(self.selector, selector))
        return self._page._wait_selector(loc, state, timeout)

    def wait_for_element_state(self, state, timeout=None):
        checks = {"visible": "is_visible", "hidden": "is_hidden", "enabled": "is_enabled",
                  "disabled": "is_disabled", "editable": "is_editable"}
        if state == "stable":
            return self.bounding_box(timeout=timeout) and None
        if state not in checks:
            raise Error("state: expected one of (visible|hidden|stable|enabled|disabled|editable)",
                        type="InvalidParams")
        def check():
            if state != "hidden" and not self.evaluate("e => e.isConnected"):
                raise Error("Element is not attached to the DOM: the handle's element was removed", type="Error")
            return getattr(self, checks[state])()

        limit = timeout if timeout is not None else self._page._timeout_ms()
        try:
            self._page._poll(check, limit, "wait_for_element_state: element is not %s" % state)
        except TimeoutError:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for the element to be %s" % (limit, state),
                               method="wait_for_element_state") from None

    def select_text(self, force=None, timeout=None):
        if not force:
            self.scroll_into_view_if_needed(timeout=timeout)  # waits for it to be visible and stable
        self.evaluate("e => { if (e.select) { e.focus(); e.select(); return; } const r = document.createRange();"
                      " r.selectNodeContents(e); const s = window.getSelection(); s.removeAllRanges();"
                      " s.addRange(r); }")


class Frame(_Locating):
    """A frame of a page: page.main_frame, page.frames, element_handle.content_frame().

    The main frame is the page itself; a child frame is reached through its
    <iframe> element, so its locators are `<iframe> >> selector` chains.
    """

    def __init__(self, page, element=None):
        self._page = page
        self._element = element

    def __repr__(self):
        try:
            return "<Frame name=%s url=%r>" % (self.name, self.url)
        except Error:
            return "<Frame %s>" % ("main" if self._element is None else self._element.selector)

    def __eq__(self, other):
        if not isinstance(other, Frame) or other._page is not self._page:
            return False
        if self._element is None or other._element is None:
            return self._element is other._element
        return other._element.evaluate("(a, b) => a === b", self._element)

    def __hash__(self):
        return hash((id(self._page), self._element._id if self._element is not None else None))

    def _owner_page(self):
        return self._page

    def _sub(self, part):
        if self._element is None:
            return Locator(self._page, part)
        return Locator(self._page, _join(self._element.selector, part))

    @property
    def page(self):
        return self._page

    @property
    def parent_frame(self):
        return None if self._element is None else self._page.main_frame

    @property
    def child_frames(self):
        tree = self._page._frame_tree()
        if not tree:
            return []
        return [self._page._frame_for(i["frame"], parent=i["parent"]) for i in tree[1:] if i["parent"] == tree[0]["frame"]]

    @property
    def name(self):
        if self._element is None:
            return ""
        return self._element.get_attribute("name") or self._element.get_attribute("id") or ""

    @property
    def url(self):
        if self._element is None:
            return self._page.url
        return self.evaluate("() => location.href")

    def is_detached(self):
        if self._element is None:
            return self._page.is_closed()
        return not self._element.evaluate("e => e.isConnected")

    def _doc(self):
        found = self._page._query(_join(self._element.selector, ":root"))
        if not found:
            raise Error("Frame was detached", type="TargetClosed")
        return found[0]

    def evaluate(self, expression, arg=_UNSET):
        if self._element is None:
            return self._page.evaluate(expression, arg)
        return _js_call(self._page, expression, arg, context=self._doc()._id)

    def evaluate_handle(self, expression, arg=_UNSET):
        if self._element is None:
            return self._page.evaluate_handle(expression, arg)
        return _js_call(self._page, expression, arg, context=self._doc()._id, return_handle=True)

    def frame_element(self):
        if self._element is None:
            raise Error("Frame has been detached.", type="Error")
        return self._element

    def content(self):
        return self.evaluate("() => { let s = ''; if (document.doctype) s = new XMLSerializer()"
                             ".serializeToString(document.doctype); return s + document.documentElement.outerHTML; }")

    def title(self):
        return self.evaluate("() => document.title")

    def set_content(self, html, timeout=None, wait_until=None):
        if self._element is None:
            return self._page.set_content(html, timeout=timeout, wait_until=wait_until)
        _js_call(self._page, _SET_CONTENT_JS, {"html": html, "state": wait_until or "load", "timeout": 0},
                 context=self._doc()._id)

    def query_selector(self, selector):
        found = self._page._query(self._sub(selector).selector)
        return found[0] if found else None

    def query_selector_all(self, selector):
        return self._page._query(self._sub(selector).selector)

    def wait_for_selector(self, selector, state=None, timeout=None):
        return self._page._wait_selector(self._sub(selector), state, timeout)

    def eval_on_selector(self, selector, expression, arg=_UNSET, strict=None):
        """Run expression on the first element selector matches in this frame."""
        if self._element is None:
            return self._page.eval_on_selector(selector, expression, arg, strict)
        found = self.query_selector_all(selector)
        if strict and len(found) > 1:
            raise StrictModeViolation("strict mode violation: \"%s\" resolved to %d elements" % (selector, len(found)))
        if not found:
            raise Error("Failed to find element matching selector \"%s\"" % selector, type="Error")
        return found[0].evaluate(expression, arg)

    def eval_on_selector_all(self, selector, expression, arg=_UNSET):
        """Run expression on the list of every element selector matches in this frame."""
        if self._element is None:
            return self._page.eval_on_selector_all(selector, expression, arg)
        return self._sub(selector).evaluate_all(expression, arg)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._element is None:
            return getattr(self._page, name)
        if name in _SELECTOR_SHORTCUTS:
            def shortcut(selector, *args, **kwargs):
                strict = kwargs.pop("strict", False)
                loc = self._sub(selector)
                return getattr(loc if strict else loc.first, _SELECTOR_SHORTCUTS[name])(*args, **kwargs)
            return shortcut
        raise AttributeError("Frame.%s is only available on the main frame in wright" % name)


_SELECTOR_SHORTCUTS = {
    "click": "click", "dblclick": "dblclick", "fill": "fill", "type": "press_sequentially", "press": "press",
    "check": "check", "uncheck": "uncheck", "select_option": "select_option", "hover": "hover", "focus": "focus",
    "inner_text": "inner_text", "text_content": "text_content", "inner_html": "inner_html",
    "input_value": "input_value", "get_attribute": "get_attribute", "is_visible": "is_visible",
    "is_hidden": "is_hidden", "is_enabled": "is_enabled", "is_disabled": "is_disabled", "is_checked": "is_checked",
    "is_editable": "is_editable", "dispatch_event": "dispatch_event", "set_checked": "set_checked",
    "eval_on_selector": None, "tap": "click",
}


# How a node handle prints (str(handle)): its tag and attributes (shortest first), its text when
# short and alone, "…" for element children; a text node as #text=...; line breaks as ↵.
_NODE_PREVIEW_JS = r"""n => {
  const flat = s => s.replace(/\n/g, '\u21b5');
  if (n.nodeType === 3) return '#text=' + flat(n.nodeValue || '');
  if (n.nodeType !== 1) return n.nodeName;
  const tag = n.localName;
  const attrs = Array.from(n.attributes, a => a.value === '' ? ' ' + a.name : ' ' + a.name + '="' + a.value + '"');
  attrs.sort((x, y) => x.length - y.length);
  const open = '<' + tag + attrs.join('');
  if (/^(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)$/.test(tag)) return open + '/>';
  let inner = '\u2026';
  if (!n.firstElementChild) {
    const t = n.textContent || '';
    inner = t.length <= 50 ? flat(t) : flat(t.slice(0, 49)) + '\u2026';
  }
  return open + '>' + inner + '</' + tag + '>';
}"""

class _EventFrame(Frame):
    """A child frame, known by its CDP frame id (from frame events, the frame tree, a request, a handle).

    The page keeps one object per id, so the same frame is the same object everywhere; its <iframe>
    is looked up when first needed. It is detached once its id leaves the page's frame tree.
    """

    def __init__(self, page, frame_id, parent_id=None):
        self._frame_id = frame_id
        self._parent_id = parent_id
        self._parent_main_flag = False
        self._detached = False
        self._attached_seen = False
        self._owner = None
        self._last = {"name": "", "url": ""}
        super().__init__(page, None)

    @property
    def _parent_main(self):
        if self._parent_main_flag:
            return True
        main = self._page.__dict__.get("_main_frame_id")
        return bool(main) and self._parent_id == main

    @_parent_main.setter
    def _parent_main(self, value):
        self._parent_main_flag = value

    @property
    def _element(self):
        if self._owner is None:
            self._check_attached("Frame was detached")
            handle = self._page._call("page.frame_owner", frame=self._frame_id).get("handle")
            self._owner = ElementHandle(self._page, handle)
        return self._owner

    @_element.setter
    def _element(self, value):
        self._owner = value

    def _info(self):
        """This frame's entry of the page's frame tree (None once detached); remembers name and url."""
        if self._detached:
            return None
        for info in self._page._frame_tree():
            if info["frame"] == self._frame_id:
                self._last = info
                if info.get("parent") and not self._parent_id:
                    self._parent_id = info["parent"]
                return info
        self._detached = True
        return None

    def _check_attached(self, message, method=None):
        if self._page.is_closed() or self._info() is None:
            if method:
                message = method + ": " + message
            raise Error(message, type="Error", method=method)

    def __repr__(self):
        if not self._detached and not self._page.is_closed():
            try:
                self._info()
            except Error:
                pass
        return "<Frame name=%s url=%r>" % (self._last.get("name") or "", self._last.get("url") or "")

    def __eq__(self, other):
        if isinstance(other, _EventFrame):
            return other._frame_id == self._frame_id and other._page is self._page
        return False

    def __hash__(self):
        return hash((id(self._page), self._frame_id))

    @property
    def parent_frame(self):
        if not self._parent_id and not self._parent_main:
            self._info()  # the parent is known from the tree (a detached frame keeps the one it had)
        if self._parent_main:
            return self._page.main_frame
        return self._page._frame_for(self._parent_id)

    @property
    def child_frames(self):
        if self._info() is None:
            return []
        return [self._page._frame_for(i["frame"], parent=i["parent"]) for i in self._page._frame_tree()
                if i.get("parent") == self._frame_id]

    @property
    def name(self):
        info = self._info() or self._last
        if info.get("name"):
            return info["name"]
        if self._detached:
            return ""
        try:
            return self._element.get_attribute("id") or ""
        except Error:
            return ""

    @property
    def url(self):
        info = self._info() or self._last
        return info.get("url") or ""

    def is_detached(self):
        return self._info() is None

    def frame_element(self):
        self._check_attached("Frame has been detached.", "Frame.frame_element")
        return self._element

    def _doc(self):
        self._check_attached("Frame was detached")
        return Frame._doc(self)

    def goto(self, url, wait_until=None, timeout=None, referer=None):
        """Navigate this child frame; returns its document's Response (None for about: and data: URLs)."""
        page = self._page
        page._check_referer(url, referer)
        if page._context is not None and page._context._options.get("base_url"):
            url = urllib.parse.urljoin(page._context._options["base_url"], url)
        self._check_attached("Frame was detached", "Frame.goto")
        page._frame_nav_responses().pop(self._frame_id, None)
        result = page._call("page.frame_goto", page._navigation_timeout(timeout, {}), frame=self._frame_id,
                            url=url, wait_until=wait_until, referer=referer or "")
        if re.match(r"(?i)^(about|data):", url):
            return None
        nav = page._frame_nav_responses().get(self._frame_id)
        if nav is not None:
            return nav
        return Response(result.get("url", url), result.get("status"), page)

    def wait_for_load_state(self, state=None, timeout=None):
        """Wait until this frame's document reached state (load, domcontentloaded; networkidle as load)."""
        state = state or "load"
        if state not in ("load", "domcontentloaded", "networkidle", "commit"):
            raise Error("state: expected one of (load|domcontentloaded|networkidle|commit)", type="InvalidParams")
        ready = "['interactive', 'complete']" if state == "domcontentloaded" else "['complete']"
        if state == "commit":
            return
        limit = timeout if timeout is not None else self._page._timeout_ms()

        def check():
            try:
                return self.evaluate("() => %s.includes(document.readyState)" % ready)
            except TargetClosed:
                raise
            except Error:
                self._check_attached("Frame was detached", "Frame.wait_for_load_state")
                return False  # the document is being replaced: ask the next one
        try:
            self._page._poll(check, limit, "waiting for the %s state of the frame" % state)
        except TimeoutError:
            raise TimeoutError("Timeout %dms exceeded.\nwaiting for the %s state of %s" % (limit, state, self.url),
                               method="Frame.wait_for_load_state") from None

    def expect_navigation(self, url=None, wait_until=None, timeout=None):
        """with frame.expect_navigation() as info: <action>; info.value is this frame's new document's Response."""
        return _FrameNavigationWaiter(self, url, wait_until, timeout)

    def wait_for_navigation(self, url=None, wait_until=None, timeout=None):
        with self.expect_navigation(url=url, wait_until=wait_until, timeout=timeout) as info:
            pass
        return info.value

    def wait_for_url(self, url, wait_until=None, timeout=None):
        base = self._page._context._options.get("base_url") if self._page._context is not None else None
        if _url_matches(url, self.url, base):
            return self.wait_for_load_state(wait_until, timeout=timeout)
        with self.expect_navigation(url=url, wait_until=wait_until, timeout=timeout):
            pass


class _FrameNavigationWaiter(_NavFailures, _EventWaiter):
    """expect_navigation of a child frame: its next framenavigated, then its load state."""

    def __init__(self, frame, url, wait_until, timeout):
        page = frame._page
        base = page._context._options.get("base_url") if page._context is not None else None

        def pred(f):
            return f is frame and (url is None or _url_matches(url, f.url, base))
        super().__init__(page, "framenavigated", pred, page._navigation_timeout(timeout, {}), "navigation")
        self._page = page
        self._frame = frame
        self._wait_until = wait_until

    def _frame_matches(self, req):
        return req._frame_id == self._frame._frame_id

    def __enter__(self):
        self._page._frame_nav_responses().pop(self._frame._frame_id, None)
        return super().__enter__()

    def _wait(self):
        started = time.monotonic()
        super()._wait()
        self._raise_failure()
        limit = self._timeout if self._timeout is not None else self._page._timeout_ms()
        left = max(1, int(limit - (time.monotonic() - started) * 1000)) if limit else None
        self._frame.wait_for_load_state(self._wait_until or "load", timeout=left)
        self._raise_failure()
        self._frame_value = self._value
        self._value = self._page._frame_nav_responses().get(self._frame._frame_id)


_ENTER_FRAME = "internal:control=enter-frame"


class FrameLocator:
    """page.frame_locator(selector): locators inside the frame the selector finds."""

    def __init__(self, page, selector):
        self._page = page
        self._selector = selector

    def __repr__(self):
        return "<FrameLocator frame=%r selector=%r>" % (self._page.main_frame, self._selector)

    def locator(self, selector, **kwargs):
        return self._loc().locator(selector, **kwargs)

    def _loc(self):
        # The driver enters the one frame the selector finds (more than one is a strict-mode violation).
        return Locator(self._page, _join(self._selector, _ENTER_FRAME))

    def get_by_role(self, *a, **k):
        return self._loc().get_by_role(*a, **k)

    def get_by_text(self, *a, **k):
        return self._loc().get_by_text(*a, **k)

    def get_by_label(self, *a, **k):
        return self._loc().get_by_label(*a, **k)

    def get_by_placeholder(self, *a, **k):
        return self._loc().get_by_placeholder(*a, **k)

    def get_by_alt_text(self, *a, **k):
        return self._loc().get_by_alt_text(*a, **k)

    def get_by_title(self, *a, **k):
        return self._loc().get_by_title(*a, **k)

    def get_by_test_id(self, *a, **k):
        return self._loc().get_by_test_id(*a, **k)

    def frame_locator(self, selector):
        return FrameLocator(self._page, _join(_join(self._selector, _ENTER_FRAME), selector))

    @property
    def first(self):
        return FrameLocator(self._page, _join(self._selector, "nth=0"))

    @property
    def last(self):
        return FrameLocator(self._page, _join(self._selector, "nth=-1"))

    def nth(self, index):
        return FrameLocator(self._page, _join(self._selector, "nth=%d" % index))

    @property
    def owner(self):
        return Locator(self._page, self._selector)


def _evaluate_all(page, elements, expression, arg=_UNSET):
    return _js_call(page, "(__p) => (%s)(__p[0], __p[1])" % expression,
                    [list(elements), None if arg is _UNSET else arg])


# ---------------------------------------------------------------------------
# expect(): assertions that retry until they hold or their timeout runs out


class _ExpectStrict(Exception):
    pass


_PROBE_JS = r"""(els, q) => {
  const visible = e => {
    if (!e.isConnected) return false;
    const st = getComputedStyle(e);
    if (st.visibility !== 'visible') return false;
    if (st.display === 'contents') return Array.from(e.children).some(visible);
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const disabledNative = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET'];
  const disabled = e => {
    if (disabledNative.includes(e.tagName) && e.disabled) return true;
    if (disabledNative.includes(e.tagName) && e.closest('fieldset[disabled]')) {
      const fs = e.closest('fieldset[disabled]');
      const legend = fs.querySelector(':scope > legend');
      if (!legend || !legend.contains(e)) return true;
    }
    for (let n = e; n; n = n.parentElement) if (n.getAttribute('aria-disabled') === 'true') return true;
    return false;
  };
  const checked = e => {
    if (e.tagName === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio'))
      return e.indeterminate ? 'mixed' : e.checked;
    const a = e.getAttribute('aria-checked');
    if (a === 'true') return true;
    if (a === 'mixed') return 'mixed';
    if (a === 'false') return false;
    return 'error';
  };
  const editable = e => {
    const tags = ['INPUT', 'TEXTAREA', 'SELECT'];
    if (!tags.includes(e.tagName) && !e.isContentEditable && !['textbox', 'searchbox', 'combobox', 'spinbutton', 'checkbox', 'radio', 'gridcell', 'slider', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'listbox', 'grid', 'columnheader', 'rowheader'].includes(e.getAttribute('role') || ''))
      return 'error';
    if (disabled(e)) return false;
    if (e.readOnly) return false;
    if (e.getAttribute('aria-readonly') === 'true') return false;
    return true;
  };
  const text = e => q.inner ? e.innerText : (e.textContent || '');
  // A <label> (or its content) stands for the control it labels, as in actions.
  const control = e => {
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return e;
    const label = e.closest('label');
    return label && label.control ? label.control : e;
  };
  const one = e => {
    switch (q.what) {
      case 'visible': return visible(e);
      case 'enabled': return !disabled(e);
      case 'checked': return checked(e);
      case 'editable': return editable(e);
      case 'focused': { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a === e; }
      case 'empty': return ['INPUT', 'TEXTAREA'].includes(e.tagName) ? !e.value : !(e.textContent || '').trim();
      case 'text': return text(e);
      case 'attribute': return e.getAttribute(q.name);
      case 'class': return e.getAttribute('class') || '';
      case 'css': return getComputedStyle(e).getPropertyValue(q.name) || getComputedStyle(e)[q.name];
      case 'id': return e.id;
      case 'property': return e[q.name];
      case 'value':
        e = control(e);
        if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return {error: 'Not an input element'};
        return e.value;
      case 'values':
        e = control(e);
        if (e.tagName !== 'SELECT' || !e.multiple) return {error: 'Error: Not a select element with a multiple attribute'};
        return Array.from(e.selectedOptions).map(o => o.value);
      case 'viewport': {
        // the share of the element's box inside the viewport (0 for an element with no box)
        const r = e.getBoundingClientRect();
        const w = innerWidth, h = innerHeight;
        if (r.width === 0 || r.height === 0) return 0;
        const iw = Math.max(0, Math.min(r.right, w) - Math.max(r.left, 0));
        const ih = Math.max(0, Math.min(r.bottom, h) - Math.max(r.top, 0));
        return (iw * ih) / (r.width * r.height);
      }
      case 'role': return e.getAttribute('role') || q.implicit(e);
      default: return null;
    }
  };
  if (q.what === 'role') {
    const implicit = {A: e => e.hasAttribute('href') ? 'link' : '', BUTTON: () => 'button', H1: () => 'heading', H2: () => 'heading',
      H3: () => 'heading', H4: () => 'heading', H5: () => 'heading', H6: () => 'heading', UL: () => 'list', OL: () => 'list',
      LI: () => 'listitem', NAV: () => 'navigation', MAIN: () => 'main', TEXTAREA: () => 'textbox', SELECT: e => e.multiple || e.size > 1 ? 'listbox' : 'combobox',
      IMG: e => e.getAttribute('alt') === '' ? 'presentation' : 'img', TABLE: () => 'table', FORM: () => 'form', DIALOG: () => 'dialog',
      INPUT: e => ({checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox'})[e.type] || 'textbox'};
    q.implicit = e => (implicit[e.tagName] || (() => ''))(e);
  }
  if (q.what === 'count') return els.length;
  if (q.all) return els.map(one);
  return {count: els.length, value: els.length ? one(els[0]) : null};
}"""


# A short preview of an element for call logs: <input/>, <div id="a">Text</div>.
_PREVIEW_JS = r"""els => els.map(e => {
  const attrs = Array.from(e.attributes).slice(0, 5).map(a => a.value === '' ? ' ' + a.name : ' ' + a.name + '="' + a.value.slice(0, 50) + '"').join('');
  const tag = e.tagName.toLowerCase();
  const text = (e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 50);
  if (!text && !e.children.length) return '<' + tag + attrs + '/>';
  return '<' + tag + attrs + '>' + (e.children.length && !text ? '…' : text) + '</' + tag + '>';
})"""


def _normalize_ws(text):
    return " ".join(str(text).split())


def _text_matches(expected, actual, ignore_case, substring, normalize=True):
    if actual is None:
        return False
    if isinstance(expected, re.Pattern):
        # ignore_case None keeps the pattern's own flags; True or False overrides its IGNORECASE.
        flags = expected.flags
        if ignore_case is not None:
            flags = (flags | re.IGNORECASE) if ignore_case else (flags & ~re.IGNORECASE)
        return re.search(expected.pattern, actual, flags) is not None
    exp, act = str(expected), actual
    if normalize:
        exp, act = _normalize_ws(exp), _normalize_ws(act)
    if ignore_case:
        exp, act = exp.lower(), act.lower()
    return exp in act if substring else exp == act


def _short_number(x):
    """A ratio as people write it: 1, 0.25, 0.333."""
    return ("%.3f" % x).rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def _fmt_expected(expected):
    if isinstance(expected, re.Pattern):
        return "pattern '%s'" % expected.pattern
    if isinstance(expected, (list, tuple)):
        return "'%s'" % [e.pattern if isinstance(e, re.Pattern) else e for e in expected]
    return "'%s'" % (expected,)


# ---- ARIA snapshot templates (to_match_aria_snapshot) ----------------------
#
# Both the snapshot taken and the template are YAML lists of nodes:
#   - role "name" [attr] [attr=value]: text        (or a /regex/ for the name or text)
#   - text: some text
#   - /url: value                                  (a property of the parent)
#   - /children: contain | equal | deep-equal      (how the parent's children must match)
# A template matches when some node of the snapshot (or the snapshot's root) matches it: its role,
# the name and attributes it gives, its properties, and its children in order (by default a
# subsequence of the node's children; "equal" asks for exactly them, "deep-equal" at every depth).

_ARIA_BOOL_ATTRS = ("checked", "disabled", "expanded", "pressed", "selected", "active")


class _AriaNode:
    __slots__ = ("role", "name", "attrs", "props", "kids", "mode", "text")

    def __init__(self, role=None, name=None, text=None):
        self.role, self.name, self.text = role, name, text
        self.attrs, self.props, self.kids, self.mode = {}, {}, [], None


def _yaml_scalar(s):
    """A YAML flow scalar as this format writes it: "json-like", 'single' or plain."""
    s = s.strip()
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        try:
            return json.loads(s)
        except ValueError:
            return s[1:-1]
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        return s[1:-1].replace("''", "'")
    return s


def _aria_split_item(rest):
    """Split a list item's text into (key, value or None when there is no colon)."""
    if rest[:1] in ("'", '"'):
        q = rest[0]
        i = 1
        while i < len(rest):
            if q == '"' and rest[i] == "\\":
                i += 2
                continue
            if rest[i] == q:
                if q == "'" and rest[i + 1:i + 2] == "'":
                    i += 2
                    continue
                break
            i += 1
        key, tail = _yaml_scalar(rest[:i + 1]), rest[i + 1:].strip()
        if tail.startswith(":"):
            return key, tail[1:].strip()
        return key, None
    inside = None
    i = 0
    while i < len(rest):
        c = rest[i]
        if inside:
            if c == "\\":
                i += 2
                continue
            if c == inside:
                inside = None
        elif c in ('"', "/") and i > 0 and rest[i - 1] == " ":
            inside = c
        elif c == ":" and (i + 1 == len(rest) or rest[i + 1] == " "):
            return rest[:i].strip(), rest[i + 1:].strip()
        i += 1
    return rest.strip(), None


def _aria_text_value(raw, template):
    """A text or property value: in a template, /.../ is a pattern (also compared as written)."""
    value = _yaml_scalar(raw)
    if template and len(value) >= 2 and value[0] == "/" and value[-1] == "/":
        try:
            return (re.compile(value[1:-1]), value)
        except re.error:
            return value
    return value


def _aria_parse_key(key, template):
    """role "name" [attr] [attr=value] -> a node (name may be a pattern in a template)."""
    m = re.match(r"\s*([A-Za-z][\w-]*)\s*", key)
    if not m:
        raise Error("aria snapshot: cannot read %r (expected a role)" % key)
    node = _AriaNode(role=m.group(1))
    rest = key[m.end():]
    if rest.startswith('"'):
        i = 1
        while i < len(rest) and rest[i] != '"':
            i += 2 if rest[i] == "\\" else 1
        node.name = _yaml_scalar(rest[:i + 1])
        rest = rest[i + 1:]
    elif rest.startswith("/") and template:
        i = 1
        while i < len(rest) and rest[i] != "/":
            i += 2 if rest[i] == "\\" else 1
        try:
            node.name = re.compile(rest[1:i])
        except re.error as exc:
            raise Error("aria snapshot: bad pattern %r: %s" % (rest[:i + 1], exc)) from None
        rest = rest[i + 1:]
    for am in re.finditer(r"\[\s*([\w-]+)\s*(?:=\s*([^\]]*?)\s*)?\]", rest):
        node.attrs[am.group(1)] = "true" if am.group(2) is None else am.group(2)
    return node


def _aria_parse(text, template=False):
    """Parse snapshot YAML into a root node whose kids are the top-level items."""
    root = _AriaNode(role="fragment")
    stack = [(-1, root)]
    for raw_line in str(text).split("\n"):
        if not raw_line.strip():
            continue
        indent = len(raw_line) - len(raw_line.lstrip())
        body = raw_line.strip()
        if not body.startswith("-"):
            raise Error("aria snapshot: expected a list item (\"- ...\"), got %r" % body)
        body = body[1:].strip()
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        key, value = _aria_split_item(body)
        if key == "text":
            parent.kids.append(_AriaNode(text=_aria_text_value(value or "", template)))
            continue
        if key.startswith("/"):
            if key == "/children":
                parent.mode = (value or "").strip()
            else:
                parent.props[key[1:]] = _aria_text_value(value or "", template)
            continue
        node = _aria_parse_key(key, template)
        if value:
            node.kids.append(_AriaNode(text=_aria_text_value(value, template)))
        parent.kids.append(node)
        stack.append((indent, node))
    return root


def _aria_text_matches(actual, want):
    if want is None or want == "":
        return True
    if actual is None:
        return False
    actual = _normalize_ws(actual)
    if isinstance(want, tuple):
        pattern, raw = want
        return actual == raw or pattern.search(actual) is not None
    if isinstance(want, re.Pattern):
        return want.search(actual) is not None
    return actual == _normalize_ws(want)


def _aria_node_matches(node, tmpl, deep):
    if tmpl.role is None:
        return node.role is None and _aria_text_matches(node.text, tmpl.text)
    if node.role is None or (tmpl.role != "fragment" and tmpl.role != node.role):
        return False
    for attr, want in tmpl.attrs.items():
        have = node.attrs.get(attr, "false" if attr in _ARIA_BOOL_ATTRS else None)
        if have != want:
            return False
    if tmpl.name is not None and not _aria_text_matches(node.name or "", tmpl.name):
        return False
    for prop, want in tmpl.props.items():
        if not _aria_text_matches(node.props.get(prop), want):
            return False
    mode = tmpl.mode or ("deep-equal" if deep else "contain")
    if mode == "contain":
        return _aria_contains(node.kids, tmpl.kids)
    if mode in ("equal", "deep-equal"):
        deeper = mode == "deep-equal"
        return len(node.kids) == len(tmpl.kids) and all(
            _aria_node_matches(n, t, deeper) for n, t in zip(node.kids, tmpl.kids))
    raise Error("aria snapshot: /children must be contain, equal or deep-equal, not %r" % tmpl.mode)


def _aria_contains(kids, wanted):
    i = 0
    for t in wanted:
        while i < len(kids) and not _aria_node_matches(kids[i], t, False):
            i += 1
        if i == len(kids):
            return False
        i += 1
    return True


def _aria_tree_matches(root, tmpl):
    """Whether some node of the snapshot tree (the root included) matches the template."""
    target = tmpl.kids[0] if len(tmpl.kids) == 1 and tmpl.mode is None else tmpl
    todo = [root]
    while todo:
        node = todo.pop()
        if _aria_node_matches(node, target, False):
            return True
        todo.extend(k for k in node.kids if k.role is not None)
        if target.role is None and any(_aria_node_matches(k, target, False) for k in node.kids):
            return True
    return False


def _dedent_snapshot(text):
    lines = [line for line in str(text).split("\n") if line.strip()]
    cut = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return "\n".join(line[cut:] for line in lines)


class _AriaAssertions:
    """to_match_aria_snapshot for locators and pages."""

    def _aria_locator(self):
        return self._actual.locator("body") if isinstance(self._actual, Page) else self._actual

    def to_match_aria_snapshot(self, expected, timeout=None):
        template = _aria_parse(expected, template=True)
        loc = self._aria_locator()
        state = {}

        def check():
            try:
                snap = loc.aria_snapshot(timeout=timeout or _Assertions._default_timeout)
            except TimeoutError:
                # Not there (or not rendered) in time: the assertion fails, as Playwright's does.
                return False, state.get("snap", "")
            state["snap"] = snap
            return _aria_tree_matches(_aria_parse(snap), template), snap

        subject = "Page" if isinstance(self._actual, Page) else "Locator"
        try:
            self._retry("to_match_aria_snapshot", check, "to match Aria snapshot", timeout=timeout, subject=subject)
        except AssertionError as exc:
            raise AssertionError("%s\nExpected:\n%s\nReceived:\n%s" % (
                exc, _dedent_snapshot(expected), state.get("snap", ""))) from None

    def not_to_match_aria_snapshot(self, expected, timeout=None):
        self._not.to_match_aria_snapshot(expected, timeout)


class _Assertions:
    _default_timeout = 5000

    def __init__(self, actual, message=None, negated=False):
        self._actual = actual
        self._message = message
        self._negated = negated

    @property
    def _not(self):
        return type(self)(self._actual, self._message, not self._negated)

    def _retry(self, name, check, describe, expected=_UNSET, timeout=None, subject="Locator"):
        """Poll check() -> (ok, actual) until ok != negated, else raise AssertionError."""
        limit = timeout if timeout is not None else _Assertions._default_timeout
        deadline = time.monotonic() + limit / 1000.0
        actual = None
        while True:
            settled = True
            try:
                _locator_handlers_checkpoint(self._actual, deadline)
                ok, actual = check()
            except _ExpectStrict as exc:
                raise Error(str(exc), type="StrictModeViolation") from None
            except Error as exc:
                if isinstance(exc, (TargetClosed, TimeoutError)):
                    raise
                # A navigation in progress (a click that loads the next page)
                # is what assertions wait through, as Playwright's do.
                if "the page navigated while" not in exc.message or time.monotonic() >= deadline:
                    raise AssertionError(exc.message) from None
                settled = False
            if settled and bool(ok) != self._negated:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05 if limit > 200 else 0.01)
        verb = ("not " if self._negated else "") + describe
        if self._message:
            text = self._message
            if expected is not _UNSET:
                text += "\nExpected value: %s" % _fmt_expected(expected)
        else:
            text = "%s expected %s" % (subject, verb)
            if expected is not _UNSET:
                text += " %s" % _fmt_expected(expected)
        text += "\nActual value: %s" % (actual,)
        text += "\nCall log:\n  - Expect \"%s\" with timeout %sms" % (name, limit)
        if subject == "Locator":
            text += "\n  - waiting for %s" % self._actual._describe()
            try:
                previews = self._actual.evaluate_all(_PREVIEW_JS)
            except Error:
                previews = []
            if len(previews) == 1:
                text += "\n  - locator resolved to %s" % previews[0]
            if isinstance(actual, str) and not actual.startswith("<element"):
                text += "\n  - unexpected value \"%s\"" % actual
            if name != "to_match_aria_snapshot":  # that one shows the snapshot it received already
                text += self._aria_section()
        raise AssertionError(text)

    def _aria_section(self):
        """The page's ARIA snapshot, for a failed locator assertion: what the page holds instead."""
        try:
            snap = self._actual.page.locator("body").aria_snapshot(max_chars=4000, timeout=1000)
        except Error:
            return ""
        return "\nAria snapshot:\n" + snap if snap.strip() else ""


class PageAssertions(_AriaAssertions, _Assertions):
    def to_have_title(self, title_or_reg_exp, timeout=None):
        self._retry("to_have_title", lambda: (lambda t: (_text_matches(title_or_reg_exp, t, None, False), t))(
            self._actual.title()), "to be", title_or_reg_exp, timeout, "Page title")

    def not_to_have_title(self, title_or_reg_exp, timeout=None):
        self._not.to_have_title(title_or_reg_exp, timeout)

    def to_have_url(self, url_or_reg_exp, timeout=None, ignore_case=None):
        page = self._actual
        expected = url_or_reg_exp
        base = page.context._options.get("base_url") if page._context is not None else None
        if isinstance(expected, str) and base:
            expected = urllib.parse.urljoin(base, expected)
        self._retry("to_have_url", lambda: (lambda u: (_text_matches(expected, u, ignore_case, False, False), u))(
            page.url), "to be", expected, timeout, "Page URL")

    def not_to_have_url(self, url_or_reg_exp, timeout=None, ignore_case=None):
        self._not.to_have_url(url_or_reg_exp, timeout, ignore_case)


class APIResponseAssertions(_Assertions):
    def to_be_ok(self):
        resp = self._actual
        if bool(resp.ok) == self._negated:
            what = "not to be OK" if self._negated else "to be OK"
            lines = ["%s\nResponse status expected %s\nActual: %s %s" % (
                self._message or "Response", what, resp.status, resp.url)]
            method = getattr(resp, "_method", None) or getattr(getattr(resp, "request", None), "method", "GET")
            lines.append("\u2192 %s %s" % (method, resp.url))
            lines.append("\u2190 %s %s" % (resp.status, resp.status_text))
            ctype = (resp.headers.get("content-type") or "") if isinstance(resp.headers, dict) else ""
            if not self._negated and re.match(r"^(text/|application/(json|xml|javascript))", ctype):
                try:
                    lines.append("Response Text:\n" + resp.text()[:1000])
                except Error:
                    pass
            raise AssertionError("\n".join(lines))

    def not_to_be_ok(self):
        self._not.to_be_ok()


class LocatorAssertions(_AriaAssertions, _Assertions):
    def _probe(self, what, **q):
        q["what"] = what
        return self._actual.evaluate_all(_PROBE_JS, q)

    def _single(self, what, **q):
        r = self._probe(what, **q)
        if r["count"] > 1:
            raise _ExpectStrict("strict mode violation: %s resolved to %d elements" % (
                self._actual._describe(), r["count"]))
        return r

    def _state(self, name, what, want, describe, timeout, absent=False):
        def check():
            r = self._single(what)
            if r["count"] == 0:
                return absent, "<element(s) not found>"
            v = r["value"]
            if v == "error":
                raise Error("Not a checkbox or radio button", type="Error")
            return v == want, v
        self._retry(name, check, describe, timeout=timeout)

    def to_be_attached(self, attached=None, timeout=None):
        want = attached is None or attached

        def check():
            n = self._probe("count")
            return (n >= 1) == want, "attached" if n else "detached"
        self._retry("to_be_attached", check, "to be attached" if want else "to be detached", timeout=timeout)

    def to_be_checked(self, timeout=None, checked=None, indeterminate=None):
        if checked is not None and indeterminate:
            # A failed assertion, as in Playwright (not a retry: no page state can satisfy it).
            raise AssertionError("Locator expected to be %s\nCan't assert indeterminate and checked at the same "
                                 "time: pass either checked= or indeterminate=True" % (
                                     "checked" if checked else "unchecked"))
        want = "mixed" if indeterminate else (checked is None or checked)
        desc = "to be indeterminate" if indeterminate else ("to be checked" if want is True else "to be unchecked")
        self._state("to_be_checked", "checked", want, desc, timeout)

    def to_be_disabled(self, timeout=None):
        self._state("to_be_disabled", "enabled", False, "to be disabled", timeout)

    def to_be_enabled(self, enabled=None, timeout=None):
        want = enabled is None or enabled
        self._state("to_be_enabled", "enabled", want, "to be enabled" if want else "to be disabled", timeout)

    def to_be_editable(self, editable=None, timeout=None):
        want = editable is None or editable

        def check():
            r = self._single("editable")
            if r["count"] == 0:
                return False, "<element(s) not found>"
            if r["value"] == "error":
                raise Error("Element is not an <input>, <textarea>, <select> or [contenteditable] and does not "
                            "have a role allowing [aria-readonly]", type="Error")
            return r["value"] == want, r["value"]
        self._retry("to_be_editable", check, "to be editable" if want else "to be readonly", timeout=timeout)

    def to_be_empty(self, timeout=None):
        self._state("to_be_empty", "empty", True, "to be empty", timeout)

    def to_be_focused(self, timeout=None):
        self._state("to_be_focused", "focused", True, "to be focused", timeout)

    def to_be_visible(self, visible=None, timeout=None):
        want = visible is None or visible

        def check():
            r = self._single("visible")
            v = bool(r["count"]) and r["value"]
            return v == want, "visible" if v else "hidden"
        self._retry("to_be_visible", check, "to be visible" if want else "to be hidden", timeout=timeout)

    def to_be_hidden(self, timeout=None):
        def check():
            r = self._single("visible")
            v = bool(r["count"]) and r["value"]
            return not v, "visible" if v else "hidden"
        self._retry("to_be_hidden", check, "to be hidden", timeout=timeout)

    def to_be_in_viewport(self, ratio=None, timeout=None):
        """The element intersects the viewport; with ratio, at least that share of it is inside."""
        def check():
            r = self._single("viewport")
            if r["count"] == 0:
                return False, "<element(s) not found>"
            seen = r["value"]
            ok = seen >= ratio if ratio else seen > 0
            return ok, "viewport ratio %s" % _short_number(seen)
        self._retry("to_be_in_viewport", check, "to be in viewport", timeout=timeout)

    def _texts(self, name, expected, substring, use_inner_text, ignore_case, timeout, describe):
        if isinstance(expected, (list, tuple)):
            def check():
                texts = self._probe("text", all=True, inner=bool(use_inner_text))
                if substring:
                    # each expected item in order, in some element
                    i = 0
                    for t in texts:
                        if i < len(expected) and _text_matches(expected[i], t, ignore_case, True):
                            i += 1
                    return i == len(expected), texts
                ok = len(texts) == len(expected) and all(
                    _text_matches(e, t, ignore_case, False) for e, t in zip(expected, texts))
                return ok, texts
        else:
            def check():
                r = self._single("text", inner=bool(use_inner_text))
                if r["count"] == 0:
                    return False, "<element(s) not found>"
                return _text_matches(expected, r["value"], ignore_case, substring), r["value"]
        self._retry(name, check, describe, expected, timeout)

    def to_have_text(self, expected, use_inner_text=None, timeout=None, ignore_case=None):
        self._texts("to_have_text", expected, False, use_inner_text, ignore_case, timeout, "to have text")

    def to_contain_text(self, expected, use_inner_text=None, timeout=None, ignore_case=None):
        self._texts("to_contain_text", expected, True, use_inner_text, ignore_case, timeout, "to contain text")

    def _value(self, assertion, what, expected, describe, timeout, match, **q):
        def check():
            r = self._single(what, **q)
            if r["count"] == 0:
                return False, "<element(s) not found>"
            v = r["value"]
            if isinstance(v, dict) and "error" in v:
                raise Error(v["error"], type="Error")
            return match(v), v
        self._retry(assertion, check, describe, expected, timeout)

    def to_have_attribute(self, name, value=None, ignore_case=None, timeout=None):
        if value is None:
            self._value("to_have_attribute", "attribute", _UNSET, "to have attribute", timeout,
                        lambda v: v is not None, name=name)
            return
        self._value("to_have_attribute", "attribute", value, "to have attribute", timeout,
                    lambda v: _text_matches(value, v, ignore_case, False, False), name=name)

    def to_have_class(self, expected, timeout=None):
        if isinstance(expected, (list, tuple)):
            def check():
                classes = self._probe("class", all=True)
                ok = len(classes) == len(expected) and all(
                    _text_matches(e, c, None, False) for e, c in zip(expected, classes))
                return ok, classes
            self._retry("to_have_class", check, "to have class", expected, timeout)
            return
        self._value("to_have_class", "class", expected, "to have class", timeout,
                    lambda v: _text_matches(expected, v, None, False))

    def to_contain_class(self, expected, timeout=None):
        if isinstance(expected, (list, tuple)):
            # One class string per element, in order: every element must carry all the classes of its string.
            def check():
                classes = self._probe("class", all=True)
                ok = len(classes) == len(expected) and all(
                    all(c in have.split() for c in str(want).split()) for want, have in zip(expected, classes))
                return ok, classes
            self._retry("to_contain_class", check, "to contain class", expected, timeout)
            return
        want = expected.split() if isinstance(expected, str) else []
        self._value("to_contain_class", "class", expected, "to contain class", timeout,
                    lambda v: all(c in v.split() for c in want))

    def to_have_count(self, count, timeout=None):
        def check():
            n = self._probe("count")
            return n == count, n
        self._retry("to_have_count", check, "to have count", count, timeout)

    def to_have_css(self, name, value, timeout=None):
        self._value("to_have_css", "css", value, "to have CSS", timeout,
                    lambda v: _text_matches(value, v, None, False, False), name=name)

    def to_have_id(self, id, timeout=None):
        self._value("to_have_id", "id", id, "to have id", timeout, lambda v: _text_matches(id, v, None, False, False))

    def to_have_js_property(self, name, value, timeout=None):
        # Compared in their transferred form, as the page would see them: a naive datetime is UTC there.
        want = _encode(value, [])
        self._value("to_have_js_property", "property", value, "to have JS Property", timeout,
                    lambda v: _encode(v, []) == want, name=name)

    def to_have_value(self, value, timeout=None):
        self._value("to_have_value", "value", value, "to have Value", timeout,
                    lambda v: _text_matches(value, v, None, False, False))

    def to_have_values(self, values, timeout=None):
        def match(v):
            return len(v) == len(values) and all(_text_matches(e, a, None, False, False) for e, a in zip(values, v))
        self._value("to_have_values", "values", list(values), "to have Values", timeout, match)

    def to_have_role(self, role, timeout=None):
        if not isinstance(role, str):
            raise Error('"role" argument in to_have_role must be a string', type="InvalidParams")
        self._value("to_have_role", "role", role, "to have role", timeout, lambda v: v == role)

    def to_have_accessible_name(self, name, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("name")
            return _text_matches(name, actual, ignore_case, False), actual
        self._retry("to_have_accessible_name", check, "to have accessible name", name, timeout)

    def to_have_accessible_description(self, description, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("description")
            return _text_matches(description, actual, ignore_case, False), actual
        self._retry("to_have_accessible_description", check, "to have accessible description", description, timeout)

    def to_have_accessible_error_message(self, error_message, ignore_case=None, timeout=None):
        def check():
            actual = self._actual._accessible("errormessage")
            return _text_matches(error_message, actual, ignore_case, False), actual
        self._retry("to_have_accessible_error_message", check, "to have accessible error message", error_message,
                    timeout)


def _negations(cls):
    for name in list(vars(cls)):
        if name.startswith("to_") and not hasattr(cls, "not_" + name):
            def make(n):
                def negated(self, *args, **kwargs):
                    return getattr(self._not, n)(*args, **kwargs)
                negated.__name__ = "not_" + n
                return negated
            setattr(cls, "not_" + name, make(name))
    return cls


_negations(LocatorAssertions)


class _Expect:
    """expect(page | locator | response, message=None): Playwright's retrying assertions."""

    def __call__(self, actual, message=None):
        if isinstance(actual, Page):
            return PageAssertions(actual, message)
        if isinstance(actual, Locator):
            return LocatorAssertions(actual, message)
        if hasattr(actual, "status") and hasattr(actual, "ok"):
            return APIResponseAssertions(actual, message)
        raise ValueError("expect() takes a Page, a Locator or a Response, not %s" % type(actual).__name__)

    def soft(self, actual, message=None):
        """A soft assertion: a failure is collected by the enclosing soft-assertion scope (which a
        test runner's plugin sets up) instead of ending the script. Outside such a scope it is an error."""
        if _soft_errors.get() is None:
            raise RuntimeError("expect.soft() needs a soft-assertion scope, which a test runner plugin "
                               "(such as pytest-playwright) sets up; use expect() in scripts")
        return _SoftAssertions(self(actual, message))

    def set_options(self, timeout=_UNSET):
        if timeout is not _UNSET:
            _Assertions._default_timeout = 5000 if timeout is None else timeout


expect = _Expect()

# The failures soft assertions collect; None outside a scope.
_soft_errors = contextvars.ContextVar("wright_soft_errors", default=None)


@contextlib.contextmanager
def _soft_scope():
    """Collect the failures of expect.soft() inside it; yields the list."""
    errors = []
    token = _soft_errors.set(errors)
    try:
        yield errors
    finally:
        _soft_errors.reset(token)


class _SoftAssertions:
    """Wraps an assertions object: a failing assertion is recorded, not raised."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if not callable(attr) or not (name.startswith("to_") or name.startswith("not_to_")):
            return attr

        def soft(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except AssertionError as err:
                errors = _soft_errors.get()
                if errors is None:
                    raise
                errors.append(err)
        return soft


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
