#!/usr/bin/env bash
# bench/scale.sh: the cluster control plane at scale, Krill against Apache Kafka 4.4, side by side.
# See bench/README.md ("Control plane at scale").
#
#   bench/scale.sh                                   2,000 partitions (topics of 20), RF 3, both brokers
#   SCALE_PARTITIONS="200 2000 10000" bench/scale.sh one fresh 3-broker cluster per count and broker
#   SCALE_SHAPE=one bench/scale.sh                   one topic of N partitions ("twenty one": both shapes)
#   SCALE_TIMEOUT=120 bench/scale.sh                 seconds each step may take (300); "> 120 s" when hit
#   SCALE_ELECT=1 bench/scale.sh                     adds 3b: a preferred election of every partition after the restart
#
# For each partition count N and broker (Kafka: 3 combined KRaft nodes; Krill: 3 brokers on a standalone
# ZooKeeper, from the built distribution), on a fresh cluster with RF 3 and min.insync.replicas=2:
#   1 create (CreateTopics until every partition is led with a full ISR), 5 RSS, 6 metadata of all topics,
#   2 kill -9 of a broker that is not the controller (until nothing is led by it or leaderless),
#   3 its restart (until every ISR is full), 4 SIGTERM of the broker leading most partitions outside the
#   controller (until its leaderships moved, and its exit), 7 ZooKeeper requests and sessions per step.
# The client is bench/scale/ScaleDriver.java (kafka-clients 4.4 only), compiled here into the work dir.
# Report: bench/results/<UTC date>-scale.md (+ .csv, + .png when gnuplot or matplotlib is there).
# Every process started is stopped on exit, Ctrl-C or error (lib/common.sh's trap).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_KAFKA_HOME=${SCALE_KAFKA_HOME:-${BENCH_KAFKA_HOME:-/opt/kafka44}}
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
[ "${SCALE_KEEP:-0}" = 1 ] && export BENCH_KEEP=1

PARTITIONS=${SCALE_PARTITIONS:-2000}
SHAPES=${SCALE_SHAPE:-twenty}
TIMEOUT=${SCALE_TIMEOUT:-300}
KINDS=${SCALE_BROKERS:-kafka krill}
POLL_MS=${SCALE_POLL_MS:-250}
ELECT=${SCALE_ELECT:-0}
IDLE_S=${SCALE_IDLE_S:-10}
META_REPEATS=${SCALE_METADATA_REPEATS:-5}
KILL_BROKER=${SCALE_KILL_BROKER:-auto}     # auto: the lowest id that is not the controller
STOP_GRACE=${SCALE_STOP_GRACE:-30}
SETTLE_MAX_S=${SCALE_SETTLE_MAX_S:-30}   # how long a ready cluster may take to go quiet before the first step
RF=3
MIN_ISR=2
ANCHOR_SETUP=${SCALE_KAFKA_SETUP:-/work/shared/tools/kafka-anchor/setup.sh}

for n in $PARTITIONS; do [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] || { echo "SCALE_PARTITIONS: not a count: $n" >&2; exit 2; }; done
for s in $SHAPES; do [[ "$s" = twenty || "$s" = one ]] || { echo "SCALE_SHAPE: twenty or one, not $s" >&2; exit 2; }; done

# ---------------------------------------------------------------------------------------------------
# Software: Kafka 4.4 (from setup.sh's /opt/kafka44 or bench's own cache), Krill's distribution (copied into
# the work dir, so a rebuild by someone else during the run changes nothing), the driver (javac).

scale_kafka() {
  if [ ! -f "$KAFKA_HOME/libs/kafka_2.13-$KAFKA_VERSION.jar" ]; then
    if [ "$KAFKA_HOME" = /opt/kafka44 ] && [ -x "$ANCHOR_SETUP" ]; then
      log "installing Apache Kafka $KAFKA_VERSION into /opt/kafka44 ($ANCHOR_SETUP)"
      "$ANCHOR_SETUP" >&2 || die "$ANCHOR_SETUP failed"
    else
      ensure_kafka
    fi
  fi
  # The broker needs an SLF4J binding to log (setup.sh's /opt/kafka44 has none): Log4j 2's, cached in
  # bench/.cache, on the brokers' class path only.
  KAFKA_CP="$KAFKA_HOME/libs/*"
  if ! compgen -G "$KAFKA_HOME/libs/log4j-slf4j*-impl-*.jar" > /dev/null; then
    local bind="$BENCH_DIR/.cache/kafka-slf4j-binding"
    if ! compgen -G "$bind/log4j-slf4j-impl-*.jar" > /dev/null; then
      log "fetching Log4j 2's SLF4J binding for Kafka's broker logs into $bind"
      (cd "$WORK" && mvn -B -q dependency:copy -Dartifact=org.apache.logging.log4j:log4j-slf4j-impl:2.25.5 \
        -DoutputDirectory="$bind") >&2 || log "could not fetch it: Kafka's brokers will not log"
    fi
    KAFKA_CP="$KAFKA_CP:$bind/*"
  fi
}

