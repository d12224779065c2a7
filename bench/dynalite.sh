#!/usr/bin/env bash
# Start dynalite (an independent DynamoDB emulator) in memory on a loopback
# port, for the cross-check tests in crosscheck/ and for comparing the
# conformance figures of the embedded engine with a known reference.
#
# Usage:
#   bench/dynalite.sh PORT          install if missing, start, wait until it
#                                   answers, print `export DYNALITE_ENDPOINT=...`
#   bench/dynalite.sh --stop PORT   stop the instance started on PORT
#
# Typical use:  eval "$(bash bench/dynalite.sh 4567)"
#
# Environment:
#   DYNALITE_PREFIX   npm prefix holding dynalite (default: <repo>/.tools)
#   DYNALITE_VERSION  version installed when missing (default: 4.0.0)
#   DYNALITE_ARGS     extra dynalite flags (default: tables become ACTIVE at once)
#
# Everything else goes to stderr, so stdout can be eval'ed. The server is
# detached; its pid and log sit in the prefix as dynalite-PORT.{pid,log}.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${DYNALITE_PREFIX:-$repo/.tools}
version=${DYNALITE_VERSION:-4.0.0}
args=${DYNALITE_ARGS:---createTableMs 0 --deleteTableMs 0 --updateTableMs 0}

die() { echo "dynalite.sh: $*" >&2; exit 1; }

stop=false
if [[ ${1:-} == --stop ]]; then
	stop=true
	shift
fi
port=${1:-}
[[ $port =~ ^[0-9]+$ ]] || die "usage: dynalite.sh [--stop] PORT"
pidfile=$prefix/dynalite-$port.pid
logfile=$prefix/dynalite-$port.log

if $stop; then
	[[ -f $pidfile ]] || die "no pid file $pidfile"
	pid=$(cat "$pidfile")
	kill "$pid" 2>/dev/null || true
	rm -f "$pidfile"
	echo "dynalite.sh: stopped pid $pid" >&2
	exit 0
fi

bin=$prefix/node_modules/dynalite/cli.js
if [[ ! -f $bin ]]; then
	command -v npm >/dev/null || die "npm not found"
	echo "dynalite.sh: installing dynalite@$version into $prefix" >&2
	mkdir -p "$prefix"
	npm install --no-save --no-audit --no-fund --prefix "$prefix" "dynalite@$version" >&2
fi
mkdir -p "$prefix"

# answers reports whether a DynamoDB endpoint replies to a JSON request; any
# JSON reply (even an authentication error) means the server is serving.
answers() {
	node -e '
const http = require("http");
const req = http.request({host: "127.0.0.1", port: process.argv[1], method: "POST", path: "/",
  headers: {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"},
  timeout: 1000}, res => { let b = ""; res.on("data", d => b += d);
  res.on("end", () => process.exit(b.includes("__type") || b.includes("TableNames") ? 0 : 1)); });
req.on("error", () => process.exit(1)); req.on("timeout", () => { req.destroy(); process.exit(1); });
req.end("{}");' "$port"
}

if answers; then
	die "something already answers on 127.0.0.1:$port"
fi

# setsid detaches the server from this shell so that it outlives the script.
# shellcheck disable=SC2086
setsid node "$bin" --host 127.0.0.1 --port "$port" $args >"$logfile" 2>&1 </dev/null &
echo $! >"$pidfile"

for _ in $(seq 1 100); do
	if answers; then
		echo "dynalite.sh: dynalite $version (pid $(cat "$pidfile")) answers on 127.0.0.1:$port" >&2
		echo "export DYNALITE_ENDPOINT=http://127.0.0.1:$port"
		exit 0
	fi
	kill -0 "$(cat "$pidfile")" 2>/dev/null || { cat "$logfile" >&2; die "dynalite exited"; }
	sleep 0.1
done
cat "$logfile" >&2
die "dynalite did not answer on 127.0.0.1:$port within 10 s"
