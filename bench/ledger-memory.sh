#!/usr/bin/env bash
# The load client's memory against the run's length: cardapio load's peak
# RSS (VmHWM, read by /usr/bin/time -v) sending the reference model's
# settlements (bench/ledger-load.yaml: every message goes to the ledger
# the ledger invariants read) for longer and longer (--duration), against
# cardapio serve (a fresh one a run, so that the server's memory, which
# holds the data, is apart). The ledger streams to a spill file as its
# messages become final and the invariants join it a bucket at a time:
# what the client holds grows with the arrivals in flight, not with the
# run's length.
#
# With BASE=<git revision>, that revision's cardapio is built too and the
# two are measured alternately, run for run (the machine is shared).
#
# Printed: one line a run (messages in the ledger, peak RSS in MB, wall
# seconds, exit), then, for each build, the longest run's RSS over the
# shortest's (flat: at most 1.2).
#
# Usage:
#   bench/ledger-memory.sh [DURATIONS...]   (default 4s 12s 40s)
#
# Environment:
#   SERVE_PORT   loopback port of cardapio serve (default 4594)
#   SCALE        the run's --scale (default 1: 3,000 settlements a second)
#   POPULATION   the population's scale (default 0.001)
#   BASE         a git revision to measure against, alternately
set -euo pipefail
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

durations=("$@")
[ ${#durations[@]} -gt 0 ] || durations=(4s 12s 40s)
port=${SERVE_PORT:-4594}
scale=${SCALE:-1}
pop=${POPULATION:-0.001}
work=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/cardapio-head" ./cmd/cardapio
builds=(head)
if [ -n "${BASE:-}" ]; then
  mkdir "$work/base"
  git archive "$BASE" | tar -x -C "$work/base"
  (cd "$work/base" && go build -o "$work/cardapio-base" ./cmd/cardapio)
  builds=(head base)
fi
url="http://127.0.0.1:$port"

serve() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is taken: give SERVE_PORT" >&2
    exit 1
  fi
  "$work/cardapio-head" serve --addr "127.0.0.1:$port" --ttl-sweep 0 >"$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.05
  done
  echo "cardapio serve did not start" >&2
  exit 1
}

# measure BUILD DURATION: one load run, its ledger's messages, peak RSS
# (MB), wall and exit.
measure() {
  local build=$1 dur=$2 rc=0
  serve
  /usr/bin/time -v -o "$work/time" "$work/cardapio-$build" load --scenario bench/ledger-load.yaml --scale "$scale" --population "$pop" \
    --duration "$dur" --speed max --quiet --format json --endpoint-url "$url" --results "$work/r.jsonl" >"$work/sum.json" 2>"$work/err" || rc=$?
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
  local rss wall msgs
  rss=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
  msgs=$(python3 -c "
import json, sys
n = 0
for l in open('$work/r.jsonl'):
    o = json.loads(l)
    if o.get('type') == 'ledger':
        n += len(o.get('messages') or [])
print(n)" 2>/dev/null || echo '?')
  printf '%-5s duration %-5s %8s messages  peak RSS %5s MB  wall %8s  exit %d\n' "$build" "$dur" "$msgs" "$rss" "$wall" "$rc"
  echo "$rss" >>"$work/rss-$build"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    sed 's/^/    /' "$work/err" | tail -5
  fi
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors; bench/ledger-load.yaml at --scale $scale, population $pop"
for d in "${durations[@]}"; do
  for b in "${builds[@]}"; do
    measure "$b" "$d"
  done
done
for b in "${builds[@]}"; do
  python3 -c "v=[float(x) for x in open('$work/rss-$b')]; print(f'$b client RSS: {v[-1]/v[0]:.2f}x (longest over shortest run)')"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
