#!/usr/bin/env bash
# Side by side on pages no one here wrote (cypress kitchensink, TodoMVC,
# swagger-ui, from npm) and a generated page of 1,200 links: Playwright
# (playwright-core on node) and wright (its Python client; its live mode;
# its workspace shell) on the same system Chromium, alternating ROUNDS
# times in one run so both sides see the same machine load. Prints the
# table and the ratios against docs/performance.md's targets.
#
# usage, from the repository (after `make build`): bench/measure/perf/run.sh [ROUNDS] [REPS]
# env: PERF_PEER_DIR  where the npm packages go (default: a cache under ~/.cache,
#                     installed on first use; never a browser: both sides use the system one)
#      PERF_CHROMIUM  the browser (default: chromium on PATH)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
rounds="${1:-3}"
reps="${2:-5}"
export PERF_PEER_DIR="${PERF_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wright-perf-peer}"
export PERF_CHROMIUM="${PERF_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$PERF_CHROMIUM" ] || { echo "no Chromium on PATH (set PERF_CHROMIUM)" >&2; exit 1; }
command -v node >/dev/null || { echo "bench/measure/perf needs node and npm" >&2; exit 1; }
[ -x "$repo/bin/wright" ] || { echo "build wright first: make build" >&2; exit 1; }

if [ ! -d "$PERF_PEER_DIR/node_modules/playwright-core" ]; then
  echo "installing playwright-core and the pages into $PERF_PEER_DIR" >&2
  mkdir -p "$PERF_PEER_DIR"
  (cd "$PERF_PEER_DIR" && npm init -y >/dev/null &&
    npm install --ignore-scripts --no-audit --no-fund --silent \
      playwright-core@1 todomvc@0.1.1 cypress-example-kitchensink@7.0.0 swagger-ui-dist >&2)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wright-perf.XXXXXX")"
srv=""
cleanup() { [ -z "$srv" ] || kill "$srv" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/site/budget"
ln -s "$PERF_PEER_DIR/node_modules" "$work/site/peer"
python3 - "$work/site/budget/links1200.html" <<'PY'
import sys
items = "".join('<li><a href="/item/%d">Item number %d of the catalogue</a></li>' % (i, i) for i in range(1, 1201))
open(sys.argv[1], "w").write('<!doctype html><html><head><title>1,200 links</title></head><body>'
                             '<main><h1>Catalogue</h1><ul>%s</ul></main></body></html>' % items)
PY
port=$((20000 + RANDOM % 20000))
(cd "$work/site" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
srv=$!
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/budget/links1200.html" >/dev/null 2>&1 && break; sleep 0.1; done

B="http://127.0.0.1:$port"
pages=(
  "$B/peer/cypress-example-kitchensink/app/index.html::h1"
  "$B/peer/cypress-example-kitchensink/app/commands/actions.html::.action-btn"
  "$B/peer/cypress-example-kitchensink/app/commands/querying.html::#query-btn"
  "$B/peer/cypress-example-kitchensink/app/commands/traversal.html::h1"
  "$B/peer/todomvc/examples/vanillajs/index.html::h1"
  "$B/peer/todomvc/examples/jquery/index.html::h1"
  "$B/peer/swagger-ui-dist/index.html::body"
  "$B/budget/links1200.html::"
)
live_urls=""
for p in "${pages[@]}"; do live_urls+="${p%%::*} "; done
mkdir -p "$work/lib" && "$repo/bin/wright" client python > "$work/lib/wright_browser.py"
(cd "$repo" && go test -c -o "$work/live.test" ./env/live && go test -c -o "$work/workspace.test" ./env/workspace) >&2

for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  node "$here/pw.mjs" "$reps" "${pages[@]}"
  PYTHONPATH="$work/lib" PATH="$repo/bin:$PATH" python3 "$here/wright_side.py" "$reps" "${pages[@]}"
  (cd "$repo/env/live" && PERF_LIVE_PAGES="$live_urls" PERF_REPS="$reps" PATH="$repo/bin:$PATH" \
    "$work/live.test" -test.run '^$' -test.bench ObservationPages -test.benchtime 1x) | grep '^{' || true
  (cd "$repo/env/workspace" && "$work/workspace.test" -test.run '^$' -test.bench StepVsSpawn -test.benchtime 200x) |
    awk '/StepVsSpawn/ { for (i = 1; i < NF; i++) { if ($(i+1) == "step-ms") s = $i; if ($(i+1) == "spawn-ms") p = $i }
                         printf "{\"side\":\"workspace\",\"step_ms\":%s,\"spawn_ms\":%s}\n", s, p }'
done > "$work/raw.jsonl"
python3 "$here/summary.py" "$work/raw.jsonl"
