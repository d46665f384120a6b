"""The transport: one JSON-RPC channel to `wright driver`, over its stdio pipe or a Unix socket. Under the sync
API one request is in flight at a time and driver notifications are dispatched while a call waits; a transport
made for playwright.async_api is shared by concurrent calls from its worker threads (one dispatcher thread runs
the events and hands each call its answer). It also owns the driver and Chromium processes it started and ends
them at exit or on SIGTERM.
"""

import atexit
import collections
import itertools
import json
import os
import queue
import signal
import sys
import threading
import time

from . import _errors
from ._errors import Error, InvalidParams, TargetClosed, TimeoutError, _error_from
from ._lazy import lazy

subprocess = lazy("subprocess")
shutil = lazy("shutil")


_live = set()  # transports that own a driver process, ended at exit or SIGTERM


_live_lock = threading.Lock()


_atexit_installed = False


_sigterm_installed = False


# hub: set on the worker threads of playwright.async_api; a transport made on one of them is shared by concurrent
# calls (see _Transport._multi). dispatcher: set on a shared transport's dispatcher thread, the transport it runs.
_tls = threading.local()


class _Cancel:
    """The token of one async API call (set as _tls.cancel on its worker thread): cancel() asks the driver to end
    the call's requests in flight (rpc.cancel) and stops their waits, so a cancelled task leaves no work behind."""

    __slots__ = ("cancelled", "flight", "lock")

    def __init__(self):
        self.cancelled = False
        self.flight = {}  # rid -> (transport, slot) of the requests this call waits for
        self.lock = threading.Lock()

    def cancel(self):
        with self.lock:
            self.cancelled = True
            flight = list(self.flight.items())
        for rid, (transport, slot) in flight:
            try:
                transport.send("rpc.cancel", {"id": rid})
            except Error:
                pass  # the connection is gone: nothing runs any more
            slot.event.set()


