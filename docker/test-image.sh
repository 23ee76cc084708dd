#!/usr/bin/env bash
# Builds Krill's container image and checks that it runs like `docker run -p 9092:9092 apache/kafka`:
#   1. the local build and runtime base images (docker/make-base-image.sh, only if missing), then the image
#      from the Dockerfile, which builds the distribution from source in its build stage;
#   2. a run configured the apache/kafka way (KAFKA_* variables of Kafka's KRaft quick start, listeners moved
#      to a free port from 19192), served by a client connecting as soon as the port opens: KRaft-only keys logged as not applicable, the variables applied (cluster
#      id, partitions, advertised listener, heap), health check, kcat produce/consume from the host, non-root,
#      SIGTERM stop with a clean shutdown, restart from the volume (clean, records kept);
#   3. a run with no variables at all on 9092 (skipped if 9092 is taken): health check, kcat, non-root,
#      clean stop.
# Exits non-zero on the first failure (with the container's log); the last line is a one-line PASS summary.
# Not part of `mvn verify` or .ci/run. Needs podman (or docker: KRILL_TEST_CLI=docker), kcat, and root for
# the base image's debootstrap. Environment (defaults for this project's podman-without-systemd machines):
#   KRILL_TEST_CLI         podman --runtime=runc --cgroup-manager=cgroupfs
#   KRILL_TEST_RUN_OPTS    --network=host --ulimit nofile=1024:1024 --ulimit nproc=1000:1000
#   KRILL_TEST_BUILD_OPTS  the same as the run options
#   BUILD_IMAGE            localhost/krill-build-jdk17 (the Dockerfile's build stage: JDK 17 and Maven)
#   BASE_IMAGE             localhost/krill-base-jre17
#   KRILL_IMAGE            localhost/krill:test
#   KRILL_TEST_PORT        19192 (the first port tried for the configured run)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

read -r -a cli <<<"${KRILL_TEST_CLI:-podman --runtime=runc --cgroup-manager=cgroupfs}"
read -r -a run_opts <<<"${KRILL_TEST_RUN_OPTS:---network=host --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}"
read -r -a build_opts <<<"${KRILL_TEST_BUILD_OPTS:-${run_opts[*]}}"
base_image=${BASE_IMAGE:-localhost/krill-base-jre17}
build_image=${BUILD_IMAGE:-localhost/krill-build-jdk17}
image=${KRILL_IMAGE:-localhost/krill:test}
first_port=${KRILL_TEST_PORT:-19192}
records=100

