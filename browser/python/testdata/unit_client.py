"""Pure-Python tests of wright_browser: no driver, no browser.

Run by `go test ./browser/python` (TestPythonUnit) with PYTHONPATH holding the
embedded client; also runnable by hand: PYTHONPATH=.. python3 unit_client.py
"""

import ast
import builtins
import inspect
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

import wright_browser as wb
from playwright._impl import _errors, _str_utils, _transport  # the internals tested here


def page():
    # Locators only build strings, so a Page needs no browser until it calls one.
    return wb.Page(None, "p1")


def split_chain(selector):
    return selector.split(" >> ")


def careful_split(selector):
    parts, quote, depth, start, i = [], None, 0, 0, 0
    while i < len(selector):
        c = selector[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "\\":
            i += 1
        elif c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif c == ">" and depth == 0 and selector[i + 1 : i + 2] == ">":
            parts.append(selector[start:i].strip())
            i += 1
            start = i + 1
        i += 1
    if quote or depth:
        raise ValueError("unbalanced selector %r" % selector)
    parts.append(selector[start:].strip())
    return parts


class SelectorTest(unittest.TestCase):
    def test_role(self):
        p = page()
        cases = [
            (p.get_by_role("button"), "role=button"),
            (p.get_by_role("button", name="Save"), 'role=button[name="Save"i]'),
            (p.get_by_role("button", name="Save", exact=True), 'role=button[name="Save"]'),
            (p.get_by_role("checkbox", checked=True), "role=checkbox[checked]"),
            (p.get_by_role("checkbox", checked=False), "role=checkbox[checked=false]"),
            (p.get_by_role("checkbox", checked="mixed"), 'role=checkbox[checked="mixed"]'),
            (p.get_by_role("heading", level=2), "role=heading[level=2]"),
            (p.get_by_role("button", disabled=True, pressed=False), "role=button[disabled][pressed=false]"),
            (p.get_by_role("tab", selected=True, expanded=False), "role=tab[expanded=false][selected]"),
            (p.get_by_role("link", include_hidden=True, name="x"), 'role=link[include-hidden][name="x"i]'),
            (p.get_by_role("button", name=re.compile(r"sa+ve", re.I)), "role=button[name=/sa+ve/i]"),
        ]
        for loc, want in cases:
            self.assertEqual(loc.selector, want)

    def test_role_bad_input(self):
        p = page()
        with self.assertRaises(ValueError):
            p.get_by_role("button[name=x]")
        with self.assertRaises(ValueError):
            p.get_by_role("checkbox", checked="yes")
        with self.assertRaises(ValueError):
            p.get_by_role("heading", level="2")
        with self.assertRaises(TypeError):
            p.get_by_role("button", name=5)

    def test_engines(self):
        p = page()
        self.assertEqual(p.get_by_text("Sign in").selector, 'internal:text="Sign in"i')
        self.assertEqual(p.get_by_text("Sign in", exact=True).selector, 'internal:text="Sign in"s')
        self.assertEqual(p.get_by_label("Email").selector, 'label="Email"i')
        self.assertEqual(p.get_by_placeholder("Search", exact=True).selector, 'placeholder="Search"')
        self.assertEqual(p.get_by_alt_text("Logo").selector, 'alt="Logo"i')
        self.assertEqual(p.get_by_title("Close").selector, 'title="Close"i')
        self.assertEqual(p.get_by_test_id("submit-btn").selector, "testid=submit-btn")
        self.assertEqual(p.get_by_test_id('a "b"').selector, 'testid="a \\"b\\""')
        with self.assertRaises(TypeError):
            p.get_by_test_id(3)

    def test_text_round_trips(self):
        # Any text must come back unchanged when the driver decodes the JSON
        # body, and must never add a chain separator.
        p = page()
        texts = ['Say "hi"', "back\\slash", "a >> b", ">>>", "tab\tand\nnewline", "Grüße 😀", "]", "x\"i",
                 "  padded  ", "\u2028", ""]
        for text in texts:
            for exact in (True, False):
                sel = p.locator("#root").get_by_text(text, exact=exact).selector
                parts = split_chain(sel)
                self.assertEqual(len(parts), 2, sel)
                body = parts[1][len("internal:text="):]
                self.assertTrue(body.endswith('"i' if not exact else '"s'), body)
                body = body[:-1]
                self.assertEqual(json.loads(body), text)
                self.assertNotIn("\n", sel)

    def test_regex(self):
        cases = [
            (re.compile("a/b"), "/a\\/b/"),
            (re.compile(r"a\/b"), "/a\\/b/"),
            (re.compile("x", re.I | re.M | re.S), "/x/ims"),
            (re.compile(r"(?P<year>\d{4})-(?P=year)"), r"/(?<year>\d{4})-\k<year>/"),
            (re.compile(r"\Astart end\Z"), "/^start end$/"),
            (re.compile("a >> b"), "/a >\\x3e b/"),
            (re.compile("line\nbreak"), "/line\\nbreak/"),
            (re.compile(r"\d+ items?"), r"/\d+ items?/"),
            (re.compile("it's \"on\""), r"/it\x27s \x22on\x22/"),
            (re.compile(r"[(\[]x[^]a]"), r"/[\(\[]x[^\]a]/"),
            (re.compile(r"[]]"), r"/[\]]/"),
        ]
        for pattern, want in cases:
            self.assertEqual(_str_utils._regex_body(pattern), want)
        self.assertEqual(page().get_by_text(re.compile("^Total: \\d+$")).selector, "internal:text=/^Total: \\d+$/")
        with self.assertRaises(ValueError):
            _str_utils._regex_body(re.compile("a b", re.X))
        with self.assertRaises(TypeError):
            _str_utils._regex_body(re.compile(b"bytes"))

    def test_bodies_never_split(self):
        # A careful chain splitter honours quotes, brackets, parentheses and
        # backslash escapes; whatever the body, it must see exactly the parts
        # the client built.
        p = page()
        tricky = ["it's", '"', "[(", ")]", "a >> b", "\\", "'>>'", "]["]
        for text in tricky:
            sels = [p.get_by_text(text).first.selector,
                    p.get_by_role("button", name=text).last.selector,
                    p.get_by_text(re.compile(re.escape(text))).nth(1).selector,
                    p.get_by_text(re.compile("[" + re.escape(text) + "]")).first.selector,
                    p.get_by_test_id(text).first.selector]
            for sel in sels:
                self.assertEqual(len(careful_split(sel)), 2, sel)

    def test_chains(self):
        p = page()
        base = p.locator("#list")
        self.assertEqual(base.locator("li").first.selector, "#list >> li >> nth=0")
        self.assertEqual(base.locator("li").last.selector, "#list >> li >> nth=-1")
        self.assertEqual(base.locator("li").nth(3).selector, "#list >> li >> nth=3")
        self.assertEqual(base.get_by_role("link", name="More").selector, '#list >> role=link[name="More"i]')
        self.assertEqual(base.filter(has_text="Apples").selector, '#list >> has-text="Apples"i')
        self.assertEqual(base.filter(has_text=re.compile("apples?", re.I)).selector, "#list >> has-text=/apples?/i")
        self.assertEqual(base.filter(visible=True).selector, "#list >> visible=true")
        self.assertEqual(p.locator("li", has_text="x").selector, 'li >> has-text="x"i')
        self.assertEqual(p.locator("aria-ref=e12").selector, "aria-ref=e12")
        inner = p.get_by_text("Go")
        self.assertEqual(base.locator(inner).selector, '#list >> internal:chain="internal:text=\\"Go\\"i"')
        self.assertEqual(base.page, p)
        with self.assertRaises(TypeError):
            base.nth(True)
        with self.assertRaises(TypeError):
            base.nth("1")
        with self.assertRaises(ValueError):
            p.locator("  ")
        self.assertEqual(base.filter(has=inner).selector, '#list >> internal:has="internal:text=\\"Go\\"i"')
        self.assertEqual(base.filter(has_not=p.locator("li")).selector, '#list >> internal:has-not="li"')
        self.assertEqual(base.filter(has_not_text="x").selector, '#list >> internal:has-not-text="x"i')
        with self.assertRaises(wb.Error):
            base.filter(has=page().locator("li"))  # a locator of another page
        with self.assertRaises(TypeError):
            base.filter(has="li")
        with self.assertRaises(wb.Error):
            page().locator(inner)  # a locator of another page

    def test_locators_are_lazy(self):
        # Building never touches the (absent) browser; using one does.
        loc = page().get_by_role("button", name="Save").first
        with self.assertRaises(AttributeError):
            loc.click()

    def test_fill_rejects_non_str(self):
        with self.assertRaises(TypeError):
            page().locator("#a").fill(5)


class ErrorTest(unittest.TestCase):
    def test_types(self):
        message = "locator.click: strict mode violation: 2 elements\n  1) <button id=a>\n  2) <button id=b>"
        for name in ("TimeoutError", "StrictModeViolation", "StaleRef", "NavigationError", "TargetClosed",
                     "InvalidSelector", "EvaluationError", "BlockedURL", "InvalidParams", "BrowserError"):
            err = _errors._error_from({"code": -32000, "message": message, "data": {"type": name}}, "locator.click")
            self.assertIs(type(err), getattr(wb, name))
            self.assertIsInstance(err, wb.Error)
            self.assertEqual(str(err), message)
            self.assertEqual(err.message, message)
            self.assertEqual(err.type, name)
            self.assertEqual(err.name, name)
            self.assertEqual(err.method, "locator.click")

    def test_codes_and_unknown(self):
        self.assertIs(type(_errors._error_from({"code": -32601, "message": "unknown method x"}, "x")), wb.ProtocolError)
        self.assertIs(type(_errors._error_from({"code": -32700, "message": "parse"}, "x")), wb.ProtocolError)
        self.assertIs(type(_errors._error_from({"code": -32602, "message": "bad"}, "x")), wb.InvalidParams)
        err = _errors._error_from({"code": -32000, "message": "odd", "data": {"type": "SomethingNew"}}, "x")
        self.assertIs(type(err), wb.Error)
        self.assertEqual(err.type, "SomethingNew")
        self.assertIn("x", str(_errors._error_from({"code": -32000}, "x")))
        self.assertIs(type(_errors._error_from("nonsense", "x")), wb.ProtocolError)

    def test_timeout_is_builtin_timeout(self):
        err = wb.TimeoutError("waited 5000 ms", type="TimeoutError")
        self.assertIsInstance(err, builtins.TimeoutError)
        self.assertEqual(str(err), "waited 5000 ms")
        self.assertIs(wb.TargetClosedError, wb.TargetClosed)


class EncodeTest(unittest.TestCase):
    def test_one_line(self):
        data = _transport._encode_request(7, "page.evaluate", {"page": "p1", "expression": "() => 'a\nb'"})
        self.assertTrue(data.endswith(b"\n"))
        self.assertEqual(data.count(b"\n"), 1)
        msg = json.loads(data)
        self.assertEqual(msg, {"jsonrpc": "2.0", "id": 7, "method": "page.evaluate",
                               "params": {"page": "p1", "expression": "() => 'a\nb'"}})

    def test_bad_args(self):
        with self.assertRaises(wb.InvalidParams) as ctx:
            _transport._encode_request(1, "page.evaluate", {"arg": object()})
        self.assertIn("page.evaluate", str(ctx.exception))
        with self.assertRaises(wb.InvalidParams):
            _transport._encode_request(1, "page.evaluate", {"arg": float("nan")})


class RunDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.old_cwd = os.getcwd()
        os.chdir(self.dir)
        self.old_env = os.environ.pop("WRIGHT_RUN_DIR", None)

    def tearDown(self):
        os.chdir(self.old_cwd)
        if self.old_env is not None:
            os.environ["WRIGHT_RUN_DIR"] = self.old_env

    def test_next_run_dir(self):
        self.assertEqual(wb.next_run_dir(), os.path.join("final_runs", "run_1"))
        self.assertTrue(os.path.isdir("final_runs/run_1"))
        os.makedirs("final_runs/run_003")
        os.makedirs("final_runs/run_x")
        open("final_runs/run_9", "w").close()  # a file, not a run
        self.assertEqual(wb.next_run_dir("final_runs"), os.path.join("final_runs", "run_4"))
        os.makedirs("final_runs/run_5")  # taken between listing and mkdir is fine too
        self.assertEqual(wb.next_run_dir(), os.path.join("final_runs", "run_6"))
        open("other", "w").close()
        with self.assertRaises(OSError):
            wb.next_run_dir("other")  # a file where the base should be: a clear error, nothing lost
        self.assertTrue(os.path.isfile("other"))

    def test_next_run_dir_from_env(self):
        os.environ["WRIGHT_RUN_DIR"] = os.path.join(self.dir, "gate", "run_7")
        try:
            self.assertEqual(wb.next_run_dir(), os.path.join(self.dir, "gate", "run_7"))
            self.assertTrue(os.path.isdir("gate/run_7"))
        finally:
            del os.environ["WRIGHT_RUN_DIR"]

    def test_action_log_steps(self):
        log = wb.ActionLog("final_runs/run_1")
        log.step(1, "open the search page")
        log.step(2, "action: type 'red shoes'\ninto the box")
        with open("final_runs/run_1/final_script_log.txt", encoding="utf-8") as f:
            self.assertEqual(f.read(), "step 1 action: open the search page\n"
                                       "step 2 action: type 'red shoes' into the box\n")
        self.assertEqual(log.screenshot_dir, os.path.join(self.dir, "final_runs", "run_1", "screenshots"))

    def test_action_log_counts_on_from_existing_shots(self):
        os.makedirs("r/screenshots")
        for name in ("final_execution_1_a.png", "final_execution_4_b.png", "notes.txt"):
            open(os.path.join("r/screenshots", name), "w").close()
        self.assertEqual(wb.ActionLog("r")._shots, 4)

    def test_action_log_when_stdout_is_the_log(self):
        # The gate runs `python3 final_script.py > run/final_script_log.txt`:
        # each step must appear once, in order with the script's own prints.
        script = textwrap.dedent("""
            import wright_browser as wb
            log = wb.ActionLog("run")
            print("starting")
            log.step(1, "first")
            print("between")
            log.step(2, "second")
        """)
        os.makedirs("run")
        with open("run/final_script_log.txt", "w") as out:
            env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(wb.__file__)))
            subprocess.run([sys.executable, "-c", script], stdout=out, check=True, env=env)
        with open("run/final_script_log.txt") as f:
            self.assertEqual(f.read(), "starting\nstep 1 action: first\nbetween\nstep 2 action: second\n")


class LaunchErrorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.saved = {k: os.environ.get(k) for k in ("WRIGHT_BIN", "PATH", "TMPDIR", "WRIGHT_DRIVER_SOCKET")}
        os.environ["TMPDIR"] = self.dir
        tempfile.tempdir = None

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        tempfile.tempdir = None

    def leftover_profiles(self):
        return [n for n in os.listdir(self.dir) if n.startswith("wright-chromium-")]

    def test_missing_binary(self):
        os.environ["WRIGHT_BIN"] = os.path.join(self.dir, "no-such-wright")
        with self.assertRaises(wb.Error) as ctx:
            wb.launch()
        self.assertIn("WRIGHT_BIN", str(ctx.exception))
        os.environ.pop("WRIGHT_BIN")
        os.environ["PATH"] = self.dir
        with self.assertRaises(wb.Error) as ctx:
            wb.launch()
        self.assertIn("PATH", str(ctx.exception))
        self.assertEqual(self.leftover_profiles(), [])

    def test_binary_that_cannot_run(self):
        junk = os.path.join(self.dir, "junk-wright")
        with open(junk, "wb") as f:
            f.write(b"\x00\x01 not a program")
        os.chmod(junk, 0o755)
        os.environ["WRIGHT_BIN"] = junk
        with self.assertRaises(wb.Error) as ctx:
            wb.launch()
        self.assertIn("cannot start", str(ctx.exception))
        self.assertEqual(self.leftover_profiles(), [])

    def test_driver_that_dies_at_once(self):
        # WRIGHT_BIN pointing at something that is not a working driver: the
        # launch fails promptly with its exit code and what it said.
        fake = os.path.join(self.dir, "broken-wright")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'driver: cannot find a browser' >&2\necho 'try WRIGHT_BROWSER' >&2\nexit 3\n")
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        os.environ["WRIGHT_BIN"] = fake
        with self.assertRaises(wb.TargetClosed) as ctx:
            wb.launch()
        msg = str(ctx.exception)
        self.assertIn("browser.launch", msg)
        self.assertIn("exited with code 3", msg)
        self.assertIn("driver: cannot find a browser", msg)
        self.assertIn("try WRIGHT_BROWSER", msg)
        self.assertEqual(self.leftover_profiles(), [])

    def test_bad_viewport(self):
        for bad in ((0, 100), (100,), "big", {"width": 10}):
            with self.assertRaises(ValueError):
                wb.launch(viewport=bad)
        self.assertEqual(self.leftover_profiles(), [])

    def test_connect_errors(self):
        os.environ.pop("WRIGHT_DRIVER_SOCKET", None)
        with self.assertRaises(wb.Error) as ctx:
            wb.connect()
        self.assertIn("WRIGHT_DRIVER_SOCKET", str(ctx.exception))
        missing = os.path.join(self.dir, "nobody.sock")
        with self.assertRaises(wb.Error) as ctx:
            wb.connect(missing)
        self.assertIn(missing, str(ctx.exception))