class _Slot:
    """Where a shared transport's dispatcher leaves the answer to one call made from another thread."""

    __slots__ = ("event", "msg")

    def __init__(self):
        self.event = threading.Event()
        self.msg = None  # None once set: the channel ended before the answer came

    def deliver(self, msg):
        self.msg = msg
        self.event.set()


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
        self._handler_error = None  # the first route handler failure, raised by the next call
        self._listener_error = None  # the first screencast callback failure, raised by the next call or wait
        self._stash = {}  # answers that arrived while a nested call waited, by id
        self._waiting = set()  # ids of calls in flight on this thread's stack
        self.on_notify = None  # called with (method, params) for each driver event
        # Shared (made for playwright.async_api): calls from many threads are in flight at once, each waiting on
        # its _Slot; one dispatcher thread reads the inbox in order, runs the events and hands out the answers,
        # so an answer is seen only after the events the driver sent before it. The sync API never sets a hub:
        # its calls read the inbox themselves, as they always did.
        self._hub = getattr(_tls, "hub", None)
        self._send_lock = None
        if self._hub is not None:
            self._send_lock = threading.Lock()
            self._slots = {}  # id -> _Slot of calls made from threads other than the dispatcher
            self._news = threading.Condition()  # notified after each message the dispatcher handled
            self._deferred = collections.deque()  # events read while the dispatcher waited on a callback
            self._ended = False  # the dispatcher saw the end of the channel
            self._dispatcher = threading.Thread(target=self._dispatch_loop, name="wright-driver-dispatch",
                                                daemon=True)
            self._dispatcher.start()

    def _send_locked(self, data):
        if self._send_lock is None:
            self._send(data)
            return
        with self._send_lock:
            self._send(data)

    def _off_dispatcher(self):
        """Whether this thread is not a shared transport's dispatcher (its calls then wait on a slot)."""
        return self._hub is not None and getattr(_tls, "dispatcher", None) is not self

    def _dispatch_loop(self):
        _tls.dispatcher = self
        try:
            while True:
                if self._deferred:
                    kind, msg = "msg", self._deferred.popleft()
                else:
                    kind, msg = self._inbox.get()
                if kind == "eof":
                    self._inbox.put(("eof", None))
                    return
                try:
                    self._route(msg)
                    self._raise_listener_error()
                except Exception as exc:  # noqa: BLE001 - one event's failure must not stop the others
                    _errors.print_exception(exc)
                with self._news:
                    self._news.notify_all()
        finally:
            self._ended = True
            for slot in list(self._slots.values()):
                if not slot.event.is_set():
                    slot.deliver(None)
            with self._news:
                self._news.notify_all()

    def _aside(self, fn, *args):
        """Run fn(*args) now, or on a thread of its own on a shared transport's dispatcher: a route, binding
        or locator handler may await the event loop for long (a slow route), and the events of other pages
        must go on meanwhile. The thread ends with fn."""
        if self._hub is None or getattr(_tls, "dispatcher", None) is not self:
            fn(*args)
            return
        threading.Thread(target=fn, args=args, name="wright-handler", daemon=True).start()

    def _wait_dispatching(self, done):
        """On the dispatcher thread: wait until done() while still handing out answers (a callback run on
        the event loop may await calls of its own); events that come meanwhile are run after it."""
        while not done():
            try:
                kind, msg = self._inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if kind == "eof":
                self._inbox.put(("eof", None))
                return
            if msg.get("id") is None and "method" in msg:
                self._deferred.append(msg)
            else:
                self._route(msg)

    def _call_shared(self, method, data, rid, guard_s):
        if self._gone:
            raise TargetClosed("%s: %s" % (method, self._gone), method=method)
        with self._state_lock:
            pending, self._handler_error = self._handler_error, None
        if pending is not None:
            raise pending
        self._raise_listener_error()
        slot = _Slot()
        self._slots[rid] = slot
        token = getattr(_tls, "cancel", None)
        if token is not None:
            with token.lock:
                if token.cancelled:
                    raise Error("%s: the call was cancelled" % method, type="Cancelled", method=method)
                token.flight[rid] = (self, slot)
        try:
            try:
                self._send_locked(data)
            except (OSError, ValueError):
                raise self._died(method) from None
            deadline = None if guard_s is None else time.monotonic() + guard_s
            while not slot.event.wait(0.2):
                if self._ended:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(
                        "%s: the driver did not answer within %.0f s; it may be stuck. Close the browser "
                        "and launch a new one." % (method, guard_s), method=method)
            if token is not None and token.cancelled:
                raise Error("%s: the call was cancelled" % method, type="Cancelled", method=method)
            if slot.msg is None:
                raise self._died(method)
            return _result(slot.msg, method)
        finally:
            self._slots.pop(rid, None)
            if token is not None:
                token.flight.pop(rid, None)

    def _pump_shared(self, seconds, until):
        deadline = time.monotonic() + max(0.0, seconds)
        token = getattr(_tls, "cancel", None)
        with self._news:
            while True:
                if until is not None and until():
                    return True
                if token is not None and token.cancelled:
                    raise Error("the wait was cancelled", type="Cancelled")
                left = deadline - time.monotonic()
                if left <= 0 or self._gone or self._ended:
                    return bool(until and until())
                self._news.wait(min(left, 0.1))
                self._raise_listener_error()

    # subclasses: _send(bytes), _peer_exited() -> bool, _wait_reader(), _death_message(method), shutdown()

    def call(self, method, params, guard_s=None):
        rid = next(self._ids)
        data = _encode_request(rid, method, params)
        if self._hub is not None and self._off_dispatcher():
            return self._call_shared(method, data, rid, guard_s)
        with self._call_lock:
            if self._gone:
                raise TargetClosed("%s: %s" % (method, self._gone), method=method)
            pending, self._handler_error = self._handler_error, None
            if pending is not None:
                raise pending  # a route handler failed during an earlier call: the script's next call says so
            self._raise_listener_error()
            try:
                self._send_locked(data)
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
        if self._hub is not None and self._off_dispatcher():
            return self._pump_shared(seconds, until)
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
                self._raise_listener_error()

    def _raise_listener_error(self):
        pending, self._listener_error = self._listener_error, None
        if pending is not None:
            raise pending  # a frame callback failed: the script's next call or wait says so, as in Playwright

    def _route(self, msg):
        """An event is dispatched; an answer to a call further up the stack is kept for it."""
        if msg.get("id") is None and "method" in msg:
            self._dispatch(msg)
        elif msg.get("id") in self._waiting:
            self._stash[msg["id"]] = msg
        elif self._hub is not None:
            slot = self._slots.get(msg.get("id"))
            if slot is not None:
                slot.deliver(msg)

    def _dispatch(self, msg):
        handler = self.on_notify
        if handler is None:
            return
        params = msg.get("params")
        try:
            handler(msg["method"], params if isinstance(params, dict) else {})
        except Exception as exc:  # noqa: BLE001 - a listener's error must not break the call that ran it
            _errors.print_exception(exc)

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

    def send(self, method, params):
        """A call no one waits for: its answer is dropped when it comes (_route keeps only awaited ones).

        An event handler answering the driver uses it, so a page that fires many events at once does not
        nest one wait (and one handler) per event on the stack.
        """
        data = _encode_request(next(self._ids), method, params)
        if self._hub is not None:
            if self._gone:
                raise TargetClosed("%s: %s" % (method, self._gone), method=method)
            try:
                self._send_locked(data)
            except (OSError, ValueError):
                raise self._died(method) from None
            return
        with self._call_lock:
            if self._gone:
                raise TargetClosed("%s: %s" % (method, self._gone), method=method)
            try:
                self._send(data)
            except (OSError, ValueError):
                raise self._died(method) from None

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
                self._gone = "Target page, context or browser has been closed (the browser was closed)"
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
                self._gone = "Target page, context or browser has been closed (this connection was closed)"
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
