#!/usr/bin/env bash
# bench/profile.sh: where a broker's time goes in one scenario of bench/run.sh, with Java Flight Recorder.
#
#   bench/profile.sh [produce|consume|latency|e2e|wide|ready] [krill|kafka]     (default: consume krill)
#
# `ready` records from the JVM's start (-XX:StartFlightRecording, waits of 1 ms or more) to the first
# acknowledged produce and shows where the main thread's time goes: its CPU samples and its waits (park,
# monitor, socket, file, fsync) by innermost broker frame, with the broker's log lines as a timeline.
# JFR itself slows the start (by a few hundred ms), so take the split, not the total, from it.
#
# Starts one broker as run.sh does (same heap, GC flags, data disk, clients), warms it up as run.sh does
# (100k records produced and consumed by a group), prepares the topic, then records only the scenario itself (jcmd JFR.start / JFR.stop, settings=profile: 10 ms
# execution samples, allocation samples), stops the broker and prints the top frames, allocation sites
# and GC pauses (bench/lib/jfr_top.py). The recording and the summary stay in bench/results/profiles/
# (not committed; `jfr print --events jdk.ExecutionSample --stack-depth 64 FILE` for the raw stacks).
# Sizes: the BENCH_* variables of run.sh (BENCH_TOPIC_MB defaults to 1024 here).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"

SCENARIO=${1:-consume}
KIND=${2:-krill}
case "$SCENARIO" in produce|consume|latency|e2e|wide|ready) ;; *) die "scenario: produce, consume, latency, e2e, wide or ready";; esac
case "$KIND" in krill|kafka) ;; *) die "broker: krill or kafka";; esac
RECORD_SIZE=${BENCH_RECORD_SIZE:-1024}
TOPIC_MB=${BENCH_TOPIC_MB:-1024}
RECORDS=$(( TOPIC_MB * 1048576 / RECORD_SIZE ))
PRODUCE_PROPS=${BENCH_PRODUCE_PROPS:-acks=all linger.ms=5 batch.size=131072}
LAT_RATE=${BENCH_LAT_RATE:-20000}
LAT_RECORDS=${BENCH_LAT_RECORDS:-300000}
LAT_PROPS=${BENCH_LAT_PROPS:-acks=all linger.ms=1}
E2E_RECORDS=${BENCH_E2E_RECORDS:-5000}
WIDE_PARTITIONS=${BENCH_WIDE_PARTITIONS:-2000}
WIDE_BUSY=${BENCH_WIDE_BUSY:-20}
WIDE_RECORDS=${BENCH_WIDE_RECORDS:-150000}
WIDE_RATE=${BENCH_WIDE_RATE:-5000}

out_dir="$BENCH_DIR/results/profiles"
mkdir -p "$out_dir"
stamp=$(date -u +%Y-%m-%d-%H%M)
jfr_file="$out_dir/$stamp-$KIND-$SCENARIO.jfr"

bench_init profile
ensure_kafka
ensure_krill
# Native Memory Tracking (summary: a few % overhead) for the memory breakdown at the end of the scenario
BENCH_KRILL_OPTS="${BENCH_KRILL_OPTS:-} -XX:NativeMemoryTracking=summary"
BENCH_KAFKA_OPTS="${BENCH_KAFKA_OPTS:-} -XX:NativeMemoryTracking=summary"

