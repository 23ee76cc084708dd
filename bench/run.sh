#!/usr/bin/env bash
# bench/run.sh: Krill against Apache Kafka 4.4 on this machine, side by side, with Kafka's own tools
# (ProducerPerformance, ConsumerPerformance, EndToEndLatency) as the clients. See bench/README.md.
#
#   bench/run.sh                      every scenario, BENCH_REPEATS (3) alternating runs per broker
#   BENCH_TOPIC_MB=512 bench/run.sh   a smaller topic for produce/consume
#   bench/quick.sh                    the small subset (produce, consume, ready) in under 3 minutes
#   BENCH_SCENARIOS=share bench/run.sh  share groups (KIP-932) alone: ShareConsumerPerformance, 1 and 3
#                                     consumers of one share group (not in the default list)
#
# Builds Krill's distribution if missing (BENCH_REBUILD=1 forces it), resolves Kafka 4.4 from Maven
# Central into bench/.cache once, then alternates the brokers (ABBA: Kafka first in odd runs, Krill first
# in even runs), each on a fresh data dir under $TMPDIR with the same heap and GC flags. Writes a
# markdown report to stdout and to bench/results/<date>-<mode>.md. Every process it starts is stopped
# on exit; a broker that does not start fails the run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"

MODE=${BENCH_MODE:-run}
REPEATS=${BENCH_REPEATS:-3}
SCENARIOS=${BENCH_SCENARIOS:-produce,latency,consume,e2e,wide,cluster}
BROKERS=${BENCH_BROKERS:-kafka krill}
RECORD_SIZE=${BENCH_RECORD_SIZE:-1024}
TOPIC_MB=${BENCH_TOPIC_MB:-2048}                     # produce-throughput topic = consume topic
PRODUCE_RECORDS=$(( TOPIC_MB * 1048576 / RECORD_SIZE ))
WARMUP_RECORDS=${BENCH_WARMUP_RECORDS:-100000}
PRODUCE_PROPS=${BENCH_PRODUCE_PROPS:-acks=all linger.ms=5 batch.size=131072}
LAT_RATE=${BENCH_LAT_RATE:-20000}
LAT_RECORDS=${BENCH_LAT_RECORDS:-300000}
LAT_PROPS=${BENCH_LAT_PROPS:-acks=all linger.ms=1}
LAT_WARMUP=${BENCH_LAT_WARMUP:-20000}                # fixed-rate runs: percentiles after these records
E2E_RECORDS=${BENCH_E2E_RECORDS:-5000}
E2E_LOAD_RATE=${BENCH_E2E_LOAD_RATE:-5000}
CLUSTER_RECORDS=${BENCH_CLUSTER_RECORDS:-500000}
CLUSTER_RATE=${BENCH_CLUSTER_RATE:-3000}       # a rate both clusters keep on 2 cores (Kafka does not keep 10000)
CLUSTER_LAT_RECORDS=${BENCH_CLUSTER_LAT_RECORDS:-60000}
WIDE_PARTITIONS=${BENCH_WIDE_PARTITIONS:-2000}       # partitions one consumer reads ...
WIDE_BUSY=${BENCH_WIDE_BUSY:-20}                     # ... of which these are written
WIDE_RECORDS=${BENCH_WIDE_RECORDS:-150000}
WIDE_RATE=${BENCH_WIDE_RATE:-5000}
WIDE_HEADSTART=${BENCH_WIDE_HEADSTART:-10}           # seconds for the consumer to join before writes start
WIDE_WARMUP=${BENCH_WIDE_WARMUP:-30000}              # records written (and read) before the measured ones
SHARE_PARTITIONS=${BENCH_SHARE_PARTITIONS:-6}        # share: the topic's partitions ...
SHARE_RECORDS=${BENCH_SHARE_RECORDS:-500000}         # ... the records written to it first, then read by each group
SHARE_CONSUMERS=${BENCH_SHARE_CONSUMERS:-1 3}        # one share group per count, its consumers as threads of one tool
# ShareConsumerPerformance's --timeout (ms): the longest wait for a record, and also (the tool cancels its
# consumer threads --timeout + 100 ms after they started) the longest the whole read may take
SHARE_TIMEOUT=${BENCH_SHARE_TIMEOUT:-300000}

