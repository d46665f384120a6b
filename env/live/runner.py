"""wright live-mode runner: runs the model's python_code steps in one persistent namespace.

Started by wright (env/live) as `python3 -u runner.py REQ_FD ANS_FD WORKSPACE TASK_JSON`. Requests arrive
as JSON lines on REQ_FD and answers leave on ANS_FD, a private pipe pair: the code's own stdout and
stderr (this process's fd 1 and 2) never carry protocol. Requests:

  {"op": "bind", "id": N, "socket": PATH, "page": "p1", "context": ID}   (re)connect to the driver, bind browser and page (in its context)
  {"op": "exec", "id": N, "file": ABS_PATH, "code": "...", "marker": "..."}
  {"op": "check", "id": N, "source": BASE64}   parse a step's code, run nothing: {"message": ""} or why not

After a step, "marker" is written to fd 1, so wright knows it has read all of the step's output. A SIGINT
interrupts a running step with KeyboardInterrupt; between steps it is ignored.

A step whose code has a top-level `await` runs on the runner's one event loop, with `browser` and `page` bound
to playwright.async_api's objects of the same live page (over a second connection to the driver, made at the
first such step); any other step runs as plain code with the sync objects. The namespace is the same for both:
after each step `page` and `browser` name the sync objects of whatever page the step left `page` on.
"""

import ast
import base64
import builtins
import json
import os
import signal
import sys

# inspect, shutil, subprocess and traceback are imported where they are
# used, on first use: the runner lives as long as its run, and these four
# hold about 1.2 MiB of its memory that most runs never need (a bench runs
# a runner per worker).

RUNNER_FILE = os.path.abspath(__file__)

_in_step = False

_TOP_LEVEL_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)

# inspect.CO_COROUTINE, a constant of CPython's code objects.
_CO_COROUTINE = 0x0080


def _on_sigint(signum, frame):
    # Only the model's code is interrupted; the runner's own bookkeeping never is.
    if _in_step:
        raise KeyboardInterrupt


class CommandOutput(str):
    """run_command's result: the combined output, with .returncode."""

    returncode = 0


