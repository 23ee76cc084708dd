#!/usr/bin/env bash
# Starts a Krill broker in the foreground. In a source checkout the first start builds the distribution
# (bin/krill-run-class.sh says so); any failure exits non-zero with the reason on stderr.
#   bin/krill-server-start.sh [config/server.properties] [--override key=value ...]
# With no arguments: a single node on localhost:9092, data under ./data (config/server.properties).
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)
config="$base_dir/config/server.properties"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  config=$1
  shift
fi
if [ ! -f "$config" ] || [ ! -r "$config" ]; then
  echo "krill: configuration file $config is not a readable file" >&2
  echo "usage: $0 [server.properties] [--override key=value ...]" >&2
  exit 1
fi
# The class-data-sharing archive of the broker's classes, next to libs/ (bin/krill-cds-archive.sh makes it;
# used only when it is there and matches the jars and the JVM; KRILL_CDS=off ignores it).
export KRILL_CDS_ARCHIVE=${KRILL_CDS_ARCHIVE:-krill-server.jsa}
# The broker's own JVM defaults, after the heap and GC options (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS)
# and before KAFKA_OPTS, which can override them. A young generation of at most 32 MiB: the broker's live
# heap is about 30 MiB and its garbage comes mostly from ZooKeeper and Helix, so a larger eden only adds
# resident memory (G1 would grow it to 60-100 MiB, all of it touched), for young collections of 3-8 ms
# every few seconds under load instead of every ten or so. Netty's pooled allocator with two direct arenas
# of 2 MiB chunks (requests up to max.request.size, 1 MiB, fit a chunk; fetches are zero-copy) instead of
# Netty 4.2's adaptive one, which kept 13-24 MiB of direct memory for the same load against about 7.
# JIT thresholds four times the JVM's defaults: only code that stays hot (the request path) gets compiled,
# not what runs for a while at start or now and then (ZooKeeper, Helix, their JSON); on two cores the
# compiler threads otherwise took 45-55% of the broker's CPU in a 1 GiB produce after warm-up and most of a
# core in the first second (docs/benchmarks.md: produce CPU per GB -25%, time to first produce -14%).
# Set KRILL_SERVER_JVM_OPTS (even to " ") to replace these.
export KRILL_SERVER_JVM_OPTS=${KRILL_SERVER_JVM_OPTS:--XX:MaxNewSize=32m -XX:CompileThresholdScaling=4 -Dio.netty.allocator.type=pooled -Dio.netty.allocator.numDirectArenas=2 -Dio.netty.allocator.maxOrder=8}
exec "$base_dir/bin/krill-run-class.sh" io.krill.broker.KrillServer "$config" "$@"
