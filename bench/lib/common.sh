# shellcheck shell=bash disable=SC2034
# Shared by bench/run.sh, bench/quick.sh and bench/profile.sh (sourced, not run). Bash 4+, Linux (/proc).
#
# Everything runs on 127.0.0.1. Every process started here is recorded in $WORK/pids and stopped by the
# EXIT trap (SIGTERM, then SIGKILL after a grace period), whatever way the script ends.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
KAFKA_VERSION=4.4.0
KAFKA_HOME=${BENCH_KAFKA_HOME:-$BENCH_DIR/.cache/kafka-$KAFKA_VERSION}
KRILL_HOME=${BENCH_KRILL_HOME:-}

# The same JVM for both brokers: heap and GC flags (Krill's bin/krill-run-class.sh defaults for the GC,
# a subset of Kafka's own KAFKA_JVM_PERFORMANCE_OPTS). Extra options per broker, e.g. JFR, in
# BENCH_KRILL_OPTS / BENCH_KAFKA_OPTS.
HEAP=${BENCH_HEAP:--Xmx1G}
JVM_OPTS=${BENCH_JVM_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20}
CLIENT_HEAP=${BENCH_CLIENT_HEAP:--Xmx1G}
START_TIMEOUT=${BENCH_START_TIMEOUT:-120}   # seconds a broker (or cluster) may take to accept a produce
CLIENT_TIMEOUT=${BENCH_CLIENT_TIMEOUT:-900} # seconds any one client run may take
STOP_GRACE=${BENCH_STOP_GRACE:-30}          # seconds between SIGTERM and SIGKILL
CLK_TCK=$(getconf CLK_TCK)

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[bench %s] FAILED: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc -l | awk '{printf "%.3f", $1}'; }

# ---------------------------------------------------------------------------------------------------
# Work dir (data disk, logs) and clean-up.

bench_init() {
  local name=$1 cmd
  for cmd in java jcmd mvn python3 bc timeout /usr/bin/time getconf; do
    command -v "$cmd" > /dev/null || die "$cmd is needed (Java 17 JDK, Maven, python3, bc, coreutils, GNU time)"
  done
  WORK=$(mktemp -d "${BENCH_WORK_DIR:-${TMPDIR:-/tmp}}/krill-bench-$name.XXXXXX")
  : > "$WORK/pids"
  RESULTS="$WORK/results.tsv"
  : > "$RESULTS"
  BENCH_OK=false
  trap bench_cleanup EXIT
  trap 'log "interrupted"; exit 130' INT TERM HUP
  log "work dir (data disk and logs): $WORK"
}

track() { echo "$1" >> "$WORK/pids"; }
untrack() { sed -i "/^$1\$/d" "$WORK/pids"; }

alive() { kill -0 "$1" 2>/dev/null; }

# Stops the given pids: SIGTERM, then SIGKILL for whatever is left after $STOP_GRACE seconds.
stop_pids() {
  local p deadline
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  deadline=$(( $(date +%s) + STOP_GRACE ))
  for p in "$@"; do
    while alive "$p" && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
    if alive "$p"; then
      log "pid $p still running ${STOP_GRACE}s after SIGTERM: SIGKILL"
      kill -KILL "$p" 2>/dev/null || true
    fi
  done
  for p in "$@"; do wait "$p" 2>/dev/null || true; untrack "$p"; done
}

bench_cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "${WORK:-}" ] && [ -f "$WORK/pids" ]; then
    local pids
    pids=$(tac "$WORK/pids")
    if [ -n "$pids" ]; then
      log "stopping what is still running: $(echo $pids)"
      # shellcheck disable=SC2086
      STOP_GRACE=10 stop_pids $pids
    fi
  fi
  if [ -n "${WORK:-}" ] && [ -d "$WORK" ]; then
    if [ "$BENCH_OK" = true ] && [ "${BENCH_KEEP:-0}" != 1 ]; then
      rm -rf "$WORK"
    else
      # keep the logs for the post-mortem, drop the data
      find "$WORK" -mindepth 1 -maxdepth 3 -type d \( -name 'data*' -o -name 'zk' -o -name kafka-format \) -prune -exec rm -rf {} + 2>/dev/null || true
      log "logs kept in $WORK"
    fi
  fi
  exit $rc
}