def _make_run_command(workspace):
    shells = []

    def run_command(cmd, timeout=None):
        """Run a shell command in the workspace; return its stdout and stderr together (.returncode too)."""
        import shutil
        import subprocess

        if not isinstance(cmd, str):
            raise TypeError("run_command() takes the command as one str, not %s" % type(cmd).__name__)
        if not shells:
            shells.append(shutil.which("bash") or "/bin/sh")
        shell = shells[0]
        # A session of its own, so an interrupt or timeout can end the command's whole process group.
        proc = subprocess.Popen([shell, "-c", cmd], cwd=workspace, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except BaseException:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            raise
        result = CommandOutput(out.decode("utf-8", "replace"))
        result.returncode = proc.returncode
        return result

    return run_command


def _trimmed_traceback(exc, workspace):
    """The traceback of exc cut to the model's own code: the step file and the modules in the workspace.

    The runner's frames, the browser client's internals and the standard library's are noise: the
    exception's message says what went wrong and the model's frames say where.
    """
    import traceback

    prefix = workspace.rstrip(os.sep) + os.sep
    entries = [e for e in traceback.extract_tb(exc.__traceback__)
               if e.filename.startswith(prefix) and e.filename != RUNNER_FILE]
    summary = traceback.StackSummary.from_list(entries)
    lines = []
    if summary:
        lines.append("Traceback (most recent call last):\n")
        lines.extend(summary.format())
    lines.extend(traceback.format_exception_only(type(exc), exc))
    text = "".join(lines)
    return text.replace('File "' + prefix, 'File "').rstrip("\n")


def _bound_page(browser, page_id, ctx_id):
    """The page page_id of browser, in the context ctx_id when the run opened it in one of its own."""
    import wright_browser

    page = None
    for p in browser.pages:
        if p.id == page_id:
            page = p
    if page is None:
        raise RuntimeError("bind: page %s is not open" % page_id)
    if ctx_id and (page._context is None or page._context._id != ctx_id):
        # The page was opened for this run in a context of its own (a remote browser): its
        # `page.context` must be that context, not the browser's shared default one.
        ctx = next((c for c in browser._contexts if c._id == ctx_id), None)
        if ctx is None:
            ctx = wright_browser.BrowserContext(browser, isolated=False)
            ctx._id = ctx_id
            browser._contexts.append(ctx)
        page._context = ctx
        if page not in ctx._pages:
            ctx._pages.append(page)
    return page


class Runner:
    def __init__(self, workspace, task_json):
        self.workspace = workspace
        self.browser = None
        self.socket = None
        task = {}
        if task_json:
            with open(task_json, encoding="utf-8") as f:
                task = json.load(f)
        self.ns = {
            "__name__": "__main__",
            "__builtins__": builtins,
            "task": task,
            "run_command": _make_run_command(workspace),
            "browser": None,
            "page": None,
            "request_full_snapshot": self.request_full_snapshot,
        }
        self.want_full = False
        # The async form's own connection and event loop, made at the first step that awaits (asyncio is not
        # imported before).
        self.loop = None
        self.hub = None
        self.async_browser = None
        self.context_id = ""

    def request_full_snapshot(self):
        """Show the whole ARIA snapshot in this step's observation, not only its changes."""
        self.want_full = True

    def bind(self, req):
        import wright_browser

        sock = req["socket"]
        if self.browser is None or sock != self.socket or req.get("reconnect") or not self.browser.is_connected():
            if self.browser is not None:
                self.browser.close()  # connect()'s browser: only disconnects
            self.browser = wright_browser.connect(sock)
            self.socket = sock
        page = _bound_page(self.browser, req.get("page"), req.get("context") or "")
        self.context_id = req.get("context") or ""
        self.ns["browser"] = self.browser
        self.ns["page"] = page
        return {"page": page.id}

    def current_page(self):
        """The id of the page the namespace's `page` names, if it is one of this browser's."""
        page = self.ns.get("page")
        pid = getattr(page, "id", None)
        if isinstance(pid, str) and getattr(page, "_browser", None) is self.browser:
            return pid
        return None

    def async_names(self):
        """Bind `browser` and `page` to playwright.async_api's objects of the page `page` names now.

        The async objects come from a connection of their own, made on a worker thread of the loop's Hub, so
        that their calls overlap (the sync connection keeps one call in flight, as a sync script's does).
        """
        import asyncio

        import wright_browser
        from playwright.async_api import _bridge

        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            self.hub = _bridge.Hub(self.loop)
        if self.async_browser is None or not self.async_browser.is_connected():
            self.async_browser = self.hub.pool.submit(wright_browser.connect, self.socket).result()
        page_id = self.current_page() or getattr(self.ns.get("page"), "id", None)
        page = _bound_page(self.async_browser, page_id, self.context_id)
        self.ns["browser"] = _bridge.wrap(self.async_browser, self.hub)
        self.ns["page"] = _bridge.wrap(page, self.hub)

    def sync_names(self):
        """After an async step: `browser` and `page` name the sync objects again, of the page the step left
        `page` on (a new tab it switched to included)."""
        page = self.ns.get("page")
        impl = getattr(page, "_impl_obj", page)
        pid = getattr(impl, "id", None)
        self.ns["browser"] = self.browser
        if isinstance(pid, str):
            try:
                self.ns["page"] = _bound_page(self.browser, pid, self.context_id)
            except RuntimeError:
                self.ns["page"] = impl  # closed meanwhile: current_page() reports it lost

    def run_async(self, code):
        coro = eval(code, self.ns)  # a code object compiled with top-level await: evaluating it makes a coroutine
        task = self.loop.create_task(coro)
        try:
            self.loop.run_until_complete(task)
        except BaseException:
            # Interrupted (SIGINT raises in the loop) or failed: a task still pending is cancelled, so the
            # next step does not find it running.
            if not task.done():
                task.cancel()
                try:
                    self.loop.run_until_complete(task)
                except BaseException:  # noqa: BLE001 - its cancellation is expected
                    pass
            raise

    def reconnect_if_closed(self):
        """A browser.close() in the code only disconnects this process; connect again before the next step."""
        if self.browser is None or self.browser.is_connected():
            return []
        page_id = self.current_page() or getattr(self.ns.get("page"), "id", None)
        self.bind({"socket": self.socket, "page": page_id, "context": self.context_id, "reconnect": True})
        return ["`browser` had been closed (that only disconnects you; the live browser stays open): wright "
                "connected again and bound `browser` and `page` anew."]

    def exec_step(self, req):
        global _in_step
        answer = {"success": True, "exception": "", "interrupted": False, "exit_code": None, "notices": []}
        try:
            answer["notices"] = self.reconnect_if_closed()
        except Exception as exc:  # noqa: BLE001 - the step still runs; its calls will say what is wrong
            answer["notices"] = ["wright could not reconnect `browser`: %s" % exc]
        try:
            # Top-level await is allowed: such code compiles to a coroutine's code (CO_COROUTINE).
            code = compile(req["code"], req["file"], "exec", flags=_TOP_LEVEL_AWAIT)
        except (SyntaxError, ValueError) as exc:
            answer.update(success=False, exception=_trimmed_traceback(exc, self.workspace))
            return answer
        awaits = bool(code.co_flags & _CO_COROUTINE)
        try:
            try:
                _in_step = True
                if awaits:
                    self.async_names()
                    try:
                        self.run_async(code)
                    finally:
                        self.sync_names()
                else:
                    exec(code, self.ns)
            finally:
                _in_step = False
        except KeyboardInterrupt as exc:
            answer.update(success=False, interrupted=True, exception=_trimmed_traceback(exc, self.workspace))
        except SystemExit as exc:
            status = exc.code
            answer["exit_code"] = status if isinstance(status, int) or status is None else str(status)
            answer["success"] = status is None or status == 0
            answer["exception"] = (
                "SystemExit: %r. sys.exit() only ended this step's code; the Python process and your "
                "variables are still there." % (status,))
        except BaseException as exc:  # noqa: BLE001 - everything the code raises is the model's to see
            answer.update(success=False, exception=_trimmed_traceback(exc, self.workspace))
        finally:
            # A step that redirected its output must not silence the next one.
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        answer["full_snapshot"], self.want_full = self.want_full, False
        answer["page"] = self.current_page()
        answer["page_lost"] = answer["page"] is None
        return answer


# Taken when the runner starts: the model's code shares this interpreter, and an `ast.parse` it replaced
# must not decide what the next step's check says.
_parse = ast.parse
_b64decode = base64.b64decode


def check_source(req):
    """A step's syntax check, as env/live's own process check (kind.go) words it: ast.parse of the bytes."""
    src = _b64decode(req.get("source", ""))
    try:
        _parse(src, "<python_code>")
    except SyntaxError as e:
        msg = ("line %s: %s" % (e.lineno, e.msg)) if e.lineno else str(e.msg)
        if e.text and e.text.strip():
            text = e.text.rstrip("\r\n")
            msg += "\n    " + text
            if e.offset and 0 < e.offset <= len(text) + 1:
                pad = "".join(c if c == "\t" else " " for c in text[:e.offset - 1])
                msg += "\n    " + pad + "^"
        return {"message": msg}
    except (ValueError, UnicodeDecodeError) as e:
        return {"message": str(e)}
    return {"message": ""}


def _write_marker(marker):
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError, AttributeError):
        pass
    data = ("\n" + marker + "\n").encode()
    try:
        os.write(1, data)
    except OSError:
        pass


