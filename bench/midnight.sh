#!/usr/bin/env bash
# The 00h07 night at 1/100 (midnight-0007: 12,000 reschedules in its
# window, settlements at 50 a second scaled, then the 08:00 run), both
# runs of the README: GSI1 with its 16 shards (model.yaml) and unsharded
# (examples/unsharded-gsi1.yaml), on the embedded engine with its
# throughput model, --speed max --retry-attempts 1 (deterministic).
# Rounds alternate the two so that the machine's load falls on both.
# Printed per run: wall time, CPU time (user+sys), peak memory, exit
# code, the summary's setup and run seconds; then min / median / max of
# the wall time of each side and of the pair, and the load average
# before and after.
#
# Usage: bench/midnight.sh [ROUNDS]    (default 3)
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."
rounds=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/cardapio" ./cmd/cardapio
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors"
: >"$work/sharded"; : >"$work/unsharded"; : >"$work/pair"
for r in $(seq 1 "$rounds"); do
  pair=0
  for side in sharded unsharded; do
    model=model.yaml
    [ "$side" = unsharded ] && model=examples/unsharded-gsi1.yaml
    set +e
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$work/cardapio" load "$model" --scenario midnight-0007 \
      --scale 0.01 --throughput --speed max --retry-attempts 1 --quiet --format json >"$work/sum.json" 2>"$work/err"
    code=$?
    set -e
    read -r wall user sys mem < <(tail -1 "$work/time")
    read -r setup run <<<"$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(round(s["setupSeconds"],1), round(s["runSeconds"],1))' "$work/sum.json")"
    printf 'round %d %-9s wall %6.1fs cpu %6.1fs mem %5d MB exit %d (setup %ss, run %ss)\n' "$r" "$side" "$wall" "$(echo "$user + $sys" | bc)" $((mem / 1024)) "$code" "$setup" "$run"
    echo "$wall" >>"$work/$side"
    pair=$(echo "$pair + $wall" | bc)
  done
  echo "$pair" >>"$work/pair"
done
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.1f / %.1f / %.1f s", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[NR]}'; }
echo "sharded wall min/median/max:   $(stats "$work/sharded")"
echo "unsharded wall min/median/max: $(stats "$work/unsharded")"
echo "both runs min/median/max:      $(stats "$work/pair")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
