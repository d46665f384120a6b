"""Summarises bench/measure/perf's raw lines: a table per page (medians over the
rounds) and the ratios wright/Playwright checked against the targets.
usage: python3 summary.py RAW.jsonl"""
import collections
import json
import math
import re
import statistics
import sys

LINE = re.compile(r'^\s*- ([a-z][a-z-]*)(?: "((?:[^"\\]|\\.)*)")?')


def pairs(snapshot):
    """The (role, name) pairs of a snapshot, named elements only."""
    out = set()
    for line in snapshot.splitlines():
        m = LINE.match(line)
        if m and m.group(2):
            out.add((m.group(1), json.loads('"%s"' % m.group(2))))
    return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(lambda: collections.defaultdict(list))
snaps = {}
for r in rows:
    key = (r.get("url", ""), r["side"])
    for k, v in r.items():
        if k.endswith("_ms"):
            by[key][k].append(v)
    if "snapshot" in r:
        snaps[key] = r["snapshot"]
med = lambda key, k: statistics.median(by[key][k]) if by[key][k] else float("nan")

urls = sorted({u for u, s in by if s == "playwright"})
short = lambda u: u.split("/", 3)[3][:44]
print("%-44s %15s %15s %15s %11s %7s %13s" % ("page", "aria pw/wr", "shot pw/wr", "click pw/wr", "chars pw/wr", "pairs", "live obs/step"))
ratio = collections.defaultdict(list)
for u in urls:
    p, w, l = (u, "playwright"), (u, "wright"), (u, "live")
    pa, wa, ps, ws = med(p, "aria_ms"), med(w, "aria_ms"), med(p, "shot_ms"), med(w, "shot_ms")
    pc, wc = med(p, "click_ms"), med(w, "click_ms")
    pp, wp = pairs(snaps.get(p, "")), pairs(snaps.get(w, ""))
    cover = len(pp & wp) / len(pp) if pp else 1.0
    pchars, wchars = len(snaps.get(p, "")), len(snaps.get(w, ""))
    lo, ls = med(l, "obs_ms"), med(l, "step_ms")
    print("%-44s %7.1f/%7.1f %7.1f/%7.1f %7.1f/%7.1f %5d/%5d %6.1f%% %6.1f/%6.1f" % (
        short(u), pa, wa, ps, ws, pc, wc, pchars, wchars, 100 * cover, lo, ls))
    if "budget" in u:
        cut = med(w, "cut_ms")
        print("  1,200 links, 12k budget: cut %.1f ms = %.2fx the uncut snapshot, %.2fx Playwright's ariaSnapshot" % (cut, cut / wa, cut / pa))
        ratio["cut_uncut"].append(cut / wa)
        ratio["cut_pw"].append(cut / pa)
        continue  # the generated page is for the budget; the targets are on the npm pages
    ratio["aria"].append(wa / pa)
    ratio["cached"].append(med(w, "cached_ms") / pa)
    ratio["shot"].append(ws / ps)
    if pc == pc and wc == wc and pc > 0:
        ratio["click"].append(wc / pc)
    ratio["chars"].append(wchars / pchars if pchars else 1.0)
    ratio["pairs"].append(cover)
    if ls == ls:  # a page whose live run failed has none
        ratio["live"].append(ls / (pa + ps))
ws = [r for r in rows if r["side"] == "workspace"]
step = statistics.median(r["step_ms"] for r in ws) if ws else float("nan")
spawn = statistics.median(r["spawn_ms"] for r in ws) if ws else float("nan")

checks = [
    ("ARIA snapshot, geomean", geomean(ratio["aria"]), 0.7),
    ("ARIA snapshot, worst page", max(ratio["aria"], default=float("nan")), 1.0),
    ("ARIA snapshot of an unchanged page (reused), geomean", geomean(ratio["cached"]), 0.7),
    ("viewport screenshot, geomean", geomean(ratio["shot"]), 1.0),
    ("click, geomean", geomean(ratio["click"]), 0.7),
    ("snapshot size, geomean", geomean(ratio["chars"]), 0.75),
    ("live pass step / Playwright snapshot+screenshot, geomean", geomean(ratio["live"]), 0.5),
    ("12k-budget snapshot / uncut", geomean(ratio["cut_uncut"]), 0.25),
    ("12k-budget snapshot / Playwright ariaSnapshot", geomean(ratio["cut_pw"]), 1.0),
    ("workspace step / bash -c true (%.2f / %.2f ms)" % (step, spawn), step / spawn, 1.0),
]
print()
for name, value, target in checks:
    print("%-62s %5.2fx  target <= %.2fx  %s" % (name, value, target, "ok" if value <= target else "MISSED"))
low = min(ratio["pairs"], default=1.0)
print("%-62s %5.1f%%  target >= 98%%     %s" % ("Playwright's (role, name) pairs in wright's, worst page", 100 * low, "ok" if low >= 0.98 else "MISSED"))
