#!/usr/bin/env bash
# The full-scale path of docs/howto/full-scale.md, rehearsed at a scale
# that fits one machine, against cardapio serve instead of AWS:
#
#   1. cardapio data --scale S --out DIR          the S3-import files
#   2. cardapio data --scale S --endpoint-url      stand-in for the import
#      (the same population, written by BatchWriteItem)
#   3. cardapio load --existing --part auto/N      N parts, one process
#      each, the part from JOB_COMPLETION_INDEX as a Kubernetes Indexed
#      Job gives it, results to DIR/parts/part-{part}.jsonl
#   4. cardapio load merge DIR/parts --results DIR/payday.jsonl
#   5. cardapio report --load DIR/payday.jsonl --out DIR/payday.html
#
# Printed: each step's wall time, the population (items, files, the
# import's and BatchWriteItem's prices), each part's and the merged
# run's figures, and each part's peak RSS.
#
# Usage:
#   bench/full-scale.sh [SCALE] [PARTS]   (default 0.01 and 4)
#
# Environment:
#   SERVE_PORT   loopback port of cardapio serve (default 4595)
#   SCENARIO     the model's scenario (default payday)
#   SPEED        the runs' --speed (default max)
#   WHOLE=1      also run the scenario once whole (one process, no
#                --part) and compare the merged parts with it: every
#                load's messages, duplicates and outcomes, the invariants
#   KEEP=DIR     keep the files in DIR instead of a temporary directory;
#                the served engine keeps its tables (cardapio serve
#                --data) and a copy of them as imported, and a second run
#                with the same KEEP skips steps 1 and 2 and runs the
#                parts against that copy
set -euo pipefail
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

scale=${1:-0.01}
parts=${2:-4}
port=${SERVE_PORT:-4595}
scenario=${SCENARIO:-payday}
speed=${SPEED:-max}
if [ -n "${KEEP:-}" ]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
fi
serve_pid=
trap '[ -n "$serve_pid" ] && kill $serve_pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
url="http://127.0.0.1:$port"
go build -o "$work/cardapio" ./cmd/cardapio
cardapio=$work/cardapio
step() { printf '\n== %s\n' "$*"; }
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  printf '   (%.1f s)\n' "$(python3 -c "print($t1-$t0)")" >&2
}

echo "full-scale path at scale $scale in $parts parts, scenario $scenario; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors"

# The served engine keeps its tables in $work/engine; right after the
# import they are copied to $work/engine.imported, and every later run
# (a second run with the same KEEP, the whole run of WHOLE=1) starts
# from that copy, so that each starts from the population as imported.
serve_start() {
  "$cardapio" serve --addr "127.0.0.1:$port" --ttl-sweep 0 --data "$work/engine" >>"$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 12000); do  # a restored engine takes a while
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$serve_pid" 2>/dev/null || { echo "cardapio serve stopped: see $work/serve.log" >&2; exit 1; }
    sleep 0.05
  done
  echo "cardapio serve did not listen in 10 minutes" >&2
  exit 1
}
serve_stop() {
  kill -INT "$serve_pid" && wait "$serve_pid" || true
  serve_pid=
}
restore() {
  rm -rf "$work/engine"
  cp -a "$work/engine.imported" "$work/engine"
}

reuse=
[ -n "${KEEP:-}" ] && [ -d "$work/engine.imported" ] && [ -f "$work/asof" ] && reuse=1
if [ -n "$reuse" ]; then restore; else rm -rf "$work/engine"; fi
serve_start
if [ -z "$reuse" ]; then
# The scenario's day, which the population a run draws is drawn as of:
# what --existing asks of tables that do not hold it yet.
asof=$("$cardapio" load --scenario "$scenario" --scale "$scale" --existing --endpoint-url "$url" --quiet 2>&1 | grep -o -- '--as-of [0-9-]*' | head -1 | cut -d' ' -f2 || true)
echo "$asof" >"$work/asof"
else
asof=$(cat "$work/asof")
fi
asof_flag=()
[ -z "$asof" ] || asof_flag=(--as-of "$asof")
echo "population drawn as of ${asof:-the dataset.asOf of the model}"

if [ -z "$reuse" ]; then
step "1. cardapio data --scale $scale --out $work/data"
timed "$cardapio" data --scale "$scale" "${asof_flag[@]}" --out "$work/data" --quiet >"$work/data.txt"
grep -E "items at scale|loading with BatchWriteItem|aws dynamodb import-table" "$work/data.txt" | sed 's/^/   /' | cut -c1-220
du -sh "$work/data" | sed 's/^/   files: /'

