#!/usr/bin/env bash
# bench/ready.sh: Krill's start-to-first-produce alone, repeated, with the phases of each start taken from
# the broker's log time stamps; for before/after a change to start-up (no Kafka, no load).
#   bench/ready.sh                       5 starts of the default single node (embedded ZooKeeper + Helix)
#   BENCH_READY_REPEATS=9 bench/ready.sh more starts
#   BENCH_KRILL_OVERRIDES=krill.metadata.store=local bench/ready.sh
# Any BENCH_* variable of run.sh applies (BENCH_REBUILD=1, BENCH_KRILL_OPTS, BENCH_HEAP, ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
bench_init ready
ensure_kafka
ensure_krill
repeats=${BENCH_READY_REPEATS:-5}
times=()
cpus=()  # the broker's CPU seconds (user+system) when its first produce was acknowledged: steadier than wall time
for rep in $(seq 1 "$repeats"); do
  start_single krill
  times+=("$READY")
  cpus+=("$(echo "$(cpu_ticks "$BPID") / $CLK_TCK" | bc -l | awk '{printf "%.2f", $1}')")
  # the broker's own log lines with their offsets from the first line (the JVM is already up then)
  python3 - "$BLOG" <<'PY' >&2
import re, sys
from datetime import datetime
first = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[.,]\d{3})", line)
    if not m:
        continue
    t = datetime.strptime(m.group(1).replace(",", ".").replace("T", " "), "%Y-%m-%d %H:%M:%S.%f")
    first = first or t
    if re.search(r"ready|Started|Listening|joined|unfenced|embedded|loaded 0 logs|resigned|created topic", line):
        print("  +%6.0f ms  %s" % ((t - first).total_seconds() * 1000, line.rstrip()[26:170]))
PY
  stop_single krill
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
cmedian=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
echo "krill ready to produce (s): median $median over $repeats starts: $(echo "${times[@]}"); broker CPU s by then: median $cmedian ($(echo "${cpus[@]}")); load $(cut -d' ' -f1-3 /proc/loadavg)"
BENCH_OK=true
