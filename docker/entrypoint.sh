#!/usr/bin/env bash
# Container entrypoint: the apache/kafka image's conventions (KAFKA_* variables become properties,
# CLUSTER_ID the cluster id), on top of /opt/krill/config/docker/server.properties.
set -euo pipefail
config=${KRILL_CONFIG:-/opt/krill/config/docker/server.properties}
exec /opt/krill/bin/krill-server-start.sh "$config" --env-overrides "$@"
