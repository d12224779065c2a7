#!/usr/bin/env bash
# Time cardapio diff of two reference-sized models (the reference model and
# examples/diff/lastro.yaml: a new index, a key template moved, a
# projection widened) without --rehearse, against cardapio cost --compare
# of the same two, alternating in one run so that the load the machine
# carries from other work falls on both alike. The target: diff under 1 s,
# process start included.
#
# Usage:
#   bench/diff.sh [ROUNDS] [BASE] [HEAD]   (default 7 rounds, model.yaml, examples/diff/lastro.yaml)
#
# Printed per run: wall seconds (process start included) and user+system
# CPU seconds; then min, median and max of each, and the load average
# before and after. diff must exit 0 or 3 (a verdict), cost 0.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-7}
base=${2:-model.yaml}
head=${3:-examples/diff/lastro.yaml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/cardapio" ./cmd/cardapio
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$base -> $head, $rounds rounds; $(nproc) processors"

run() {
  local name=$1 start end code=0
  shift
  start=$(date +%s%N)
  /usr/bin/env time -f "%U %S" -o "$work/res" "$work/cardapio" "$@" >"$work/out" 2>"$work/err" || code=$?
  end=$(date +%s%N)
  if [ "$code" -ne 0 ] && ! { [ "$name" = diff ] && [ "$code" -eq 3 ]; }; then
    echo "$name: exit $code" >&2
    cat "$work/err" >&2
    exit 1
  fi
  local user sys wall cpu
  read -r user sys <"$work/res"
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "$name: wall ${wall}s cpu ${cpu}s exit $code"
  echo "$wall $cpu" >>"$work/$name"
}

diff_() { run diff diff "$base" "$head" --format json; }
cost_() { run cost cost --compare "$base" "$head" --format json; }
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then diff_; cost_; else cost_; diff_; fi
done

stats() { # column of file: min median max
  sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%s %s %s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
for n in diff cost; do
  read -r wmin wmed wmax <<<"$(stats "$work/$n" 1)"
  read -r cmin cmed cmax <<<"$(stats "$work/$n" 2)"
  echo "$n: wall min/median/max ${wmin}/${wmed}/${wmax} s; cpu ${cmin}/${cmed}/${cmax} s"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