scale_krill() {
  local src=${BENCH_KRILL_HOME:-}
  [ -n "$src" ] || src=$(ls -d "$REPO_DIR"/broker/target/krill/krill-*/ 2>/dev/null | head -n 1)
  src=${src%/}
  if [ "${BENCH_REBUILD:-0}" = 1 ] || [ -z "$src" ] || ! compgen -G "$src/libs/krill-broker-*.jar" > /dev/null; then
    log "building Krill's distribution: mvn -B -q -DskipTests -pl broker -am package"
    (cd "$REPO_DIR" && mvn -B -q -DskipTests -pl broker -am package) >&2 || die "Krill build failed"
    src=$(ls -d "$REPO_DIR"/broker/target/krill/krill-*/ | head -n 1); src=${src%/}
  fi
  KRILL_SRC=$src
  KRILL_HOME="$WORK/krill-dist"
  local k
  for k in 1 2 3; do
    rm -rf "$KRILL_HOME"; : > "$WORK/copy-mark"; sleep 0.01
    cp -a "$src" "$KRILL_HOME"
    rm -f "$KRILL_HOME/krill-server.jsa"
    # a copy taken while the jars were being rewritten: the jars must be newer than nothing and open as zips
    if [ -z "$(find "$src/libs" -newer "$WORK/copy-mark" -print -quit)" ] && python3 - "$KRILL_HOME/libs" <<'PY'
import sys, os, zipfile
d = sys.argv[1]
for f in os.listdir(d):
    if f.endswith(".jar"):
        zipfile.ZipFile(os.path.join(d, f)).close()
PY
    then break; fi
    log "Krill's jars changed while copying them (a build running?): again in 20 s"
    sleep 20
    [ "$k" = 3 ] && die "could not copy a stable Krill distribution from $src"
  done
  if [ "${SCALE_KRILL_CDS:-on}" = off ]; then
    export KRILL_CDS=off
  else
    log "making Krill's class-data-sharing archive in the copy (bin/krill-cds-archive.sh, ~15 s; SCALE_KRILL_CDS=off skips it)"
    "$KRILL_HOME/bin/krill-cds-archive.sh" > "$WORK/logs/cds-archive.log" 2>&1 || { log "krill-cds-archive.sh failed: Krill runs without it"; export KRILL_CDS=off; }
  fi
}

build_driver() {
  mkdir -p "$WORK/driver"
  javac -nowarn -d "$WORK/driver" -cp "$KAFKA_HOME/libs/*" "$BENCH_DIR/scale/ScaleDriver.java" 2> "$WORK/logs/javac.log" \
    || { cat "$WORK/logs/javac.log" >&2; die "could not compile bench/scale/ScaleDriver.java"; }
}

# drv LOGNAME COMMAND key=value... -> its key=value results in the associative array R; progress on stderr
declare -A R
drv() {
  local name=$1; shift
  R=()
  # shellcheck disable=SC2086
  timeout --kill-after=10 $((TIMEOUT * 2 + 240)) java $CLIENT_HEAP \
    -Dlog4j2.configurationFile="$BENCH_DIR/kafka/tools-log4j2.properties" -cp "$WORK/driver:$KAFKA_HOME/libs/*" \
    ScaleDriver "$@" brokers="$CBROKERS" rf=$RF min_isr=$MIN_ISR timeout_s="$TIMEOUT" poll_ms="$POLL_MS" \
    > "$WORK/logs/$name.out" 2> >(tee -a "$WORK/logs/$name.err" | grep --line-buffered '^\[driver' >&2) &
  local pid=$! rc=0
  track $pid
  # (bash reports a broker killed meanwhile while it waits: not on the terminal)
  { wait $pid || rc=$?; } 2>/dev/null
  untrack $pid
  local k v
  while IFS='=' read -r k v; do [ -n "$k" ] && R[$k]=$v; done < <(grep -E '^[a-z0-9_]+=' "$WORK/logs/$name.out")
  return $rc
}

