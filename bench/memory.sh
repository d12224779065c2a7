#!/usr/bin/env bash
# Memory of cardapio serve holding a million items of the reference
# model, with and without its memory limit, and dynalite's holding the
# same items: raw bytes as DynamoDB counts them, the live heap, the peak
# RSS (VmHWM), and the server's CPU per item loaded (how much more the
# collector works under the limit).
#
# Usage: bench/memory.sh [RUNS]     (default 3)
#
# Each run starts a fresh server per side (limit: cardapio serve as it
# starts by default, --memory-limit auto; nolimit: --memory-limit off, the
# Go runtime's default, GOGC=100; dynalite), the order rotating from run
# to run, and loads the same items into it: the reference model's
# population at --scale SCALE (cardapio data, seed 1, written once as
# DynamoDB JSON lines), sent by bench/rawhttp in BatchWriteItem requests
# of 25 from 16 goroutines into table collections (PK, SK). The table is
# created with the model's keys but without its global secondary indexes
# (dynalite takes no multi-attribute keys): what is measured is the items.
#
# Printed per run and side: items, raw MB (the items as DynamoDB counts
# them, TableSizeBytes, from cardapio's /cardapio/memory: the same items
# for dynalite), live heap MB after the last collection (cardapio), VmHWM
# and VmRSS MB at the end, the ratio of VmHWM to raw, the server's CPU µs
# per item loaded (from /proc) and, for cardapio, the collector's share
# of it; then min/median/max over the runs.
#
# Two data sets (DATASETS, default both): reference, as above, and 300,
# COUNT300 (default 1,000,000) items of 300 bytes, ten to a partition
# key (bench/rawhttp -op gen), as the engine's memory benchmark has them.
#
# Environment: SCALE (default 0.003, about 990,000 items), PORT (default
# 4584), DYNALITE_PREFIX (npm prefix holding dynalite, default /work/tools
# when it has one, else <repo>/.tools), SIDES (default "limit nolimit
# dynalite"), DYNALITE_RUNS (runs that include dynalite, default 1: it
# takes about 40 s of a loaded machine per 100,000 items), DYNALITE_ITEMS
# (the first items of each data set dynalite is given, default 330,000:
# it stops answering before a million; raw is then its own), SERVE_ARGS
# (more flags for cardapio serve's limit side).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "memory.sh: $*" >&2; exit 2; }
runs=${1:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "usage: memory.sh [RUNS]"
scale=${SCALE:-0.003}
port=${PORT:-4584}
sides=${SIDES:-limit nolimit dynalite}
datasets=${DATASETS:-reference 300}
count300=${COUNT300:-1000000}
druns=${DYNALITE_RUNS:-1}
ditems=${DYNALITE_ITEMS:-330000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${DYNALITE_PREFIX:-} && -f /work/tools/node_modules/dynalite/cli.js ]]; then
	export DYNALITE_PREFIX=/work/tools
fi
prefix=${DYNALITE_PREFIX:-$repo/.tools}
work=$(mktemp -d)
spid=
dyn=false
stop() {
	if [[ -n $spid ]]; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		spid=
	fi
	if $dyn; then
		bash "$repo/bench/dynalite.sh" --stop "$port" 2>/dev/null || true
		dyn=false
	fi
}
trap 'stop; rm -rf "$work"' EXIT

echo "building cardapio and the client" >&2
(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio && go build -o "$work/rawhttp" ./bench/rawhttp)
url=http://127.0.0.1:$port
declare -A file
for d in $datasets; do
	case $d in
	reference)
		echo "generating the reference's population at scale $scale" >&2
		"$work/cardapio" data "$repo/model.yaml" --scale "$scale" --out "$work/data" --compression none --quiet >/dev/null
		file[$d]=$(find "$work/data/collections" -name '*.json*' | head -1)
		[[ -n ${file[$d]} ]] || die "cardapio data wrote no items"
		;;
	300)
		"$work/rawhttp" -endpoint - -op gen -keys "$count300" >"$work/items300.json"
		file[$d]=$work/items300.json
		;;
	*) die "unknown data set $d (reference or 300)" ;;
	esac
	echo "data set $d: $(wc -l <"${file[$d]}") items" >&2
done
# dynalite is given a third of the items by default: past about 1.3 GB
# of RSS it stops answering, before the millionth reference item.
declare -A dfile
if [[ " $sides " == *" dynalite "* ]]; then
	for d in $datasets; do
		dfile[$d]=$work/dynalite-$d.json
		head -n "$ditems" "${file[$d]}" >"${dfile[$d]}"
	done
fi
ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
status() { awk -v f="$2:" '$1 == f {print $2 / 1024}' "/proc/$1/status"; }

