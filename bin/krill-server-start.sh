#!/usr/bin/env bash
# Starts a Krill broker in the foreground.
#   bin/krill-server-start.sh [config/server.properties] [--override key=value ...]
# With no arguments: a single node on localhost:9092, data under ./data (config/server.properties).
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)
config="$base_dir/config/server.properties"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  config=$1
  shift
fi
# The class-data-sharing archive of the broker's classes, next to libs/ (bin/krill-cds-archive.sh makes it;
# used only when it is there and matches the jars and the JVM; KRILL_CDS=off ignores it).
export KRILL_CDS_ARCHIVE=${KRILL_CDS_ARCHIVE:-krill-server.jsa}
exec "$base_dir/bin/krill-run-class.sh" io.krill.broker.KrillServer "$config" "$@"