# ---------------------------------------------------------------------------------------------------
# The two brokers' software.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

ensure_kafka() {
  if [ ! -f "$KAFKA_HOME/libs/kafka_2.13-$KAFKA_VERSION.jar" ] || [ ! -f "$KAFKA_HOME/libs/kafka-tools-$KAFKA_VERSION.jar" ]; then
    log "resolving Apache Kafka $KAFKA_VERSION (broker + tools) from Maven Central into $KAFKA_HOME"
    local tmp
    tmp=$(mktemp -d)
    cp "$BENCH_DIR/kafka/pom.xml" "$tmp/"
    (cd "$tmp" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$KAFKA_HOME/libs.tmp") \
      || die "could not resolve Apache Kafka $KAFKA_VERSION from Maven Central"
    rm -rf "$tmp" "$KAFKA_HOME/libs"
    mv "$KAFKA_HOME/libs.tmp" "$KAFKA_HOME/libs"
  fi
}

ensure_krill() {
  if [ -z "$KRILL_HOME" ]; then
    KRILL_HOME=$(ls -d "$REPO_DIR"/broker/target/krill/krill-*/ 2>/dev/null | head -n 1)
    KRILL_HOME=${KRILL_HOME%/}
  fi
  if [ "${BENCH_REBUILD:-0}" = 1 ] || [ -z "$KRILL_HOME" ] || [ ! -d "$KRILL_HOME/libs" ]; then
    log "building Krill's distribution: mvn -B -q -pl broker -am package -DskipTests"
    (cd "$REPO_DIR" && mvn -B -q -pl broker -am package -DskipTests) >&2 || die "Krill build failed"
    KRILL_HOME=$(ls -d "$REPO_DIR"/broker/target/krill/krill-*/ | head -n 1)
    KRILL_HOME=${KRILL_HOME%/}
  fi
  [ -x "$KRILL_HOME/bin/krill-server-start.sh" ] || die "no Krill distribution at $KRILL_HOME"
  # Krill's class-data-sharing archive, an install step of the distribution (bin/krill-cds-archive.sh):
  # made once per build of the jars; BENCH_KRILL_CDS=off runs Krill without it (KRILL_CDS=off).
  if [ "${BENCH_KRILL_CDS:-on}" = off ]; then
    export KRILL_CDS=off
  elif [ -x "$KRILL_HOME/bin/krill-cds-archive.sh" ] && { [ ! -f "$KRILL_HOME/krill-server.jsa" ] \
      || [ -n "$(find "$KRILL_HOME/libs" -newer "$KRILL_HOME/krill-server.jsa" -print -quit)" ]; }; then
    log "making Krill's class-data-sharing archive: bin/krill-cds-archive.sh"
    "$KRILL_HOME/bin/krill-cds-archive.sh" >&2 || die "bin/krill-cds-archive.sh failed"
  fi
}

# A Kafka tool (client) run in the background and waited for, so the EXIT trap can stop it.
#   tool LOGNAME CLASS ARGS...   -> its stdout on stdout; stderr in $WORK/logs/LOGNAME.err
tool() {
  local name=$1 cls=$2; shift 2
  mkdir -p "$WORK/logs"
  # timeout signals its whole process group (time and java) when it is stopped; /usr/bin/time writes the
  # client's own CPU and wall time to LOGNAME.time (see client_cores)
  timeout --kill-after=10 "$CLIENT_TIMEOUT" /usr/bin/time -f '%U %S %e' -o "$WORK/logs/$name.time" java $CLIENT_HEAP \
    -Dlog4j2.configurationFile="$BENCH_DIR/kafka/tools-log4j2.properties" \
    -cp "$KAFKA_HOME/libs/*" "$cls" "$@" > "$WORK/logs/$name.out" 2>> "$WORK/logs/$name.err" &
  local pid=$!
  track $pid
  local rc=0
  wait $pid || rc=$?
  untrack $pid
  cat "$WORK/logs/$name.out"
  return $rc
}

# The CPU a client used while it ran, in cores (1.00 = one core busy the whole time): when it nears 1 on
# this 2-core machine the client itself bounds the figure.
client_cores() { # LOGNAME
  awk 'NF == 3 && $3 > 0 {printf "%.2f", ($1 + $2) / $3}' "$WORK/logs/$1.time"
}

create_topic() { # BOOTSTRAP TOPIC PARTITIONS RF [--config k=v ...]
  local b=$1 t=$2 p=$3 rf=$4; shift 4
  tool "topic-$t" org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic "$t" \
    --partitions "$p" --replication-factor "$rf" "$@" > /dev/null \
    || die "could not create topic $t on $b (see $WORK/logs/topic-$t.err)"
}

# ---------------------------------------------------------------------------------------------------
# /proc readings.

cpu_ticks() { # PID... -> utime+stime of all, in clock ticks
  local t=0 p f
  for p in "$@"; do
    f=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
    # after the ")": field 1 is state (stat field 3); utime, stime are stat fields 14, 15
    t=$(( t + $(echo "$f" | awk '{print $12 + $13}') ))
  done
  echo $t
}

cpu_user_sys() { # PID... -> "utime stime" summed, in clock ticks
  local u=0 k=0 p f
  for p in "$@"; do
    f=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
    u=$(( u + $(echo "$f" | awk '{print $12}') )); k=$(( k + $(echo "$f" | awk '{print $13}') ))
  done
  echo "$u $k"
}

# utime+stime (clock ticks) of PID's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre"): the
# share of a scenario's broker CPU that compiles code rather than serves requests, large in a short run.
cpu_jit_ticks() {
  local t=0 d
  for d in /proc/"$1"/task/*; do
    case "$(cat "$d/comm" 2>/dev/null)" in
      C1\ CompilerThre*|C2\ CompilerThre*)
        t=$(( t + $(sed 's/^.*) //' "$d/stat" 2>/dev/null | awk '{print $12 + $13}') )) ;;
    esac
  done 2>/dev/null
  echo $t
}

# One line per thread of PID: "tid<TAB>name<TAB>utime<TAB>stime" (clock ticks), for per-thread deltas.
thread_cpu() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s\t%s\t%s\n' "${t##*/}" "$(cat "$t/comm" 2>/dev/null)" \
      "$(sed 's/^.*) //' "$t/stat" 2>/dev/null | awk '{print $12 "\t" $13}')"
  done 2>/dev/null
}

