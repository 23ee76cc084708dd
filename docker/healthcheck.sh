#!/usr/bin/env bash
# Container health check: healthy when the broker's first client listener accepts TCP connections.
# The listeners are found as the broker found them, read from the broker process itself (its command line and
# environment under /proc): an `--override listeners=...` argument, else KAFKA_LISTENERS, else `listeners` in
# its configuration file, else Kafka's default PLAINTEXT://:9092. Listeners named in controller.listener.names
# (KRaft's, which a Kafka configuration may carry) are skipped; one bound to all interfaces is probed on
# 127.0.0.1.
set -uo pipefail

broker_args=()
broker_env=()
for cmdline in /proc/[0-9]*/cmdline; do
  mapfile -d '' args <"$cmdline" 2>/dev/null || continue
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = io.krill.broker.KrillServer ]; then
      broker_args=("${args[@]:i+1}")
      mapfile -d '' broker_env <"${cmdline%/cmdline}/environ" 2>/dev/null || true
      break 2
    fi
  done
done
[ ${#broker_args[@]} -gt 0 ] || { echo "unhealthy: no Krill broker process" >&2; exit 1; }
config=${broker_args[0]}

# The value of property $1 as the broker sees it: the last --override, else the environment variable $2,
# else the configuration file (last occurrence).
property() {
  local key=$1 var=$2 value="" found=false i e
  for ((i = 1; i + 1 < ${#broker_args[@]}; i++)); do
    if [ "${broker_args[i]}" = --override ] && [ "${broker_args[i + 1]%%=*}" = "$key" ]; then
      value=${broker_args[i + 1]#*=}
      found=true
    fi
  done
  if ! $found; then
    for e in "${broker_env[@]}"; do
      [ "${e%%=*}" = "$var" ] && { value=${e#*=}; found=true; }
    done
  fi
  if ! $found && [ -r "$config" ]; then
    value=$(sed -n -E "s/^[[:space:]]*${key//./\\.}[[:space:]]*[=:][[:space:]]*//p" "$config" | tail -n 1 | tr -d '\r')
  fi
  echo "$value"
}

listeners=$(property listeners KAFKA_LISTENERS)
listeners=${listeners:-PLAINTEXT://:9092}
controllers=$(property controller.listener.names KAFKA_CONTROLLER_LISTENER_NAMES)
controllers=",$(echo "${controllers^^}" | tr -d '[:space:]'),"

IFS=, read -r -a entries <<<"$listeners"
for entry in "${entries[@]}"; do
  entry=$(echo "$entry" | tr -d '[:space:]')
  [ -n "$entry" ] || continue
  name=${entry%%://*}
  case $controllers in *",${name^^},"*) continue ;; esac
  hostport=${entry#*://}
  port=${hostport##*:}
  host=${hostport%:*}
  host=${host#[}
  host=${host%]}
  case $host in "" | 0.0.0.0 | ::) host=127.0.0.1 ;; esac
  if timeout 4 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null; then
    exit 0
  fi
  echo "unhealthy: nothing accepts connections on $host:$port (listener $name)" >&2
  exit 1
done
echo "unhealthy: no client listener in '$listeners'" >&2
exit 1
