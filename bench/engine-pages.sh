#!/usr/bin/env bash
# The engine's read pages, before and after a change, in one run:
# engine/scan_bench_test.go's BenchmarkScanPage1MB (the server's CPU and
# garbage for one 1 MB Scan page, through its handler) and
# BenchmarkWritersDuringScan (16 in-process writers alone, then while a
# reader scans the same 100k-item table page after page: what writers
# keep). The same benchmark file is compiled into both trees, so both
# sides run the very same measurement; their runs alternate.
#
# Usage:
#   bench/engine-pages.sh [ROUNDS] [BEFORE]   (default 3 rounds, BEFORE = main)
#
# Environment:
#   PUTS   puts per writers' sub-benchmark (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
before=${2:-main}
puts=${PUTS:-100000}
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
      awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }'
    (cd engine && "$work/$side.test" -test.run '^$' -test.bench 'BenchmarkWritersDuringScan' -test.benchtime "${puts}x") |
      awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }'
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
