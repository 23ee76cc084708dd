#!/usr/bin/env bash
# bench/memory.sh: what a broker's resident memory consists of under produce load: the same warm-up and
# produce as bench/quick.sh (1 KiB records, 6 partitions, acks=all), RSS sampled every 0.5 s, then the
# JVM's Native Memory Tracking summary and /proc/<pid>/smaps_rollup (anonymous vs file-backed pages).
#   bench/memory.sh                 Krill
#   bench/memory.sh kafka           Kafka 4.4, same heap and GC options
#   BENCH_TOPIC_MB=512 bench/memory.sh
# NMT itself costs a few MB (its own line "Native Memory Tracking" in the summary).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
kind=${1:-krill}
bench_init memory
ensure_kafka
[ "$kind" = krill ] && ensure_krill
RECORD_SIZE=${BENCH_RECORD_SIZE:-1024}
records=$(( ${BENCH_TOPIC_MB:-256} * 1024 * 1024 / RECORD_SIZE ))
props=${BENCH_PRODUCE_PROPS:-acks=all linger.ms=5 batch.size=131072}
nmt=-XX:NativeMemoryTracking=summary
export BENCH_KRILL_OPTS="${BENCH_KRILL_OPTS:-} $nmt" BENCH_KAFKA_OPTS="${BENCH_KAFKA_OPTS:-} $nmt"
start_single "$kind"
create_topic "$B" warmup 6 1
tool warmup org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$B" --topic warmup \
  --num-records "${BENCH_WARMUP_RECORDS:-50000}" --record-size "$RECORD_SIZE" --throughput -1 --command-property $props > /dev/null
# as run.sh: the warm-up records consumed by a group (so __consumer_offsets exists, as in quick.sh's figures)
tool warmup-consume org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" --topic warmup \
  --num-records "${BENCH_WARMUP_RECORDS:-50000}" --timeout 60000 --hide-header --group warmup > /dev/null
create_topic "$B" perf 6 1
start_sampler "$WORK/rss" "$BPID"
tool produce org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$B" --topic perf \
  --num-records "$records" --record-size "$RECORD_SIZE" --throughput -1 --command-property $props | tail -n 1
peak=$(stop_sampler "$WORK/rss")
echo "$kind: peak RSS while producing ${BENCH_TOPIC_MB:-256} MiB: $peak MiB; now $(( $(rss_kb "$BPID") / 1024 )) MiB; threads $(ls /proc/"$BPID"/task | wc -l); load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E '^(Rss|Anonymous|Shared_Clean|Private_Clean|Private_Dirty)' /proc/"$BPID"/smaps_rollup | tr -s ' ' | paste -sd ' '
jcmd "$BPID" VM.native_memory summary scale=MB | grep -E '^-|Total|committed=' | grep -E 'Total|^-' \
  | sed -E 's/\(reserved=[0-9]+MB, //; s/^-? *//' | awk '{$1=$1; print}'
jcmd "$BPID" GC.heap_info | grep -E 'garbage-first|region size|young|Metaspace' | sed 's/^ */  heap: /'
echo "largest mappings by RSS (kB: rss size name):"
awk '/^[0-9a-f]+-[0-9a-f]+ /{if (r) print rss, sz, r; r=$1 " " ($6 == "" ? "[anon]" : $6); rss=0; sz=0}
     /^Rss:/{rss=$2} /^Size:/{sz=$2} END{print rss, sz, r}' /proc/"$BPID"/smaps | sort -rn | head -n 12 | sed 's/^/  /'
stop_single "$kind"
BENCH_OK=true
