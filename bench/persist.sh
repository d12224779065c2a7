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
# and over loopback against cardapio serve, one process per variant (in
# memory, --data --sync interval, --data --sync always), each filled with
# KEYS (default 20000) items: 32 raw-HTTP clients (bench/rawhttp) putting
# PUTS (default 20000) 300-byte items a run, each put changing its item
# (an unchanged item is not logged), the server's CPU per put read from
# /proc (the client's is not counted) and its rate;
# and, with BEFORE=REV (default: the commit before streams were added),
# BenchmarkPutItemInProcess built at REV and at HEAD, alternately: what
# the stream hooks cost a table without a stream.
#
# With AGAINST=REV, the data benchmarks and the three servers are also
# built at REV and run in the same rounds, each run of REV right after
# the same run of HEAD: the two revisions' ratios (and allocations and
# CPU a put) measured under the same load, a before and after.
#
# Outputs (OUT_DIR, default <repo>/bench/out/persist): raw.txt (every
# benchmark line, prefixed by its round), summary.txt (the tables);
# with AGAINST, raw-against.txt and summary-against.txt for REV.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

rounds=${1:-7}
benchtime=${BENCHTIME:-2s}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT_DIR:-$repo/bench/out/persist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out/raw.txt"

cd "$repo"
go test -c -o "$out/engine.test" ./engine
go build -o "$out/cardapio" ./cmd/cardapio
go build -o "$out/rawhttp" ./bench/rawhttp

before=${BEFORE:-$(git log --format=%H --diff-filter=A -1 -- engine/stream.go)^}
old=$(mktemp -d)
serve_pids=()
cleanup() {
	for p in "${serve_pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$old"
}
trap cleanup EXIT
git archive "$before" | tar -x -C "$old"
(cd "$old" && go test -c -o "$out/engine-before.test" ./engine)
sides=(head)
bin_head=$out/cardapio
test_head=$out/engine.test
raw_head=$out/raw.txt
if [[ -n ${AGAINST:-} ]]; then
	mkdir -p "$old/against"
	git archive "$AGAINST" | tar -x -C "$old/against"
	(cd "$old/against" && go test -c -o "$out/against-engine.test" ./engine && go build -o "$out/against-cardapio" ./cmd/cardapio)
	sides+=(against)
	bin_against=$out/against-cardapio
	test_against=$out/against-engine.test
	raw_against=$out/raw-against.txt
	: >"$raw_against"
fi
bin() { local n=bin_$1; echo "${!n}"; }
tbin() { local n=test_$1; echo "${!n}"; }
rawf() { local n=raw_$1; echo "${!n}"; }

# The three servers over loopback, filled.
keys=${KEYS:-20000}
puts=${PUTS:-20000}
port=${PORT:-4620}
declare -A serve_pid serve_port
i=0
for side in "${sides[@]}"; do
	for v in memory interval always; do
		k=$side-$v
		args=()
		if [[ $v != memory ]]; then
			mkdir -p "$old/data-$k"
			args=(--data "$old/data-$k" --sync "$v")
		fi
		serve_port[$k]=$((port + i))
		i=$((i + 1))
		"$(bin "$side")" serve --addr "127.0.0.1:${serve_port[$k]}" "${args[@]}" >"$old/serve-$k.log" 2>&1 &
		serve_pid[$k]=$!
		serve_pids+=($!)
		for _ in $(seq 1 100); do
			curl -s -o /dev/null -m 1 "http://127.0.0.1:${serve_port[$k]}/" && break
			kill -0 "${serve_pid[$k]}" 2>/dev/null || { cat "$old/serve-$k.log" >&2; exit 1; }
			sleep 0.1
		done
		"$out/rawhttp" -endpoint "http://127.0.0.1:${serve_port[$k]}" -op create
		"$out/rawhttp" -endpoint "http://127.0.0.1:${serve_port[$k]}" -op fill -keys "$keys"
	done
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before" | tee "$out/load.txt"

run() { # round binary label regexp [raw file]
	"$2" -test.run '^$' -test.bench "$4" -test.benchtime "$benchtime" -test.benchmem 2>/dev/null |
		awk -v r="$1" -v l="$3" '/^Benchmark/ { print r, l, $0 }' >>"${5:-$out/raw.txt}"
}

