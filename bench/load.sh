#!/usr/bin/env bash
# The load generator's own cost: cardapio load against cardapio serve over
# loopback beside a raw aws-sdk-go-v2 loop (bench/loadraw) sending the
# same requests (GetItem of the orders example's orders, each sent once,
# the same number in flight), alternating in one run so that the load the
# machine carries from other work falls on both alike.
#
# Usage:
#   bench/load.sh [ROUNDS] [INFLIGHT]     (default 5 rounds, 64 in flight)
#
# The runner replays bench/load-get.yaml (GetOrder at 12,000 a second for
# 10 s of the scenario clock, on random orders of a population of 2,000
# orders): above what the server answers here, so the runner works at its
# in-flight bound and its arrivals start late, none dropped; its
# throughput is the arrivals completed over the run's wall time (its
# runSeconds: the population's load and the invariants' scan excluded).
# The raw loop reads the same table's orders for as long as the runner
# ran (in the round, or in the round before when the raw loop goes
# first: the side that goes first alternates from round to round), so
# that both sides meet the same span of the machine's load. Printed per round: both
# throughputs, their ratio, the CPU cardapio serve spent per request on
# each side; then min, median and max, and the load average before and
# after.
#
# Environment:
#   SERVE_PORT    loopback port of cardapio serve (default 4591)
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-5}
inflight=${2:-64}
port=${SERVE_PORT:-4591}
work=$(mktemp -d)
trap 'kill $serve_pid 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/cardapio" ./cmd/cardapio
go build -o "$work/loadraw" ./bench/loadraw
"$work/cardapio" serve --addr "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done
url="http://127.0.0.1:$port"
tick=$(getconf CLK_TCK)
servecpu() { awk -v t="$tick" '{print ($14+$15)/t}' "/proc/$serve_pid/stat"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors; $inflight in flight"
: >"$work/runner"; : >"$work/raw"; : >"$work/ratio"
runner() {
  c0=$(servecpu)
  "$work/cardapio" load examples/orders/model.yaml --scenario bench/load-get.yaml --endpoint-url "$url" \
    --scale 1 --population 0.0001 --speed 1 --retry-attempts 1 --max-inflight "$inflight" \
    --table-prefix "bench$r-" --keep --quiet --format json >"$work/sum.json" || true
  c1=$(servecpu)
  read -r rt rn rs <<<"$(python3 - "$work/sum.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["runSeconds"]
n = s["operations"]["GetOrder"]["completed"]
print(n / t, n, t)
PY
)"
  rc=$(python3 -c "print(($c1-$c0)*1e6/max($rn,1))")
}
raw() {
  c2=$(servecpu)
  read -r wt wn _ <<<"$("$work/loadraw" -endpoint-url "$url" -table "$1" -pk-prefix ORDER# -concurrency "$inflight" -duration "$2")"
  c3=$(servecpu)
  wc=$(python3 -c "print(($c3-$c2)*1e6/max($wn,1))")
}
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then
    runner
    raw "bench$r-orders" "$(python3 -c "print(f'{max($rs, 1):.1f}s')")"
  else
    # The raw loop first, on the previous round's table, for as long
    # as the runner ran then.
    raw "bench$((r - 1))-orders" "$(python3 -c "print(f'{max($rs, 1):.1f}s')")"
    runner
  fi
  ratio=$(python3 -c "print(f'{$rt/$wt:.3f}')")
  echo "$rt" >>"$work/runner"; echo "$wt" >>"$work/raw"; echo "$ratio" >>"$work/ratio"
  printf 'round %d: runner %.0f req/s (%d in %.1f s, serve %.0f us CPU/req), raw SDK loop %.0f req/s (%d, serve %.0f us CPU/req), ratio %s\n' \
    "$r" "$rt" "$rn" "$rs" "$rc" "$wt" "$wn" "$wc" "$ratio"
done
stats() { sort -g "$1" | awk '{a[NR]=$1} END {printf "min %.3f median %.3f max %.3f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[NR]}'; }
echo "runner req/s: $(stats "$work/runner")"
echo "raw loop req/s: $(stats "$work/raw")"
echo "runner / raw: $(stats "$work/ratio")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
