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
exec "$base_dir/bin/krill-run-class.sh" io.krill.broker.KrillServer "$config" "$@"
