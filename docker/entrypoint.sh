#!/usr/bin/env bash
# Container entrypoint: the apache/kafka image's conventions (KAFKA_* variables become properties,
# CLUSTER_ID the cluster id), on top of /opt/krill/config/docker/server.properties.
#   docker run krill                                  the broker
#   docker run krill --override num.partitions=3      the broker, with extra properties (these win over KAFKA_*)
#   docker run -it krill bash                         any other command runs instead of the broker
set -euo pipefail
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  exec "$@"
fi
config=${KRILL_CONFIG:-/opt/krill/config/docker/server.properties}
exec /opt/krill/bin/krill-server-start.sh "$config" --env-overrides "$@"
