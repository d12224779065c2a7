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
# RSS in MB, the peak up to the end of the setup, wall seconds, exit),
# then the existing and writing runs' largest over smallest (flat: at
# most 1.2). The setup's peak is the process's VmHWM when its log says
# the run is set up (read every 0.1 s): what writing the population
# took, apart from the run and the invariants' check after it (which,
# on tables the run wrote, reads them whole).
#
# With BASE set to a revision, each run is made twice, alternating, by
# the cardapio of BASE and by this tree's, and the ratios of their peaks
# (this tree's over BASE's) are printed: min/median/max over sizes and
# REPEAT rounds.
#
# Usage:
#   bench/load-memory.sh [SIZES...]   (default 0.001 0.003 0.01)
#
# Environment:
#   SERVE_PORT   loopback port of cardapio serve (default 4593)
#   SCENARIO     scenario file (default examples/midnight-peak.yaml)
#   SCALE        the run's --scale (default 0.01)
#   RUNS         which runs, of existing writing in-process (default all)
#   INPROC=0     skip the in-process runs
#   BASE         a revision to compare with (git rev-parse names it)
#   REPEAT       rounds of every size (default 1)
set -euo pipefail
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(0.001 0.003 0.01)
port=${SERVE_PORT:-4593}
scenario=${SCENARIO:-examples/midnight-peak.yaml}
scale=${SCALE:-0.01}
runs=" ${RUNS:-existing writing in-process} "
[ "${INPROC:-1}" != 0 ] || runs=${runs/ in-process / }
repeat=${REPEAT:-1}
asof=2026-09-24 # the scenario's day: the population a run draws
work=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT
has() { [[ $runs == *" $1 "* ]]; }

go build -o "$work/cardapio" ./cmd/cardapio
bins=("$work/cardapio")
if [ -n "${BASE:-}" ]; then
  rev=$(git rev-parse --verify "$BASE^{commit}")
  mkdir "$work/base"
  git archive "$rev" | tar -x -C "$work/base"
  (cd "$work/base" && go build -o "$work/cardapio-base" ./cmd/cardapio)
  bins=("$work/cardapio-base" "$work/cardapio")
  echo "base $BASE ($rev) against this tree, alternating"
fi
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

# measure NAME ARGS...: one load run by each binary (alternating, the
# first of them in turn), its peak RSS and setup's peak (MB), wall and
# exit.
round=0
measure() {
  local name=$1
  shift
  local order=("${bins[@]}")
  if [ ${#bins[@]} -gt 1 ] && [ $((round % 2)) -eq 1 ]; then
    order=("${bins[1]}" "${bins[0]}")
  fi
  round=$((round + 1))
  local bin
  for bin in "${order[@]}"; do
    local tag=$name
    [ "$bin" = "$work/cardapio-base" ] && tag=$name/base
    local rc=0 setup=
    /usr/bin/time -v -o "$work/time" "$bin" load --scenario "$scenario" --scale "$scale" --speed max --format json "$@" \
      >"$work/sum.json" 2>"$work/err" &
    local pid=$! child=
    while kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.*zombie' "/proc/$pid/status" 2>/dev/null; do
      [ -n "$child" ] || child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | awk '{print $1}')
      if [ -z "$setup" ] && [ -n "$child" ] && grep -q 'set up in' "$work/err"; then
        setup=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$child/status" 2>/dev/null)
      fi
      sleep 0.1
    done
    wait "$pid" || rc=$?
    local rss wall
    rss=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
    printf '%-15s population %-6s peak RSS %5s MB  setup %5s MB  wall %8s  exit %d\n' "$tag" "$pop" "$rss" "${setup:--}" "$wall" "$rc"
    echo "$rss" >>"$work/${tag/\//-}"
    echo "$pop ${setup:-0} $rss" >>"$work/${tag/\//-}.pairs"
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
      sed 's/^/    /' "$work/err" | tail -5
    fi
  done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors; scenario $scenario at --scale $scale"
for ((k = 0; k < repeat; k++)); do
  for pop in "${sizes[@]}"; do
    if has existing || has writing; then
      serve
    fi
    if has existing; then
      t0=$(date +%s.%N)
      "$work/cardapio" data --scale "$pop" --as-of "$asof" --endpoint-url "$url" --create-tables --table-prefix pop- --quiet >"$work/data.txt"
      t1=$(date +%s.%N)
      items=$(awk '/items at scale/ {gsub(",", "", $2); print $2; exit}' "$work/data.txt")
      printf 'population %s: %s items written by cardapio data in %.0f s (not measured)\n' "$pop" "$items" "$(python3 -c "print($t1-$t0)")"
      measure existing --existing --table-prefix pop- --population "$pop" --endpoint-url "$url"
    fi
    if has writing; then
      measure writing --population "$pop" --endpoint-url "$url"
    fi
    if [ -n "$serve_pid" ]; then
      kill "$serve_pid"
      wait "$serve_pid" 2>/dev/null || true
      serve_pid=
    fi
    if has in-process; then
      measure in-process --population "$pop"
    fi
  done
done
ratio() { python3 -c "import sys; v=[float(x) for x in open('$work/$1')]; print(f'{v[-1]/v[0]:.2f}x (largest over smallest population)')"; }
for name in existing writing in-process; do
  has "$name" || continue
  [ "$repeat" -gt 1 ] || echo "$name client RSS: $(ratio "$name")"
  if [ -f "$work/$name-base.pairs" ]; then
    python3 - "$work/$name-base.pairs" "$work/$name.pairs" "$name" <<'PY'
import statistics, sys
base = [l.split() for l in open(sys.argv[1])]
new = [l.split() for l in open(sys.argv[2])]
for i, what in ((1, "setup peak"), (2, "peak")):
    r = [float(n[i]) / float(b[i]) for b, n in zip(base, new) if float(b[i]) > 0]
    if r:
        print(f"{sys.argv[3]} {what}, this tree over base: min {min(r):.2f} median {statistics.median(r):.2f} max {max(r):.2f} ({len(r)} pairs)")
PY
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