# ---------------------------------------------------------------------------------------------------
# Clusters. start_scale_cluster KIND sets CDIR, CBROKERS (id@host:port,...), BPID[id], ZPID, ZPORT, CLOGS.

declare -A BPID PORT CPORT
ZPID=""
ZPORT=""

start_broker() { # ID: (re)starts one broker of the current cluster, log appended
  local i=$1
  if [ "$CKIND" = kafka ]; then
    # shellcheck disable=SC2086
    java $HEAP $JVM_OPTS -Dlog4j2.configurationFile="$BENCH_DIR/kafka/log4j2.properties" ${SCALE_KAFKA_OPTS:-} \
      -cp "$KAFKA_CP" kafka.Kafka "$CDIR/server-$i.properties" >> "$CDIR/server-$i.log" 2>&1 &
  else
    KAFKA_HEAP_OPTS="$HEAP" KAFKA_JVM_PERFORMANCE_OPTS="$JVM_OPTS" KAFKA_OPTS="${SCALE_KRILL_OPTS:-}" \
      "$KRILL_HOME/bin/krill-server-start.sh" "$CDIR/server-$i.properties" >> "$CDIR/server-$i.log" 2>&1 &
  fi
  BPID[$i]=$!
  track "${BPID[$i]}"
  echo "[scale $(date '+%F %T')] started broker $i, pid ${BPID[$i]}" >> "$CDIR/server-$i.log"
}

start_scale_cluster() {
  CKIND=$1
  CDIR="$WORK/$CKIND-$CN-$CSHAPE"
  rm -rf "$CDIR"; mkdir -p "$CDIR"
  local i
  for i in 1 2 3; do PORT[$i]=$(free_port); CPORT[$i]=$(free_port); done
  CBROKERS="1@127.0.0.1:${PORT[1]},2@127.0.0.1:${PORT[2]},3@127.0.0.1:${PORT[3]}"
  CLOGS=("$CDIR/server-1.log" "$CDIR/server-2.log" "$CDIR/server-3.log")
  ZPID=""; ZPORT=""
  if [ "$CKIND" = kafka ]; then
    local voters="1@127.0.0.1:${CPORT[1]},2@127.0.0.1:${CPORT[2]},3@127.0.0.1:${CPORT[3]}"
    for i in 1 2 3; do
      cat > "$CDIR/server-$i.properties" <<P
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${PORT[$i]},CONTROLLER://127.0.0.1:${CPORT[$i]}
advertised.listeners=PLAINTEXT://127.0.0.1:${PORT[$i]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$CDIR/data-$i
num.partitions=3
default.replication.factor=$RF
min.insync.replicas=$MIN_ISR
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
unclean.leader.election.enable=false
P
      [ -z "${SCALE_KAFKA_PROPS:-}" ] || printf '%s\n' ${SCALE_KAFKA_PROPS} >> "$CDIR/server-$i.properties"
      kafka_format "scale-$i" "$CDIR/server-$i.properties" "$CDIR/data-$i"
    done
  else
    # ZooKeeper: the distribution's config/zookeeper.properties with this run's port and data dir, and the
    # four-letter words the harness reads (mntr, srst)
    ZPORT=$(free_port)
    grep -vE '^(dataDir|clientPort|clientPortAddress|4lw\.commands\.whitelist|admin\.enableServer)=' \
      "$KRILL_HOME/config/zookeeper.properties" > "$CDIR/zookeeper.properties"
    cat >> "$CDIR/zookeeper.properties" <<P
dataDir=$CDIR/zk
clientPort=$ZPORT
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr,srst,cons,crst
P
    KAFKA_OPTS="" "$KRILL_HOME/bin/zookeeper-server-start.sh" "$CDIR/zookeeper.properties" > "$CDIR/zookeeper.log" 2>&1 &
    ZPID=$!; track "$ZPID"
    CLOGS+=("$CDIR/zookeeper.log")
    local k
    for k in $(seq 1 $((START_TIMEOUT * 10))); do
      alive "$ZPID" || { tail -n 40 "$CDIR/zookeeper.log" >&2; die "ZooKeeper exited"; }
      [ "$(zk4 ruok)" = imok ] && break
      sleep 0.1
    done
    [ "$(zk4 ruok)" = imok ] || die "ZooKeeper did not answer ruok within ${START_TIMEOUT}s"
    # Brokers: config/cluster/server-N.properties with this run's ports, data dirs and ZooKeeper
    for i in 1 2 3; do
      grep -vE '^(node\.id|broker\.id|listeners|advertised\.listeners|log\.dirs|zookeeper\.connect|krill\.http\.port|default\.replication\.factor|min\.insync\.replicas)=' \
        "$KRILL_HOME/config/cluster/server-$i.properties" > "$CDIR/server-$i.properties"
      cat >> "$CDIR/server-$i.properties" <<P
node.id=$i
listeners=PLAINTEXT://127.0.0.1:${PORT[$i]}
advertised.listeners=PLAINTEXT://127.0.0.1:${PORT[$i]}
log.dirs=$CDIR/data-$i
zookeeper.connect=127.0.0.1:$ZPORT/krill
krill.http.port=0
default.replication.factor=$RF
min.insync.replicas=$MIN_ISR
P
      [ -z "${SCALE_KRILL_PROPS:-}" ] || printf '%s\n' ${SCALE_KRILL_PROPS} >> "$CDIR/server-$i.properties"
    done
  fi
  for i in 1 2 3; do start_broker "$i"; done
}

