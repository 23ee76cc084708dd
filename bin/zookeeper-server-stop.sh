#!/usr/bin/env bash
# Stops the ZooKeeper servers that bin/zookeeper-server-start.sh started from this installation, with
# SIGTERM (ZooKeeper has written every acknowledged change to its transaction log already). Unlike
# Kafka's zookeeper-server-stop.sh, ZooKeeper servers of other installations on this machine are left
# alone: only those whose command line names this directory are stopped.
set -uo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)
pids=()
for pid in $(pgrep -f 'org\.apache\.zookeeper\.server\.quorum\.QuorumPeerMain' || true); do
  if ps -ww -o args= -p "$pid" 2>/dev/null | grep -qF -- "$base_dir/"; then
    pids+=("$pid")
  fi
done
if [ ${#pids[@]} -eq 0 ]; then
  echo "No ZooKeeper server to stop"
  exit 1
fi
kill -s TERM "${pids[@]}"
