#!/usr/bin/env bash
# How long cardapio report takes on a model, and where the time goes: the
# report from check and cost alone (--no-measure), the same with an
# earlier budget run's JSON (--budget FILE), and the whole report with
# the budget gate run now on the embedded engine. The three are run in
# turn, ROUNDS times, so that a busy machine weighs on each alike; wall,
# user and system seconds of every run, then min/median/max of each.
#
# Usage:
#   bench/report.sh [model.yaml]        (default: model.yaml)
#
# Environment: ROUNDS (default 3), CARDAPIO (a built binary; default:
# built from this tree).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."
model=${1:-model.yaml}
rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${CARDAPIO:-}
if [ -z "$bin" ]; then
  go build -o "$tmp/cardapio" ./cmd/cardapio
  bin=$tmp/cardapio
fi
"$bin" budget "$model" --format json >"$tmp/budget.json"

declare -A runs
for r in $(seq 1 "$rounds"); do
  for kind in static file measured; do
    case $kind in
      static) args=(--no-measure) ;;
      file) args=(--budget "$tmp/budget.json") ;;
      measured) args=() ;;
    esac
    t=$( { /usr/bin/time -f '%e %U %S' "$bin" report "$model" "${args[@]}" --out "$tmp/r.html" 2>&1 >/dev/null; } | tail -1)
    echo "round $r $kind: wall/user/sys $t s"
    runs[$kind]+="$t"$'\n'
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); report $(wc -c <"$tmp/r.html") bytes"
stats() { sort -n | awk '{ v[NR]=$1 } END { printf "min %.2f median %.2f max %.2f s", v[1], v[int((NR+1)/2)], v[NR] }'; }
for kind in static file measured; do
  wall=$(printf '%s' "${runs[$kind]}" | awk '{ print $1 }' | stats)
  cpu=$(printf '%s' "${runs[$kind]}" | awk '{ print $2 + $3 }' | stats)
  printf '%-9s wall %s; cpu (user+sys) %s\n' "$kind" "$wall" "$cpu"
done
