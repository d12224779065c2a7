#!/usr/bin/env bash
# What the server's trust features cost the hot path, against the same
# code with them off, in one run: many short rounds that alternate which
# side goes first, every figure but the query's a CPU time per request
# (user + system, from getrusage or /proc), which on a shared machine
# measures the server far better than wall time does.
#
# Usage:
#   bench/trust-overhead.sh [ROUNDS]    (default 12)
#
# The trust features, as cardapio serve runs by default (IAM off): the
# loopback Host check, the signature's form read (unsigned requests
# refused), a space of tables per region and account, ARNs checked
# against it, the in-flight cap on request bodies, and under Serve the
# connection cap and the timeouts. "off" is the same Server with all of
# them turned off (engine.ServerOptions.bare, set only by the
# benchmarks): both sides are one binary, so the difference is those
# features and nothing else.
#
# Per round, on and off alternately:
#
#   handler  a 300-byte PutItem (each changing its item) through the
#            handler without a socket, both servers in one process taking
#            turns every 256 puts (BenchmarkTrustHandlerPutAB): CPU time
#            per put of each
#   query    one SDK client querying a 50-item partition over loopback
#            against Serve (BenchmarkTrustQuery50): p50 µs, a latency
#   http     32 raw-HTTP clients (bench/rawhttp: prepared bodies, no SDK)
#            putting 300-byte items (each changing its item) into a
#            server of its own process (TestTrustServe, on and off, both
#            up the whole run): the server's CPU per put, from /proc
#
# and, for this tree only: BenchmarkTrustSteps (the trust steps alone,
# exactly as ServeHTTP runs them on a PutItem) against
# BenchmarkHandlerPut/any-credentials (the whole request, same handler),
# the share of a request the steps take in one binary; the server's CPU
# per loopback put from 32 SDK clients (BenchmarkPutItemHTTP32: they sign
# for real) against cardapio serve as by default, with --credentials
# (signatures verified) and with --credentials --policy (an IAM policy
# with a dynamodb:LeadingKeys condition decides every put); and the
# in-process PutItem (BenchmarkPutItemInProcess), which calls the engine
# without the server and so passes through none of the trust features
# (there is nothing to turn off): with BASE=REV it is measured against
# that revision too (256b9cd is the last commit before the trust
# features, but everything else that changed since counts as well).
#
# Printed: every run, then for each metric the median of each side and
# the ratio on/off computed round by round, min/median/max, and the load
# average before and after.
#
# Environment: PUTS (raw HTTP puts per run, default 20000: the server's
# CPU is read in 10 ms ticks, so a run must take a good many of them),
# SDKPUTS (SDK puts per run of the credentials variants, default 8000),
# INPROC (in-process puts per run, default 100000), QUERIES (default
# 1000), HANDLERS (handler puts per run, default 20000), PORT (first of
# five loopback ports, default 4590), BASE (a revision for the in-process
# put, none by default).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "trust-overhead.sh: $*" >&2; exit 2; }
rounds=${1:-12}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "usage: trust-overhead.sh [ROUNDS]"
puts=${PUTS:-20000}
sdkputs=${SDKPUTS:-8000}
inproc=${INPROC:-100000}
queries=${QUERIES:-1000}
handlers=${HANDLERS:-20000}
port=${PORT:-4590}
base=${BASE:-}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n $base ]]; then
	git -C "$repo" rev-parse --verify -q "$base^{commit}" >/dev/null || die "no revision $base"
fi
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

echo "building this tree${base:+ and $base}" >&2
(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio && go test -c -o "$work/engine.test" ./engine && go build -o "$work/rawhttp" ./bench/rawhttp)
if [[ -n $base ]]; then
	mkdir -p "$work/base"
	git -C "$repo" archive "$base" | tar -x -C "$work/base"
	(cd "$work/base" && go test -c -o "$work/engine-base.test" ./engine)
fi

