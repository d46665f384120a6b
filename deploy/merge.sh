#!/usr/bin/env sh
# After the shards: join $OUT/shard-* into $OUT/merged. A scheduler runs this
# after the array whatever became of it (Slurm's afterany), so the merge
# checks completeness itself: every shard of the split, each with all of its
# attempts finished, or it exits 1 naming what is missing.
set -eu
: "${OUT:?set OUT to the shared results directory}"
exec "${WRIGHT:-wright}" bench merge --complete "$OUT/merged" "$OUT"/shard-*