if [ "$SCENARIO" = ready ]; then
  waits="jdk.ThreadPark#threshold=1ms,jdk.JavaMonitorWait#threshold=1ms,jdk.JavaMonitorEnter#threshold=1ms"
  waits="$waits,jdk.ThreadSleep#threshold=1ms,jdk.SocketRead#threshold=1ms,jdk.SocketWrite#threshold=1ms"
  waits="$waits,jdk.FileRead#threshold=1ms,jdk.FileWrite#threshold=1ms,jdk.FileForce#threshold=0ms"
  opts="-XX:StartFlightRecording=name=bench,settings=profile,$waits"  # written by JFR.dump below
  BENCH_KRILL_OPTS="$BENCH_KRILL_OPTS $opts"; BENCH_KAFKA_OPTS="$BENCH_KAFKA_OPTS $opts"
  start_single "$KIND"
  jcmd "$BPID" JFR.dump name=bench filename="$jfr_file" > /dev/null
  rss_now=$(( $(rss_kb "$BPID") / 1024 ))
  stop_single "$KIND"
  summary="$out_dir/$stamp-$KIND-ready.md"
  {
    echo "# $KIND, start to first produce: JFR profile of the start-up"
    echo
    echo "Machine: $(machine_line)."
    echo
    echo "First produce acknowledged ${READY}s after the process started (with JFR recording from the start); RSS then $rss_now MiB."
    echo
    echo "## The broker's log, first 40 lines (timeline)"
    echo
    echo '```'
    head -n 40 "$WORK/$KIND/server.log" | cut -c1-200
    echo '```'
    echo
    python3 "$BENCH_DIR/lib/jfr_top.py" --thread main "$jfr_file" "${BENCH_PROFILE_TOP:-25}"
  } > "$summary"
  cat "$summary"
  log "summary in ${summary#"$REPO_DIR"/}; recording in ${jfr_file#"$REPO_DIR"/}"
  BENCH_OK=true
  exit 0
fi

perf() { # NAME TOPIC RECORDS RATE PROPS
  # shellcheck disable=SC2086
  tool "$1" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$B" --topic "$2" --num-records "$3" \
    --record-size "$RECORD_SIZE" --throughput "$4" --command-property $5 | parse_producer
}

start_single "$KIND"
create_topic "$B" warmup 6 1
perf warmup warmup 100000 -1 "$PRODUCE_PROPS" > /dev/null
tool warmup-consume org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" --topic warmup \
  --num-records 100000 --timeout 60000 --hide-header --group warmup > /dev/null