containers=()
current=""
step() { printf '== %s\n' "$*"; }
fail() {
  echo "FAIL: $*" >&2
  if [ -n "$current" ]; then
    echo "---- last lines of the log of container $current ----" >&2
    "${cli[@]}" logs "$current" 2>&1 | tail -n 60 >&2 || true
  fi
  exit 1
}
cleanup() {
  local c
  for c in "${containers[@]}"; do
    "${cli[@]}" rm -f -v "$c" >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT
now_ms() { date +%s%3N; }
# The container CLI. Without systemd, podman logs an error for the health check's timer on every
# run/start/stop/rm (it cannot schedule it; check_health runs it by hand): those lines are dropped.
ctr() { "${cli[@]}" "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }
is_podman() { ctr --version 2>/dev/null | grep -qi podman; }

port_in_use() {
  if command -v ss >/dev/null; then
    [ -n "$(ss -Htln "sport = :$1")" ]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}
# The first port from $1 on such that it and the next one are free.
free_port_pair() {
  local p
  for ((p = $1; p < $1 + 200; p += 2)); do
    if ! port_in_use "$p" && ! port_in_use $((p + 1)); then
      echo "$p"
      return 0
    fi
  done
  return 1
}

logs() { ctr logs "$1" 2>&1; }
state() { ctr inspect --format "{{.State.$2}}" "$1"; }

# Waits until $1 accepts connections on 127.0.0.1:$2 (failing early if the container exits); prints the ms waited.
wait_for_port() {
  local c=$1 port=$2 start
  start=$(now_ms)
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    [ "$(state "$c" Running)" = true ] || fail "container $c exited (code $(state "$c" ExitCode)) before listening on $port"
    (($(now_ms) - start < 60000)) || fail "nothing listens on 127.0.0.1:$port 60 s after the start of $c"
    sleep 0.1
  done
  echo $(($(now_ms) - start))
}

# A client connecting the moment the port of $1 opens ($2: host:port) is served once the broker is ready: the
# broker binds its listener at start but accepts connections only once it has joined the cluster (ZooKeeper,
# Helix), so kcat's first request waits instead of failing. No log line is waited for.
first_client() {
  local c=$1 out
  out=$(timeout 120 kcat -L -b "$2" -m 120 2>&1) || fail "kcat -L at $2 right after $c opened its port: $out"
  echo "$out" | grep -q "broker [0-9]* at" || fail "kcat -L at $2 listed no broker: $out"
}

# Runs the image's HEALTHCHECK (podman has no scheduler for it without systemd: run it by hand; docker runs
# it by itself, so wait for the status).
check_health() {
  local c=$1 i out
  if is_podman; then
    for i in 1 2 3 4 5; do
      if out=$(ctr healthcheck run "$c" 2>&1); then
        return 0
      fi
      sleep 1
    done
    fail "health check of $c: $out"
  else
    for ((i = 0; i < 60; i++)); do
      [ "$(state "$c" Health.Status)" = healthy ] && return 0
      sleep 1
    done
    fail "health check of $c: status $(state "$c" Health.Status)"
  fi
}

# The health check is not vacuous: in a container of the image, it fails with no broker process, and with a
# (fake) broker whose listener, given as --override (which wins over KAFKA_LISTENERS, here the open port $1),
# has nothing behind it.
check_health_fails() {
  local open_port=$1 closed
  closed=$(free_port_pair 19800) || fail "no free port"
  if ctr run --rm "${run_opts[@]}" --entrypoint /opt/krill/bin/docker-healthcheck.sh "$image" 2>/dev/null; then
    fail "the health check passes with no broker process"
  fi
  if ctr run --rm "${run_opts[@]}" -e "KAFKA_LISTENERS=PLAINTEXT://127.0.0.1:$open_port" --entrypoint bash "$image" -c \
    "bash -c 'sleep 30; :' io.krill.broker.KrillServer /opt/krill/config/docker/server.properties --env-overrides \
       --override listeners=PLAINTEXT://127.0.0.1:$closed & sleep 1; /opt/krill/bin/docker-healthcheck.sh" 2>/dev/null; then
    fail "the health check passes for a broker listening on 127.0.0.1:$closed, where nothing listens"
  fi
}

check_non_root() {
  local c=$1 exec_uid pid1_uid
  exec_uid=$(ctr exec "$c" id -u) || fail "podman exec $c id -u"
  pid1_uid=$(ctr exec "$c" awk '/^Uid:/ {print $2}' /proc/1/status) || fail "reading the uid of pid 1 in $c"
  [ "$exec_uid" != 0 ] && [ "$pid1_uid" != 0 ] || fail "$c runs as root (exec uid $exec_uid, broker uid $pid1_uid)"
  echo "$pid1_uid"
}

# Produces $3 keyed records to topic $2 through bootstrap $1 with kcat.
produce() {
  seq 1 "$3" | sed 's/.*/key-&:value-&/' | timeout 60 kcat -P -b "$1" -t "$2" -K: -X acks=all \
    || fail "kcat could not produce to $2 at $1"
}
# Consumes topic $2 from the beginning and checks that it holds exactly the $3 records produce() wrote.
consume_and_check() {
  local got want
  got=$(timeout 60 kcat -C -b "$1" -t "$2" -o beginning -e -q -f '%k:%s\n' | sort) \
    || fail "kcat could not consume $2 at $1"
  want=$(seq 1 "$3" | sed 's/.*/key-&:value-&/' | sort)
  [ "$got" = "$want" ] || fail "consumed $(echo -n "$got" | grep -c .) records from $2 at $1, not the $3 produced"
}

# SIGTERM (podman stop), then checks the exit code and the clean shutdown in the log; prints the ms it took.
stop_cleanly() {
  local c=$1 start took code
  start=$(now_ms)
  ctr stop -t 30 "$c" >/dev/null || fail "podman stop $c"
  took=$(($(now_ms) - start))
  code=$(state "$c" ExitCode)
  # 143 = 128 + SIGTERM: the JVM's exit status after its shutdown hooks ran (Kafka's too); 137 would be SIGKILL.
  [ "$code" = 0 ] || [ "$code" = 143 ] || fail "$c exited with $code after SIGTERM"
  logs "$c" | tail -n 5 | grep -qE 'Krill broker [0-9]+ stopped' || fail "no clean shutdown in the log of $c"
  echo "$took"
}

ready_ms() { logs "$1" | sed -n -E 's/.*Krill broker [0-9]+ of cluster .* ready in ([0-9]+) ms.*/\1/p' | tail -n 1; }
jvm_ms() { logs "$1" | sed -n -E 's/.*Started in ([0-9]+) ms after the JVM.*/\1/p' | tail -n 1; }

command -v kcat >/dev/null || fail "kcat is not installed (apt-get install kcat)"
ctr --version >/dev/null || fail "no container CLI: ${cli[*]}"

# ---- 1. base images, image (built from source in the Dockerfile's build stage) ----
for pair in "$build_image:--build" "$base_image:"; do
  img=${pair%:*}
  flag=${pair##*:}
  if ! ctr image inspect "$img" >/dev/null 2>&1; then
    step "making the base image $img"
    # shellcheck disable=SC2086
    CONTAINER_CLI=${cli[0]} docker/make-base-image.sh $flag "$img" || fail "docker/make-base-image.sh $flag"
  fi
done

step "building $image from source: build stage $build_image, runtime $base_image"
format=()
is_podman && format=(--format docker) # the OCI format drops HEALTHCHECK
build_start=$(now_ms)
ctr build "${format[@]}" "${build_opts[@]}" --build-arg "BUILD_IMAGE=$build_image" \
  --build-arg "BASE_IMAGE=$base_image" -t "$image" . || fail "image build"
build_s=$(( ($(now_ms) - build_start) / 1000 ))
ctr image inspect "$image" | grep -q docker-healthcheck.sh || fail "$image has no HEALTHCHECK"
image_mb=$(( $(ctr image inspect --format '{{.Size}}' "$image") / 1000000 ))
base_mb=$(( $(ctr image inspect --format '{{.Size}}' "$base_image") / 1000000 ))
step "image $image: $image_mb MB (base $base_mb MB), built in $build_s s"

# ---- 2. configured the apache/kafka way, on a free port ----
port=$(free_port_pair "$first_port") || fail "no free pair of ports from $first_port"
cport=$((port + 1))
cluster_id=4L6g3nShT-eMCtK--X86CA
topic=krill-image-test
current=krill-image-test-$$-env
containers+=("$current")
step "run with KAFKA_* variables: PLAINTEXT on 127.0.0.1:$port (CONTROLLER listener on $cport)"
start=$(now_ms)
ctr run -d --name "$current" "${run_opts[@]}" \
  -e KAFKA_NODE_ID=1 \
  -e KAFKA_PROCESS_ROLES=broker,controller \
  -e KAFKA_LISTENERS="PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport" \
  -e KAFKA_ADVERTISED_LISTENERS="PLAINTEXT://127.0.0.1:$port" \
  -e KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER \
  -e KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT \
  -e KAFKA_CONTROLLER_QUORUM_VOTERS="1@127.0.0.1:$cport" \
  -e KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1 \
  -e KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1 \
  -e KAFKA_TRANSACTION_STATE_LOG_MIN_ISR=1 \
  -e KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS=0 \
  -e KAFKA_NUM_PARTITIONS=3 \
  -e CLUSTER_ID="$cluster_id" \
  -e KAFKA_HEAP_OPTS="-Xms128m -Xmx256m" \
  "$image" >/dev/null || fail "podman run"
wait_for_port "$current" "$port" >/dev/null
env_port_ms=$(($(now_ms) - start))
first_client "$current" "127.0.0.1:$port"
check_health "$current"
env_ready_ms=$(ready_ms "$current")
env_jvm_ms=$(jvm_ms "$current")
[ -n "$env_ready_ms" ] || fail "no 'ready' line in the log"
step "ready: broker ${env_ready_ms} ms, ${env_jvm_ms} ms after JVM start, port open ${env_port_ms} ms after podman run; healthy"

not_applicable=$(logs "$current" | grep 'not applicable to Krill' || true)
for key in process.roles controller.quorum.voters controller.listener.names; do
  echo "$not_applicable" | grep -q "$key" || fail "$key is not logged as not applicable"
done
step "KRaft-only keys logged as not applicable: $(echo "$not_applicable" | sed -E 's/.*\((KRaft[^)]*)\): /(\1): /; s/ \(BrokerConfig\).*//')"
if logs "$current" | grep -E 'Ignoring unknown configuration keys'; then
  fail "a KAFKA_* variable of Kafka's quick start became an unknown key"
fi
logs "$current" | grep -q "of cluster $cluster_id ready" || fail "CLUSTER_ID was not applied"
ctr exec "$current" cat /proc/1/cmdline | tr '\0' ' ' | grep -q -- '-Xmx256m' || fail "KAFKA_HEAP_OPTS was not applied"
check_health_fails "$port"
env_uid=$(check_non_root "$current")
step "broker runs as uid $env_uid"

produce "127.0.0.1:$port" "$topic" "$records"
consume_and_check "127.0.0.1:$port" "$topic" "$records"
metadata=$(timeout 30 kcat -L -b "127.0.0.1:$port" -t "$topic") || fail "kcat -L"
echo "$metadata" | grep -q "broker 1 at 127.0.0.1:$port" || fail "advertised listener is not 127.0.0.1:$port: $metadata"
echo "$metadata" | grep -q "\"$topic\" with 3 partitions" || fail "KAFKA_NUM_PARTITIONS=3 not applied: $metadata"
step "kcat: $records records produced and consumed on 127.0.0.1:$port (3 partitions, advertised 127.0.0.1:$port)"

env_stop_ms=$(stop_cleanly "$current")
step "podman stop: clean shutdown in $env_stop_ms ms, exit code $(state "$current" ExitCode)"

ctr start "$current" >/dev/null || fail "podman start (restart)"
wait_for_port "$current" "$port" >/dev/null
logs "$current" | grep -E 'loaded [0-9]+ logs from' | tail -n 1 | grep -q '(clean shutdown)' \
  || fail "the restart did not find a clean shutdown: $(logs "$current" | grep -E 'loaded [0-9]+ logs from' | tail -n 1)"
consume_and_check "127.0.0.1:$port" "$topic" "$records"
stop_cleanly "$current" >/dev/null
step "restart from the volume: clean shutdown found, $records records still there, stopped cleanly"
ctr rm -v "$current" >/dev/null || fail "podman rm $current"
current=""

# ---- 2b. KAFKA_LISTENERS alone: the advertised listener follows it (Kafka's default) ----
lport=$(free_port_pair $((port + 2))) || fail "no free port"
current=krill-image-test-$$-listeners
containers+=("$current")
step "run with KAFKA_LISTENERS=PLAINTEXT://:$lport only"
ctr run -d --name "$current" "${run_opts[@]}" -e KAFKA_LISTENERS="PLAINTEXT://:$lport" "$image" >/dev/null \
  || fail "podman run"
wait_for_port "$current" "$lport" >/dev/null
first_client "$current" "127.0.0.1:$lport"
check_health "$current"
metadata=$(timeout 30 kcat -L -b "127.0.0.1:$lport") || fail "kcat -L"
echo "$metadata" | grep -q "broker 1 at localhost:$lport" || fail "advertised listener is not localhost:$lport: $metadata"
produce "localhost:$lport" "$topic" "$records"
consume_and_check "localhost:$lport" "$topic" "$records"
stop_cleanly "$current" >/dev/null
ctr rm -v "$current" >/dev/null || fail "podman rm $current"
current=""
step "KAFKA_LISTENERS alone: advertised localhost:$lport, kcat, healthy, stopped cleanly"

# ---- 3. no variables at all, on 9092 ----
default_summary="default run skipped (9092 in use)"
if port_in_use 9092 || port_in_use 9093; then
  step "9092 (or 9093) is in use: skipping the run with no variables"
else
  current=krill-image-test-$$-default
  containers+=("$current")
  step "run with no variables (9092)"
  start=$(now_ms)
  ctr run -d --name "$current" "${run_opts[@]}" "$image" >/dev/null || fail "podman run"
  wait_for_port "$current" 9092 >/dev/null
  def_port_ms=$(($(now_ms) - start))
  first_client "$current" "127.0.0.1:9092"
  check_health "$current"
  def_ready_ms=$(ready_ms "$current")
  def_uid=$(check_non_root "$current")
  produce localhost:9092 "$topic" "$records"
  consume_and_check localhost:9092 "$topic" "$records"
  def_stop_ms=$(stop_cleanly "$current")
  ctr rm -v "$current" >/dev/null || fail "podman rm $current"
  current=""
  step "default run: ready in $def_ready_ms ms (port open $def_port_ms ms after podman run), uid $def_uid, kcat on localhost:9092, clean stop in $def_stop_ms ms"
  default_summary="default run on localhost:9092 ready in ${def_ready_ms} ms"
fi

echo "PASS: $image ($image_mb MB on $base_image): KAFKA_* run on 127.0.0.1:$port ready in ${env_ready_ms} ms (port ${env_port_ms} ms after run), KRaft keys not applicable, kcat $records records, uid $env_uid, healthy, SIGTERM clean in ${env_stop_ms} ms, restart clean; KAFKA_LISTENERS alone advertised; $default_summary"
