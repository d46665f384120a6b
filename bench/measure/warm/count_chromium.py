"""Count the Chromium browsers a command starts: runs the command, and every 20 ms reads /proc for the
browser processes (the chromium executable itself with no --type=, so not a renderer, a helper or crashpad) among the
command's descendants, each counted once by pid and start time. Prints the count when the command ends;
exits with the command's status. Linux only (it reads /proc).

usage: python3 bench/measure/warm/count_chromium.py -- COMMAND [ARGS...]
e.g.   python3 bench/measure/warm/count_chromium.py -- go run ./bench/measure/scale -levels 16 -repeat 1
"""

import os
import subprocess
import sys
import time


def children_map():
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: the fields after the last ')' are fixed.
        rest = stat[stat.rfind(")") + 2:].split()
        ppid, start = int(rest[1]), rest[19]
        kids.setdefault(ppid, []).append((int(name), start))
    return kids


def browsers_under(root, seen):
    kids = children_map()
    stack = [root]
    while stack:
        pid = stack.pop()
        for child, start in kids.get(pid, []):
            stack.append(child)
            if (child, start) in seen:
                continue
            try:
                with open("/proc/%d/cmdline" % child, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            exe = os.path.basename(argv[0]).decode("utf-8", "replace") if argv and argv[0] else ""
            if exe in ("chromium", "chrome", "chromium-browser") and not any(a.startswith(b"--type=") for a in argv):
                seen.add((child, start))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    proc = subprocess.Popen(args)
    seen = set()
    while proc.poll() is None:
        browsers_under(proc.pid, seen)
        time.sleep(0.02)
    print("Chromium browser processes started: %d" % len(seen), flush=True)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
