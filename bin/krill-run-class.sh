#!/usr/bin/env bash
# Runs a Java main class with Krill's libraries on the classpath, like Kafka's kafka-run-class.sh.
# Builds the distribution once with Maven if it is not there yet.
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)

if [ -d "$base_dir/libs" ]; then
  libs="$base_dir/libs"                     # an unpacked distribution
else
  # A source checkout: the distribution Maven assembles under broker/target/krill/.
  find_libs() { ls -d "$base_dir"/broker/target/krill/krill-*/libs 2>/dev/null | head -n 1; }
  libs=$(find_libs)
  if [ -z "$libs" ]; then
    echo "Building Krill (first run only): mvn -B -q -DskipTests -pl broker -am package" >&2
    (cd "$base_dir" && mvn -B -q -DskipTests -pl broker -am package) >&2
    libs=$(find_libs)
  fi
fi

java_cmd=java
[ -n "${JAVA_HOME:-}" ] && java_cmd="$JAVA_HOME/bin/java"
heap_opts=${KAFKA_HEAP_OPTS:--Xms256m -Xmx1g}
log_opts=""
[ -f "$base_dir/config/logback.xml" ] && log_opts="-Dlogback.configurationFile=$base_dir/config/logback.xml"

# Class-data sharing (set by krill-server-start.sh; KRILL_CDS=off disables it): when the archive written by
# bin/krill-cds-archive.sh is there, the JVM maps the classes a start needs instead of loading and
# verifying them from the jars. A stale archive (other jars, another JVM) is rejected by the JVM, which then
# starts as without one; the log options keep that quiet.
cds_opts=""
if [ -n "${KRILL_CDS_ARCHIVE:-}" ] && [ "${KRILL_CDS:-on}" != off ]; then
  archive=$KRILL_CDS_ARCHIVE
  case $archive in /*) ;; *) archive="$(dirname "$libs")/$archive" ;; esac
  [ -f "$archive" ] && cds_opts="-XX:SharedArchiveFile=$archive -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
fi

# shellcheck disable=SC2086
exec "$java_cmd" $heap_opts ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20} $cds_opts ${KRILL_SERVER_JVM_OPTS:-} $log_opts ${KAFKA_OPTS:-} \
  -cp "$libs/*" "$@"
