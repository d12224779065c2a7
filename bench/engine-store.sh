#!/usr/bin/env bash
# The storage's hot paths before and after a change, in one run, the two
# sides alternating round by round (engine/store_bench_test.go and
# engine/bench_test.go):
#   BenchmarkStoreCost          in process, in a table of 100,000 items
#                               shaped like the reference model's: the
#                               process's CPU time (GC included) of one
#                               GetItem, one PutItem of a new item, one
#                               PutItem replacing an item, one Query of a
#                               10-item partition; and the live heap an
#                               item takes against its bytes as DynamoDB
#                               counts them;
#   BenchmarkPutItemInProcess   300-byte puts with new keys, in process
#                               (ns a put, wall time);
#   BenchmarkQuery50            one SDK client querying a 50-item
#                               partition over loopback HTTP (p50 µs).
# store_bench_test.go uses only the engine's public API: it is copied
# into the BEFORE tree, so that both sides run the very same code.
#
# Usage:
#   bench/engine-store.sh [ROUNDS] [BEFORE]   (default 5 rounds, BEFORE = main)
#
# Environment:
#   OPS   operations per cost sub-benchmark (default 300000)
#   PUTS  puts of BenchmarkPutItemInProcess (default 300000)
#   QUERIES  queries of BenchmarkQuery50 (default 3000)
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
cd "$(dirname "$0")/.."

rounds=${1:-5}
before=${2:-main}
ops=${OPS:-300000}
puts=${PUTS:-300000}
queries=${QUERIES:-3000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: engine-store.sh [ROUNDS] [BEFORE]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/before-src"
git archive "$before" | tar -x -C "$work/before-src"
cp engine/store_bench_test.go "$work/before-src/engine/"
(cd "$work/before-src" && go test -c -o "$work/before.test" ./engine)
go test -c -o "$work/after.test" ./engine

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before = $before ($(git rev-parse --short "$before")), after = this tree; $(nproc) processors"
for r in $(seq 1 "$rounds"); do
	echo "round $r"
	order=(before after)
	[ $((r % 2)) -eq 0 ] && order=(after before)
	for side in "${order[@]}"; do
		(cd engine && "$work/$side.test" -test.run '^$' -test.bench '^BenchmarkStoreCost$' -test.benchtime "${ops}x" -test.benchmem) |
			awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
		(cd engine && "$work/$side.test" -test.run '^$' -test.bench '^BenchmarkPutItemInProcess$' -test.benchtime "${puts}x" -test.benchmem) |
			awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
		(cd engine && "$work/$side.test" -test.run '^$' -test.bench '^BenchmarkQuery50$' -test.benchtime "${queries}x") |
			awk -v s="$side" '/^Benchmark/ { print "  " s ": " $0 }' | tee -a "$work/out"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Summary: each line of $work/out is "side: BenchmarkName-N iters v1 unit1 v2 unit2 ...".
awk '
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } }
function mmm(a, n,   m) {
	sort(a, n)
	m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	return sprintf("%.4g / %.4g / %.4g", a[1], m, a[n])
}
{
	side = $1; sub(/:$/, "", side)
	name = $2; sub(/-[0-9]+$/, "", name)
	for (i = 4; i + 1 <= NF; i += 2) {
		key = name " " $(i + 1)
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
		n[side, key]++
		v[side, key, n[side, key]] = $i
	}
}
END {
	print "\nmin / median / max over the rounds, and the ratio after / before round by round"
	for (k = 1; k <= nk; k++) {
		key = order[k]
		if (key ~ / (B\/op|allocs\/op)$/ && key !~ /Store/ || key ~ /\/heap (ns|B|allocs)\/op$/) continue
		nb = n["before", key]; na = n["after", key]
		delete a; for (j = 1; j <= nb; j++) a[j] = v["before", key, j]; b = mmm(a, nb)
		delete a; for (j = 1; j <= na; j++) a[j] = v["after", key, j]; f = mmm(a, na)
		m = nb < na ? nb : na
		delete a; for (j = 1; j <= m; j++) a[j] = (v["before", key, j] > 0) ? v["after", key, j] / v["before", key, j] : 0
		printf "  %-52s before %-26s after %-26s after/before %s\n", key, b, f, mmm(a, m)
	}
}' "$work/out"
