#!/usr/bin/env bash
# The prompt-cache measurement of docs/performance.md ("Prompts that extend
# each other"): a scripted 40-step live run on the cypress kitchensink
# actions page, once per arm (env.aria_snapshot and agent.prune_block),
# through the real harness and Chromium; the model is a scripted HTTP
# server that records what it is sent.
#
# usage, from the repository: bench/measure/prompts/run.sh [ARMS] [-json]
#   ARMS: mode:prune_block,... (default full:1,full:5,changes:1,changes:5,changes:10)
# env: PROMPTS_PEER_DIR  where the npm package goes (default: a cache under
#                        ~/.cache, installed on first use)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
arms="${1:-full:1,full:5,changes:1,changes:5,changes:10}"
shift || true
peer="${PROMPTS_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wright-context-peer}"
if [ ! -d "$peer/node_modules/cypress-example-kitchensink/app" ]; then
  command -v npm >/dev/null || { echo "bench/measure/prompts needs npm to fetch the kitchensink pages" >&2; exit 1; }
  echo "installing cypress-example-kitchensink@7.0.0 into $peer" >&2
  mkdir -p "$peer"
  (cd "$peer" && npm init -y >/dev/null &&
    npm install --ignore-scripts --no-audit --no-fund --silent cypress-example-kitchensink@7.0.0 >&2)
fi
cd "$repo"
exec go run ./bench/measure/prompts -site "$peer/node_modules/cypress-example-kitchensink/app" -arms "$arms" "$@"
