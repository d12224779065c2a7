#!/usr/bin/env bash
# Times `cardapio generate model.yaml`, process start included, against
# `cardapio check model.yaml` run alternately as the baseline (the same
# process start and model load, no generation), and prints wall time and
# CPU time (user + system) as min / median / max over RUNS runs of each.
#
#   bench/generate.sh [RUNS] [MODEL]     (default 20, the reference model)
#
# On a machine shared with other work the wall time measures the queue as
# much as the program; the CPU time is what the command itself costs.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
runs=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
model=${2:-$root/model.yaml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/cardapio" "$root/cmd/cardapio"
"$tmp/cardapio" generate "$model" --out "$tmp/out" --package bench >/dev/null # warm the page cache

# measure CMD...: one line "wall cpu" in seconds, from GNU time when
# present, else from bash's times.
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    awk '{printf "%s %.3f\n", $1, $2 + $3}' "$tmp/t"
  else
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f 0\n", e - s}'
  fi
}

: >"$tmp/gen"
: >"$tmp/check"
for _ in $(seq "$runs"); do
  measure "$tmp/cardapio" generate "$model" --out "$tmp/out" --package bench >>"$tmp/gen"
  measure "$tmp/cardapio" check "$model" >>"$tmp/check" || true
done

stats() { # file column label
  sort -n -k"$2" "$1" | awk -v c="$2" -v l="$3" '{v[NR] = $c} END {
    printf "  %-6s min %6.0f ms  median %6.0f ms  max %6.0f ms\n", l, v[1] * 1000, v[int((NR + 1) / 2)] * 1000, v[NR] * 1000 }'
}
echo "cardapio generate $(basename "$model"), $runs runs (process start included):"
stats "$tmp/gen" 1 wall
stats "$tmp/gen" 2 cpu
echo "cardapio check $(basename "$model"), the baseline, alternated:"
stats "$tmp/check" 1 wall
stats "$tmp/check" 2 cpu
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
