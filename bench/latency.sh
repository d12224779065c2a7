#!/usr/bin/env bash
# Latency of PutItem and GetItem under 32 clients: cardapio serve against
# dynalite in one run, alternating which goes first in every round, so
# that the load the machine carries from other work falls on both alike.
#
# Usage: bench/latency.sh [ROUNDS]    (default 5)
#
# Two comparisons, each ROUNDS rounds:
#
#   closed loop   32 clients, each waiting for its answer before its next
#                 request: each server runs as fast as it can, so the
#                 faster one serves several times the other's rate with
#                 its queue as full (32 requests), and its latency is
#                 measured at a rate the other never reaches.
#   equal rate    both servers driven open-model at the same rate:
#                 RATE_FRACTION (default 0.8) of dynalite's median
#                 closed-loop rate of the operation in this run, the i-th
#                 request due at start + i/rate whatever the answers
#                 before it (up to 32 in flight), latency counted from
#                 when it fell due when every sender was busy (bench/
#                 rawhttp -rate): the latency each server gives the same
#                 offered load. At 1.0 dynalite would be driven at its
#                 saturation, where any open-model queue grows without
#                 bound.
#
# The client is bench/rawhttp (32 goroutines of a light raw-HTTP client,
# prepared bodies, one request in flight each, latencies in HDR
# histograms), the same binary for both servers. Each server gets table
# Bench filled with KEYS items of about 300 bytes; then per round and
# server: N puts overwriting random items, N gets of random items.
#
# Each closed-loop round also drives bench/nullserve, a null server that
# reads each request and answers a prepared item without storing
# anything, with the same client: its latency is what the client, the
# loopback and the two cores' scheduling alone cost, a floor under any
# server's; cardapio/null says how near cardapio is to it.
#
# Printed: every run (requests/s, p50 p90 p99 p99.9 max in µs, the
# server's CPU µs per request from /proc, and for cardapio its
# collector's cycles over the run and their CPU µs per request, from
# /cardapio/memory), then per comparison and
# operation the min/median/max of each server's figures and of the ratio
# cardapio/dynalite of each, round by round.
#
# Environment: KEYS (default 50000), N (requests a run, default 20000
# for cardapio, DYNALITE_N 6000 for dynalite: the same time or so),
# CLIENTS (default 32), RATE_FRACTION (default 0.8; 0 skips the equal-rate
# rounds), RATE_N (requests an equal-rate run, default 10 s of the rate),
# ENGINE_PORT, DYNALITE_PORT, NULL_PORT (default 4582, 4583, 4584),
# DYNALITE_PREFIX (npm prefix holding dynalite, default /work/tools when
# it has one, else <repo>/.tools), SERVE_ARGS (more cardapio serve flags).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "latency.sh: $*" >&2; exit 2; }
rounds=${1:-5}
fraction=${RATE_FRACTION:-0.8}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "usage: latency.sh [ROUNDS]"
keys=${KEYS:-50000}
n=${N:-20000}
dn=${DYNALITE_N:-6000}
clients=${CLIENTS:-32}
eport=${ENGINE_PORT:-4582}
dport=${DYNALITE_PORT:-4583}
nport=${NULL_PORT:-4584}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${DYNALITE_PREFIX:-} && -f /work/tools/node_modules/dynalite/cli.js ]]; then
	export DYNALITE_PREFIX=/work/tools
