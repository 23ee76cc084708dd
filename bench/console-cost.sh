#!/usr/bin/env bash
# bench/console-cost.sh: what the web console costs an idle broker (docs/console.md, "Cost").
#
#   bench/console-cost.sh                                  2,000 partitions / 50 groups, then 200 / 5
#   CC_SIZES="2000:50" CC_IDLE_S=60 bench/console-cost.sh  one size, a shorter idle window
#   CC_MODES=on CC_DIAG=1 BENCH_KEEP=1 bench/console-cost.sh  the console on only; jstack and GC.heap_info kept
#
# For each size (PARTITIONS:GROUPS), two runs of the same single-node Krill (lib/common.sh's start_single,
# -Xmx1G G1) with krill.http.port set: (A) the console on (history every krill.console.history.interval.ms,
# default 10 s), (B) krill.console.enable=false. Each gets CC_TOPICS (20) topics of PARTITIONS/20
# partitions, and GROUPS groups each with committed offsets on every partition (Kafka 4.4's
# kafka-consumer-groups --reset-offsets --to-earliest --execute, all groups in one run: no members, so
# the groups stay Empty), then CC_SETTLE_S (20) s to go quiet, then CC_IDLE_S (120) s of nothing, measured:
# the broker process's CPU (utime+stime), its console-* threads' CPU (/proc/<pid>/task, sampled every 5 s
# so a pool thread that exits meanwhile still counts), RSS at the end. Then, for (A), the median of
# CC_REPEATS (5) GETs of each API (curl's time_total; the first, cold one shown too).
# Report: bench/results/<UTC date>-console-cost.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_KAFKA_HOME=${BENCH_KAFKA_HOME:-/opt/kafka44}   # the anchor's Kafka 4.4 (scale.sh's default)
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"

SIZES=${CC_SIZES:-2000:50 200:5}
TOPICS=${CC_TOPICS:-20}
IDLE_S=${CC_IDLE_S:-120}
SETTLE_S=${CC_SETTLE_S:-20}
REPEATS=${CC_REPEATS:-5}
MODES=${CC_MODES:-on off}
command -v curl > /dev/null || die "curl is needed"
[ -f "$KAFKA_HOME/libs/kafka-tools-$KAFKA_VERSION.jar" ] || ensure_kafka

# Topics cc-0..cc-(TOPICS-1) of PARTITIONS/TOPICS partitions; groups cc-g-0.. with an offset on each.
populate() { # PARTITIONS GROUPS
  local t g args=()
  for ((t = 0; t < TOPICS; t++)); do create_topic "$B" "cc-$t" $(($1 / TOPICS)) 1; args+=(--topic "cc-$t"); done
  for ((g = 0; g < $2; g++)); do args+=(--group "cc-g-$g"); done
  tool "groups-$1" org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$B" \
    --reset-offsets --to-earliest --execute "${args[@]}" > /dev/null || die "reset-offsets failed (see $WORK/logs/groups-$1.err)"
}

# Every 5 s until stopped: the broker's threads' CPU ("tid name utime stime"), a block per sample.
start_thread_sampler() { # FILE
  ( while true; do thread_cpu "$BPID"; echo; sleep 5; done ) > "$1" &
  TSAMPLER=$!; track $TSAMPLER
}
stop_thread_sampler() { # FILE -> console-* threads' CPU seconds over the samples (a thread new in the window from 0)
  kill "$TSAMPLER" 2>/dev/null || true; wait "$TSAMPLER" 2>/dev/null || true; untrack "$TSAMPLER"
  thread_cpu "$BPID" >> "$1"
  awk -F'\t' -v tck="$CLK_TCK" '
    $0 == "" { started = 1; next }
    $2 ~ /^console-/ { t = $3 + $4; if (!started) base[$1] = t; else last[$1] = t }
    END { s = 0; for (k in last) s += last[k] - (k in base ? base[k] : 0); printf "%.2f", s / tck }' "$1"
}

api_ms() { # PATH -> "median first" in ms over REPEATS GETs
  local i ts=()
  for ((i = 0; i < REPEATS; i++)); do
    ts+=("$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$HPORT$1")")
    [ "${ts[-1]%% *}" = 200 ] || die "GET $1 answered ${ts[-1]%% *}"
  done
  printf '%s\n' "${ts[@]}" | awk '{print $2 * 1000}' | python3 -c 'import sys, statistics
v = [float(x) for x in sys.stdin]; print(f"{statistics.median(v):.0f} {v[0]:.0f}")'
}

