#!/usr/bin/env bash
# Writes the class-data-sharing (AppCDS) archive that bin/krill-server-start.sh then uses: about 8,000
# classes (Krill, Netty, ZooKeeper, Helix, Jackson, the JDK's) mapped at start instead of loaded, parsed
# and verified one by one, which is most of a start's CPU. Run it once after installing or building
# (bench/run.sh does); again after changing the jars or the JVM (the JVM ignores an archive that does
# not match them).
#   bin/krill-cds-archive.sh
# How: a training start of a single broker (embedded ZooKeeper, on a temporary data dir and a free
# loopback port) with -XX:ArchiveClassesAtExit, stopped once it is ready; the archive is checked with
# -Xshare:on before it replaces the old one, so a start never maps a half-written file.
set -euo pipefail
base_dir=$(cd "$(dirname "$0")/.." && pwd)
if [ -d "$base_dir/libs" ]; then
  libs="$base_dir/libs"
else
  libs=$(ls -d "$base_dir"/broker/target/krill/krill-*/libs 2>/dev/null | head -n 1)
  [ -n "$libs" ] || { echo "no Krill distribution: build it first (mvn -pl broker -am package)" >&2; exit 1; }
fi
archive=${KRILL_CDS_ARCHIVE:-krill-server.jsa}
case $archive in /*) ;; *) archive="$(dirname "$libs")/$archive" ;; esac
java_cmd=java
[ -n "${JAVA_HOME:-}" ] && java_cmd="$JAVA_HOME/bin/java"

work=$(mktemp -d "${TMPDIR:-/tmp}/krill-cds.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

KRILL_CDS=off KAFKA_OPTS="-XX:ArchiveClassesAtExit=$work/krill-server.jsa -Xlog:cds=off -Xlog:cds+dynamic=off" \
  "$base_dir/bin/krill-server-start.sh" "$base_dir/config/server.properties" \
  --override log.dirs="$work/data" --override listeners=PLAINTEXT://127.0.0.1:0 \
  --override advertised.listeners=PLAINTEXT://127.0.0.1:0 --override krill.http.port=0 > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  grep -q "Started in" "$work/server.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { tail -n 30 "$work/server.log" >&2; echo "training start failed" >&2; exit 1; }
  sleep 0.1
done
grep -q "Started in" "$work/server.log" || { tail -n 30 "$work/server.log" >&2; echo "training start not ready in 120 s" >&2; exit 1; }
kill -TERM "$pid"
wait "$pid" || true   # the archive is written as the JVM exits
pid=""
[ -s "$work/krill-server.jsa" ] || { tail -n 30 "$work/server.log" >&2; echo "no archive written" >&2; exit 1; }
"$java_cmd" -Xshare:on -XX:SharedArchiveFile="$work/krill-server.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off \
  -cp "$libs/*" -version > "$work/check.log" 2>&1 || { cat "$work/check.log" >&2; echo "archive does not map" >&2; exit 1; }
cp "$work/krill-server.jsa" "$archive.tmp.$$"
mv -f "$archive.tmp.$$" "$archive"
echo "wrote $archive ($(du -h "$archive" | cut -f1))"