results=$work/results
: >"$results"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
raw=0
for r in $(seq 1 "$runs"); do
for d in $datasets; do
	items_file=${file[$d]}
	read -ra order <<<"$sides"
	n=${#order[@]}
	for i in $(seq 0 $((n - 1))); do
		side=${order[$(((i + r - 1) % n))]}
		[[ $side == dynalite && $r -gt $druns ]] && continue
		case $side in
		# shellcheck disable=SC2086
		limit) "$work/cardapio" serve --addr "127.0.0.1:$port" ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 & spid=$! ;;
		nolimit) env -u GOMEMLIMIT "$work/cardapio" serve --addr "127.0.0.1:$port" --memory-limit off >"$work/serve.log" 2>&1 & spid=$! ;;
		dynalite) bash "$repo/bench/dynalite.sh" "$port" >/dev/null; dyn=true ;;
		*) die "unknown side $side" ;;
		esac
		pid=$spid
		items_file=${file[$d]}
		if $dyn; then
			pid=$(cat "$prefix/dynalite-$port.pid")
			items_file=${dfile[$d]}
		fi
		for _ in $(seq 1 100); do
			curl -s -o /dev/null -m 1 "$url/" && break
			sleep 0.1
		done
		"$work/rawhttp" -endpoint "$url" -op create -table collections -pk PK -sk SK
		c0=$(ticks "$pid")
		t0=$(date +%s.%N)
		if ! items=$("$work/rawhttp" -endpoint "$url" -op load -file "$items_file" -table collections -clients 16); then
			echo "run $r $d/$side: the load failed$(kill -0 "$pid" 2>/dev/null || echo ": the server is gone (dynalite: its heap, see $prefix/dynalite-$port.log)")" | tee -a "$work/failed"
			stop
			continue
		fi
		t1=$(date +%s.%N)
		c1=$(ticks "$pid")
		hwm=$(status "$pid" VmHWM)
		rss=$(status "$pid" VmRSS)
		live=0 gc=0
		if [[ $side != dynalite ]]; then
			m=$(curl -s "$url/cardapio/memory")
			raw=$(jq '.stored.items / 1048576' <<<"$m")
			live=$(jq '.liveHeap / 1048576' <<<"$m")
			gc=$(jq '.gcCycles' <<<"$m")
		fi
		stop
		side=$d/$side
		# run side items rawMB liveMB hwmMB rssMB cpu-µs/item gc-share wall
		awk -v r="$r" -v side="$side" -v items="$items" -v raw="$raw" -v live="$live" -v hwm="$hwm" -v rss="$rss" \
			-v c="$((c1 - c0))" -v gc="$gc" -v w="$(echo "$t1 - $t0" | bc)" -v part="$(($(stat -c %s "$items_file") * 1000000 / $(stat -c %s "${file[$d]}")))" 'BEGIN {
			# the part of the items dynalite holds: raw in proportion to their
			# lines bytes, from the figure of cardapio for the whole set.
			raw = raw * part / 1000000
			cpu = c * 10000 / items
			printf "%s %s %d %.1f %.1f %.1f %.1f %.2f %.1f %d %.1f\n", r, side, items, raw, live, hwm, rss, hwm / raw, cpu, gc, w
		}' | tee -a "$results" | awk '{printf "run %s %-18s %8d items  raw %6.1f MiB  live heap %6.1f MiB  VmHWM %7.1f MiB  VmRSS %7.1f MiB  VmHWM/raw %5.2f  server CPU %5.1f µs/item  GC cycles %4d  load %5.1f s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11}'
	done
done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after"
[[ -f $work/failed ]] && cat "$work/failed"
echo "raw: the items as DynamoDB counts them (TableSizeBytes), from cardapio's figures (for dynalite's first $ditems items, in proportion to their bytes)"

awk '
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function mmm(a, n,   m) {
	sort(a, n)
	m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	return sprintf("%.2f / %.2f / %.2f", a[1], m, a[n])
}
{ k[$2]++; live[$2, k[$2]] = $5; hwm[$2, k[$2]] = $6; ratio[$2, k[$2]] = $8; cpu[$2, k[$2]] = $9; gc[$2, k[$2]] = $10; if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 } }
END {
	print "\nmin / median / max over the runs"
	for (i = 1; i <= ns; i++) {
		s = order[i]; n = k[s]
		delete a; for (j = 1; j <= n; j++) a[j] = hwm[s, j]; h = mmm(a, n)
		delete a; for (j = 1; j <= n; j++) a[j] = ratio[s, j]; q = mmm(a, n)
		delete a; for (j = 1; j <= n; j++) a[j] = live[s, j]; l = mmm(a, n)
		delete a; for (j = 1; j <= n; j++) a[j] = cpu[s, j]; c = mmm(a, n)
		delete a; for (j = 1; j <= n; j++) a[j] = gc[s, j]; g = mmm(a, n)
		delete a; for (j = 1; j <= n; j++) a[j] = cpu[s, j]; sort(a, n); mc[s] = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		printf "  %-18s VmHWM MiB %-26s VmHWM/raw %-20s live heap MiB %-26s CPU µs/item %-22s GC cycles %s\n", s, h, q, l, c, g
	}
	for (s in mc) if (s ~ /\/limit$/) { b = s; sub(/limit$/, "nolimit", b); if (b in mc && mc[b] > 0) printf "  %s: CPU per item under the limit / without it (medians): %.2f\n", substr(s, 1, index(s, "/") - 1), mc[s] / mc[b] }
}' "$results"
