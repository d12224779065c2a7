#!/usr/bin/env bash
# Time the budget gate on a model, process start included: cardapio budget
# against the embedded engine (in process, the default) and against
# cardapio serve over loopback (--endpoint-url), alternating in one run so
# that the load the machine carries from other work falls on both alike.
#
# Usage:
#   bench/budget.sh [ROUNDS] [MODEL]     (default 10 rounds, model.yaml)
#
# Each round runs the gate once on each side, alternating which goes
# first. Printed per run: wall seconds (the process from exec to exit, as
# a CI job waits for it), the process's user+system CPU, and for the serve
# side the CPU cardapio serve spent meanwhile (from /proc); then min,
# median and max of each side, the ratio of the medians, and the load
# average before and after (the machine is shared: read the figures
# beside it). cardapio serve is started once, before the rounds; its own
# start is not part of any run. Both sides must pass the gate (exit 0).
#
# Environment:
#   SERVE_PORT    loopback port of cardapio serve (default 4590)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-10}
model=${2:-model.yaml}
port=${SERVE_PORT:-4590}
work=$(mktemp -d)
trap 'kill $serve_pid 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/cardapio" ./cmd/cardapio
"$work/cardapio" serve --addr "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model $model, $rounds rounds; $(nproc) processors"

# servercpu: the seconds of CPU cardapio serve has used so far.
servercpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$serve_pid/stat"
}

# run SIDE ARGS...: one timed run, appended to $work/SIDE.
run() {
  local side=$1
  shift
  local start end s0
  s0=$(servercpu)
  start=$(date +%s%N)
  /usr/bin/env time -f "%U %S" -o "$work/cpu" "$work/cardapio" budget "$@" "$model" >"$work/out" 2>&1 || {
    echo "$side: the gate failed:" >&2
    tail -5 "$work/out" >&2
    exit 1
  }
  end=$(date +%s%N)
  read -r user sys <"$work/cpu"
  local wall cpu
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  local scpu
  scpu=$(awk -v a="$s0" -v b="$(servercpu)" 'BEGIN { printf "%.2f", b - a }')
  echo "$wall $cpu $scpu" >>"$work/$side"
  if [ "$side" = serve ]; then
    printf '  %-9s %7ss wall  %6ss cpu  %6ss server cpu\n' "$side" "$wall" "$cpu" "$scpu"
  else
    printf '  %-9s %7ss wall  %6ss cpu\n' "$side" "$wall" "$cpu"
  fi
}

for r in $(seq 1 "$rounds"); do
  echo "round $r"
  if [ $((r % 2)) -eq 1 ]; then
    run embedded
    run serve --endpoint-url "http://127.0.0.1:$port"
  else
    run serve --endpoint-url "http://127.0.0.1:$port"
    run embedded
  fi
done

# stats FILE COLUMN: min median max of a column.
stats() {
  cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "min %.3f  median %.3f  max %.3f", v[1], m, v[NR] }'
}
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo
echo "embedded engine (in process): wall s: $(stats "$work/embedded" 1); cpu s: $(stats "$work/embedded" 2)"
echo "cardapio serve (loopback):    wall s: $(stats "$work/serve" 1); cpu s: $(stats "$work/serve" 2); server cpu s: $(stats "$work/serve" 3)"
awk -v a="$(median "$work/serve" 1)" -v b="$(median "$work/embedded" 1)" 'BEGIN { printf "serve / embedded, median wall: %.2fx\n", a / b }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