case "$SCENARIO" in
  consume) create_topic "$B" perf 6 1; perf fill perf "$RECORDS" -1 "$PRODUCE_PROPS" > /dev/null; sync;;
  produce) create_topic "$B" perf 6 1;;
  latency) create_topic "$B" lat 6 1;;
  e2e) create_topic "$B" e2e 1 1;;
  wide) create_topic "$B" wide-busy "$WIDE_BUSY" 1; create_topic "$B" wide-idle "$((WIDE_PARTITIONS - WIDE_BUSY))" 1
        # the consumer of every partition joins before the recording; the recording covers the writes
        ( tool wide-consume org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" --include 'wide-.*' \
            --num-records "$((${BENCH_WIDE_WARMUP:-30000} + WIDE_RECORDS))" --timeout 120000 --hide-header \
            --group wide | parse_consumer > "$WORK/wide-consume.out" ) &
        wide_consumer=$!
        sleep "${BENCH_WIDE_HEADSTART:-10}"
        perf wide-warmup wide-busy "${BENCH_WIDE_WARMUP:-30000}" "$WIDE_RATE" "$LAT_PROPS" > /dev/null;;
esac

jcmd "$BPID" JFR.start name=bench settings=profile filename="$jfr_file" > /dev/null
log "recording $KIND during $SCENARIO into ${jfr_file#"$REPO_DIR"/}"
thread_cpu "$BPID" > "$WORK/threads-before"
read -r u0 k0 <<< "$(cpu_user_sys "$BPID")"; t0=$(now)
case "$SCENARIO" in
  produce) result=$(perf produce perf "$RECORDS" -1 "$PRODUCE_PROPS");;
  latency) result=$(perf latency lat "$LAT_RECORDS" "$LAT_RATE" "$LAT_PROPS");;
  consume) result=$(tool consume org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" --topic perf \
             --num-records "$RECORDS" --timeout 60000 --hide-header | parse_consumer);;
  wide) perf wide-produce wide-busy "$WIDE_RECORDS" "$WIDE_RATE" "$LAT_PROPS" > /dev/null
        wait "$wide_consumer" || die "wide: the consumer failed"; result=$(cat "$WORK/wide-consume.out");;
  e2e) result=$(tool e2e org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$B" --topic e2e \
         --num-records "$E2E_RECORDS" --producer-acks all --record-size "$RECORD_SIZE" | parse_e2e);;
esac
read -r u1 k1 <<< "$(cpu_user_sys "$BPID")"; wall=$(elapsed "$t0")
thread_cpu "$BPID" > "$WORK/threads-after"
rss_now=$(( $(rss_kb "$BPID") / 1024 ))
jcmd "$BPID" VM.native_memory summary scale=MB > "$WORK/nmt.txt" 2>&1 || true
jcmd "$BPID" GC.heap_info > "$WORK/heap.txt" 2>&1 || true
jcmd "$BPID" JFR.stop name=bench > /dev/null
stop_single "$KIND"

summary="$out_dir/$stamp-$KIND-$SCENARIO.md"
{
  echo "# $KIND, $SCENARIO: JFR profile"
  echo
  echo "Machine: $(machine_line)."
  echo
  echo "Result line: \`$result\`; broker CPU $(echo "($u1 - $u0 + $k1 - $k0) / $CLK_TCK" | bc -l | awk '{printf "%.2f", $1}') s" \
    "(user $(echo "($u1 - $u0) / $CLK_TCK" | bc -l | awk '{printf "%.2f", $1}') s, kernel $(echo "($k1 - $k0) / $CLK_TCK" | bc -l | awk '{printf "%.2f", $1}') s)" \
    "over ${wall} s of wall time."
  echo
  echo "## CPU by thread (/proc/<pid>/task: all threads, including JIT compiler, GC, native and kernel time)"
  echo
  echo "| thread (digits folded) | threads | user s | kernel s |"
  echo "|---|---|---|---|"
  # delta per thread id, then summed per name with digits folded; threads that ended in between are lost
  awk -F'\t' -v hz="$CLK_TCK" 'NR == FNR { u[$1] = $3; k[$1] = $4; next }
    { n = $2; gsub(/[0-9]+/, "N", n); du = $3 - u[$1]; dk = $4 - k[$1]; if (du + dk <= 0) next
      tu[n] += du; tk[n] += dk; c[n]++ }
    END { for (n in tu) printf "| `%s` | %d | %.2f | %.2f |\n", n, c[n], tu[n] / hz, tk[n] / hz }' \
    "$WORK/threads-before" "$WORK/threads-after" | sort -t'|' -k4,4 -g -r | head -n 20
  echo
  echo "## Memory at the end of the scenario: RSS $rss_now MiB; JVM Native Memory Tracking, committed MB"
  echo
  echo "| area | committed MB |"
  echo "|---|---|"
  sed -nE 's/^-? *([A-Za-z][A-Za-z ]+[a-z]) \(reserved=[0-9]+MB, committed=([0-9]+)MB\).*/| \1 | \2 |/p' "$WORK/nmt.txt" \
    | sort -t'|' -k3,3 -g -r | head -n 12
  echo
  echo "Heap (jcmd GC.heap_info):"
  echo
  echo '```'
  grep -vE '^[0-9]+:$' "$WORK/heap.txt" | head -n 8
  echo '```'
  echo
  python3 "$BENCH_DIR/lib/jfr_top.py" "$jfr_file" "${BENCH_PROFILE_TOP:-25}"
} > "$summary"
cat "$summary"
log "summary in ${summary#"$REPO_DIR"/}; recording in ${jfr_file#"$REPO_DIR"/}"
# shellcheck disable=SC2034 # read by the EXIT trap in lib/common.sh
BENCH_OK=true
