#!/usr/bin/env sh
# After every shard has finished: join $OUT/shard-* into $OUT/merged.
set -eu
: "${OUT:?set OUT to the shared results directory}"
exec "${WRIGHT:-wright}" bench merge "$OUT/merged" "$OUT"/shard-*
