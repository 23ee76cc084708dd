#!/usr/bin/env bash
# Runs a Java main class with Krill's libraries on the classpath, like Kafka's kafka-run-class.sh.
# In a source checkout it builds the distribution once with Maven if it is not there yet.
# Every failure exits non-zero with a line on stderr that says why.
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "krill: $*" >&2; exit 1; }

# The libs/ folder of the distribution Maven assembles under broker/target/krill/, if there is one. A glob,
# not ls: with nothing built yet ls fails, and under pipefail that would end the script with no message.
find_libs() {
  local candidate
  for candidate in "$base_dir"/broker/target/krill/krill-*/libs; do
    if [ -d "$candidate" ] && compgen -G "$candidate/krill-broker-*.jar" >/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 0
}

if [ -d "$base_dir/libs" ]; then
  libs="$base_dir/libs"                     # an unpacked distribution
else
  libs=$(find_libs)
  if [ -z "$libs" ]; then
    [ -f "$base_dir/pom.xml" ] || die "no libs/ folder and no pom.xml under $base_dir: neither a distribution nor a source checkout"
    command -v mvn >/dev/null 2>&1 || die "the distribution is not built and Maven (mvn) is not on the PATH; install Maven 3.8+ or build with: mvn -B -DskipTests -pl broker -am package"
    echo "Building Krill (first run only): mvn -B -q -DskipTests -pl broker -am package" >&2
    if ! (cd "$base_dir" && mvn -B -q -DskipTests -pl broker -am package) >&2; then
      die "the build failed (output above); fix it or run: cd $base_dir && mvn -B -DskipTests -pl broker -am package"
    fi
    libs=$(find_libs)
    [ -n "$libs" ] || die "the build succeeded but made no distribution under $base_dir/broker/target/krill/"
    echo "Built $(dirname "$libs")" >&2
  fi
fi

if [ -n "${JAVA_HOME:-}" ]; then
  java_cmd="$JAVA_HOME/bin/java"
  [ -x "$java_cmd" ] || die "JAVA_HOME is $JAVA_HOME, but $java_cmd is not an executable"
else
  java_cmd=java
  command -v java >/dev/null 2>&1 || die "java is not on the PATH and JAVA_HOME is not set; Krill needs Java 17+"
fi
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
