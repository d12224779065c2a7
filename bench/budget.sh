#!/usr/bin/env bash
# Time the budget gate on a model, process start included: cardapio budget
# against the embedded engine (in process, the default) and against
# cardapio serve over loopback (--endpoint-url), alternating in one run so
# that the load the machine carries from other work falls on both alike.
#
# Usage:
#   bench/budget.sh [ROUNDS] [MODEL]     (default 10 rounds, model.yaml)
#
# Each round runs the gate once on each side, rotating which goes first.
# Printed per run: wall seconds (the process from exec to exit, as a CI
# job waits for it), the process's user+system CPU, and for the serve
# side the CPU cardapio serve spent meanwhile (from /proc); then min,
# median and max of each side, the ratio of the medians, and the load
# average before and after (the machine is shared: read the figures
# beside it). cardapio serve is started once, before the rounds; its own
# start is not part of any run. Every run must pass the gate (exit 0).
#
# Environment:
#   SERVE_PORT    loopback port of cardapio serve (default 4590; the
#                 build of BEFORE gets the next one)
#   BEFORE        a git revision to compare with: it is built too (from
#                 git archive, no checkout), with a cardapio serve of its
#                 own, and its runs alternate with this tree's in every
#                 round (sides "embedded-before", "serve-before"), so that
#                 before and after are measured in the same run.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-10}
model=${2:-model.yaml}
port=${SERVE_PORT:-4590}
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# build NAME DIR: the cardapio binary of the tree in DIR, started as a
# server on the next port; sets the side's binary and endpoint.
declare -A bin url spid
next=$port
build() {
  local name=$1 dir=$2
  (cd "$dir" && go build -o "$work/cardapio-$name" ./cmd/cardapio)
  bin[$name]="$work/cardapio-$name"
  "${bin[$name]}" serve --addr "127.0.0.1:$next" >"$work/serve-$name.log" 2>&1 &
  spid[$name]=$!
  pids+=("$!")
  url[$name]="http://127.0.0.1:$next"
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$next") 2>/dev/null && break
    sleep 0.05
  done
  next=$((next + 1))
}

builds=(after)
build after .
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before-src"
  git archive "$BEFORE" | tar -x -C "$work/before-src"
  build before "$work/before-src"
  builds=(before after)
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model $model, $rounds rounds; $(nproc) processors${BEFORE:+; before = $BEFORE ($(git rev-parse --short "$BEFORE")), after = this tree}"

# servercpu NAME: the seconds of CPU that build's cardapio serve has used.
servercpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/${spid[$1]}/stat"
}

# run SIDE BUILD ARGS...: one timed run, appended to $work/SIDE.
run() {
  local side=$1 name=$2
  shift 2
  local start end s0
  s0=$(servercpu "$name")
  start=$(date +%s%N)
  /usr/bin/env time -f "%U %S" -o "$work/cpu" "${bin[$name]}" budget "$@" "$model" >"$work/out" 2>&1 || {
    echo "$side: the gate failed:" >&2
    tail -5 "$work/out" >&2
    exit 1
  }
  end=$(date +%s%N)
  read -r user sys <"$work/cpu"
  local wall cpu scpu
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  scpu=$(awk -v a="$s0" -v b="$(servercpu "$name")" 'BEGIN { printf "%.2f", b - a }')
  echo "$wall $cpu $scpu" >>"$work/$side"
  case $side in
  serve*) printf '  %-16s %7ss wall  %6ss cpu  %6ss server cpu\n' "$side" "$wall" "$cpu" "$scpu" ;;
  *) printf '  %-16s %7ss wall  %6ss cpu\n' "$side" "$wall" "$cpu" ;;
  esac
}

# The runs of a round: each build on each side.
sides=()
for name in "${builds[@]}"; do
  suffix=""
  [ "$name" = before ] && suffix="-before"
  sides+=("embedded$suffix $name" "serve$suffix $name --endpoint-url ${url[$name]}")
done

for r in $(seq 1 "$rounds"); do
  echo "round $r"
  n=${#sides[@]}
  for i in $(seq 0 $((n - 1))); do
    # shellcheck disable=SC2086 # the side's words are its arguments
    run ${sides[$(((i + r) % n))]}
  done
done

# stats FILE COLUMN: min median max of a column.
stats() {
  cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "min %.3f  median %.3f  max %.3f", v[1], m, v[NR] }'
}
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo
for suffix in "" ${BEFORE:+-before}; do
  echo "embedded engine (in process)$suffix: wall s: $(stats "$work/embedded$suffix" 1); cpu s: $(stats "$work/embedded$suffix" 2)"
  echo "cardapio serve (loopback)$suffix:    wall s: $(stats "$work/serve$suffix" 1); cpu s: $(stats "$work/serve$suffix" 2); server cpu s: $(stats "$work/serve$suffix" 3)"
done
awk -v a="$(median "$work/serve" 1)" -v b="$(median "$work/embedded" 1)" 'BEGIN { printf "serve / embedded, median wall: %.2fx\n", a / b }'
if [ -n "${BEFORE:-}" ]; then
  for side in embedded serve; do
    for col in 1 2; do
      what=wall
      [ $col = 2 ] && what=cpu
      awk -v s="$side" -v w="$what" -v a="$(median "$work/$side" $col)" -v b="$(median "$work/$side-before" $col)" \
        'BEGIN { printf "%s after / before, median %s: %.2fx\n", s, w, a / b }'
    done
  done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