step "2. import stand-in: cardapio data --scale $scale --endpoint-url (cardapio serve)"
timed "$cardapio" data --scale "$scale" "${asof_flag[@]}" --endpoint-url "$url" --create-tables --quiet >"$work/import.txt"
grep -E "items at scale" "$work/import.txt" | sed 's/^/   /'
serve_stop
cp -a "$work/engine" "$work/engine.imported"
du -sh "$work/engine.imported" | sed 's/^/   the served engine holds it in /'
t0=$(date +%s.%N)
serve_start
printf '   restarted from its directory in %.1f s\n' "$(python3 -c "print($(date +%s.%N)-$t0)")"
else
step "1-2. reused: the population imported by an earlier run ($work/engine.imported)"
fi

step "3. cardapio load --existing --scale $scale --scenario $scenario --part auto/$parts (one process a part, in parallel)"
mkdir -p "$work/parts"
t0=$(date +%s.%N)
pids=()
for i in $(seq 0 $((parts - 1))); do
  JOB_COMPLETION_INDEX=$i /usr/bin/time -v -o "$work/time-$i" "$cardapio" load --scenario "$scenario" --scale "$scale" --speed "$speed" \
    --existing --endpoint-url "$url" --part "auto/$parts" --results "$work/parts/part-{part}.jsonl" --quiet --format json \
    >"$work/part-$i.json" 2>"$work/part-$i.err" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
t1=$(date +%s.%N)
printf '   all parts (%.1f s), last exit %d\n' "$(python3 -c "print($t1-$t0)")" "$rc"
for i in $(seq 0 $((parts - 1))); do
  python3 - "$work/part-$i.json" "$work/time-$i" "$i" <<'PY'
import json, sys, re
s = json.load(open(sys.argv[1]))
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[2]).read())
ops = sum(o["completed"] for o in s["operations"].values())
print(f"   part {sys.argv[3]}: {ops} arrivals completed, setup {s['setupSeconds']:.1f} s, run {s['runSeconds']:.1f} s, "
      f"verified {s['population'].get('verified', 0)} sampled items, nothing written before the first arrival: {s['population'].get('existing', False)}, "
      f"peak RSS {int(rss.group(1))//1024 if rss else 0} MB, ok {s['ok']}")
PY
done

step "4. cardapio load merge $work/parts --results $work/$scenario.jsonl"
mrc=0
timed "$cardapio" load merge "$work/parts" --results "$work/$scenario.jsonl" --summary "$work/$scenario.json" >"$work/merge.txt" || mrc=$?
sed -n '1,30p' "$work/merge.txt" | sed 's/^/   /'
echo "   merge exit $mrc"

step "5. cardapio report --load $work/$scenario.jsonl --out $work/$scenario.html"
timed "$cardapio" report --no-measure --load "$work/$scenario.jsonl" --out "$work/$scenario.html" >/dev/null
ls -l "$work/$scenario.html" | awk '{print "   " $5 " bytes"}'
if [ -n "${WHOLE:-}" ]; then
  step "6. the whole run, one process, against the population as imported, compared with the merged parts"
  serve_stop
  restore
  serve_start
  timed "$cardapio" load --scenario "$scenario" --scale "$scale" --speed "$speed" --existing --endpoint-url "$url" \
    --results "$work/whole.jsonl" --summary "$work/whole.json" --quiet --format json >/dev/null || true
  python3 - "$work/whole.json" "$work/$scenario.json" <<'PY'
import json, sys
w, m = (json.load(open(p)) for p in sys.argv[1:3])
same = True
for name in sorted(set(w["operations"]) | set(m["operations"])):
    a, b = w["operations"].get(name, {}), m["operations"].get(name, {})
    fa = (a.get("offered"), a.get("duplicates", 0), a.get("outcomes"))
    fb = (b.get("offered"), b.get("duplicates", 0), b.get("outcomes"))
    same &= fa == fb
    print(f"   {name}: whole {fa[0]} messages, {fa[1]} duplicates, {fa[2]}; merged {fb[0]}, {fb[1]}, {fb[2]}: {'same' if fa == fb else 'DIFFERENT'}")
iw = [(i["name"], i["checked"], i["violations"]) for i in w.get("invariants", [])]
im = [(i["name"], i["checked"], i["violations"]) for i in m.get("invariants", [])]
same &= iw == im
print(f"   invariants: {'the same' if iw == im else 'DIFFERENT'} ({len(iw)} checked, {sum(v for _, _, v in iw)} violations in the whole run)")
print(f"   merged parts {'equal' if same else 'DIFFER FROM'} one run of the whole")
PY
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