one_run() { # PARTITIONS GROUPS MODE(on|off)
  local n=$1 groups=$2 mode=$3 k="$1/$2/$3"
  HPORT=$(free_port)
  BENCH_KRILL_OVERRIDES="krill.http.port=$HPORT krill.console.enable=$([ "$mode" = on ] && echo true || echo false)" \
    start_single krill
  populate "$n" "$groups"
  log "$k: $TOPICS topics, $groups groups with offsets on all $n partitions; settling ${SETTLE_S}s, then ${IDLE_S}s idle"
  sleep "$SETTLE_S"
  local c0; c0=$(cpu_ticks "$BPID")
  start_thread_sampler "$WORK/threads-$n-$mode.tsv"
  sleep "$IDLE_S"
  V["$k/cpu"]=$(echo "($(cpu_ticks "$BPID") - $c0) / $CLK_TCK" | bc -l | awk '{printf "%.2f", $1}')
  V["$k/console"]=$(stop_thread_sampler "$WORK/threads-$n-$mode.tsv")
  V["$k/rss"]=$(( $(rss_kb "$BPID") / 1024 ))
  V["$k/samples"]=$(grep -c 'Console history sample failed' "$BLOG" || true)
  if [ "$mode" = on ]; then
    local p
    for p in /console/api/topics /console/api/groups /console/api/topics/cc-0 /console/api/groups/cc-g-0 \
        /console/api/history/topics /console/api/history/groups/cc-g-0; do
      V["$k/$p"]=$(api_ms "$p")
    done
    if [ "${CC_DIAG:-0}" = 1 ]; then  # what the console threads do, and what the heap holds (kept with BENCH_KEEP=1)
      jstack "$BPID" > "$WORK/logs/jstack-$n.txt" 2>&1 || true
      jcmd "$BPID" GC.heap_info > "$WORK/logs/heap-$n.txt" 2>&1 || true
      jcmd "$BPID" GC.class_histogram 2>&1 | head -30 > "$WORK/logs/histogram-$n.txt" || true  # live objects (a full GC)
      jcmd "$BPID" GC.heap_info > "$WORK/logs/heap-after-full-gc-$n.txt" 2>&1 || true
    fi
  fi
  log "$k: CPU ${V[$k/cpu]} s, console threads ${V[$k/console]} s, RSS ${V[$k/rss]} MiB"
  stop_single krill
}

bench_init console-cost
ensure_krill
MACHINE=$(machine_line)
declare -A V
for size in $SIZES; do
  for mode in $MODES; do one_run "${size%%:*}" "${size##*:}" "$mode"; done
done

# ---------------------------------------------------------------------------------------------------
pct() { echo "$1 * 100 / $IDLE_S" | bc -l | awk '{printf "%.2f", $1}'; }
{
  echo "# Console cost, idle single-node Krill ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "$MACHINE"
  echo
  echo "\`bench/console-cost.sh\` (CC_SIZES=\"$SIZES\" CC_IDLE_S=$IDLE_S CC_SETTLE_S=$SETTLE_S): $TOPICS topics, every group"
  echo "with a committed offset on every partition (no members), krill.http.port set, history every 10 s (default)."
  echo "CPU: the broker process's utime+stime over ${IDLE_S} s idle (% of one core); console threads: console-history,"
  echo "console-client-*, console-http-*. API: median of $REPEATS GETs, ms (the first, cold, in brackets)."
  echo
  echo "| partitions / groups | console | broker CPU s (% core) | console threads CPU s | RSS MiB |"
  echo "|---|---|---|---|---|"
  for size in $SIZES; do
    for mode in $MODES; do
      k="${size%%:*}/${size##*:}/$mode"
      echo "| ${size%%:*} / ${size##*:} | $mode | ${V[$k/cpu]} ($(pct "${V[$k/cpu]}") %) | ${V[$k/console]} | ${V[$k/rss]} |"
    done
    [ "$MODES" = "on off" ] || continue
    k="${size%%:*}/${size##*:}"
    d=$(echo "${V[$k/on/cpu]} - ${V[$k/off/cpu]}" | bc -l | awk '{printf "%.2f", $1}')
    echo "| ${size%%:*} / ${size##*:} | **on - off** | **$d ($(pct "$d") %)** | | **$(( ${V[$k/on/rss]} - ${V[$k/off/rss]} ))** |"
  done
  echo
  printf '| GET (ms) |'; for size in $SIZES; do printf ' %s |' "${size%%:*} / ${size##*:}"; done; echo
  printf '|---|'; for size in $SIZES; do printf -- '---|'; done; echo
  for p in /console/api/topics /console/api/groups /console/api/topics/cc-0 /console/api/groups/cc-g-0 \
      /console/api/history/topics /console/api/history/groups/cc-g-0; do
    printf '| `%s` |' "$p"
    for size in $SIZES; do set -- ${V["${size%%:*}/${size##*:}/on/$p"]}; printf ' %s (%s) |' "$1" "$2"; done; echo
  done
  failed=0; for size in $SIZES; do failed=$((failed + ${V["${size%%:*}/${size##*:}/on/samples"]})); done
  echo
  echo "History samples that failed (broker log): $failed."
} > "$WORK/report.md"
mkdir -p "$BENCH_DIR/results"
out="$BENCH_DIR/results/$(date -u +%Y-%m-%d-%H%M)-console-cost.md"
cp "$WORK/report.md" "$out"
cat "$out"
log "report written to ${out#"$REPO_DIR"/}"
# shellcheck disable=SC2034 # read by the EXIT trap in lib/common.sh
BENCH_OK=true