cluster_pids() { # the live processes of the cluster
  local i
  for i in 1 2 3; do [ -n "${BPID[$i]:-}" ] && alive "${BPID[$i]}" && echo "${BPID[$i]}"; done
  [ -n "$ZPID" ] && alive "$ZPID" && echo "$ZPID"
  return 0
}

stop_scale_cluster() {
  local pids=() i
  for i in 1 2 3; do [ -n "${BPID[$i]:-}" ] && alive "${BPID[$i]}" && pids+=("${BPID[$i]}"); done
  [ ${#pids[@]} -gt 0 ] && stop_pids "${pids[@]}"
  [ -n "$ZPID" ] && stop_pids "$ZPID"
  BPID=(); ZPID=""
  rm -rf "$CDIR"/data-* "$CDIR/zk"
}

# ZooKeeper's four-letter words on the client port (no nc needed)
zk4() {
  [ -n "$ZPORT" ] || return 0
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "%s" "$2" >&3 && cat <&3' _ "$ZPORT" "$1" 2>/dev/null || true
}
kv() { awk -v k="$1" '$1 == k {print $2}'; }   # KEY < mntr output -> its value
mntr() { zk4 mntr | kv "$1"; }

# ---------------------------------------------------------------------------------------------------
# Per-step bookkeeping: CPU of the cluster's processes, ZooKeeper requests, log lines.

rec() { printf '%s\t%s\t%s\t%s\t%s\n' "$CN" "$CSHAPE" "$CKIND" "$1" "$2" >> "$RESULTS"; }
recr() { [ -n "${R[$2]:-}" ] && rec "$1" "${R[$2]}"; return 0; } # METRIC RESULT_KEY: from the driver's results

declare -A CPU0 LOGOFF
ZSAMPLER=""
step_begin() {
  STEP=$1
  STEP_T0=$(now)
  local p f
  CPU0=()
  for p in $(cluster_pids); do CPU0[$p]=$(cpu_ticks "$p"); done
  LOGOFF=()
  for f in "${CLOGS[@]}"; do LOGOFF[$f]=$(stat -c %s "$f" 2>/dev/null || echo 0); done
  if [ "$CKIND" = krill ]; then
    # ZooKeeper's counters from here: server (srst) and per connection (crst)
    zk4 srst > /dev/null; zk4 crst > /dev/null
    # once a second: outstanding requests, and each connection's last operation (cons: lop=...), a crude
    # sample of what the brokers ask ZooKeeper for
    ( while true; do
        echo "outstanding $(mntr zk_outstanding_requests)"
        zk4 cons | sed -nE 's/.*lop=([A-Z]+).*/lop \1/p'
        sleep 1
      done ) > "$CDIR/zk-samples-$STEP" 2>/dev/null &
    ZSAMPLER=$!; track "$ZSAMPLER"
  fi
  log "$CKIND N=$CN ($CSHAPE): step $STEP"
}

step_end() {
  local p t=0
  local by="" i d
  for p in $(cluster_pids); do
    d=$(( $(cpu_ticks "$p") - ${CPU0[$p]:-0} )); t=$(( t + d ))
    for i in 1 2 3 zk; do
      if { [ "$i" = zk ] && [ "$p" = "$ZPID" ]; } || { [ "$i" != zk ] && [ "$p" = "${BPID[$i]:-}" ]; }; then
        by="$by $i:$(echo "$d / $CLK_TCK" | bc -l | awk '{printf "%.1f", $1}')"
      fi
    done
  done
  rec "cpu_${STEP}_s" "$(echo "$t / $CLK_TCK" | bc -l | awk '{printf "%.1f", $1}')"
  rec "cpu_${STEP}_by_process" "${by# }"
  rec "wall_${STEP}_s" "$(elapsed "$STEP_T0")"
  if [ "$CKIND" = krill ]; then
    kill "$ZSAMPLER" 2>/dev/null || true; wait "$ZSAMPLER" 2>/dev/null || true; untrack "$ZSAMPLER"; ZSAMPLER=""
    local m; m=$(zk4 mntr)
    rec "zk_packets_${STEP}" "$(kv zk_packets_received <<< "$m")"
    rec "zk_max_latency_ms_${STEP}" "$(kv zk_max_latency <<< "$m")"
    rec "zk_avg_latency_ms_${STEP}" "$(kv zk_avg_latency <<< "$m")"
    rec "zk_outstanding_peak_${STEP}" "$(awk '$1 == "outstanding" {print $2}' "$CDIR/zk-samples-$STEP" | sort -n | tail -n 1)"
    rec "zk_lop_${STEP}" "$(awk '$1 == "lop" && $2 != "NA" {c[$2]++} END {for (k in c) printf "%s:%d ", k, c[k]}' "$CDIR/zk-samples-$STEP" \
      | tr ' ' '\n' | sort -t: -k2 -rn | head -n 6 | tr '\n' ' ' | sed 's/ $//')"
    # requests per broker: each connection's recved (since crst), its client port mapped to a broker by ss
    zk4 cons > "$CDIR/zk-cons-$STEP"
    local i per=""
    for i in 1 2 3; do
      local ports
      ports=$(ss -tnpH state established "( dport = :$ZPORT )" 2>/dev/null | { grep "pid=${BPID[$i]:-none}," || true; } \
        | awk '{split($3, a, ":"); print a[length(a)]}' | tr '\n' ' ')
      local sum=0 port v
      for port in $ports; do
        v=$(grep -E "^ */127\.0\.0\.1:$port\[" "$CDIR/zk-cons-$STEP" | sed -nE 's/.*recved=([0-9]+).*/\1/p' | head -n 1 || true)
        sum=$((sum + ${v:-0}))
      done
      per="$per$i:$sum "
    done
    rec "zk_per_broker_${STEP}" "${per% }"
    rec "zk_znodes_${STEP}" "$(kv zk_znode_count <<< "$m")"
    rec "zk_watches_${STEP}" "$(kv zk_watch_count <<< "$m")"
    local bytes; bytes=$(kv zk_approximate_data_size <<< "$m")
    rec "zk_data_kb_${STEP}" "$(( ${bytes:-0} / 1024 ))"
    rec "zk_connections_${STEP}" "$(kv zk_num_alive_connections <<< "$m")"
  fi
  # what the logs said during the step
  local f name seg warn err sess expiring=0 sess_total=0 warn_total=0 err_total=0
  for f in "${CLOGS[@]}"; do
    name=$(basename "$f" .log)
    seg="$CDIR/digest-$STEP-$name.log"
    tail -c +$(( ${LOGOFF[$f]:-0} + 1 )) "$f" > "$seg" 2>/dev/null || : > "$seg"
    if [ "$name" = zookeeper ]; then
      expiring=$(grep -c 'Expiring session' "$seg" || true)
    else
      warn=$(grep -cE '^\[[^]]*\] (WARN|WARNING)\b' "$seg" || true)
      err=$(grep -cE '^\[[^]]*\] ERROR\b' "$seg" || true)
      if [ "$CKIND" = krill ]; then  # ZooKeeper's client and Krill on a session that expired or timed out
        sess=$(grep -E '^\[' "$seg" | grep -ciE 'session [^ ]* ?expired|session expired|expired session|session timed out|SessionExpired' || true)
      else                           # KRaft's analogue: the controller fencing a broker whose session timed out
        sess=$(grep -E '^\[' "$seg" | grep -ciE 'Fencing broker .* session has timed out' || true)
      fi
      warn_total=$((warn_total + warn)); err_total=$((err_total + err)); sess_total=$((sess_total + sess))
    fi
  done
  rec "log_warn_${STEP}" "$warn_total"
  rec "log_error_${STEP}" "$err_total"
  rec "log_session_${STEP}" "$sess_total"
  [ "$CKIND" = krill ] && rec "zk_expired_${STEP}" "$expiring"
  # the most frequent WARN/ERROR messages and, for Krill, INFO ones (numbers masked), for the report's digest
  digest_top WARN '(WARN|WARNING|ERROR)'
  [ "$CKIND" = krill ] && digest_top INFO 'INFO'
  return 0
}

digest_top() { # LABEL LEVEL_REGEX
  local f name
  for f in "${CLOGS[@]}"; do
    name=$(basename "$f" .log)
    [ "$name" = zookeeper ] && continue
    grep -hE "^\[[^]]*\] $2\b" "$CDIR/digest-$STEP-$name.log" 2>/dev/null || true
  done | sed -E 's/^\[[^]]*\] //; s#/[^ ]*/(krill|kafka)-[0-9]+-[a-z]+/#<dir>/#g; s/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/<uuid>/g' \
    | sed -E 's/\{[^{}]*\}/{…}/g; s/\{[^{}]*\}/{…}/g; s/\[HelixTaskExecutor-message_handle_thread_[0-9]+\]//; s/0x[0-9a-f]+/0x#/g; s/[0-9]+/#/g' \
    | cut -c1-400 | sort | uniq -c | sort -rn | head -n 5 \
    | while read -r count msg; do printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$CN" "$CSHAPE" "$CKIND" "$STEP" "$1" "$count" "$msg"; done >> "$WORK/digest.tsv"
}

# settle: waits (at most SETTLE_MAX_S) until the whole machine used under 15% of one core over a second
# (/proc/stat), so a cluster that is still starting up (JIT, Helix's first rebalance) or the previous
# cluster's teardown does not fall on the first step of one broker and not the other's. What it waited is
# reported (settle_s), with the machine's load then (load1_settled; a lagging average, for the record).
settle() {
  local t0; t0=$(now)
  local k a b
  for k in $(seq 1 "$SETTLE_MAX_S"); do
    a=$(busy_ticks); sleep 1; b=$(busy_ticks)
    [ $(( (b - a) * 100 )) -lt $(( CLK_TCK * 15 )) ] && break
  done
  rec settle_s "$(elapsed "$t0")"
  rec load1_settled "$(cut -d' ' -f1 /proc/loadavg)"
}
busy_ticks() { awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8}' /proc/stat; } # user nice system irq softirq

# ---------------------------------------------------------------------------------------------------
# One broker kind at one partition count: a fresh cluster, the steps, stopped.

run_one() {
  local kind=$1 i
  CKIND=$kind
  rec load1 "$(cut -d' ' -f1 /proc/loadavg)"
  start_scale_cluster "$kind"
  local t0; t0=$(now)
  if ! drv "$kind-$CN-$CSHAPE-ready" ready; then
    for f in "${CLOGS[@]}"; do tail -n 20 "$f" >&2; done
    die "$kind cluster not ready within ${TIMEOUT}s (logs: $CDIR)"
  fi
  local controller=${R[controller]}
  rec ready_s "$(elapsed "$t0")"
  settle
  rec controller "$controller"
  log "$kind N=$CN ($CSHAPE): cluster ready in ${R[ready_s]} s after the driver started; controller: broker $controller (${R[controller_source]})"
  local v1=$KILL_BROKER
  if [ "$v1" = auto ]; then
    for i in 1 2 3; do [ "$i" != "$controller" ] && { v1=$i; break; }; done
  fi
  local pids="1:${BPID[1]},2:${BPID[2]},3:${BPID[3]}"
  local others; others=$(for i in 1 2 3; do [ "$i" != "$v1" ] && echo -n "$i,"; done); others=${others%,}

  # 1. create
  step_begin create
  drv "$kind-$CN-$CSHAPE-create" create n="$CN" shape="$CSHAPE" timeline="$CDIR/timeline-create.tsv" || log "driver create failed (see $WORK/logs)"
  step_end
  recr create_ack_s create_ack_s; recr create_s create_s; recr create_t50_s create_t50_s; recr create_t90_s create_t90_s
  recr create_end_isr_full create_end_isr_full; recr create_end_led create_end_led; recr create_errors create_errors
  recr create_topics create_topics

  # 5. RSS after create
  local rb=0 rmax=0 r
  for i in 1 2 3; do r=$(rss_kb "${BPID[$i]}"); rb=$((rb + r)); [ "$r" -gt "$rmax" ] && rmax=$r; done
  rec rss_brokers_mb $((rb / 1024)); rec rss_max_broker_mb $((rmax / 1024))
  [ -n "$ZPID" ] && rec rss_zk_mb $(( $(rss_kb "$ZPID") / 1024 ))

  # 6. metadata of all topics (through broker 1)
  step_begin metadata
  drv "$kind-$CN-$CSHAPE-metadata" metadata n="$CN" repeats="$META_REPEATS" poll=1 || log "driver metadata failed (see $WORK/logs)"
  step_end
  recr describe_ms describe_ms; recr metadata_ms metadata_ms; recr metadata_bytes metadata_bytes
  recr metadata_version metadata_version; recr describe_partitions describe_partitions

  # idle: what the cluster does with nothing to do (ZooKeeper requests, CPU)
  step_begin idle
  sleep "$IDLE_S" & wait $!   # (interruptible: the trap runs at once on Ctrl-C)
  step_end
  rec idle_s "$IDLE_S"

  # 2. kill -9 of v1
  step_begin kill
  drv "$kind-$CN-$CSHAPE-kill" signal sig=KILL victim="$v1" step=kill n="$CN" pids="$pids" \
    timeline="$CDIR/timeline-kill.tsv" || log "driver kill failed (see $WORK/logs)"
  local rc=0
  { wait "${BPID[$v1]}"; } 2>/dev/null || rc=$?
  untrack "${BPID[$v1]}"
  step_end
  rec kill_victim "$v1"
  recr kill_s kill_s; recr kill_t50_s kill_t50_s; recr kill_t90_s kill_t90_s; recr kill_before_led_by_victim before_led_by_victim
  recr kill_end_led kill_end_led; recr kill_end_led_by_victim kill_end_led_by_victim

  # 3. restart of v1 (the clock starts at the fork)
  step_begin restart
  local since; since=$(date +%s%3N)
  start_broker "$v1"
  pids="1:${BPID[1]},2:${BPID[2]},3:${BPID[3]}"
  drv "$kind-$CN-$CSHAPE-restart" isr step=restart since="$since" n="$CN" poll="$others" \
    timeline="$CDIR/timeline-restart.tsv" || log "driver restart failed (see $WORK/logs)"
  step_end
  recr restart_s restart_s; recr restart_t50_s restart_t50_s; recr restart_t90_s restart_t90_s
  recr restart_end_isr_full restart_end_isr_full; recr restart_end_led restart_end_led
  alive "${BPID[$v1]}" || log "$kind: the restarted broker $v1 exited (see $CDIR/server-$v1.log)"

  # 3b. (SCALE_ELECT=1) an operator's preferred election of every partition: the restarted broker leads
  # nothing until then (both brokers' automatic rebalancing waits 300 s)
  if [ "$ELECT" = 1 ]; then
    step_begin elect
    drv "$kind-$CN-$CSHAPE-elect" elect step=elect n="$CN" timeline="$CDIR/timeline-elect.tsv" \
      || log "driver elect failed (see $WORK/logs)"
    step_end
    recr elect_s elect_s; recr elect_ack_s elect_ack_s; recr elect_refused elect_refused
  fi

  # 4. SIGTERM of the broker leading most partitions, the controller aside
  step_begin term
  drv "$kind-$CN-$CSHAPE-term" signal sig=TERM victim=auto exclude="$controller" step=term n="$CN" pids="$pids" \
    wait_exit=true timeline="$CDIR/timeline-term.tsv" || log "driver term failed (see $WORK/logs)"
  local v2=${R[victim]:-}
  if [ -n "$v2" ]; then
    rec term_victim "$v2"
    recr term_s term_s; recr term_t50_s term_t50_s; recr term_t90_s term_t90_s; recr term_exit_s term_exit_s
    recr term_before_led_by_victim before_led_by_victim; recr term_end_led_by_victim term_end_led_by_victim
    local killed=false
    if alive "${BPID[$v2]}"; then
      log "$kind: broker $v2 still running ${TIMEOUT}s after SIGTERM: SIGKILL"
      kill -KILL "${BPID[$v2]}" 2>/dev/null || true
      killed=true
    fi
    rc=0; { wait "${BPID[$v2]}"; } 2>/dev/null || rc=$?
    untrack "${BPID[$v2]}"
    if [ $killed = true ]; then rec term_exit_code killed; else rec term_exit_code "$rc"; fi
  fi
  step_end

  # the restarted broker's own start: fork to its "started" log line (which may come after the ISRs are full)
  local up ts
  up=$(awk '/^\[scale .*\] started broker/ {found = ""; next} found == "" && /Started in|Kafka Server started/ {found = $0} END {print found}' \
    "$CDIR/server-$v1.log")
  ts=$(sed -nE 's/^\[([0-9-]+ [0-9:]+),([0-9]+)\].*/\1.\2/p' <<< "$up")
  [ -n "$ts" ] && rec restart_process_up_s "$(echo "($(date -d "$ts" +%s%3N) - $since) / 1000" | bc -l | awk '{printf "%.2f", $1}')"

  stop_scale_cluster
  # the timelines and digests are small: keep them with the logs
  for f in "$CDIR"/timeline-*.tsv; do [ -f "$f" ] && cp "$f" "$WORK/logs/$kind-$CN-$CSHAPE-$(basename "$f")"; done
}

# ---------------------------------------------------------------------------------------------------

started=$(date +%s)
bench_init scale
# the EXIT trap of lib/common.sh, after dropping the copy of Krill's distribution (logs stay when kept)
scale_cleanup() { local rc=$?; rm -rf "$WORK/krill-dist" "$WORK/driver"; (exit $rc); bench_cleanup; }
trap scale_cleanup EXIT
mkdir -p "$WORK/logs"
: > "$WORK/digest.tsv"
MACHINE=$(machine_line)
scale_kafka
scale_krill
build_driver
log "Krill: $KRILL_HOME (copied from ${KRILL_SRC#"$REPO_DIR"/}); Kafka $KAFKA_VERSION: $KAFKA_HOME"
cat "$KAFKA_HOME"/libs/*.jar "$KRILL_HOME"/libs/*.jar > /dev/null
log "partitions: $PARTITIONS; shapes: $SHAPES; brokers: $KINDS; step timeout ${TIMEOUT}s"

round=0
for CSHAPE in $SHAPES; do
  for CN in $PARTITIONS; do
    round=$((round + 1))
    # alternate which broker goes first from one count to the next (ABBA), so a drift in load falls on both
    order=$KINDS
    [ $((round % 2)) = 0 ] && order=$(echo "$KINDS" | tr ' ' '\n' | tac | tr '\n' ' ')
    for kind in $order; do run_one "$kind"; done
  done
done

took=$(( $(date +%s) - started ))
mkdir -p "$BENCH_DIR/results"
stamp=$(date -u +%Y-%m-%d-%H%M)
out="$BENCH_DIR/results/$stamp-scale.md"
SCALE_MACHINE="$MACHINE" SCALE_TOOK="$took" SCALE_TIMEOUT="$TIMEOUT" SCALE_POLL_MS="$POLL_MS" SCALE_IDLE_S="$IDLE_S" \
  SCALE_HEAP="$HEAP" SCALE_JVM="$JVM_OPTS" SCALE_KAFKA_VERSION="$KAFKA_VERSION" SCALE_KRILL="${KRILL_SRC#"$REPO_DIR"/}" \
  python3 "$BENCH_DIR/scale/report.py" "$RESULTS" "$WORK/digest.tsv" "$BENCH_DIR/results/$stamp-scale" > "$out"
cp "$RESULTS" "$WORK/logs/results.tsv"
cat "$out"
log "report written to ${out#"$REPO_DIR"/} (+ .csv$( [ -f "${out%.md}.png" ] && echo ', .png')) ($took s); $( [ "${BENCH_KEEP:-0}" = 1 ] && echo "logs and timelines kept in $WORK/logs" || echo "SCALE_KEEP=1 keeps the logs and timelines")"
# shellcheck disable=SC2034 # read by the EXIT trap in lib/common.sh
BENCH_OK=true
