#!/usr/bin/env bash
# Starts a ZooKeeper server for a Krill cluster, like Kafka's zookeeper-server-start.sh:
#   bin/zookeeper-server-start.sh [-daemon] config/zookeeper.properties
# Runs ZooKeeper's own org.apache.zookeeper.server.quorum.QuorumPeerMain from libs/ (standalone, or an
# ensemble member when the file lists server.N lines) in the foreground; with -daemon in the
# background, its console written to $LOG_DIR/zookeeper.out (LOG_DIR defaults to logs/ here).
# Logs go through config/logback.xml, ZooKeeper's at INFO. Stop it with bin/zookeeper-server-stop.sh.
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)

daemon=false
if [ "${1:-}" = "-daemon" ]; then
  daemon=true
  shift
fi
if [ $# -ne 1 ]; then
  echo "USAGE: $0 [-daemon] config/zookeeper.properties" >&2
  exit 1
fi
config=$1
if [ ! -f "$config" ]; then
  echo "No such file: $config" >&2
  exit 1
fi

# Krill's metadata is small (a few MiB of znodes at tens of thousands of partitions): a small initial heap
# that may grow to Kafka's 512 MiB, and the serial collector, which keeps the heap near what is live (G1
# grows its young generation with ZooKeeper's allocation rate: 150 MiB resident at 2,000 partitions, 380
# at 10,000). ZooKeeper's pauses on a heap this small are a few milliseconds, far below any session.
export KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms32m -Xmx512m}
export KAFKA_JVM_PERFORMANCE_OPTS=${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseSerialGC}
# Before the caller's options, so that a -Dkrill.zookeeper.log.level=... of theirs wins.
export KAFKA_OPTS="-Dkrill.zookeeper.log.level=INFO ${KAFKA_OPTS:-}"
main=org.apache.zookeeper.server.quorum.QuorumPeerMain

if [ "$daemon" = true ]; then
  log_dir=${LOG_DIR:-$base_dir/logs}
  mkdir -p "$log_dir"
  nohup "$base_dir/bin/krill-run-class.sh" "$main" "$config" > "$log_dir/zookeeper.out" 2>&1 < /dev/null &
else
  exec "$base_dir/bin/krill-run-class.sh" "$main" "$config"
fi
