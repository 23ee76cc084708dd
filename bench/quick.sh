#!/usr/bin/env bash
# bench/quick.sh: the small subset of bench/run.sh for before/after a change, in under 3 minutes:
# produce throughput, consume throughput, ready-to-produce and the broker's RSS/CPU, on a 256 MiB topic,
# Krill and Kafka 4.4 alternating. Any BENCH_* variable of run.sh still applies, e.g.
#   BENCH_REBUILD=1 bench/quick.sh        rebuild Krill's distribution first
#   BENCH_REPEATS=4 bench/quick.sh        more runs (default 2) for steadier medians
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_MODE=quick
export BENCH_REPEATS=${BENCH_REPEATS:-2}
export BENCH_SCENARIOS=${BENCH_SCENARIOS:-produce,consume}
export BENCH_TOPIC_MB=${BENCH_TOPIC_MB:-256}
export BENCH_WARMUP_RECORDS=${BENCH_WARMUP_RECORDS:-50000}
exec "$here/run.sh"
