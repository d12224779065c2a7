#!/usr/bin/env bash
# Measure cardapio data on the reference model (model.yaml).
#
# Usage:
#   bench/dataset.sh gen  [ROUNDS]   S3-import files at each scale of $SCALES
#                                    (default 0.01) for zstd, gzip and none,
#                                    ROUNDS rounds (default 3), the order of
#                                    compressions rotating every round; with
#                                    BEFORE=REV, the tree at git revision REV
#                                    is built too and each run of this tree
#                                    alternates with one of REV's (which goes
#                                    first alternating too): per side the
#                                    figures, and the CPU per item of this
#                                    tree over REV's, min / median / max
#   bench/dataset.sh steps [ROUNDS]  zstd files at each scale of $SCALES
#                                    (default 0.01 0.05, fixed fractions of
#                                    the population), ROUNDS rounds (default
#                                    1), the order alternating: per scale the
#                                    CPU microseconds per item and RSS (min /
#                                    median / max), and the full population
#                                    (--scale 1) extrapolated from each scale:
#                                    items, CPU seconds, and minutes on 2 idle
#                                    cores (CPU / 2) against the 3-minute goal
#   bench/dataset.sh workers [ROUNDS] zstd files at $SCALE with --workers 1
#                                    and 2, alternating: whether a second
#                                    worker doubles the rate (wall) at the
#                                    same CPU per item
#   bench/dataset.sh full            the whole population (--scale 1) to zstd
#                                    files, RSS sampled every 5 s; wall, CPU
#                                    and peak RSS by /usr/bin/time -v
#   bench/dataset.sh load [ROUNDS]   loading cardapio serve: the data pipeline
#                                    against a raw aws-sdk-go-v2 BatchWriteItem
#                                    loop, alternating which goes first
#   BEFORE=REV bench/dataset.sh same  whether this tree writes the same bytes
#                                    as REV: both models, several scales,
#                                    seeds, --as-of, --workers 1 to 3,
#                                    --part, jsonl, zstd, gzip and none; every
#                                    file (the manifest with its checksums
#                                    included) and the summary (its timings
#                                    left out) compared; exit 3 on the first
#                                    difference
#
# Printed per run: items, uncompressed and written bytes, wall seconds,
# CPU seconds (user + system), the largest RSS, items/s and MB/s of
# uncompressed lines (MB = 10^6 B), and CPU microseconds per item. On a
# shared machine the CPU per item measures the work; the wall figures
# measure the neighbours too (the load average is printed with each run).
# Then min / median / max per compression.
#
# load: dataset's BenchmarkLoadEndpoint against one cardapio serve
# process (loopback): "load" is the pipeline of cardapio data (generation,
# BatchWriteItem of 25, 16 in flight, unprocessed items retried), "raw" a
# bare SDK loop sending the same items pre-built, 25 a request from 16
# goroutines, the same HTTP client and retry policy; fresh tables each
# run. Printed: items/s of each, the ratio load/raw per round, the server's
# CPU per item (from /proc), and min / median / max of the ratio.
#
# Environment:
#   SCALES       --scale of gen (default 0.01) and steps (0.01 0.05)
#   COMPS        the compressions gen runs (default zstd gzip none)
#   SCALE        --scale of workers (default 0.01)
#   BEFORE       a git revision to compare gen with (default none)
#   OUT          where files go (default a temporary directory, removed)
#   PORT         cardapio serve's loopback port for load (default 4591)
#   LOAD_SCALE   population loaded per run (default 0.0002, ~80,000 items)
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "dataset.sh: $*" >&2; exit 2; }