has() { [[ ",$SCENARIOS," == *",$1,"* ]]; }

gb() { echo "$1 * $RECORD_SIZE / 1000000000" | bc -l; }
per_gb() { # TICKS RECORDS -> CPU seconds per GB (10^9 bytes)
  echo "$1 / $CLK_TCK / $(gb "$2")" | bc -l | awk '{printf "%.2f", $1}'
}

# NAME BOOTSTRAP TOPIC RECORDS RATE PROPS [WARMUP] -> parsed ProducerPerformance line; with WARMUP > 0 the
# figures are the tool's steady-state ones (the records after the first WARMUP).
produce() {
  local out warm=${7:-0} extra=()
  [ "$warm" -gt 0 ] && extra=(--warmup-records "$warm")
  # shellcheck disable=SC2086
  out=$(tool "$1" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$2" --topic "$3" \
    --num-records "$4" --record-size "$RECORD_SIZE" --throughput "$5" "${extra[@]}" --command-property $6 \
    | parse_producer) || die "$1: ProducerPerformance failed (see $WORK/logs/$1.err)"
  [ -n "$out" ] || die "$1: no result line from ProducerPerformance (see $WORK/logs/$1.out, .err)"
  local n=${out%% *}
  [ "$n" = "$(( $4 - warm ))" ] || die "$1: only $n of $(( $4 - warm )) records acknowledged (see $WORK/logs/$1.err)"
  echo "$out"
}

single_session() { # KIND REP
  local kind=$1 rep=$2 n rps mbps avg max p50 p95 p99 p999 u0 k0 u1 k1 out
  record machine load1 "$kind" "$rep" "$(cut -d' ' -f1 /proc/loadavg)"
  start_single "$kind"
  record ready ready_s "$kind" "$rep" "$READY"

  # warm-up (JIT), not measured. Topics are created explicitly: with an auto-created topic, Kafka 4.4
  # can answer NOT_LEADER_OR_FOLLOWER to the first batches and then OUT_OF_ORDER_SEQUENCE_NUMBER forever
  # to the idempotent producer (seen here).
  create_topic "$B" warmup 6 1
  produce "warmup-$kind-$rep" "$B" warmup "$WARMUP_RECORDS" -1 "$PRODUCE_PROPS" > /dev/null || exit 1
  # ... and a consumer group, so the measured consume pays neither for compiling the fetch path nor for
  # creating __consumer_offsets (profile.sh showed both dominating a first consume, on both brokers)
  tool "warmup-consume-$kind-$rep" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" \
    --topic warmup --num-records "$WARMUP_RECORDS" --timeout 60000 --hide-header --group warmup > /dev/null \
    || die "warm-up consume failed (see $WORK/logs/warmup-consume-$kind-$rep.err)"

  if has produce || has consume; then
    create_topic "$B" perf 6 1
    sync
    log "$kind run $rep: produce $PRODUCE_RECORDS x $RECORD_SIZE B, unthrottled ($PRODUCE_PROPS)"
    start_sampler "$WORK/rss-produce" "$BPID"; read -r u0 k0 <<< "$(cpu_user_sys "$BPID")"; j0=$(cpu_jit_ticks "$BPID")
    out=$(produce "produce-$kind-$rep" "$B" perf "$PRODUCE_RECORDS" -1 "$PRODUCE_PROPS") || exit 1
    read -r n rps mbps avg max p50 p95 p99 p999 <<< "$out"
    read -r u1 k1 <<< "$(cpu_user_sys "$BPID")"; j1=$(cpu_jit_ticks "$BPID")
    record produce mbps "$kind" "$rep" "$mbps"
    record produce rps "$kind" "$rep" "$rps"
    record produce p99 "$kind" "$rep" "$p99"
    record produce client_cores "$kind" "$rep" "$(client_cores "produce-$kind-$rep")"
    record resources rss_produce_mb "$kind" "$rep" "$(stop_sampler "$WORK/rss-produce")"
    record resources cpu_per_gb_produced "$kind" "$rep" "$(per_gb $((u1 - u0 + k1 - k0)) "$PRODUCE_RECORDS")"
    record resources cpu_per_gb_produced_sys "$kind" "$rep" "$(per_gb $((k1 - k0)) "$PRODUCE_RECORDS")"
    record resources cpu_per_gb_produced_jit "$kind" "$rep" "$(per_gb $((j1 - j0)) "$PRODUCE_RECORDS")"
    log "$kind run $rep: $mbps MB/s, p99 $p99 ms"
  fi

  if has consume; then
    sync
    log "$kind run $rep: consume the $PRODUCE_RECORDS records from the start"
    start_sampler "$WORK/rss-consume" "$BPID"; read -r u0 k0 <<< "$(cpu_user_sys "$BPID")"; j0=$(cpu_jit_ticks "$BPID")
    out=$(tool "consume-$kind-$rep" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" \
      --topic perf --num-records "$PRODUCE_RECORDS" --timeout 60000 --hide-header --group "bench-$rep" \
      | parse_consumer) || die "ConsumerPerformance failed (see $WORK/logs/consume-$kind-$rep.err)"
    read -r u1 k1 <<< "$(cpu_user_sys "$BPID")"; j1=$(cpu_jit_ticks "$BPID")
    local cmbps nmsg join fmbps
    read -r _ cmbps nmsg join _ fmbps <<< "$out"
    [ "${nmsg:-0}" = "$PRODUCE_RECORDS" ] || die "consume: read ${nmsg:-0} of $PRODUCE_RECORDS records"
    record consume fetch_mbps "$kind" "$rep" "$fmbps"
    record consume mbps "$kind" "$rep" "$cmbps"
    record consume join_ms "$kind" "$rep" "$join"
    record consume client_cores "$kind" "$rep" "$(client_cores "consume-$kind-$rep")"
    record resources rss_consume_mb "$kind" "$rep" "$(stop_sampler "$WORK/rss-consume")"
    record resources cpu_per_gb_consumed "$kind" "$rep" "$(per_gb $((u1 - u0 + k1 - k0)) "$PRODUCE_RECORDS")"
    record resources cpu_per_gb_consumed_sys "$kind" "$rep" "$(per_gb $((k1 - k0)) "$PRODUCE_RECORDS")"
    record resources cpu_per_gb_consumed_jit "$kind" "$rep" "$(per_gb $((j1 - j0)) "$PRODUCE_RECORDS")"
    log "$kind run $rep: $fmbps MB/s (fetch), $join ms group join"
  fi

  if has latency; then
    create_topic "$B" lat 6 1
    sync
    log "$kind run $rep: produce $LAT_RECORDS at $LAT_RATE records/s ($LAT_PROPS)"
    out=$(produce "latency-$kind-$rep" "$B" lat "$LAT_RECORDS" "$LAT_RATE" "$LAT_PROPS" "$LAT_WARMUP") || exit 1
    read -r n rps mbps avg max p50 p95 p99 p999 <<< "$out"
    record latency rate "$kind" "$rep" "$rps"
    record latency p50 "$kind" "$rep" "$p50"
    record latency p99 "$kind" "$rep" "$p99"
    record latency p999 "$kind" "$rep" "$p999"
    log "$kind run $rep: p50 $p50 ms, p99 $p99 ms, p99.9 $p999 ms"
  fi

  if has e2e; then
    create_topic "$B" e2e 1 1
    local load=""
    if [ "$E2E_LOAD_RATE" -gt 0 ]; then
      create_topic "$B" e2e-load 6 1
      # background load at a fixed rate, for at most an hour; stopped when the measurement ends
      mkdir -p "$WORK/logs"
      # shellcheck disable=SC2086
      java $CLIENT_HEAP -Dlog4j2.configurationFile="$BENCH_DIR/kafka/tools-log4j2.properties" \
        -cp "$KAFKA_HOME/libs/*" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$B" \
        --topic e2e-load --num-records $((E2E_LOAD_RATE * 3600)) --record-size "$RECORD_SIZE" \
        --throughput "$E2E_LOAD_RATE" --command-property $LAT_PROPS \
        > "$WORK/logs/e2e-load-$kind-$rep.out" 2> "$WORK/logs/e2e-load-$kind-$rep.err" &
      load=$!; track $load
      sleep 3
      alive $load || die "e2e background load failed (see $WORK/logs/e2e-load-$kind-$rep.err)"
    fi
    log "$kind run $rep: end-to-end latency, $E2E_RECORDS records one at a time, background load $E2E_LOAD_RATE records/s"
    out=$(tool "e2e-$kind-$rep" org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$B" --topic e2e \
      --num-records "$E2E_RECORDS" --producer-acks all --record-size "$RECORD_SIZE" | parse_e2e) \
      || die "EndToEndLatency failed (see $WORK/logs/e2e-$kind-$rep.err)"
    [ -n "$load" ] && stop_pids "$load"
    read -r avg p50 p99 p999 <<< "$out"
    record e2e avg "$kind" "$rep" "$avg"
    record e2e p50 "$kind" "$rep" "$p50"
    record e2e p99 "$kind" "$rep" "$p99"
    record e2e p999 "$kind" "$rep" "$p999"
    log "$kind run $rep: end-to-end avg $avg ms, p99 $p99 ms"
  fi

  if has wide; then
    wide_consumer "$kind" "$rep"
  fi

  if has share; then
    share_consumers "$kind" "$rep"
  fi

  stop_single "$kind"
  # the next session of this broker starts in a fresh dir: its log goes with the clients' (kept on failure
  # or with BENCH_KEEP=1), so every session's broker log can be read afterwards
  mv "$BLOG" "$WORK/logs/broker-$kind-$rep.log" 2>/dev/null || true
}

# Share groups (KIP-932). Sets share.auto.offset.reset=earliest on GROUP (a group config, through
# kafka-configs' ConfigCommand and the Admin client) before any of its consumers starts.
share_group_earliest() { # BOOTSTRAP GROUP LOGNAME
  tool "$3" org.apache.kafka.tools.ConfigCommand --bootstrap-server "$1" --entity-type groups \
    --entity-name "$2" --alter --add-config share.auto.offset.reset=earliest > /dev/null \
    || die "share: could not set share.auto.offset.reset=earliest on group $2 (see $WORK/logs/$3.err)"
}

# ShareConsumerPerformance of COUNT consumers (threads, one KafkaShareConsumer each) in GROUP, until they
# have read RECORDS between them (acknowledged implicitly, committed at the end). Its log has each
# consumer's progress every 200 ms (when the first record came: share_first_record; a post-mortem of a
# slow or stuck read) and each one's total.
#   share_perf LOGNAME BOOTSTRAP TOPIC GROUP COUNT RECORDS -> "MB MBsec recsPerSec nMsg ms"
share_perf() {
  tool "$1" org.apache.kafka.tools.ShareConsumerPerformance --bootstrap-server "$2" --topic "$3" \
    --group "$4" --threads "$5" --num-records "$6" --timeout "$SHARE_TIMEOUT" --hide-header \
    --show-consumer-stats --show-detailed-stats --reporting-interval 200 | parse_share_consumer
}

# A topic of SHARE_PARTITIONS partitions holding SHARE_RECORDS records, then for each count in
# SHARE_CONSUMERS a new share group (earliest) of that many consumers reads all of them: records/s and
# MB/s as the tool computes them (from the consumers' creation to the last record, so the join and the
# share sessions are in), the broker's CPU over the read per GB read, the records each consumer got.
share_consumers() { # KIND REP
  local kind=$1 rep=$2 n out mb mbps rps nmsg ms u0 k0 u1 k1 j0 j1 group top first frps fmbps sv
  # the share.version the broker has finalized (kafka-features describe; 1 or more: share groups on)
  sv=$(tool "features-$kind-$rep" org.apache.kafka.tools.FeatureCommand --bootstrap-server "$B" describe \
    | sed -nE 's/^Feature: share\.version[[:space:]].*FinalizedVersionLevel: ([0-9]+).*/\1/p') || true
  log "$kind run $rep: share.version finalized at ${sv:-? (see $WORK/logs/features-$kind-$rep.out, .err)}"
  [ -z "$sv" ] || record share share_version "$kind" "$rep" "$sv"
  # warm-up, not measured: a share group reads the warm-up topic, so the share-fetch path is compiled
  # and the share-group state (Kafka: the __share_group_state topic) exists before the measured reads
  share_group_earliest "$B" share-warmup "share-config-warmup-$kind-$rep"
  out=$(share_perf "share-warmup-$kind-$rep" "$B" warmup share-warmup 1 "$WARMUP_RECORDS") \
    || die "share warm-up: ShareConsumerPerformance failed (see $WORK/logs/share-warmup-$kind-$rep.err, .out)"
  read -r _ _ _ nmsg _ <<< "$out"
  [ "${nmsg:-0}" -ge "$WARMUP_RECORDS" ] || die "share warm-up: read ${nmsg:-0} of $WARMUP_RECORDS records (see $WORK/logs/share-warmup-$kind-$rep.out, .err)"
  create_topic "$B" share "$SHARE_PARTITIONS" 1
  log "$kind run $rep: share: write $SHARE_RECORDS x $RECORD_SIZE B to $SHARE_PARTITIONS partitions"
  produce "share-produce-$kind-$rep" "$B" share "$SHARE_RECORDS" -1 "$PRODUCE_PROPS" > /dev/null || exit 1
  for n in $SHARE_CONSUMERS; do
    group="share-$n-$rep"
    share_group_earliest "$B" "$group" "share-config-$n-$kind-$rep"
    sync
    log "$kind run $rep: share group of $n consumer(s) reads the $SHARE_RECORDS records"
    start_sampler "$WORK/rss-share" "$BPID"; read -r u0 k0 <<< "$(cpu_user_sys "$BPID")"; j0=$(cpu_jit_ticks "$BPID")
    out=$(share_perf "share-$n-$kind-$rep" "$B" share "$group" "$n" "$SHARE_RECORDS") \
      || die "share, $n consumer(s): ShareConsumerPerformance failed (see $WORK/logs/share-$n-$kind-$rep.err, .out)"
    read -r u1 k1 <<< "$(cpu_user_sys "$BPID")"; j1=$(cpu_jit_ticks "$BPID")
    read -r mb mbps rps nmsg ms <<< "$out"
    [ "${nmsg:-0}" -ge "$SHARE_RECORDS" ] \
      || die "share, $n consumer(s): read ${nmsg:-0} of $SHARE_RECORDS records (see $WORK/logs/share-$n-$kind-$rep.out, .err)"
    record share "rps_$n" "$kind" "$rep" "$rps"
    record share "mbps_$n" "$kind" "$rep" "$mbps"
    record share "seconds_$n" "$kind" "$rep" "$(echo "$ms / 1000" | bc -l)"
    read -r first frps fmbps <<< "$(share_first_record "$WORK/logs/share-$n-$kind-$rep.out")"
    record share "first_s_$n" "$kind" "$rep" "$first"
    record share "fetch_rps_$n" "$kind" "$rep" "$frps"
    record share "fetch_mbps_$n" "$kind" "$rep" "$fmbps"
    record share "cpu_per_gb_$n" "$kind" "$rep" "$(per_gb $((u1 - u0 + k1 - k0)) "$nmsg")"
    record share "cpu_per_gb_jit_$n" "$kind" "$rep" "$(per_gb $((j1 - j0)) "$nmsg")"
    record share "rss_mb_$n" "$kind" "$rep" "$(stop_sampler "$WORK/rss-share")"
    record share "client_cores_$n" "$kind" "$rep" "$(client_cores "share-$n-$kind-$rep")"
    # records delivered beyond SHARE_RECORDS: redeliveries, plus the last polls of the other consumers
    record share "extra_pct_$n" "$kind" "$rep" "$(echo "($nmsg - $SHARE_RECORDS) * 100 / $SHARE_RECORDS" | bc -l)"
    if [ "$n" -gt 1 ]; then
      # the busiest consumer's part of the records read (100/n when the group shares the load evenly)
      top=$(sed -nE 's/^Share consumer [0-9]+ .*consumption metrics- .*, ([0-9]+), [0-9]+$/\1/p' \
        "$WORK/logs/share-$n-$kind-$rep.out" | sort -n | tail -n 1)
      record share "top_pct_$n" "$kind" "$rep" "$(echo "${top:-0} * 100 / $nmsg" | bc -l)"
    fi
    log "$kind run $rep: share group of $n: $rps records/s, $mbps MB/s ($frps records/s after the first record, ${first}s after start), broker CPU $(per_gb $((u1 - u0 + k1 - k0)) "$nmsg") s per GB"
  done
}

# A consumer of WIDE_PARTITIONS partitions that tails WIDE_BUSY of them while a producer writes at a fixed
# rate: most of each fetch is idle partitions, which fetch sessions (KIP-227) leave out. The broker's CPU
# from the first write to the last record read, per GB written (and read once).
wide_consumer() { # KIND REP
  local kind=$1 rep=$2 c0 c1 cpid out n
  create_topic "$B" wide-busy "$WIDE_BUSY" 1
  create_topic "$B" wide-idle "$((WIDE_PARTITIONS - WIDE_BUSY))" 1
  log "$kind run $rep: a consumer of $WIDE_PARTITIONS partitions tails $WIDE_BUSY written at $WIDE_RATE records/s"
  ( tool "wide-consume-$kind-$rep" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" \
      --include 'wide-.*' --num-records "$((WIDE_WARMUP + WIDE_RECORDS))" --timeout 120000 --hide-header \
      --group "wide-$rep" --print-metrics | parse_consumer > "$WORK/wide-consume.out" ) &
  cpid=$!
  sleep "$WIDE_HEADSTART"
  alive $cpid || die "wide: the consumer ended before any write (see $WORK/logs/wide-consume-$kind-$rep.err)"
  # the same paths at the same rate first, not measured (the JIT compiles them meanwhile)
  produce "wide-warmup-$kind-$rep" "$B" wide-busy "$WIDE_WARMUP" "$WIDE_RATE" "$LAT_PROPS" > /dev/null || exit 1
  c0=$(cpu_ticks "$BPID")
  out=$(produce "wide-produce-$kind-$rep" "$B" wide-busy "$WIDE_RECORDS" "$WIDE_RATE" "$LAT_PROPS") || exit 1
  wait $cpid || die "wide: ConsumerPerformance failed (see $WORK/logs/wide-consume-$kind-$rep.err)"
  c1=$(cpu_ticks "$BPID")
  read -r _ _ n _ _ _ < "$WORK/wide-consume.out"
  [ "${n:-0}" = "$((WIDE_WARMUP + WIDE_RECORDS))" ] || die "wide: read ${n:-0} of $((WIDE_WARMUP + WIDE_RECORDS)) records"
  record wide cpu_per_gb "$kind" "$rep" "$(per_gb $((c1 - c0)) "$WIDE_RECORDS")"
  record wide consumer_cores "$kind" "$rep" "$(client_cores "wide-consume-$kind-$rep")"
  # the consumer's own count of fetch responses (warm-up included), per 1,000 records read
  record wide fetches_per_1000 "$kind" "$rep" "$(awk -v n=$((WIDE_WARMUP + WIDE_RECORDS)) \
    '/^consumer-fetch-manager-metrics:fetch-total:/ {printf "%.1f", $NF * 1000 / n; exit}' \
    "$WORK/logs/wide-consume-$kind-$rep.out")"
  log "$kind run $rep: wide consumer done, broker CPU $(per_gb $((c1 - c0)) "$WIDE_RECORDS") s per GB"
}

cluster_session() { # KIND REP
  local kind=$1 rep=$2 n rps mbps avg max p50 p95 p99 p999 c0 c1 out
  record machine load1 "$kind" "$rep" "$(cut -d' ' -f1 /proc/loadavg)"
  start_cluster "$kind"
  record cluster ready_s "$kind" "$rep" "$CREADY"
  produce "cluster-warmup-$kind-$rep" "$CB" cluster-perf "$WARMUP_RECORDS" -1 "$PRODUCE_PROPS" > /dev/null || exit 1
  sync
  log "$kind cluster run $rep: produce $CLUSTER_RECORDS x $RECORD_SIZE B, RF3, min.insync.replicas=2, unthrottled"
  start_sampler "$WORK/rss-cluster" "${CPIDS[@]}"; c0=$(cpu_ticks "${CPIDS[@]}")
  out=$(produce "cluster-produce-$kind-$rep" "$CB" cluster-perf "$CLUSTER_RECORDS" -1 "$PRODUCE_PROPS") || exit 1
  read -r n rps mbps avg max p50 p95 p99 p999 <<< "$out"
  c1=$(cpu_ticks "${CPIDS[@]}")
  record cluster mbps "$kind" "$rep" "$mbps"
  record cluster p99_saturated "$kind" "$rep" "$p99"
  record cluster client_cores "$kind" "$rep" "$(client_cores "cluster-produce-$kind-$rep")"
  record cluster rss_mb "$kind" "$rep" "$(stop_sampler "$WORK/rss-cluster")"
  record cluster cpu_per_gb "$kind" "$rep" "$(per_gb $((c1 - c0)) "$CLUSTER_RECORDS")"
  log "$kind cluster run $rep: $mbps MB/s, p99 $p99 ms"
  sync
  log "$kind cluster run $rep: produce $CLUSTER_LAT_RECORDS at $CLUSTER_RATE records/s"
  out=$(produce "cluster-latency-$kind-$rep" "$CB" cluster-perf "$CLUSTER_LAT_RECORDS" "$CLUSTER_RATE" "$LAT_PROPS" "$LAT_WARMUP") || exit 1
  read -r n rps mbps avg max p50 p95 p99 p999 <<< "$out"
  record cluster p50_fixed "$kind" "$rep" "$p50"
  record cluster p99_fixed "$kind" "$rep" "$p99"
  record cluster p999_fixed "$kind" "$rep" "$p999"
  log "$kind cluster run $rep: at $CLUSTER_RATE/s p50 $p50 ms, p99 $p99 ms"
  # everything written above, read from the start by a new group (leaders serve it; the followers idle)
  local total=$((WARMUP_RECORDS + CLUSTER_RECORDS + CLUSTER_LAT_RECORDS)) cmbps nmsg
  sync
  c0=$(cpu_ticks "${CPIDS[@]}")
  out=$(tool "cluster-consume-$kind-$rep" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$CB" \
    --topic cluster-perf --num-records "$total" --timeout 60000 --hide-header --group "cluster-$rep" \
    | parse_consumer) || die "cluster: ConsumerPerformance failed (see $WORK/logs/cluster-consume-$kind-$rep.err)"
  c1=$(cpu_ticks "${CPIDS[@]}")
  read -r _ cmbps nmsg _ _ _ <<< "$out"
  [ "${nmsg:-0}" -ge "$total" ] || die "cluster consume: read ${nmsg:-0} of $total records"
  record cluster consume_mbps "$kind" "$rep" "$cmbps"
  record cluster cpu_per_gb_consumed "$kind" "$rep" "$(per_gb $((c1 - c0)) "$total")"
  log "$kind cluster run $rep: consumed $total records at $cmbps MB/s"
  stop_cluster "$kind"
}

# ---------------------------------------------------------------------------------------------------

started=$(date +%s)
bench_init "$MODE"
MACHINE=$(machine_line)
ensure_kafka
case " $BROKERS " in *" krill "*) ensure_krill ;; esac
log "Krill: ${KRILL_HOME:-(not run)}; Kafka $KAFKA_VERSION: $KAFKA_HOME"
# both brokers' jars into the page cache, so the first start of either does not pay for cold reads
cat "$KAFKA_HOME"/libs/*.jar ${KRILL_HOME:+"$KRILL_HOME"/libs/*.jar} > /dev/null
log "mode $MODE: $REPEATS run(s) per broker, scenarios $SCENARIOS, topic $TOPIC_MB MiB"

for rep in $(seq 1 "$REPEATS"); do
  # ABBA: the first broker of odd runs goes second in even runs
  order=$BROKERS
  [ $((rep % 2)) = 0 ] && order=$(echo "$BROKERS" | tr ' ' '\n' | tac | tr '\n' ' ')
  for kind in $order; do single_session "$kind" "$rep"; done
  if has cluster; then
    for kind in $order; do cluster_session "$kind" "$rep"; done
  fi
done

took=$(( $(date +%s) - started ))
mkdir -p "$BENCH_DIR/results"
out="$BENCH_DIR/results/$(date -u +%Y-%m-%d-%H%M)-$MODE.md"
BENCH_MACHINE="$MACHINE" BENCH_TOOK="$took" BENCH_MODE="$MODE" BENCH_REPEATS="$REPEATS" \
  BENCH_SCENARIOS="$SCENARIOS" BENCH_PRODUCE_RECORDS="$PRODUCE_RECORDS" BENCH_TOPIC_MB="$TOPIC_MB" \
  BENCH_RECORD_SIZE="$RECORD_SIZE" BENCH_WARMUP_RECORDS="$WARMUP_RECORDS" BENCH_PRODUCE_PROPS="$PRODUCE_PROPS" \
  BENCH_LAT_RATE="$LAT_RATE" BENCH_LAT_RECORDS="$LAT_RECORDS" BENCH_LAT_PROPS="$LAT_PROPS" BENCH_LAT_WARMUP="$LAT_WARMUP" \
  BENCH_E2E_RECORDS="$E2E_RECORDS" BENCH_E2E_LOAD_RATE="$E2E_LOAD_RATE" \
  BENCH_CLUSTER_RECORDS="$CLUSTER_RECORDS" BENCH_CLUSTER_RATE="$CLUSTER_RATE" \
  BENCH_CLUSTER_LAT_RECORDS="$CLUSTER_LAT_RECORDS" BENCH_WIDE_PARTITIONS="$WIDE_PARTITIONS" \
  BENCH_WIDE_BUSY="$WIDE_BUSY" BENCH_WIDE_RECORDS="$WIDE_RECORDS" BENCH_WIDE_RATE="$WIDE_RATE" BENCH_WIDE_WARMUP="$WIDE_WARMUP" \
  BENCH_SHARE_PARTITIONS="$SHARE_PARTITIONS" BENCH_SHARE_RECORDS="$SHARE_RECORDS" BENCH_SHARE_CONSUMERS="$SHARE_CONSUMERS" \
  BENCH_HEAP_USED="$HEAP" BENCH_JVM_USED="$JVM_OPTS" \
  BENCH_KAFKA_VERSION="$KAFKA_VERSION" \
  python3 "$BENCH_DIR/lib/report.py" "$RESULTS" > "$out"
cat "$out"
log "report written to ${out#"$REPO_DIR"/} ($took s)"
# shellcheck disable=SC2034 # read by the EXIT trap in lib/common.sh
BENCH_OK=true