rss_kb() { # PID... -> summed VmRSS in kB
  local t=0 p v
  for p in "$@"; do
    v=$(awk '/^VmRSS:/{print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    t=$(( t + ${v:-0} ))
  done
  echo $t
}

# Samples the summed RSS of PIDs every 0.5 s into FILE until stopped (stop_sampler).
start_sampler() { # FILE PID...
  local file=$1; shift
  ( while true; do rss_kb "$@"; sleep 0.5; done ) > "$file" &
  SAMPLER=$!
  track $SAMPLER
}
stop_sampler() { # -> peak RSS in MiB
  kill "$SAMPLER" 2>/dev/null || true
  wait "$SAMPLER" 2>/dev/null || true
  untrack "$SAMPLER"
  awk 'BEGIN{m=0} {if ($1>m) m=$1} END{printf "%.0f", m/1024}' "$1"
}

record() { # SCENARIO METRIC BROKER REP VALUE
  [ -n "$5" ] || die "no value for $1/$2 ($3, run $4)"
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$RESULTS"
}

# ---------------------------------------------------------------------------------------------------
# Parsing the tools' final lines.

# ProducerPerformance: "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency,
#  P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."  -> "N R M A X P50 P95 P99 P999"
# With --warmup-records the tool adds "N steady state records sent, ..." (same fields, the records after
# the warm-up); that line is taken when present.
parse_producer() {
  local lines
  lines=$(grep -E '^[0-9]+ (steady state )?records sent, [0-9.]+ records/sec .*th\.$') || return 0
  if echo "$lines" | grep -q 'steady state'; then lines=$(echo "$lines" | grep 'steady state'); fi
  echo "$lines" | tail -n 1 | sed -E 's/ steady state records sent,/ records sent,/' | sed -E \
    's/^([0-9]+) records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\), ([0-9.]+) ms avg latency, ([0-9.]+) ms max latency, ([0-9.]+) ms 50th, ([0-9.]+) ms 95th, ([0-9.]+) ms 99th, ([0-9.]+) ms 99.9th.*/\1 \2 \3 \4 \5 \6 \7 \8 \9/'
}

# ConsumerPerformance (with --hide-header): "start, end, MB, MB.sec, nMsg, nMsg.sec, rebalance.ms,
#  fetch.ms, fetch.MB.sec, fetch.nMsg.sec" -> "MB MBsec nMsg rebalance_ms fetch_ms fetchMBsec"
parse_consumer() {
  grep -E '^[0-9]{4}-' | tail -n 1 | awk -F', *' '{print $3, $4, $5, $7, $8, $9}'
}

# ShareConsumerPerformance (with --hide-header): "start, end, MB, MB.sec, nMsg.sec, nMsg, fetch.time.ms" (the
# group's line; with --show-consumer-stats each consumer's line starts "Share consumer N consumption
# metrics- ") -> "MB MBsec nMsgsec nMsg ms"
parse_share_consumer() {
  grep -E '^[0-9]{4}-' | tail -n 1 | awk -F', *' '{print $3, $4, $5, $6, $7}'
}

# The first record's arrival, from ShareConsumerPerformance's per-consumer progress lines
# (--show-detailed-stats: "start, end, MB, MB.sec, nMsg.sec, nMsg, ms for share consumer N", printed at
# the first record after each --reporting-interval, so the first line of a consumer that waited longer
# than the interval is its first record) and the group's final line.
#   share_first_record FILE -> "seconds-to-first-record records/s-after-it MB/s-after-it"
share_first_record() {
  python3 - "$1" <<'PY'
import sys
from datetime import datetime
fmt = "%Y-%m-%d %H:%M:%S:%f"
t = lambda s: datetime.strptime(s.strip(), fmt).timestamp()
first, final = None, None
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    if len(f) != 7 or not f[0][:1].isdigit():
        continue
    if f[6].endswith(tuple("0123456789")) and " for share consumer " in f[6]:
        first = t(f[1]) if first is None else min(first, t(f[1]))
    elif f[6].isdigit():
        final = (t(f[0]), t(f[1]), float(f[2]), int(f[5]))
if final:
    start, end, mb, n = final
    if first is None or end - first <= 0:
        first = start
    print(f"{first - start:.3f} {n / (end - first):.1f} {mb / (end - first):.2f}")
PY
}

# EndToEndLatency: "Avg latency: A ms" and "Percentiles: 50th = P50, 99th = P99, 99.9th = P999"
parse_e2e() {
  local out avg pct
  out=$(cat)
  avg=$(echo "$out" | sed -nE 's/^Avg latency: ([0-9.]+) ms.*/\1/p' | tail -n 1)
  pct=$(echo "$out" | sed -nE 's/^Percentiles: 50th = ([0-9.]+), 99th = ([0-9.]+), 99\.9th = ([0-9.]+).*/\1 \2 \3/p' | tail -n 1)
  [ -n "$avg" ] && [ -n "$pct" ] && echo "$avg $pct"
}

# ---------------------------------------------------------------------------------------------------
# Producer probe: the time from a broker's process start to its first acknowledged produce.
#
# The probe (ProducerPerformance, one record, acks=all, topic auto-created) is started BEFORE the broker
# and given a head start so its own JVM start-up is not counted; it retries the connection every 20 ms.
# Each stdout line is stamped with the wall clock; the stamp of its "1 records sent" line is the end.

PROBE_HEADSTART=${BENCH_PROBE_HEADSTART:-1.5}

start_probe() { # NAME BOOTSTRAP TOPIC
  local name=$1 b=$2 t=$3
  mkdir -p "$WORK/logs"
  # $! is java itself (the time stamps are a process substitution), so the EXIT trap can stop it
  java $CLIENT_HEAP -Dlog4j2.configurationFile="$BENCH_DIR/kafka/tools-log4j2.properties" \
    -cp "$KAFKA_HOME/libs/*" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$b" \
    --topic "$t" --num-records 1 --record-size 1024 --throughput -1 --command-property acks=all \
    linger.ms=0 reconnect.backoff.ms=20 reconnect.backoff.max.ms=20 retry.backoff.ms=20 \
    retry.backoff.max.ms=20 max.block.ms=$((START_TIMEOUT * 1000)) delivery.timeout.ms=$((START_TIMEOUT * 1000)) \
    request.timeout.ms=$((START_TIMEOUT * 1000)) 2>> "$WORK/logs/$name.err" \
    > >(while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done > "$WORK/logs/$name.out") &
  PROBE=$!
  track $PROBE
}

# Waits for the probe; fails loudly if a broker dies or nothing is acknowledged in time.
#   wait_probe NAME T0 LOGFILE PID...  -> seconds from T0 to the acknowledged record
wait_probe() {
  local name=$1 t0=$2 logf=$3; shift 3
  local deadline=$(( $(date +%s) + START_TIMEOUT + 5 )) p
  while alive "$PROBE"; do
    for p in "$@"; do
      if ! alive "$p"; then
        tail -n 40 "$logf" >&2 || true
        die "${name#probe-}: process $p exited before the first produce succeeded (log: $logf)"
      fi
    done
    if [ "$(date +%s)" -gt "$deadline" ]; then
      tail -n 40 "$logf" >&2 || true
      die "${name#probe-}: no produce acknowledged within ${START_TIMEOUT}s (log: $logf)"
    fi
    sleep 0.05
  done
  wait "$PROBE" 2>/dev/null || true
  untrack "$PROBE"
  local t1 k
  for k in $(seq 1 40); do  # the time-stamping reader may be a moment behind java's exit
    t1=$(awk '$2 == "1" && $3 == "records" && $4 == "sent," {print $1}' "$WORK/logs/$name.out" | tail -n 1)
    [ -n "$t1" ] && break
    sleep 0.05
  done
  if [ -z "$t1" ]; then
    tail -n 40 "$logf" >&2 || true
    tail -n 20 "$WORK/logs/$name.err" >&2 || true
    die "$name: the first produce failed (probe output: $WORK/logs/$name.out; broker log: $logf)"
  fi
  echo "$t1 - $t0" | bc -l | awk '{printf "%.3f", $1}'
}

# ---------------------------------------------------------------------------------------------------
# Single brokers. start_single KIND -> sets B (bootstrap), BPID, READY (seconds), BLOG.

# A Kafka cluster id (base64url of a random UUID). Like Kafka's Uuid.randomUuid, never one starting with
# "-", which kafka-storage would take for an option.
kafka_cluster_id() {
  python3 -c 'import uuid,base64
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break'
}

# KRaft needs `kafka-storage format` before the first start. It runs once per node kind and run (one
# JVM); later sessions copy the formatted dir (it records cluster and node ids, not ports or paths).
#   kafka_format TEMPLATE_NAME PROPERTIES LOG_DIR
kafka_format() {
  local tpl="$WORK/kafka-format/$1"
  if [ ! -d "$tpl" ]; then
    mkdir -p "$WORK/kafka-format"
    [ -n "${KAFKA_CLUSTER_ID:-}" ] || KAFKA_CLUSTER_ID=$(kafka_cluster_id)
    sed "s#^log.dirs=.*#log.dirs=$tpl#" "$2" > "$WORK/kafka-format/$1.properties"
    java -cp "$KAFKA_HOME/libs/*" -Dlog4j2.configurationFile="$BENCH_DIR/kafka/tools-log4j2.properties" \
      kafka.tools.StorageTool format -t "$KAFKA_CLUSTER_ID" -c "$WORK/kafka-format/$1.properties" \
      > "$WORK/kafka-format/$1.log" 2>&1 || { cat "$WORK/kafka-format/$1.log" >&2; die "kafka storage format failed"; }
  fi
  rm -rf "$3"; cp -a "$tpl" "$3"
}

start_single() {
  local kind=$1 dir="$WORK/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  local port; port=$(free_port)
  B=127.0.0.1:$port
  BLOG="$dir/server.log"
  if [ "$kind" = kafka ]; then
    local cport; cport=$(free_port)
    cat > "$dir/server.properties" <<P
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
P
    [ -z "${BENCH_KAFKA_PROPS:-}" ] || printf '%s\n' ${BENCH_KAFKA_PROPS} >> "$dir/server.properties"
    kafka_format single-1 "$dir/server.properties" "$dir/data"
  fi
  start_probe "probe-$kind" "$B" ready-probe
  sleep "$PROBE_HEADSTART"
  local t0; t0=$(now)
  if [ "$kind" = kafka ]; then
    # shellcheck disable=SC2086
    java $HEAP $JVM_OPTS -Dlog4j2.configurationFile="$BENCH_DIR/kafka/log4j2.properties" ${BENCH_KAFKA_OPTS:-} \
      -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$dir/server.properties" > "$BLOG" 2>&1 &
  else
    local extra=() kv
    for kv in ${BENCH_KRILL_OVERRIDES:-}; do extra+=(--override "$kv"); done
    KAFKA_HEAP_OPTS="$HEAP" KAFKA_JVM_PERFORMANCE_OPTS="$JVM_OPTS" KAFKA_OPTS="${BENCH_KRILL_OPTS:-}" \
      "$KRILL_HOME/bin/krill-server-start.sh" "$KRILL_HOME/config/server.properties" \
      --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "advertised.listeners=PLAINTEXT://127.0.0.1:$port" \
      --override "log.dirs=$dir/data" --override num.partitions=1 --override krill.http.port=0 "${extra[@]}" \
      > "$BLOG" 2>&1 &
  fi
  BPID=$!
  track $BPID
  READY=$(wait_probe "probe-$kind" "$t0" "$BLOG" "$BPID") || exit 1
  log "$kind up on $B (pid $BPID): first produce acknowledged ${READY}s after process start"
}

stop_single() {
  stop_pids "$BPID"
  rm -rf "$WORK/$1/data"
}

# ---------------------------------------------------------------------------------------------------
# Three-broker clusters on this machine. start_cluster KIND -> sets CB (bootstrap), CPIDS, CLOGS, CREADY.

start_cluster() {
  local kind=$1 dir="$WORK/$1-cluster" i
  rm -rf "$dir"; mkdir -p "$dir"
  local ports=() cports=()
  for i in 1 2 3; do ports[$i]=$(free_port); cports[$i]=$(free_port); done
  CB="127.0.0.1:${ports[1]},127.0.0.1:${ports[2]},127.0.0.1:${ports[3]}"
  CPIDS=()
  CLOGS=()
  local t0
  if [ "$kind" = kafka ]; then
    local voters="1@127.0.0.1:${cports[1]},2@127.0.0.1:${cports[2]},3@127.0.0.1:${cports[3]}"
    for i in 1 2 3; do
      cat > "$dir/server-$i.properties" <<P
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${ports[$i]},CONTROLLER://127.0.0.1:${cports[$i]}
advertised.listeners=PLAINTEXT://127.0.0.1:${ports[$i]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data-$i
num.partitions=3
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
unclean.leader.election.enable=false
P
      kafka_format "cluster-$i" "$dir/server-$i.properties" "$dir/data-$i"
    done
    t0=$(now)
    for i in 1 2 3; do
      # shellcheck disable=SC2086
      java $HEAP $JVM_OPTS -Dlog4j2.configurationFile="$BENCH_DIR/kafka/log4j2.properties" ${BENCH_KAFKA_OPTS:-} \
        -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$dir/server-$i.properties" > "$dir/server-$i.log" 2>&1 &
      CPIDS+=("$!"); track "$!"; CLOGS+=("$dir/server-$i.log")
    done
  else
    # One standalone ZooKeeper (Krill's bin/zookeeper-server-start.sh, its default heap), then 3 brokers
    # with config/cluster/server-N.properties on free ports.
    local zport; zport=$(free_port)
    cat > "$dir/zookeeper.properties" <<P
dataDir=$dir/zk
clientPort=$zport
clientPortAddress=127.0.0.1
maxClientCnxns=0
tickTime=2000
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
P
    t0=$(now)
    KAFKA_OPTS="" "$KRILL_HOME/bin/zookeeper-server-start.sh" "$dir/zookeeper.properties" > "$dir/zookeeper.log" 2>&1 &
    local zpid=$!
    CPIDS+=("$zpid"); track "$zpid"; CLOGS+=("$dir/zookeeper.log")
    local k
    for k in $(seq 1 $((START_TIMEOUT * 10))); do
      alive "$zpid" || { tail -n 40 "$dir/zookeeper.log" >&2; die "ZooKeeper exited"; }
      # bounded: a connection made while ZooKeeper starts can be answered and left open (seen: a run hung here)
      [ "$( (exec 3<>"/dev/tcp/127.0.0.1/$zport" && echo ruok >&3 && timeout 2 cat <&3) 2>/dev/null)" = imok ] && break
      sleep 0.1
    done
    for i in 1 2 3; do
      KAFKA_HEAP_OPTS="$HEAP" KAFKA_JVM_PERFORMANCE_OPTS="$JVM_OPTS" KAFKA_OPTS="${BENCH_KRILL_OPTS:-}" \
        "$KRILL_HOME/bin/krill-server-start.sh" "$KRILL_HOME/config/cluster/server-$i.properties" \
        --override "node.id=$i" \
        --override "listeners=PLAINTEXT://127.0.0.1:${ports[$i]}" \
        --override "advertised.listeners=PLAINTEXT://127.0.0.1:${ports[$i]}" \
        --override "log.dirs=$dir/data-$i" --override "zookeeper.connect=127.0.0.1:$zport/krill" \
        --override krill.http.port=0 --override group.initial.rebalance.delay.ms=0 \
        > "$dir/server-$i.log" 2>&1 &
      CPIDS+=("$!"); track "$!"; CLOGS+=("$dir/server-$i.log")
    done
  fi
  # Ready: the topic can be created with 3 replicas (all three brokers registered), all its partitions
  # have 3 in-sync replicas, and an acks=all produce is acknowledged.
  local created=false
  local deadline=$(( $(date +%s) + START_TIMEOUT ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    for i in "${!CPIDS[@]}"; do
      alive "${CPIDS[$i]}" || { tail -n 40 "${CLOGS[$i]}" >&2; die "$kind cluster: ${CLOGS[$i]##*/} process exited"; }
    done
    if [ $created = false ]; then
      if tool "cluster-topic-$kind" org.apache.kafka.tools.TopicCommand --bootstrap-server "$CB" --create \
          --topic cluster-perf --partitions 6 --replication-factor 3 --config min.insync.replicas=2 \
          > /dev/null 2>&1; then
        created=true
      else
        sleep 0.5; continue
      fi
    fi
    local urp
    urp=$(tool "cluster-describe-$kind" org.apache.kafka.tools.TopicCommand --bootstrap-server "$CB" --describe \
      --topic cluster-perf 2>/dev/null) || { sleep 0.5; continue; }
    # 6 partition lines, each with a leader and an ISR of 3
    if [ "$(echo "$urp" | grep -cE 'Leader: [0-9]+[[:space:]]+Replicas: [0-9]+,[0-9]+,[0-9]+[[:space:]]+Isr: [0-9]+,[0-9]+,[0-9]+')" = 6 ]; then
      break
    fi
    sleep 0.5
  done
  [ $created = true ] || { for l in "${CLOGS[@]}"; do tail -n 20 "$l" >&2; done; die "$kind cluster did not accept a topic with 3 replicas within ${START_TIMEOUT}s"; }
  local out
  out=$(tool "cluster-probe-$kind" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$CB" \
    --topic cluster-perf --num-records 1 --record-size 1024 --throughput -1 --command-property acks=all \
    | parse_producer) || true
  [ -n "$out" ] || { for l in "${CLOGS[@]}"; do tail -n 20 "$l" >&2; done; die "$kind cluster: acks=all produce failed (see $WORK/logs/cluster-probe-$kind.err)"; }
  CREADY=$(elapsed "$t0")
  log "$kind cluster up on $CB (pids ${CPIDS[*]}): topic with ISR 3 and an acks=all produce ${CREADY}s after start"
}

stop_cluster() {
  stop_pids "${CPIDS[@]}"
  rm -rf "$WORK/$1-cluster"/data-* "$WORK/$1-cluster/zk"
}

# ---------------------------------------------------------------------------------------------------
# The machine line.

machine_line() {
  local cpu jvm commit dirty=""
  cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
  jvm=$(java -version 2>&1 | sed -n 2p)
  commit=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$REPO_DIR" diff --quiet HEAD -- . ':!bench' 2>/dev/null || dirty=" (uncommitted changes outside bench/)"
  printf '%s cores (%s), %s GiB RAM, %s, Linux %s; %s; git %s%s on %s; load average at start %s' \
    "$(nproc)" "$cpu" "$(awk '/MemTotal/{printf "%.0f", $2/1048576}' /proc/meminfo)" "$jvm" "$(uname -r)" \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$commit" "$dirty" "$(git -C "$REPO_DIR" rev-parse --abbrev-ref HEAD 2>/dev/null)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
}
