#!/usr/bin/env bash
# Time cardapio plan on a day of a scenario at 1-second resolution, at the
# model's full scale and at ten times it, alternating in one run so that
# the load the machine carries from other work falls on both alike.
#
# Usage:
#   bench/plan.sh [ROUNDS] [MODEL] [SCENARIO]   (default 3 rounds, model.yaml, payday)
#
# Each round plans the scenario once at --scale 1 and once at --scale 10
# (ten times the items, the loads and the capacities: the same partitions
# and verdicts over ten times the data), alternating which goes first,
# --resolution 1 (a point every second of the 24 hours) and --format json
# to /dev/null. Printed per run: wall seconds (process start included),
# user+system CPU seconds and the maximum resident set (KB); then min,
# median and max of each, the ratio of the scales' median RSS (memory
# independent of the number of items is a ratio near 1), and the load
# average before and after. A run must exit 0 or 3 (a verdict).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-3}
model=${2:-model.yaml}
scenario=${3:-payday}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/cardapio" ./cmd/cardapio
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model $model, scenario $scenario, $rounds rounds; $(nproc) processors"

run() {
  local scale=$1 start end code=0
  start=$(date +%s%N)
  /usr/bin/env time -f "%U %S %M" -o "$work/res" "$work/cardapio" plan "$model" --scenario "$scenario" \
    --scale "$scale" --resolution 1 --format json --no-search >"$work/out.json" 2>"$work/err" || code=$?
  end=$(date +%s%N)
  if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
    echo "scale $scale: exit $code" >&2
    cat "$work/err" >&2
    exit 1
  fi
  local user sys rss
  read -r user sys rss <"$work/res"
  local wall cpu
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  items=$(grep -o '"items": *[0-9.e+]*' "$work/out.json" | head -1 | sed 's/.*: *//')
  echo "scale $scale: wall ${wall}s cpu ${cpu}s rss ${rss}KB items $items exit $code"
  echo "$wall $cpu $rss" >>"$work/scale$scale"
}

for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then run 1; run 10; else run 10; run 1; fi
done

stats() { # column of file: min median max
  sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%s %s %s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
for s in 1 10; do
  read -r wmin wmed wmax <<<"$(stats "$work/scale$s" 1)"
  read -r cmin cmed cmax <<<"$(stats "$work/scale$s" 2)"
  read -r rmin rmed rmax <<<"$(stats "$work/scale$s" 3)"
  echo "scale $s: wall min/median/max ${wmin}/${wmed}/${wmax} s; cpu ${cmin}/${cmed}/${cmax} s; rss ${rmin}/${rmed}/${rmax} KB"
  eval "rss$s=$rmed"
done
awk -v a="$rss1" -v b="$rss10" 'BEGIN { printf "median RSS, scale 10 over scale 1: %.2f\n", b / a }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
