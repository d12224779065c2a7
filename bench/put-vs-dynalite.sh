#!/usr/bin/env bash
# Measure PutItem throughput of the embedded engine (cardapio serve) and of
# dynalite side by side, in one run, with the same aws-sdk-go-v2 client:
# engine/bench_test.go's BenchmarkPutItemHTTP32 (32 goroutines, 300-byte
# items, one pre-built request per goroutine) pointed at each endpoint in
# turn through BENCH_ENDPOINT.
#
# Usage:
#   bench/put-vs-dynalite.sh [ROUNDS]      (default 5 rounds)
#
# Each round runs the benchmark once against each server, alternating
# which goes first, so that the load the machine carries from other work
# falls on both alike. Both servers are separate processes on loopback
# ports, each with its own runtime; the client is the benchmark process.
#
# The client (loaderClient in engine/bench_test.go), identical for both:
#   http.Transport with MaxIdleConns = MaxIdleConnsPerHost = 64 (keep-alive,
#   no connection churn; dials/1000puts shows it), no compression, no
#   HTTP/2; static fake credentials (requests are SigV4-signed);
#   aws.NopRetryer (any failed put fails the run); no endpoint discovery;
#   DisableValidateResponseChecksum. The client process runs with the
#   caller's GOGC / GOMAXPROCS (unset: Go's defaults), the same for both.
#
# Printed per run: puts/s, the client's CPU per put, the server's CPU per
# put (from /proc), and TCP connections opened per 1,000 puts; then the
# median rate of each server and their ratio, and the median CPU per put
# on each side (steadier than the rates when the machine is busy with
# other work). Each round also runs the same client against a null
# server (BenchmarkPutItemNullServer32: reads each request, answers {}
# without looking at it): the most that any server can reach with this
# client on this machine.
#
# Environment:
#   BENCH_CLIENT=sdk-default     the SDK's default HTTP client, retryer and
#                                checksums instead of the loader client
#   ENGINE_PORT, DYNALITE_PORT   loopback ports (default 4580, 4581)
#   ENGINE_PUTS, DYNALITE_PUTS   puts per run (default 40000, 12000)
#   DYNALITE_PREFIX, ...         passed on to bench/dynalite.sh
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "put-vs-dynalite.sh: $*" >&2; exit 2; }

rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "usage: put-vs-dynalite.sh [ROUNDS]"
engine_port=${ENGINE_PORT:-4580}
dynalite_port=${DYNALITE_PORT:-4581}
engine_puts=${ENGINE_PUTS:-40000}
dynalite_puts=${DYNALITE_PUTS:-12000}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${DYNALITE_PREFIX:-$repo/.tools}
work=$(mktemp -d)
engine_pid=
dynalite_started=false

cleanup() {
	if [[ -n $engine_pid ]]; then
		kill "$engine_pid" 2>/dev/null || true
		wait "$engine_pid" 2>/dev/null || true
	fi
	if $dynalite_started; then
		bash "$repo/bench/dynalite.sh" --stop "$dynalite_port" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "building cardapio and the engine's benchmark binary" >&2
(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio && go test -c -o "$work/engine.test" ./engine)

bash "$repo/bench/dynalite.sh" "$dynalite_port" >/dev/null
dynalite_started=true
dynalite_pid=$(cat "$prefix/dynalite-$dynalite_port.pid")

"$work/cardapio" serve --addr "127.0.0.1:$engine_port" >"$work/serve.log" 2>&1 &
engine_pid=$!
for _ in $(seq 1 100); do
	if curl -s -o /dev/null -m 1 "http://127.0.0.1:$engine_port/"; then
		break
	fi
	kill -0 "$engine_pid" 2>/dev/null || { cat "$work/serve.log" >&2; die "cardapio serve exited"; }
	sleep 0.1
done

# run NAME PORT PID PUTS: one benchmark run; prints NAME and the metrics.
# NAME null runs the null server in the benchmark's process instead.
run() {
	local out line bench=BenchmarkPutItemHTTP32
	[[ $1 == null ]] && bench=BenchmarkPutItemNullServer32
	out=$(cd "$repo/engine" && BENCH_ENDPOINT="http://127.0.0.1:$2" BENCH_SERVER_PID="$3" \
		"$work/engine.test" -test.run '^$' -test.bench "^$bench\$" -test.benchtime "${4}x" 2>&1) &&
		line=$(grep "^$bench" <<<"$out") || { echo "$out" >&2; die "benchmark against $1 failed"; }
	awk -v name="$1" '{
		for (i = 1; i < NF; i++) m[$(i+1)] = $i
		srv = ("server-cpu-µs/put" in m) ? sprintf("%6.1f", m["server-cpu-µs/put"]) : "   n/a"
		printf "%-9s %8.0f puts/s  client %6.1f µs/put  server %s µs/put  dials/1000puts %.2f\n",
			name, m["puts/s"], m["client-cpu-µs/put"], srv, m["dials/1000puts"]
	}' <<<"$line"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before; client GOGC=${GOGC:-default} GOMAXPROCS=${GOMAXPROCS:-default}"
results=$work/results
: >"$results"
for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then
		run engine "$engine_port" "$engine_pid" "$engine_puts" | tee -a "$results"
		run dynalite "$dynalite_port" "$dynalite_pid" "$dynalite_puts" | tee -a "$results"
	else
		run dynalite "$dynalite_port" "$dynalite_pid" "$dynalite_puts" | tee -a "$results"
		run engine "$engine_port" "$engine_pid" "$engine_puts" | tee -a "$results"
	fi
	run null 0 0 "$engine_puts" | tee -a "$results"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after"

# median NAME [FIELD]: the median of a column (default the rate) over
# NAME's runs.
median() { grep "^$1 " "$results" | awk -v f="${2:-2}" '{print $f}' | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
e=$(median engine)
d=$(median dynalite)
z=$(median null)
awk -v e="$e" -v d="$d" -v z="$z" -v n="$rounds" 'BEGIN {
	printf "median of %d runs: engine %.0f puts/s, dynalite %.0f puts/s, ratio %.2fx\n", n, e, d, e / d
	printf "null server (the client alone) %.0f puts/s: at most %.2fx dynalite with this client; the engine reaches %.0f%% of it\n", z, z / d, 100 * e / z
}'
# CPU per put depends less than the rates on what else the machine runs.
for name in engine dynalite null; do
	echo "$name: median CPU per put: client $(median $name 5) µs, server $(median $name 8) µs"
done
