"""Shared helpers for the browser scenario scripts (run by go test)."""

import os

BASE = os.environ.get("FIXTURE_URL", "").rstrip("/")


def url(path):
    return BASE + "/" + path.lstrip("/")


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def expect_error(cls, fn, *fragments):
    """Run fn, which must raise cls with every fragment in its message; return the error."""
    try:
        fn()
    except cls as err:
        for fragment in fragments:
            check(fragment in str(err), "%s message lacks %r:\n%s" % (cls.__name__, fragment, err))
        return err
    except Exception as err:  # the wrong kind of error is a failure, shown whole
        raise AssertionError("expected %s, got %s: %s" % (cls.__name__, type(err).__name__, err)) from err
    raise AssertionError("expected %s, nothing was raised" % cls.__name__)


def alive(pid):
    """True while pid runs (a zombie counts as gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def processes_with(marker):
    """Pids whose command line mentions marker (Chromium carries its profile path)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found
