#!/usr/bin/env bash
# The load client's memory against the population's size: cardapio load's
# peak RSS (VmHWM, read by /usr/bin/time -v) replaying the same scenario
# against cardapio serve (so that the server's memory, which holds the
# data, is apart) on populations of 1/1000, 1/300 and 1/100 of the
# reference model, with the scenario's rates at 1/100 whatever the
# population. Three runs a size:
#
#   existing   --existing: the tables already hold the population
#              (written beforehand by cardapio data --endpoint-url, not
#              measured): nothing written, subjects generated again
#   writing    the run writes the population itself (a fresh prefix)
#   in-process the embedded engine, in the client's process: there the
#              engine holds the data, and the RSS is mostly the engine's
#
# A fresh cardapio serve for each size. Printed: one line a run (peak
# RSS in MB, wall seconds, exit), then the existing and writing runs'
# largest over smallest (flat: at most 1.2).
#
# Usage:
#   bench/load-memory.sh [SIZES...]   (default 0.001 0.003 0.01)
#
# Environment:
#   SERVE_PORT   loopback port of cardapio serve (default 4593)
#   SCENARIO     scenario file (default examples/midnight-peak.yaml)
#   SCALE        the run's --scale (default 0.01)
#   INPROC=0     skip the in-process runs
set -euo pipefail
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(0.001 0.003 0.01)
port=${SERVE_PORT:-4593}
scenario=${SCENARIO:-examples/midnight-peak.yaml}
scale=${SCALE:-0.01}
asof=2026-09-24 # the scenario's day: the population a run draws
work=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/cardapio" ./cmd/cardapio
url="http://127.0.0.1:$port"

serve() {
  "$work/cardapio" serve --addr "127.0.0.1:$port" --ttl-sweep 0 >"$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.05
  done
  echo "cardapio serve did not start" >&2
  exit 1
}

# measure NAME ARGS...: one load run, its peak RSS (MB), wall and exit.
measure() {
  local name=$1
  shift
  local rc=0
  /usr/bin/time -v -o "$work/time" "$work/cardapio" load --scenario "$scenario" --scale "$scale" --speed max --quiet --format json "$@" \
    >"$work/sum.json" 2>"$work/err" || rc=$?
  local rss wall
  rss=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
  printf '%-10s population %-6s peak RSS %5s MB  wall %8s  exit %d\n' "$name" "$pop" "$rss" "$wall" "$rc"
  echo "$rss" >>"$work/$name"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    sed 's/^/    /' "$work/err" | tail -5
  fi
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors; scenario $scenario at --scale $scale"
for pop in "${sizes[@]}"; do
  serve
  t0=$(date +%s.%N)
  "$work/cardapio" data --scale "$pop" --as-of "$asof" --endpoint-url "$url" --create-tables --table-prefix pop- --quiet >"$work/data.txt"
  t1=$(date +%s.%N)
  items=$(awk '/items at scale/ {gsub(",", "", $2); print $2; exit}' "$work/data.txt")
  printf 'population %s: %s items written by cardapio data in %.0f s (not measured)\n' "$pop" "$items" "$(python3 -c "print($t1-$t0)")"
  measure existing --existing --table-prefix pop- --population "$pop" --endpoint-url "$url"
  measure writing --population "$pop" --endpoint-url "$url"
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
  if [ "${INPROC:-1}" != 0 ]; then
    measure in-process --population "$pop"
  fi
done
ratio() { python3 -c "import sys; v=[float(x) for x in open('$work/$1')]; print(f'{v[-1]/v[0]:.2f}x (largest over smallest population)')"; }
echo "existing client RSS: $(ratio existing)"
echo "writing client RSS: $(ratio writing)"
[ "${INPROC:-1}" = 0 ] || echo "in-process RSS (engine included): $(ratio in-process)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
