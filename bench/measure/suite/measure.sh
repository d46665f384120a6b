#!/usr/bin/env bash
# The bench's own figures: builtin:demo with the recorded model (no model
# time, so what is measured is wright: shell, browser, Python, evaluators)
# at --parallel 1, 2 and 4, its wall time, the mean seconds per attempt, and
# the peak memory of everything the bench started (sampled every 200 ms from
# /proc), hence per worker. Linux only (reads /proc).
# usage, from the project's root: bench/measure/suite/measure.sh [PARALLEL...]
set -euo pipefail
[ $# -gt 0 ] && levels=("$@") || levels=(1 2 4)
bin="$(mktemp -d)/wright"
go build -o "$bin" ./cmd/wright
tmp="$(mktemp -d -t wright-bench.XXXX)"
trap 'rm -rf "$tmp" "$(dirname "$bin")"' EXIT

# tree_rss PID: the resident memory (KiB) of PID and all its descendants.
tree_rss() {
  local total=0 pid
  for pid in $(descendants "$1") "$1"; do
    [ -r "/proc/$pid/status" ] || continue
    total=$((total + $(awk '/^VmRSS/ {s = $2} END {print s + 0}' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}

printf '%-9s %-8s %-10s %-14s %-14s %s\n' parallel tasks wall_s mean_task_s peak_MiB per_worker_MiB
for p in "${levels[@]}"; do
  out="$tmp/p$p"
  start=$(date +%s.%N)
  "$bin" bench builtin:demo --model builtin:recorded -o "$out" --parallel "$p" >/dev/null 2>&1 &
  pid=$!
  peak=0
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(tree_rss "$pid")
    [ "$rss" -gt "$peak" ] && peak=$rss
    sleep 0.2
  done
  wait "$pid" || true
  end=$(date +%s.%N)
  python3 - "$out/results.jsonl" "$start" "$end" "$peak" "$p" <<'PY'
import json, sys
path, start, end, peak, p = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
recs = [json.loads(l) for l in open(path) if l.strip()]
mean = sum(r["seconds"] for r in recs) / max(len(recs), 1)
print("%-9d %-8d %-10.1f %-14.2f %-14.0f %.0f" % (p, len(recs), end - start, mean, peak / 1024, peak / 1024 / p))
PY
done