cat >"$work/keys.json" <<'JSON'
{"keys": [{"accessKeyId": "AKID", "secretAccessKey": "SECRET"}]}
JSON
cat >"$work/policy.json" <<'JSON'
{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:CreateTable"],
  "Resource": "arn:aws:dynamodb:*:*:table/Bench",
  "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["user#*"]}}}]}
JSON

# started NAME PORT: waits until the server NAME answers on PORT.
declare -A server_pid server_port
started() {
	for _ in $(seq 1 100); do
		if curl -s -o /dev/null -m 1 "http://127.0.0.1:$2/"; then
			return
		fi
		kill -0 "${server_pid[$1]}" 2>/dev/null || { cat "$work/$1.log" >&2; die "$1 exited"; }
		sleep 0.1
	done
	die "$1 did not start"
}
# trust NAME PORT on|off: the engine's benchmark server.
trust() {
	BENCH_TRUST_SERVE="127.0.0.1:$2" BENCH_TRUST=$3 "$work/engine.test" -test.run '^TestTrustServe$' >"$work/$1.log" 2>&1 &
	server_pid[$1]=$! server_port[$1]=$2
	pids+=($!)
	started "$1" "$2"
}
# serve NAME PORT ARGS...: cardapio serve (memory limit off, as the
# engine's servers run).
serve() {
	local name=$1 p=$2
	shift 2
	"$work/cardapio" serve --addr "127.0.0.1:$p" --memory-limit off "$@" >"$work/$name.log" 2>&1 &
	server_pid[$name]=$! server_port[$name]=$p
	pids+=($!)
	started "$name" "$p"
}
trust on "$port" on
trust off "$((port + 1))" off
serve this "$((port + 2))"
serve keys "$((port + 3))" --credentials "$work/keys.json"
serve policy "$((port + 4))" --credentials "$work/keys.json" --policy "$work/policy.json"
for side in on off; do
	"$work/rawhttp" -endpoint "http://127.0.0.1:${server_port[$side]}" -op create
done

results=$work/results
: >"$results"
# bench BINARY PATTERN TIMES [ENV...]: one benchmark's result line.
bench() {
	local bin=$1 pattern=$2 times=$3
	shift 3
	(cd "$repo/engine" && env "$@" "$bin" -test.run '^$' -test.bench "^$pattern\$" -test.benchtime "${times}x" 2>&1) | grep "^${pattern%%/*}" ||
		die "$pattern failed"
}
field() { awk -v u="$1" '{for (i = 1; i < NF; i++) if ($(i+1) == u) print $i}'; }
record() { echo "$1 $2 $3 $4" >>"$results"; echo "round $1 $2 $3 $4" >&2; }

run_side() {
	local r=$1 side=$2 line
	line=$(bench "$work/engine.test" "BenchmarkTrustQuery50/$side" "$queries")
	record "$r" "$side" query-p50-µs "$(field p50-µs <<<"$line")"
	line=$("$work/rawhttp" -endpoint "http://127.0.0.1:${server_port[$side]}" -op put -n "$puts" -warmup 1000 -pid "${server_pid[$side]}")
	record "$r" "$side" http-server-µs/put "$(awk '{print $9}' <<<"$line")"
	record "$r" "$side" http-puts/s "$(awk '{print $3}' <<<"$line")"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then order="on off"; else order="off on"; fi
	for side in $order; do run_side "$r" "$side"; done
	line=$(bench "$work/engine.test" BenchmarkTrustHandlerPutAB "$((2 * handlers))")
	record "$r" on handler-cpu-ns/put "$(field on-cpu-ns/put <<<"$line")"
	record "$r" off handler-cpu-ns/put "$(field off-cpu-ns/put <<<"$line")"
	line=$(bench "$work/engine.test" BenchmarkTrustSteps "$handlers")
	record "$r" steps trust-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	line=$(bench "$work/engine.test" 'BenchmarkHandlerPut/any-credentials' "$handlers")
	record "$r" steps handler-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	for side in this keys policy; do
		line=$(bench "$work/engine.test" BenchmarkPutItemHTTP32 "$sdkputs" BENCH_ENDPOINT="http://127.0.0.1:${server_port[$side]}" BENCH_SERVER_PID="${server_pid[$side]}")
		record "$r" "sdk-$side" http-server-µs/put "$(field server-cpu-µs/put <<<"$line")"
	done
	sides=this
	[[ -n $base ]] && { ((r % 2)) && sides="base this" || sides="this base"; }
	for side in $sides; do
		bin=$work/engine.test
		[[ $side == base ]] && bin=$work/engine-base.test
		line=$(bench "$bin" BenchmarkPutItemInProcess "$inproc")
		record "$r" "inproc-$side" inproc-ns/put "$(field ns/op <<<"$line")"
	done
	echo "round $r of $rounds done, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after"

# stats SIDE METRIC: min median max of a side's values.
stats() { awk -v s="$1" -v m="$2" '$2 == s && $3 == m {print $4}' "$results" | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%g %g %g", v[1], (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2, v[NR]}'; }
# ratios A B METRIC: min median max of A/B, round by round.
ratios() {
	awk -v a="$1" -v b="$2" -v m="$3" '$3 == m && $2 == a {x[$1] = $4} $3 == m && $2 == b {y[$1] = $4}
		END {for (r in x) if (r in y && y[r] > 0) print x[r] / y[r]}' "$results" | sort -g |
		awk '{v[NR] = $1} END {if (NR) printf "%.3f %.3f %.3f", v[1], (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2, v[NR]}'
}
echo
printf "%-20s %-26s %-26s %s\n" metric "off min/median/max" "on min/median/max" "on/off per round min/median/max"
for m in handler-cpu-ns/put query-p50-µs http-server-µs/put http-puts/s; do
	printf "%-20s %-26s %-26s %s\n" "$m" "$(stats off "$m")" "$(stats on "$m")" "$(ratios on off "$m")"
done
echo
echo "in-process PutItem (no trust feature on its path), ns per put min/median/max"
echo "  this tree $(stats inproc-this inproc-ns/put)"
[[ -n $base ]] && echo "  $base $(stats inproc-base inproc-ns/put); this/base per round $(ratios inproc-this inproc-base inproc-ns/put)"
echo
echo "this tree, in one binary: the trust steps' CPU per request against the whole request's (BenchmarkTrustSteps / BenchmarkHandlerPut/any-credentials)"
awk '$2 == "steps" && $3 == "trust-cpu-ns/put" {t[$1] = $4} $2 == "steps" && $3 == "handler-cpu-ns/put" {h[$1] = $4}
	END {for (r in t) if (h[r] > 0) print t[r] / h[r]}' "$results" | sort -g |
	awk '{v[NR] = $1} END {if (NR) printf "  trust steps %s ns, whole request %s ns; share per round %.4f / %.4f / %.4f (min/median/max)\n", "'"$(stats steps trust-cpu-ns/put)"'", "'"$(stats steps handler-cpu-ns/put)"'", v[1], (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2, v[NR]}'
echo
printf "%-34s %-26s %s\n" "this tree, 32 SDK clients" "server µs/put min/med/max" "vs default, per round"
for side in this keys policy; do
	label=$side
	[[ $side == this ]] && label="any credentials (default)"
	[[ $side == keys ]] && label="--credentials (verified)"
	[[ $side == policy ]] && label="--credentials --policy"
	printf "%-34s %-26s %s\n" "$label" "$(stats "sdk-$side" http-server-µs/put)" "$(ratios "sdk-$side" sdk-this http-server-µs/put)"
done
