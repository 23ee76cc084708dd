#!/usr/bin/env bash
# Stops Krill brokers started from this machine with SIGTERM (graceful: in-flight requests finish,
# logs are flushed, a clean-shutdown marker is written), like Kafka's kafka-server-stop.sh.
set -uo pipefail
pids=$(pgrep -f 'io\.krill\.broker\.KrillServer' || true)
if [ -z "$pids" ]; then
  echo "No Krill server to stop"
  exit 1
fi
kill -s TERM $pids
