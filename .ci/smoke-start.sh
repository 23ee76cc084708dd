#!/usr/bin/env bash
# Proves the README's first command on this checkout: runs bin/krill-server-start.sh exactly as README.md
# writes it (on a clean checkout that includes its one-time build), waits until kcat (librdkafka, a stock
# client) has produced a record to a new topic and consumed it back, then stops the broker with SIGTERM
# and checks that it exits. Leaves no process, topic data or port behind. Exit 0 only if all of that held.
set -euo pipefail
cd "$(dirname "$0")/.."

start_cmd=$(grep -m1 -E '^    bin/krill-server-start\.sh' README.md | sed 's/^ *//')
[ "$start_cmd" = "bin/krill-server-start.sh" ] \
  || { echo "smoke: README.md's first command is '$start_cmd', not what this check runs" >&2; exit 1; }
command -v kcat >/dev/null 2>&1 || { echo "smoke: kcat is not installed" >&2; exit 1; }
if [ -e data ]; then echo "smoke: ./data already exists; the check needs a fresh data folder" >&2; exit 1; fi
if (exec 3<>/dev/tcp/127.0.0.1/9092) 2>/dev/null; then
  echo "smoke: something already listens on localhost:9092" >&2; exit 1
fi

log=$(mktemp /tmp/krill-smoke.XXXXXX.log)
deadline_s=${SMOKE_TIMEOUT_S:-900}    # includes the first run's Maven build on a fresh machine
$start_cmd > "$log" 2>&1 &
pid=$!
cleanup() {
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf data
}
trap cleanup EXIT
fail() { echo "smoke: $*" >&2; echo "--- broker output (last 60 lines):" >&2; tail -n 60 "$log" >&2; exit 1; }

topic="smoke-$(date +%s)-$$"
value="krill smoke $(date +%s%N)"
start=$(date +%s)
produced=false
consumed=""
while :; do
  kill -0 "$pid" 2>/dev/null || { wait "$pid" || rc=$?; fail "the broker exited (status ${rc:-0}) before it served"; }
  [ $(( $(date +%s) - start )) -lt "$deadline_s" ] || fail "no produce and consume through localhost:9092 within ${deadline_s}s"
  if ! $produced; then
    if printf '%s\n' "$value" | kcat -P -b localhost:9092 -t "$topic" -X message.timeout.ms=5000 2>/dev/null; then
      produced=true
    fi
  fi
  if $produced; then
    consumed=$(kcat -C -b localhost:9092 -t "$topic" -o beginning -c 1 -e -q 2>/dev/null || true)
    [ "$consumed" = "$value" ] && break
  fi
  sleep 1
done
echo "smoke: bin/krill-server-start.sh served a produce and a consume after $(( $(date +%s) - start ))s"

kill -TERM "$pid"
for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
kill -0 "$pid" 2>/dev/null && fail "the broker did not stop within 60 s of SIGTERM"
rc=0; wait "$pid" || rc=$?
# 143 is the JVM's status after an orderly exit on SIGTERM (as Kafka's kafka-server-start.sh ends).
[ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "the broker exited with status $rc after SIGTERM"
grep -q "stopped" "$log" || fail "the broker's log has no clean-stop line"
echo "smoke: the broker stopped cleanly (status $rc)"
rm -f "$log"