mode=${1:-gen}
rounds=${2:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
out=${OUT:-$work/out}
serve_pid=

cleanup() {
	if [[ -n $serve_pid ]]; then
		kill "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	[[ -z ${OUT:-} ]] || rm -rf "$OUT"
}
trap cleanup EXIT

(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio)
bin=$work/cardapio
before=${BEFORE:-}
if [[ -n $before ]]; then
	mkdir "$work/before-src"
	(cd "$repo" && git archive "$before") | tar -x -C "$work/before-src"
	(cd "$work/before-src" && go build -o "$work/cardapio-before" ./cmd/cardapio)
	echo "before = $before ($(cd "$repo" && git rev-parse --short "$before")), after = this tree; $(nproc) processors"
fi

# stats prints min / median / max of the numbers on stdin.
stats() {
	sort -g | awk '{v[NR]=$1} END {if (NR == 0) exit; m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "min %s  median %s  max %s\n", v[1], m, v[NR]}'
}

# one COMPRESSION SCALE [SIDE [EXTRA FLAGS...]]: one run of cardapio data
# (SIDE after: this tree, before: BEFORE's) into $out; appends a line to
# $work/runs: compression items raw written wall cpu rss side scale.
one() {
	local comp=$1 scale=$2 side=${3:-after}
	shift 2
	(($# > 0)) && shift
	local b=$bin
	[[ $side == before ]] && b=$work/cardapio-before
	rm -rf "$out"
	local load
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$b" data "$repo/model.yaml" --scale "$scale" --out "$out" \
		--compression "$comp" --summary json --quiet "$@" >"$work/summary.json"
	rm -rf "$out"
	read -r wall user sys rss <"$work/time"
	local items raw written
	items=$(jq '.Summary.items' "$work/summary.json")
	raw=$(jq '.Summary.rawBytes' "$work/summary.json")
	written=$(jq '[.manifest.tables[].compressedBytes] | add' "$work/summary.json")
	local cpu
	cpu=$(echo "$user + $sys" | bc -l)
	printf "%-6s %-5s scale %-5s %11d items %7.0f MB raw %7.0f MB written  %7.1f s wall %7.1f s cpu  RSS %4d MB  %9.0f items/s %6.1f MB/s  %5.2f cpu-us/item  (load %s)\n" \
		"$side" "$comp" "$scale" "$items" "$(echo "$raw / 1000000" | bc -l)" "$(echo "$written / 1000000" | bc -l)" "$wall" "$cpu" "$((rss / 1024))" \
		"$(echo "$items / $wall" | bc -l)" "$(echo "$raw / 1000000 / $wall" | bc -l)" "$(echo "$cpu * 1000000 / $items" | bc -l)" "$load"
	echo "$comp $items $raw $written $wall $cpu $rss $side $scale" >>"$work/runs"
}

case $mode in
gen)
	read -r -a scales <<<"${SCALES:-${SCALE:-0.01}}"
	read -r -a comps <<<"${COMPS:-zstd gzip none}"
	nc=${#comps[@]}
	sides=(after)
	[[ -n $before ]] && sides=(before after)
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((r = 0; r < rounds; r++)); do
		for sc in "${scales[@]}"; do
			for ((i = 0; i < nc; i++)); do
				if ((${#sides[@]} == 2 && (r + i) % 2)); then order=(after before); else order=("${sides[@]}"); fi
				for side in "${order[@]}"; do
					one "${comps[(i + r) % nc]}" "$sc" "$side"
				done
			done
		done
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	for sc in "${scales[@]}"; do
		for c in "${comps[@]}"; do
			for side in "${sides[@]}"; do
				sel() { awk -v c="$c" -v s="$side" -v sc="$sc" '$1 == c && $8 == s && $9 == sc' "$work/runs"; }
				echo "scale $sc $c $side items/s:      $(sel | awk '{print $2 / $5}' | stats)"
				echo "scale $sc $c $side MB/s:         $(sel | awk '{print $3 / 1e6 / $5}' | stats)"
				echo "scale $sc $c $side cpu-us/item:  $(sel | awk '{print $6 * 1e6 / $2}' | stats)"
				echo "scale $sc $c $side RSS MB:       $(sel | awk '{print int($7 / 1024)}' | stats)"
				echo "scale $sc $c $side full population, min on 2 idle cores (CPU / 2): $(sel | awk -v sc="$sc" '{print $6 / sc / 2 / 60}' | stats)"
			done
			if [[ -n $before ]]; then
				# The runs pair up in order: the n-th before with the n-th after.
				echo "scale $sc $c cpu-us/item after/before: $(paste <(awk -v c="$c" -v sc="$sc" '$1 == c && $8 == "before" && $9 == sc {print $6 / $2}' "$work/runs") \
					<(awk -v c="$c" -v sc="$sc" '$1 == c && $8 == "after" && $9 == sc {print $6 / $2}' "$work/runs") | awk '{print $2 / $1}' | stats)"
			fi
		done
	done
	;;
workers)
	sc=${SCALE:-0.01}
	for ((r = 0; r < rounds; r++)); do
		ws=(1 2)
		((r % 2)) && ws=(2 1)
		for w in "${ws[@]}"; do
			one zstd "$sc" after --workers "$w"
			echo "$w $(tail -1 "$work/runs")" >>"$work/workers"
		done
	done
	for w in 1 2; do
		echo "workers $w items/s:     $(awk -v w="$w" '$1 == w {print $3 / $6}' "$work/workers" | stats)"
		echo "workers $w cpu-us/item: $(awk -v w="$w" '$1 == w {print $7 * 1e6 / $3}' "$work/workers" | stats)"
	done
	;;
steps)
	read -r -a scales <<<"${SCALES:-0.01 0.05}"
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < ${#scales[@]}; i++)); do
			k=$(((i + r) % ${#scales[@]}))
			((r % 2)) && k=$((${#scales[@]} - 1 - i))
			one zstd "${scales[$k]}"
			echo "${scales[$k]} $(tail -1 "$work/runs")" >>"$work/steps"
		done
	done
	for sc in "${scales[@]}"; do
		echo "scale $sc cpu-us/item:  $(awk -v s="$sc" '$1 == s {print $7 * 1e6 / $3}' "$work/steps" | stats)"
		echo "scale $sc RSS MB:       $(awk -v s="$sc" '$1 == s {print int($8 / 1024)}' "$work/steps" | stats)"
		echo "scale $sc full, min on 2 idle cores: $(awk -v s="$sc" '$1 == s {print $7 / s / 2 / 60}' "$work/steps" | stats)"
		awk -v s="$sc" '$1 == s {i = $3; c += $7; n++} END {if (n) printf "scale %s full population: about %.0f items, %.0f CPU s (mean of %d), %.1f min on 2 idle cores (goal: 3 min, %.2f CPU us an item)\n", s, i / s, c / n / s, n, c / n / s / 2 / 60, 360 / (i / s) * 1e6}' "$work/steps"
	done
	;;
full)
	rm -rf "$out"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	/usr/bin/time -v -o "$work/timev" "$bin" data "$repo/model.yaml" --scale 1 --out "$out" --compression zstd --summary json --quiet >"$work/summary.json" &
	pid=$!
	start=$(date +%s)
	peak=0
	while kill -0 "$pid" 2>/dev/null; do
		child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | cut -d' ' -f1)
		rss=0
		[[ -n $child ]] && rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$child/status" 2>/dev/null || echo 0)
		((rss > peak)) && peak=$rss
		echo "t=$(($(date +%s) - start))s RSS ${rss} MB load $(cut -d' ' -f1 /proc/loadavg)"
		sleep 5
	done
	wait "$pid"
	wall=$(($(date +%s) - start))
	du -sh "$out"
	rm -rf "$out"
	jq -r '"items \(.Summary.items), raw \(.Summary.rawBytes / 1e9) GB, written \([.manifest.tables[].compressedBytes] | add / 1e9) GB, objects \([.manifest.tables[].objects | length] | add), generator \(.Summary.seconds) s, \(.Summary.itemsPerSecond) items/s, \(.Summary.mbPerSecond) MB/s"' "$work/summary.json"
	grep -E 'Elapsed|User time|System time|Maximum resident' "$work/timev"
	awk -v items="$(jq .Summary.items "$work/summary.json")" '/User time/ {u = $NF} /System time/ {s = $NF} END {printf "CPU %.0f s, %.2f cpu-us/item, %.1f min on 2 idle cores (CPU / 2)\n", u + s, (u + s) * 1e6 / items, (u + s) / 2 / 60}' "$work/timev"
	echo "wall ${wall} s, peak RSS sampled ${peak} MB; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	;;
load)
	port=${PORT:-4591}
	"$bin" serve --addr "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
	serve_pid=$!
	sleep 1
	kill -0 "$serve_pid" || die "cardapio serve did not start: $(cat "$work/serve.log")"
	(cd "$repo/dataset" && go test -c -o "$work/dataset.test" .)
	ticks=$(getconf CLK_TCK)
	for ((r = 0; r < rounds; r++)); do
		order=raw,load
		((r % 2)) && order=load,raw
		before=$(awk '{print $14 + $15}' "/proc/$serve_pid/stat")
		# From the package's directory: the benchmark reads the models by
		# their paths relative to it.
		(cd "$repo/dataset" && BENCH_ENDPOINT="http://127.0.0.1:$port" BENCH_ORDER=$order BENCH_SCALE=${LOAD_SCALE:-0.0002} \
			"$work/dataset.test" -test.run XXX -test.bench LoadEndpoint -test.benchtime 2x) >"$work/bench.txt"
		after=$(awk '{print $14 + $15}' "/proc/$serve_pid/stat")
		raw=$(awk '/LoadEndpoint\/raw/ {for (i = 1; i <= NF; i++) if ($(i+1) == "items/s") print $i}' "$work/bench.txt")
		ld=$(awk '/LoadEndpoint\/load/ {for (i = 1; i <= NF; i++) if ($(i+1) == "items/s") print $i}' "$work/bench.txt")
		items=$(awk '/LoadEndpoint\/(raw|load)/ {n += 2} END {print n}' "$work/bench.txt")
		grep LoadEndpoint "$work/bench.txt"
		ratio=$(echo "$ld / $raw" | bc -l)
		printf "round %d (%s): load %.0f items/s, raw %.0f items/s, ratio %.2f; server CPU over both runs %s s (load %s)\n" \
			"$r" "$order" "$ld" "$raw" "$ratio" "$(echo "($after - $before) / $ticks" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
		echo "$ratio" >>"$work/ratios"
	done
	echo "ratio load/raw: $(stats <"$work/ratios")"
	;;
same)
	[[ -n $before ]] || die "same needs BEFORE=REV"
	orders=$repo/examples/orders/model.yaml
	ref=$repo/model.yaml
	configs=(
		"$ref --scale 0.002 --seed 1 --workers 2"
		"$ref --scale 0.002 --seed 7 --workers 1 --compression gzip"
		"$ref --scale 0.001 --seed 3 --workers 3 --compression none --as-of 2025-06-15"
		"$ref --scale 0.002 --seed 1 --workers 2 --part 1/3 --format jsonl"
		"$ref --scale 0.0005 --seed 11 --workers 3 --part 0/2 --as-of 2027-02-28"
		"$ref --scale 0.01 --seed 2 --workers 2"
		"$orders --scale 0.002 --seed 1 --workers 1"
		"$orders --scale 0.003 --seed 5 --workers 3 --compression gzip --as-of 2026-03-01"
		"$orders --scale 0.002 --seed 9 --workers 2 --part 2/3 --format jsonl --compression none"
	)
	for cfg in "${configs[@]}"; do
		read -r -a args <<<"$cfg"
		for side in before after; do
			b=$bin
			[[ $side == before ]] && b=$work/cardapio-before
			rm -rf "$work/$side"
			"$b" data "${args[@]}" --out "$work/$side" --summary json --quiet |
				jq -S 'del(.Summary.seconds, .Summary.itemsPerSecond, .Summary.mbPerSecond)' >"$work/$side.summary"
		done
		files=$(find "$work/after" -type f | wc -l)
		items=$(jq .Summary.items "$work/after.summary")
		if diff -r -q "$work/before" "$work/after" && cmp -s "$work/before.summary" "$work/after.summary"; then
			echo "same: ${cfg#"$repo/"} ($items items, $files files)"
		else
			diff "$work/before.summary" "$work/after.summary" | head -20
			echo "DIFFERENT: ${cfg#"$repo/"}"
			exit 3
		fi
		rm -rf "$work/before" "$work/after"
	done
	echo "all the same as $before"
	;;
*)
	die "usage: dataset.sh gen|steps|workers|full|load|same [ROUNDS]"
	;;
esac
