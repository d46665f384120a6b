#!/usr/bin/env sh
# One shard of a bench on a cluster: the shard number comes from the
# scheduler (Kubernetes Indexed Jobs set JOB_COMPLETION_INDEX, Slurm arrays
# SLURM_ARRAY_TASK_ID, both 0-based), the shard count from SHARDS, and the
# shard writes into $OUT/shard-<i>. Extra arguments go to `wright bench`.
#   SUITE=tasks.jsonl OUT=/results SHARDS=8 deploy/shard.sh --parallel 4 --model gpt-4.1
set -eu
: "${SUITE:?set SUITE to the suite (file, directory or builtin:NAME)}"
: "${OUT:?set OUT to the shared results directory}"
: "${SHARDS:?set SHARDS to the number of shards}"
index="${JOB_COMPLETION_INDEX:-${SLURM_ARRAY_TASK_ID:-}}"
if [ -z "$index" ]; then
  echo "wright-shard: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set" >&2
  exit 2
fi
shard=$((index + 1))
if [ "$shard" -gt "$SHARDS" ]; then
  echo "wright-shard: index $index is past SHARDS=$SHARDS" >&2
  exit 2
fi
exec "${WRIGHT:-wright}" bench "$SUITE" -o "$OUT/shard-$shard" --shard "$shard/$SHARDS" "$@"