def client_sources():
    """wright_browser.py and every module of the playwright package beside it: (path, source)."""
    out = [(wb.__file__, inspect.getsource(wb))]
    root = os.path.dirname(os.path.abspath(__import__("playwright").__file__))
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    out.append((path, f.read()))
    return out


class ModuleTest(unittest.TestCase):
    def test_python39_syntax(self):
        for path, source in client_sources():
            ast.parse(source, filename=path, feature_version=(3, 9))

    def test_all(self):
        for name in wb.__all__:
            self.assertTrue(hasattr(wb, name), name)
        doc_lines = [line for line in wb.__doc__.strip().splitlines() if line.strip()]
        self.assertLessEqual(len(doc_lines), 20)

    def test_standard_library_only(self):
        names = set()
        for path, source in client_sources():
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names.add(node.module.split(".")[0])
        stdlib = getattr(sys, "stdlib_module_names", None)
        if stdlib:
            self.assertEqual(sorted(n for n in names if n not in stdlib and n != "playwright"), [])

    def test_response_ok(self):
        self.assertTrue(wb.Response("u", 200).ok)
        self.assertTrue(wb.Response("u", None).ok)
        self.assertFalse(wb.Response("u", 404).ok)


if __name__ == "__main__":
    unittest.main(verbosity=2)
