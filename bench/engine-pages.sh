#!/usr/bin/env bash
# The engine's read pages and what they cost writers, before and after a
# change, in one run (engine/scan_bench_test.go):
#   BenchmarkScanPage1MB       the server's CPU and garbage for one 1 MB
#                              Scan page, through its handler;
#   BenchmarkWritersDuringScan 16 in-process writers alone, while a reader
#                              scans the same 100k-item table page after
#                              page, and while it scans another table
#                              (as much CPU, no lock shared): what writers
#                              keep, and how much of the loss is the
#                              processor rather than the table;
#   BenchmarkWriteReadCost     the CPU of one GetItem, one PutItem of a
#                              new item and one replacing an item, in a
#                              table without and with a GSI.
# The same benchmark file is compiled into both trees, so both sides run
# the very same measurement; their runs alternate, round by round, and a
# summary gives min / median / max of every figure and of the ratios.
#
# Usage:
#   bench/engine-pages.sh [ROUNDS] [BEFORE]   (default 3 rounds, BEFORE = main)
#
# Environment:
#   PUTS   puts per writers' sub-benchmark (default 100000)
#   OPS    operations per cost sub-benchmark (default 200000)
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-3}
before=${2:-main}
puts=${PUTS:-100000}
ops=${OPS:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/before-src"
git archive "$before" | tar -x -C "$work/before-src"
cp engine/scan_bench_test.go "$work/before-src/engine/"
(cd "$work/before-src" && go test -c -o "$work/before.test" ./engine)
go test -c -o "$work/after.test" ./engine

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before = $before ($(git rev-parse --short "$before")), after = this tree; $(nproc) processors"
for r in $(seq 1 "$rounds"); do
  echo "round $r"
  order=(before after)
  [ $((r % 2)) -eq 0 ] && order=(after before)
  for side in "${order[@]}"; do
    (cd engine && "$work/$side.test" -test.run '^$' -test.bench 'BenchmarkScanPage1MB' -test.benchtime 200x -test.benchmem) |
      awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
    (cd engine && "$work/$side.test" -test.run '^$' -test.bench 'BenchmarkWritersDuringScan' -test.benchtime "${puts}x") |
      awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
    (cd engine && "$work/$side.test" -test.run '^$' -test.bench 'BenchmarkWriteReadCost' -test.benchtime "${ops}x" -test.benchmem) |
      awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Summary: each line of $work/out is "side: BenchmarkName-N iters v1 unit1 v2 unit2 ...".
awk '
function stats(key,   n, i, j, t, a, med) {
  n = split(vals[key], a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  return sprintf("%12.4g %12.4g %12.4g   (%d runs)", a[1], med, a[n], n)
}
function add(key, v) { vals[key] = vals[key] " " v; if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
{
  side = $1; sub(":", "", side)
  name = $2; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  for (i = 4; i < NF; i += 2) {
    unit = $(i + 1)
    if (name ~ /^WritersDuringScan/ && unit != "puts/s" && unit != "p99-µs") continue
    if (name ~ /^WriteReadCost/ && unit != "cpu-ns/op" && unit != "allocs/op") continue
    if (name ~ /^ScanPage1MB/ && unit != "cpu-ms/op" && unit != "B/op") continue
    add(side " " name " " unit, $i)
  }
  # Ratios of the writers: each scanning run against the alone run of
  # the same round and side (they run in this order, one after another).
  for (i = 4; i < NF; i += 2) if ($(i + 1) == "puts/s") {
    if (name == "WritersDuringScan/alone") a[side] = $i
    else if (name ~ /^WritersDuringScan\// && a[side] > 0) add(side " " name " kept-vs-alone", $i / a[side])
  }
}
END {
  printf "\n%-58s %12s %12s %12s\n", "summary (side benchmark unit)", "min", "median", "max"
  for (k = 1; k <= nk; k++) printf "%-58s %s\n", order[k], stats(order[k])
}' "$work/out"
