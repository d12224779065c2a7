#!/usr/bin/env bash
# Measure what the server's trust features (signatures, regions and
# accounts, the Host check, resource limits; IAM off, as serve runs by
# default) cost the hot path: the engine built from a base revision
# against the engine of this tree, in one run, in many short rounds that
# alternate which side goes first, every figure CPU time per request
# (user + system, from getrusage or /proc) rather than wall time, which
# on a shared machine measures the other work more than the server.
#
# Usage:
#   bench/trust-overhead.sh [BASE] [ROUNDS]    (default 256b9cd, the last
#                                               commit before the trust
#                                               features; 12 rounds)
#
# Per round, for base and this tree:
#
#   inproc   300-byte puts with new keys, in process, without HTTP: the
#            process's CPU time per put (GC included)
#   handler  one 300-byte PutItem through the wire handler without a
#            socket: the base's Handler against this side's Server as
#            serve runs it (loopback Host check, a space per region); CPU
#            time per put (both benchmarks are written into the two
#            copies, so that the same code measures both sides)
#   query    BenchmarkQuery50: one SDK client querying a 50-item
#            partition over loopback HTTP, client and server in one
#            process (p50 µs: a latency, so wall time)
#   http     32 raw-HTTP clients (bench/rawhttp: prepared bodies, no SDK,
#            so that the client takes little of the two cores) putting
#            300-byte items into cardapio serve on a loopback port: the
#            server's CPU per put, from /proc (µs)
#
# and, for this tree only: BenchmarkTrustSteps (the trust steps alone,
# exactly as ServeHTTP runs them on that PutItem) against
# BenchmarkHandlerPut/any-credentials (the whole request, same handler),
# the share of a request the trust features take, measured in one
# binary; and the server's CPU per loopback put from 32 SDK clients
# (BenchmarkPutItemHTTP32: they sign for real) against cardapio serve as
# by default, with --credentials (signatures verified) and with
# --credentials --policy (an IAM policy with a dynamodb:LeadingKeys
# condition decides every put).
#
# Printed: every run, then for each metric the median of each side and
# the ratio this/base computed round by round, min/median/max, and the
# load average before and after.
#
# Environment: PUTS (raw HTTP puts per run, default 20000: the server's
# CPU is read in 10 ms ticks, so a run must take a good many of them),
# SDKPUTS (SDK puts per run of the credentials variants, default 8000),
# INPROC (in-process puts per run, default 100000), QUERIES (default
# 1000), HANDLERS (handler puts per run, default 20000), PORT (first of
# four loopback ports, default 4590), THIS (a revision to measure instead
# of the working tree).
set -euo pipefail

die() { echo "trust-overhead.sh: $*" >&2; exit 2; }
base=${1:-256b9cd}
rounds=${2:-12}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "usage: trust-overhead.sh [BASE] [ROUNDS]"
puts=${PUTS:-20000}
sdkputs=${SDKPUTS:-8000}
inproc=${INPROC:-100000}
queries=${QUERIES:-1000}
handlers=${HANDLERS:-20000}
port=${PORT:-4590}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
git -C "$repo" rev-parse --verify -q "$base^{commit}" >/dev/null || die "no revision $base"
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

# Both sides are built from copies, which get the handler benchmark below.
mkdir -p "$work/this" "$work/base"
if [[ -n ${THIS:-} ]]; then
	git -C "$repo" rev-parse --verify -q "$THIS^{commit}" >/dev/null || die "no revision $THIS"
	git -C "$repo" archive "$THIS" | tar -x -C "$work/this"
else
	(cd "$repo" && git ls-files -co --exclude-standard | tar -c -T - | tar -x -C "$work/this")
fi
echo "building base ($(git -C "$repo" rev-parse --short "$base")) and ${THIS:-this tree}" >&2
git -C "$repo" archive "$base" | tar -x -C "$work/base"
# Two benchmarks written into both copies: in-process puts, and one
# PutItem through the wire handler (the base's Handler; this side's Server
# as serve runs it by default: loopback Host check, a space per region).
# Each reports the process's CPU time per put.
for side in base this; do
	handler='h := e.Handler()'
	if grep -q 'func NewServer' "$work/$side/engine/spaces.go" 2>/dev/null; then
		handler='s, err := NewServer(ServerOptions{LoopbackHosts: true})
	if err != nil {
		b.Fatal(err)
	}
	if e, err = s.space("us-east-1", "000000000000"); err != nil {
		b.Fatal(err)
	}
	h := s'
	fi
	cat >"$work/$side/engine/zz_ab_test.go" <<EOF
package engine

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// cpuPerOp reports the process's CPU time per iteration since start.
func cpuPerOp(b *testing.B, start syscall.Rusage) {
	var end syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &end)
	ns := end.Utime.Nano() + end.Stime.Nano() - start.Utime.Nano() - start.Stime.Nano()
	b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
}

func BenchmarkABInProcessPut(b *testing.B) {
	e := New(Options{})
	benchTable(b, e, "Bench")
	items := make([]PutItemInput, 1024)
	for i := range items {
		items[i] = PutItemInput{TableName: "Bench", Item: item300("user#"+strconv.Itoa(i), i)}
	}
	var ru syscall.Rusage
	b.ResetTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	for i := 0; i < b.N; i++ {
		in := items[i%len(items)]
		in.Item = in.Item.With("pk", attr.Str("user#"+strconv.Itoa(i)))
		if _, err := e.PutItem(context.Background(), &in); err != nil {
			b.Fatal(err)
		}
	}
	cpuPerOp(b, ru)
}

