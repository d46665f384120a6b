#!/usr/bin/env bash
# Compares wright's ARIA snapshots with Playwright's on the same pages and
# the same system Chromium. Outside CI; needs node, npm and network access
# to the npm registry. Usage, from anywhere in the repository:
#
#   bench/measure/aria/run.sh            # prints the table
#   ARIA_BENCH_SHOW=1 bench/measure/aria/run.sh   # also prints both snapshots per page
#
# playwright-core goes into a temporary directory that is removed on exit;
# no browser is downloaded (playwright-core never does; we never run
# `playwright install`): both sides drive the Chromium found on PATH.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"

chromium="${ARIA_BENCH_CHROMIUM:-${WRIGHT_BROWSER:-}}"
if [[ -z "$chromium" ]]; then
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$name" >/dev/null 2>&1; then
      chromium="$(command -v "$name")"
      break
    fi
  done
fi
if [[ -z "$chromium" ]]; then
  echo "no Chromium on PATH (set ARIA_BENCH_CHROMIUM)" >&2
  exit 1
fi

node_dir="$(mktemp -d "${TMPDIR:-/tmp}/aria-bench-node.XXXXXX")"
trap 'rm -rf "$node_dir"' EXIT
echo "installing playwright-core@$version into $node_dir" >&2
(cd "$node_dir" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "playwright-core@$version" >&2)

cd "$repo"
ARIA_BENCH_NODE_DIR="$node_dir" ARIA_BENCH_CHROMIUM="$chromium" \
  go test -count=1 -tags ariabench ./bench/measure/aria -run TestPeerComparison -v "$@"