fi
prefix=${DYNALITE_PREFIX:-$repo/.tools}
work=$(mktemp -d)
epid=
npid=
dstarted=false
cleanup() {
	for p in $epid $npid; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	if $dstarted; then bash "$repo/bench/dynalite.sh" --stop "$dport" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "building cardapio and the client" >&2
(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio && go build -o "$work/rawhttp" ./bench/rawhttp && go build -o "$work/nullserve" ./bench/nullserve)

# up PORT PID LOG NAME: wait until the server PID answers on PORT.
up() {
	for _ in $(seq 1 100); do
		curl -s -o /dev/null -m 1 "http://127.0.0.1:$1/" && return
		kill -0 "$2" 2>/dev/null || { cat "$3" >&2; die "$4 exited"; }
		sleep 0.1
	done
}
# shellcheck disable=SC2086
"$work/cardapio" serve --addr "127.0.0.1:$eport" ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 &
epid=$!
up "$eport" "$epid" "$work/serve.log" "cardapio serve"
"$work/nullserve" -addr "127.0.0.1:$nport" >"$work/null.log" 2>&1 &
npid=$!
up "$nport" "$npid" "$work/null.log" nullserve
bash "$repo/bench/dynalite.sh" "$dport" >/dev/null
dstarted=true
dpid=$(cat "$prefix/dynalite-$dport.pid")

for s in "cardapio $eport" "dynalite $dport"; do
	set -- $s
	echo "filling $1 with $keys items" >&2
	"$work/rawhttp" -endpoint "http://127.0.0.1:$2" -op create
	"$work/rawhttp" -endpoint "http://127.0.0.1:$2" -op fill -keys "$keys" -clients "$clients"
done

results=$work/results
: >"$results"
# run MODE ROUND SERVER OP [RATE]: one measured run, appended to the
# results as "MODE ROUND SERVER OP n rate p50 p90 p99 p999 max cpu".
run() {
	local port=$eport pid=$epid count=$n line extra=()
	if [[ $3 == dynalite ]]; then
		port=$dport pid=$dpid count=$dn
	elif [[ $3 == null ]]; then
		port=$nport pid=$npid
	else
		extra=(-memory "http://127.0.0.1:$eport/cardapio/memory")
	fi
	if [[ -n ${5:-} ]]; then
		count=${RATE_N:-$(awk -v r="$5" 'BEGIN { printf "%d", r * 10 }')}
		extra+=(-rate "$5" -warmup "$(awk -v r="$5" 'BEGIN { printf "%d", r }')")
	fi
	line=$("$work/rawhttp" -endpoint "http://127.0.0.1:$port" -op "$4" -n "$count" -keys "$keys" -clients "$clients" -pid "$pid" "${extra[@]}")
	echo "$1 $2 $3 $line" | awk '{printf "%-6s round %s %-8s %s %6d req %6.0f/s  p50 %6d  p90 %6d  p99 %7d  p99.9 %7d  max %7d µs  server %6.1f µs/req", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12; if ($13 >= 0) printf "  gc %d cycles %.1f µs/req", $13, $14; printf "\n"}' >&2
	echo "$1 $2 $3 $line" >>"$results"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before; $clients clients"
for r in $(seq 1 "$rounds"); do
	case $((r % 3)) in
	1) order="cardapio dynalite null" ;;
	2) order="dynalite null cardapio" ;;
	0) order="null cardapio dynalite" ;;
	esac
	for s in $order; do
		run closed "$r" "$s" put
		run closed "$r" "$s" get
	done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after the closed-loop rounds"

# median OP: dynalite's median closed-loop rate of OP in this run.
median() {
	awk -v op="$1" '$1 == "closed" && $3 == "dynalite" && $4 == op { print $6 }' "$results" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
modes=closed
if awk -v f="$fraction" 'BEGIN { exit !(f > 0) }'; then
	modes="closed equal"
	put_rate=$(awk -v m="$(median put)" -v f="$fraction" 'BEGIN { printf "%.0f", m * f }')
	get_rate=$(awk -v m="$(median get)" -v f="$fraction" 'BEGIN { printf "%.0f", m * f }')
	echo "equal rate: $fraction of dynalite's median closed-loop rate, put $put_rate/s, get $get_rate/s"
	for r in $(seq 1 "$rounds"); do
		order="cardapio dynalite"
		((r % 2)) || order="dynalite cardapio"
		for s in $order; do
			run equal "$r" "$s" put "$put_rate"
			run equal "$r" "$s" get "$get_rate"
		done
	done
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after the equal-rate rounds"
fi

awk -v modes="$modes" '
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function mmm(a, n,   m) { sort(a, n); m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2; return sprintf("%.4g / %.4g / %.4g", a[1], m, a[n]) }
{ for (i = 6; i <= 13; i++) $i += 0; v[$1, $2, $3, $4, "rate"] = $6; v[$1, $2, $3, $4, "p50"] = $7; v[$1, $2, $3, $4, "p99"] = $9; v[$1, $2, $3, $4, "p99.9"] = $10; v[$1, $2, $3, $4, "cpu"] = $12; if ($2 > rounds) rounds = $2 }
END {
	split("put get", ops, " "); split("rate p50 p99 p99.9 cpu", ms, " "); nm = split(modes, md, " ")
	for (d = 1; d <= nm; d++) for (o = 1; o <= 2; o++) {
		printf "\n%s, %s, min / median / max over %d rounds (latencies in µs, cpu in µs of server CPU a request)\n", (md[d] == "closed") ? "closed loop" : "equal rate", ops[o], rounds
		for (m = 1; m <= 5; m++) {
			line = sprintf("  %-6s", ms[m])
			ns = split((md[d] == "closed") ? "cardapio dynalite null" : "cardapio dynalite", ss, " ")
			for (s = 1; s <= ns; s++) { k = 0; delete a; for (r = 1; r <= rounds; r++) a[++k] = v[md[d], r, ss[s], ops[o], ms[m]]; line = line sprintf("  %s %-26s", ss[s], mmm(a, k)) }
			for (s = 2; s <= ns; s++) {
				k = 0; delete a
				for (r = 1; r <= rounds; r++) if (v[md[d], r, ss[s], ops[o], ms[m]] > 0) a[++k] = v[md[d], r, "cardapio", ops[o], ms[m]] / v[md[d], r, ss[s], ops[o], ms[m]]
				line = line "  cardapio/" ss[s] " " ((k > 0) ? mmm(a, k) : "-")
			}
			print line
		}
	}
}' "$results"
