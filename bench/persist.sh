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

# ns/op and cpu-ns/put per (round, label); ratios to a base label of the
# same round.
awk -v before="$before" '
function stats(name, base, v, m,   n, i, j, t, k, a) {
	n = 0
	for (k = 1; k <= rounds; k++) if ((m, k, v) in x && (m, k, base) in x && x[m, k, base] > 0) a[++n] = x[m, k, v] / x[m, k, base]
	if (n == 0) return
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	printf "  %-34s %7.3f %7.3f %7.3f   (%d rounds)\n", name, a[1], a[int((n + 1) / 2)], a[n], n
}
function median(v, m,   n, i, j, t, k, a) {
	n = 0
	for (k = 1; k <= rounds; k++) if ((m, k, v) in x) a[++n] = x[m, k, v]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? a[int((n + 1) / 2)] : 0
}
function table(m, title) {
	print title
	split("PutItemData PutItemData32 PutItemDataHTTP32", bs, " ")
	for (b = 1; b <= 3; b++)
		printf "  %-20s memory %9.0f  interval %9.0f  always %9.0f\n", bs[b], median(bs[b] "/memory", m), median(bs[b] "/interval", m), median(bs[b] "/always", m)
	printf "  %-20s none %9.0f  KEYS_ONLY %9.0f  NEW_AND_OLD_IMAGES %9.0f\n", "PutItemStream", median("PutItemStream/none", m), median("PutItemStream/KEYS_ONLY", m), median("PutItemStream/NEW_AND_OLD_IMAGES", m)
	if (m == "ns") printf "  %-20s before %9.0f  after %9.0f\n", "PutItemInProcess", median("InProcess/before", m), median("InProcess/after", m)
	print ""
}
function ratios(m, title) {
	print title "      min  median     max"
	stats("in process, interval / memory", "PutItemData/memory", "PutItemData/interval", m)
	stats("in process, always / memory", "PutItemData/memory", "PutItemData/always", m)
	stats("32 in process, interval / memory", "PutItemData32/memory", "PutItemData32/interval", m)
	stats("32 in process, always / memory", "PutItemData32/memory", "PutItemData32/always", m)
	stats("loopback 32, interval / memory", "PutItemDataHTTP32/memory", "PutItemDataHTTP32/interval", m)
	stats("loopback 32, always / memory", "PutItemDataHTTP32/memory", "PutItemDataHTTP32/always", m)
	stats("stream KEYS_ONLY / none", "PutItemStream/none", "PutItemStream/KEYS_ONLY", m)
	stats("stream NEW_AND_OLD / none", "PutItemStream/none", "PutItemStream/NEW_AND_OLD_IMAGES", m)
	if (m == "ns") stats("no stream, after / before " substr(before, 1, 8), "InProcess/before", "InProcess/after", m)
	print ""
}
{
	for (i = 3; i <= NF; i++) {
		if ($(i + 1) == "ns/op") x["ns", $1, $2] = $i
		if ($(i + 1) == "cpu-ns/put") x["cpu", $1, $2] = $i
	}
	if ($1 > rounds) rounds = $1
}
END {
	table("ns", "median wall-clock ns per put")
	table("cpu", "median CPU ns per put (the whole process: writers, flusher, and over loopback the clients)")
	ratios("ns", "wall time per put, ratio to the base of the same round")
	ratios("cpu", "CPU per put, ratio to the base of the same round      ")
}' "$out/raw.txt" | tee "$out/summary.txt"
