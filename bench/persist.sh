#!/usr/bin/env bash
# What keeping data (serve --data) and streams cost a PutItem, measured
# side by side: every variant of a benchmark runs in turn, round after
# round, so that the machine's noise falls on all of them alike; the
# ratios to the in-memory engine are printed with their min, median and
# max over the rounds.
#
# Usage: bench/persist.sh [ROUNDS]   (default 7; BENCHTIME per run, default 2s)
#
# Benchmarks (engine/persist_bench_test.go):
#   PutItemData        in process, one goroutine: memory, interval, always
#   PutItemData32      in process, 32 goroutines (group commit under always)
#   PutItemDataHTTP32  32 raw HTTP clients over loopback
#   PutItemStream      in process, a table without a stream, KEYS_ONLY,
#                      NEW_AND_OLD_IMAGES
# and, with BEFORE=REV (default: the commit before streams were added),
# BenchmarkPutItemInProcess built at REV and at HEAD, alternately: what
# the stream hooks cost a table without a stream.
#
# Outputs (OUT_DIR, default <repo>/bench/out/persist): raw.txt (every
# benchmark line, prefixed by its round), summary.txt (the tables).
set -euo pipefail

rounds=${1:-7}
benchtime=${BENCHTIME:-2s}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT_DIR:-$repo/bench/out/persist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out/raw.txt"

cd "$repo"
go test -c -o "$out/engine.test" ./engine

before=${BEFORE:-$(git log --format=%H --diff-filter=A -1 -- engine/stream.go)^}
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
git archive "$before" | tar -x -C "$old"
(cd "$old" && go test -c -o "$out/engine-before.test" ./engine)

run() { # round binary label regexp
	"$2" -test.run '^$' -test.bench "$4" -test.benchtime "$benchtime" 2>/dev/null |
		awk -v r="$1" -v l="$3" '/^Benchmark/ { print r, l, $0 }' >>"$out/raw.txt"
}

for r in $(seq "$rounds"); do
	for b in PutItemData PutItemData32 PutItemDataHTTP32; do
		for v in memory interval always; do
			run "$r" "$out/engine.test" "$b/$v" "^Benchmark$b\$/^$v\$"
		done
	done
	for v in none KEYS_ONLY NEW_AND_OLD_IMAGES; do
		run "$r" "$out/engine.test" "PutItemStream/$v" "^BenchmarkPutItemStream\$/^$v\$"
	done
	run "$r" "$out/engine-before.test" "InProcess/before" '^BenchmarkPutItemInProcess$'
	run "$r" "$out/engine.test" "InProcess/after" '^BenchmarkPutItemInProcess$'
	echo "round $r of $rounds done" >&2
done

# ns/op per (round, label); ratios to a base label of the same round.
awk -v before="$before" '
function stats(name, base, v,   n, i, j, t, k, a, line) {
	n = 0
	for (k = 1; k <= rounds; k++) if ((k SUBSEP v) in ns && (k SUBSEP base) in ns) a[++n] = ns[k, v] / ns[k, base]
	if (n == 0) return
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	printf "  %-34s %7.3f %7.3f %7.3f   (%d rounds)\n", name, a[1], a[int((n + 1) / 2)], a[n], n
}
function median(v,   n, i, j, t, k, a) {
	n = 0
	for (k = 1; k <= rounds; k++) if ((k SUBSEP v) in ns) a[++n] = ns[k, v]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? a[int((n + 1) / 2)] : 0
}
{
	for (i = 3; i <= NF; i++) if ($(i + 1) == "ns/op") { ns[$1, $2] = $i; break }
	if ($1 > rounds) rounds = $1
}
END {
	print "median ns per put"
	for (b = 1; b <= 3; b++) {
		split("PutItemData PutItemData32 PutItemDataHTTP32", bs, " ")
		printf "  %-20s memory %9.0f  interval %9.0f  always %9.0f\n", bs[b], median(bs[b] "/memory"), median(bs[b] "/interval"), median(bs[b] "/always")
	}
	printf "  %-20s none %9.0f  KEYS_ONLY %9.0f  NEW_AND_OLD_IMAGES %9.0f\n", "PutItemStream", median("PutItemStream/none"), median("PutItemStream/KEYS_ONLY"), median("PutItemStream/NEW_AND_OLD_IMAGES")
	printf "  %-20s before %9.0f  after %9.0f\n", "PutItemInProcess", median("InProcess/before"), median("InProcess/after")
	print ""
	print "time per put, ratio to the base of the same round      min  median     max"
	stats("in process, interval / memory", "PutItemData/memory", "PutItemData/interval")
	stats("in process, always / memory", "PutItemData/memory", "PutItemData/always")
	stats("32 in process, interval / memory", "PutItemData32/memory", "PutItemData32/interval")
	stats("32 in process, always / memory", "PutItemData32/memory", "PutItemData32/always")
	stats("loopback 32, interval / memory", "PutItemDataHTTP32/memory", "PutItemDataHTTP32/interval")
	stats("loopback 32, always / memory", "PutItemDataHTTP32/memory", "PutItemDataHTTP32/always")
	stats("stream KEYS_ONLY / none", "PutItemStream/none", "PutItemStream/KEYS_ONLY")
	stats("stream NEW_AND_OLD / none", "PutItemStream/none", "PutItemStream/NEW_AND_OLD_IMAGES")
	stats("no stream, after / before " substr(before, 1, 8), "InProcess/before", "InProcess/after")
}' "$out/raw.txt" | tee "$out/summary.txt"