for r in $(seq "$rounds"); do
	for b in PutItemData PutItemData32 PutItemDataHTTP32; do
		for v in memory interval always; do
			for side in "${sides[@]}"; do
				run "$r" "$(tbin "$side")" "$b/$v" "^Benchmark$b\$/^$v\$" "$(rawf "$side")"
			done
		done
	done
	for v in none KEYS_ONLY NEW_AND_OLD_IMAGES; do
		run "$r" "$out/engine.test" "PutItemStream/$v" "^BenchmarkPutItemStream\$/^$v\$"
	done
	run "$r" "$out/engine-before.test" "InProcess/before" '^BenchmarkPutItemInProcess$'
	run "$r" "$out/engine.test" "InProcess/after" '^BenchmarkPutItemInProcess$'
	# Over loopback, the variants in a rotating order.
	case $((r % 3)) in
	0) order="memory interval always" ;;
	1) order="interval always memory" ;;
	*) order="always memory interval" ;;
	esac
	for v in $order; do
		for side in "${sides[@]}"; do
			k=$side-$v
			line=$("$out/rawhttp" -endpoint "http://127.0.0.1:${serve_port[$k]}" -op put -n "$puts" -keys "$keys" -pid "${serve_pid[$k]}")
			echo "$r serve/$v $line" | awk '{ print $1, $2, $11, "server-cpu-µs/put", $5, "puts/s", $6, "p50-µs", $8, "p99-µs" }' >>"$(rawf "$side")"
		done
	done
	echo "round $r of $rounds done, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after" | tee -a "$out/load.txt"

# ns/op and cpu-ns/put per (round, label); ratios to a base label of the
# same round.
summarize() {
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
function minmax(v, m,   n, i, j, t, k, a) {
	n = 0
	for (k = 1; k <= rounds; k++) if ((m, k, v) in x) a[++n] = x[m, k, v]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? sprintf("%.0f (%.0f-%.0f)", a[int((n + 1) / 2)], a[1], a[n]) : "-"
}
function allocs() {
	print "allocations and bytes allocated a put, median (min-max) over the rounds (the whole process: over loopback the clients too)"
	split("PutItemData PutItemData32 PutItemDataHTTP32", bs, " ")
	split("memory interval always", vs, " ")
	for (b = 1; b <= 3; b++) for (i = 1; i <= 3; i++)
		printf "  %-28s allocs %-16s B %s\n", bs[b] "/" vs[i], minmax(bs[b] "/" vs[i], "allocs"), minmax(bs[b] "/" vs[i], "bytes")
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
		if ($(i + 1) == "allocs/op") x["allocs", $1, $2] = $i
		if ($(i + 1) == "B/op") x["bytes", $1, $2] = $i
		if ($(i + 1) == "server-cpu-µs/put") x["scpu", $1, $2] = $i
		if ($(i + 1) == "puts/s") x["rate", $1, $2] = $i
		if ($(i + 1) == "p99-µs") x["p99", $1, $2] = $i
	}
	if ($1 > rounds) rounds = $1
}
END {
	table("ns", "median wall-clock ns per put")
	table("cpu", "median CPU ns per put (the whole process: writers, flusher, and over loopback the clients)")
	ratios("ns", "wall time per put, ratio to the base of the same round")
	ratios("cpu", "CPU per put, ratio to the base of the same round      ")
	allocs()
	print "cardapio serve over loopback, 32 raw-HTTP clients, medians: server CPU µs per put, puts/s, p99 µs"
	split("memory interval always", vs, " ")
	for (i = 1; i <= 3; i++)
		printf "  %-9s cpu %7.1f  rate %7.0f  p99 %7.0f\n", vs[i], median("serve/" vs[i], "scpu"), median("serve/" vs[i], "rate"), median("serve/" vs[i], "p99")
	print "  ratio to memory of the same round      min  median     max"
	stats("server CPU per put, interval", "serve/memory", "serve/interval", "scpu")
	stats("server CPU per put, always", "serve/memory", "serve/always", "scpu")
	stats("puts/s, interval", "serve/memory", "serve/interval", "rate")
	stats("puts/s, always", "serve/memory", "serve/always", "rate")
}' "$1"
}
summarize "$out/raw.txt" | tee "$out/summary.txt"
if [[ -n ${AGAINST:-} ]]; then
	echo
	echo "=== the same rounds at $AGAINST ($(git rev-parse --short "$AGAINST")) ==="
	summarize "$out/raw-against.txt" | tee "$out/summary-against.txt"
fi
cat "$out/load.txt"