func BenchmarkABHandlerPut(b *testing.B) {
	var err error
	_ = err
	e := New(Options{})
	$handler
	benchTable(b, e, "Bench")
	body := \`{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"sk":{"N":"1"},"name":{"S":"someone"},"pad":{"S":"\` + strings.Repeat("p", 240) + \`"}}}\`
	var ru syscall.Rusage
	b.ResetTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Host = "127.0.0.1:8000"
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
		req.Header.Set("X-Amz-Date", "20260101T000000Z")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Body.String())
		}
	}
	cpuPerOp(b, ru)
}
EOF
done
for side in base this; do
	(cd "$work/$side" && go build -o "$work/cardapio-$side" ./cmd/cardapio && go test -c -o "$work/engine-$side.test" ./engine)
done
(cd "$repo" && go build -o "$work/rawhttp" ./bench/rawhttp)

cat >"$work/keys.json" <<'EOF'
{"keys": [{"accessKeyId": "AKID", "secretAccessKey": "SECRET"}]}
EOF
cat >"$work/policy.json" <<'EOF'
{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:CreateTable"],
  "Resource": "arn:aws:dynamodb:*:*:table/Bench",
  "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["user#*"]}}}]}
EOF

# start NAME PORT BINARY ARGS...: a server in the background.
declare -A server_pid
start() {
	local name=$1 p=$2 bin=$3
	shift 3
	# The memory limit (a later feature, measured by bench/memory.sh) is
	# left off, so that only the trust features differ from the base.
	local extra=()
	"$bin" serve --help 2>/dev/null | grep -q -- --memory-limit && extra=(--memory-limit off)
	"$bin" serve --addr "127.0.0.1:$p" "${extra[@]}" "$@" >"$work/$name.log" 2>&1 &
	server_pid[$name]=$!
	pids+=($!)
	for _ in $(seq 1 100); do
		if curl -s -o /dev/null -m 1 "http://127.0.0.1:$p/"; then
			return
		fi
		kill -0 "${server_pid[$name]}" 2>/dev/null || { cat "$work/$name.log" >&2; die "$name exited"; }
		sleep 0.1
	done
	die "$name did not start"
}
start base "$port" "$work/cardapio-base"
start this "$((port + 1))" "$work/cardapio-this"
start keys "$((port + 2))" "$work/cardapio-this" --credentials "$work/keys.json"
start policy "$((port + 3))" "$work/cardapio-this" --credentials "$work/keys.json" --policy "$work/policy.json"
declare -A server_port=([base]=$port [this]=$((port + 1)) [keys]=$((port + 2)) [policy]=$((port + 3)))
for side in base this; do
	"$work/rawhttp" -endpoint "http://127.0.0.1:${server_port[$side]}" -op create
done

results=$work/results
: >"$results"
# metric ... : runs one benchmark and appends "ROUND SIDE METRIC VALUE" lines.
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
	line=$(bench "$work/engine-$side.test" BenchmarkABInProcessPut "$inproc")
	record "$r" "$side" inproc-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	line=$(bench "$work/engine-$side.test" BenchmarkABHandlerPut "$handlers")
	record "$r" "$side" handler-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	line=$(bench "$work/engine-$side.test" BenchmarkQuery50 "$queries")
	record "$r" "$side" query-p50-µs "$(field p50-µs <<<"$line")"
	line=$("$work/rawhttp" -endpoint "http://127.0.0.1:${server_port[$side]}" -op put -n "$puts" -warmup 1000 -pid "${server_pid[$side]}")
	record "$r" "$side" http-server-µs/put "$(awk '{print $9}' <<<"$line")"
	record "$r" "$side" http-puts/s "$(awk '{print $3}' <<<"$line")"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then order="base this"; else order="this base"; fi
	for side in $order; do run_side "$r" "$side"; done
	line=$(bench "$work/engine-this.test" BenchmarkTrustSteps "$handlers")
	record "$r" steps trust-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	line=$(bench "$work/engine-this.test" 'BenchmarkHandlerPut/any-credentials' "$handlers")
	record "$r" steps handler-cpu-ns/put "$(field cpu-ns/op <<<"$line")"
	for side in this keys policy; do
		line=$(bench "$work/engine-this.test" BenchmarkPutItemHTTP32 "$sdkputs" BENCH_ENDPOINT="http://127.0.0.1:${server_port[$side]}" BENCH_SERVER_PID="${server_pid[$side]}")
		record "$r" "sdk-$side" http-server-µs/put "$(field server-cpu-µs/put <<<"$line")"
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
printf "%-20s %-26s %-26s %s\n" metric "base min/median/max" "this min/median/max" "this/base per round min/median/max"
for m in inproc-cpu-ns/put handler-cpu-ns/put query-p50-µs http-server-µs/put http-puts/s; do
	printf "%-20s %-26s %-26s %s\n" "$m" "$(stats base "$m")" "$(stats this "$m")" "$(ratios this base "$m")"
done
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