def main(argv):
    req_fd, ans_fd, workspace, task_json = int(argv[1]), int(argv[2]), argv[3], argv[4]
    # The model's own modules live in the workspace; the runner's directory holds nothing for it
    # (wright_browser comes from PYTHONPATH).
    sys.path[0] = workspace
    signal.signal(signal.SIGINT, _on_sigint)
    requests = os.fdopen(req_fd, "rb")
    answers = os.fdopen(ans_fd, "wb")

    def send(obj):
        answers.write((json.dumps(obj, default=str) + "\n").encode("utf-8"))
        answers.flush()

    try:
        # Imported now, while wright opens the page, not when the page is bound.
        import wright_browser  # noqa: F401
        runner = Runner(workspace, task_json)
    except Exception as exc:  # noqa: BLE001 - reported to wright, which says what failed
        send({"ready": False, "error": "%s: %s" % (type(exc).__name__, exc)})
        return 1
    send({"ready": True, "pid": os.getpid()})
    for line in requests:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        rid = req.get("id")
        try:
            if req.get("op") == "exec":
                try:
                    answer = runner.exec_step(req)
                finally:
                    _write_marker(req.get("marker", ""))
            elif req.get("op") == "bind":
                answer = runner.bind(req)
            elif req.get("op") == "check":
                answer = check_source(req)
            else:
                answer = {"error": "unknown op %r" % req.get("op")}
        except KeyboardInterrupt:
            answer = {"error": "interrupted"}
        except Exception as exc:  # noqa: BLE001
            answer = {"error": "%s: %s" % (type(exc).__name__, exc)}
        answer["id"] = rid
        send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
