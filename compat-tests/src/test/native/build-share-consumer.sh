#!/usr/bin/env bash
# Builds krill-share-consumer (share_consumer.c, next to this script) statically against librdkafka 2.15.1,
# whose preview share consumer (KIP-932) Debian's librdkafka lacks, and krill-telemetry-producer
# (telemetry_producer.c) against the same library, whose client telemetry (KIP-714) Debian's lacks too. librdkafka's source comes from the npm
# package @confluentinc/kafka-javascript@1.10.1 (it bundles it under deps/librdkafka), checked against a
# pinned sha256. Nothing is committed to the repository: everything goes to the cache directory
#   ${KRILL_NATIVE_CACHE:-$HOME/.cache/krill-native}/librdkafka-2.15.1
# and only what is missing is rebuilt. Needs gcc, make and npm (and the npm registry); no -dev packages.
# The last line printed is the share consumer's path; the telemetry producer is next to it. Exit codes: 2 gcc, make or npm missing; 3 the fetch failed;
# 4 the fetched package is not the pinned one; 5 the build failed.
# Used by compat-tests' LibrdkafkaShareConsumerTest and by .ci/run.
set -euo pipefail

NPM_PACKAGE=@confluentinc/kafka-javascript@1.10.1
NPM_TARBALL=confluentinc-kafka-javascript-1.10.1.tgz
NPM_SHA256=ada7d703bb1d3237e2292bfabf438d663b6160c9f1ac2a2406b5dc4257c81b66
LIBRDKAFKA_VERSION=2.15.1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KRILL_NATIVE_CACHE:-$HOME/.cache/krill-native}/librdkafka-$LIBRDKAFKA_VERSION"
src="$cache/src"
lib="$src/src/librdkafka.a"
bin="$cache/bin/krill-share-consumer"
jobs="${KRILL_NATIVE_JOBS:-2}"

log() { echo "build-share-consumer: $*" >&2; }

for tool in gcc make; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool not found"; exit 2; }
done
mkdir -p "$cache/bin"
# One build at a time: the compat tests run in two JVMs, and two tests may ask for the programs at once.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.build.lock"
  flock 9
fi

# 1. librdkafka's source, from the npm tarball (only deps/librdkafka is unpacked).
if [ ! -f "$src/.unpacked" ]; then
  command -v npm >/dev/null 2>&1 || { log "npm not found"; exit 2; }
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  log "fetching $NPM_PACKAGE"
  (cd "$tmp" && npm pack --silent "$NPM_PACKAGE" >/dev/null) || { log "npm pack $NPM_PACKAGE failed"; exit 3; }
  actual="$(sha256sum "$tmp/$NPM_TARBALL" | cut -d' ' -f1)"
  if [ "$actual" != "$NPM_SHA256" ]; then
    log "sha256 mismatch for $NPM_TARBALL: got $actual, want $NPM_SHA256"
    exit 4
  fi
  rm -rf "$src" "$cache/src.tmp"
  mkdir -p "$cache/src.tmp"
  tar -xzf "$tmp/$NPM_TARBALL" -C "$cache/src.tmp" --strip-components=3 package/deps/librdkafka
  grep -q "rd_kafka_share_consumer_new" "$cache/src.tmp/src/rdkafka.h" \
    || { log "the unpacked librdkafka has no share consumer"; exit 4; }
  touch "$cache/src.tmp/.unpacked"
  mv "$cache/src.tmp" "$src"
fi

# 2. A minimal static librdkafka.a (only the library: no tests, examples or shared library). The options
# turn off every feature that would use a -dev package when one happens to be installed (SSL, SASL/GSSAPI,
# zstd, zlib, curl, external lz4), so the build is the same on every machine; Krill's tests here use
# plaintext and uncompressed records. (With no -dev package installed, configure needs no option at all.)
if [ ! -f "$cache/.lib-built" ]; then
  log "configuring librdkafka $LIBRDKAFKA_VERSION"
  (cd "$src" && ./configure --no-download \
      --disable-ssl --disable-gssapi --disable-zstd --disable-zlib --disable-curl --disable-lz4-ext \
      >"$cache/configure.log" 2>&1) \
    || { tail -n 40 "$cache/configure.log" >&2; log "configure failed (log: $cache/configure.log)"; exit 5; }
  log "building librdkafka.a (make -j$jobs)"
  make -C "$src/src" -j"$jobs" librdkafka.a >"$cache/make.log" 2>&1 \
    || { tail -n 40 "$cache/make.log" >&2; log "make failed (log: $cache/make.log)"; exit 5; }
  touch "$cache/.lib-built"
  rm -f "$cache"/bin/krill-*
fi

# 3. Our programs, each rebuilt when its source is newer than its binary.
libs="$(sed -n 's/^LIBS+*=//p' "$src/Makefile.config" | tr '\n' ' ')"
for program in share_consumer telemetry_producer; do
  out="$cache/bin/krill-${program//_/-}"
  if [ ! -x "$out" ] || [ "$here/$program.c" -nt "$out" ]; then
    log "compiling $program.c"
    # shellcheck disable=SC2086 # LIBS is a list of linker flags
    gcc -std=c11 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -isystem "$src/src" \
        -o "$out.tmp" "$here/$program.c" "$lib" $libs -lpthread -lm
    mv "$out.tmp" "$out"
  fi
done

echo "$bin"
