#!/usr/bin/env bash
# Try cardapio serve as an adversary would, and report how it holds: its
# memory (RSS now and at its peak, from /proc), whether it still answers,
# and how each probe's connections were treated.
#
# Usage:
#   bench/adversarial.sh [PROBE...]     (default: all of them)
#
# Probes:
#   headers  100 connections send a PutItem's headers announcing a 31 MB
#            body, and nothing more: the server must not reserve the
#            announced bodies (RSS stays flat) and still answers.
#   bodies   32 concurrent 31 MB bodies, the server with its default
#            in-flight cap (512 MiB) and GOMEMLIMIT=2GiB: the bodies over
#            the cap are refused with 503, the server neither dies nor
#            grows past 2 GiB of RSS. (ulimit -v is no memory cap for a Go
#            program: the runtime reserves about 1.6 GB of address space
#            at start, RSS 18 MB.) Then the same with --max-inflight 128MiB.
#   idle     1,100 connections that send nothing, the server under
#            ulimit -n 1024: no "too many open files", and a client still
#            gets an answer at once (idle connections make room).
#   dataidle the idle probe with --data and a table in each of 64
#            regions (64 spaces, each holding its log's descriptors): the
#            connection cap leaves them room, no "too many open files".
#   slow     32 connections sending a body one byte a second, the server
#            with --read-timeout 3s: they are cut off after the timeout,
#            while other clients are served.
#
# Each probe ends with a verdict, "ok" or "FAILED: why": the server alive
# and answering another client at once (200 within 5 s), and for headers
# RSS grown by less than 100 MB, for bodies no out-of-memory and a peak
# RSS under 3 x --max-inflight + 128 MB (and under GOMEMLIMIT), for idle
# no descriptor error, for slow every slow body cut off. The script exits
# 3 when a verdict failed.
#
# Environment: PORT (default 4600), CARDAPIO (a built binary; default:
# built from this tree).
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "adversarial.sh: $*" >&2; exit 2; }
probes=("$@")
[[ ${#probes[@]} -gt 0 ]] || probes=(headers bodies idle dataidle slow)
port=${PORT:-4600}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() {
	if [[ -n $pid ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

bin=${CARDAPIO:-}
if [[ -z $bin ]]; then
	echo "building cardapio" >&2
	(cd "$repo" && go build -o "$work/cardapio" ./cmd/cardapio)
	bin=$work/cardapio
fi

# serve LIMITS -- ARGS: starts the server under shell limits (ulimit
# arguments, e.g. "-v 2097152"), waits for it to answer.
serve() {
	local limits=$1
	shift
	# shellcheck disable=SC2086
	bash -c "ulimit $limits; exec \"\$0\" serve --addr 127.0.0.1:$port \"\$@\"" "$bin" "$@" >"$work/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		curl -s -o /dev/null -m 1 "http://127.0.0.1:$port/" && return
		kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; die "the server exited"; }
		sleep 0.1
	done
	die "the server did not start"
}
failed=0
# verdict WHY...: each argument a failure found ("" when none).
verdict() {
	local why=""
	for w in "$@"; do [[ -n $w ]] && why+="${why:+; }$w"; done
	if [[ -z $why ]]; then echo "verdict: ok"; else echo "verdict: FAILED: $why"; failed=1; fi
}
# rss and peak, in MB.
rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status" 2>/dev/null || echo 0; }
peak() { awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status" 2>/dev/null || echo 0; }
# served: "" when the answer line says 200 OK and the server is alive.
served() {
	[[ $1 == *"200 OK"* ]] || { echo "another client got: ${1#*: }"; return; }
	kill -0 "$pid" 2>/dev/null || echo "the server died"
}
stop() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
}
# mem: the server's RSS and peak RSS, in MB.
mem() { awk '/^VmRSS/ {r = $2} /^VmHWM/ {h = $2} /^VmPeak/ {v = $2} END {printf "RSS %d MB, peak %d MB (address space peak %d MB)", r / 1024, h / 1024, v / 1024}' "/proc/$pid/status"; }
alive() {
	if kill -0 "$pid" 2>/dev/null; then echo "alive"; else echo "DEAD"; fi
}
# answer: the result of one ListTables, and how long it took.
answer() {
	local got
	got=$(python3 "$work/probe.py" one "$port" 2>&1 | tail -1) || true
	echo "a client's ListTables: $got"
}

cat >"$work/probe.py" <<'EOF'
# Raw-socket probes of a DynamoDB endpoint on 127.0.0.1:PORT.
import socket, sys, threading, time, collections

AUTH = ("Authorization: AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=00\r\nX-Amz-Date: 20260101T000000Z\r\n")

def head(op, length):
    return ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.%s\r\n"
            "Content-Type: application/x-amz-json-1.0\r\n%sContent-Length: %d\r\n\r\n" % (op, AUTH, length)).encode()

def status(sock, timeout):
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return "closed"
            data += chunk
    except socket.timeout:
        return "no answer"
    except OSError as e:
        return type(e).__name__
    return data.split(b"\r\n")[0].decode().split(" ", 1)[1]

def one(port):
    start = time.time()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(head("ListTables", 2) + b"{}")
        r = status(s, 5)
    except OSError as e:
        r = type(e).__name__
    print("%s in %.0f ms" % (r, (time.time() - start) * 1000))

def headers(port, n, length):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(head("PutItem", length))
        socks.append(s)
    print("%d connections sent headers announcing %d bytes each" % (n, length))
    sys.stdout.flush()
    sys.stdin.readline()  # hold them until told
    for s in socks:
        s.close()

def bodies(port, n, length):
    prefix = b'{"TableName":"Big","Item":{"pk":{"S":"k"},"pad":{"S":"'
    suffix = b'"}}}'
    body = prefix + b"x" * (length - len(prefix) - len(suffix)) + suffix
    results = collections.Counter()
    lock = threading.Lock()
    def send():
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(head("PutItem", len(body)))
            view = memoryview(body)
            try:
                for i in range(0, len(view), 1 << 20):
                    s.sendall(view[i:i + (1 << 20)])
            except OSError:
                pass  # refused mid-body: the answer is already there
            r = status(s, 60)
        except OSError as e:
            r = type(e).__name__
        with lock:
            results[r] += 1
    threads = [threading.Thread(target=send) for _ in range(n)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(", ".join("%d %s" % (c, r) for r, c in sorted(results.items())))

def spaces(port, n):
    # A table in each of n regions (us-east-1, where the other probes
    # ask, and eu-west-1...): without --credentials any signature is
    # taken, and its region is the space the table goes to.
    body = (b'{"TableName":"Tab","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"k","AttributeType":"S"}],'
            b'"KeySchema":[{"AttributeName":"k","KeyType":"HASH"}]}')
    got = collections.Counter()
    for i in range(n):
        region = "eu-west-%d" % i if i else "us-east-1"
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(head("CreateTable", len(body)).replace(b"/us-east-1/", ("/%s/" % region).encode()) + body)
        got[status(s, 5)] += 1
        s.close()
    print("tables in %d regions: %s" % (n, ", ".join("%d %s" % (c, r) for r, c in sorted(got.items()))))

def idle(port, n):
    socks, failed = [], 0
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            failed += 1
    print("%d idle connections open (%d failed to connect)" % (len(socks), failed))
    sys.stdout.flush()
    sys.stdin.readline()
    closed = 0
    for s in socks:
        s.settimeout(0.001)
        try:
            if s.recv(1) == b"":
                closed += 1
        except socket.timeout:
            pass
        except OSError:
            closed += 1
        s.close()
    print("%d of them had been closed by the server" % closed)

def slow(port, n, seconds):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(head("PutItem", 1000) + b"{")
        socks.append(s)
    start = time.time()
    cut = {}
    while time.time() - start < seconds and len(cut) < n:
        for i, s in enumerate(socks):
            if i in cut:
                continue
            try:
                s.sendall(b" ")
                s.settimeout(0.0)
                try:
                    d = s.recv(4096)
                    if d == b"" or d.startswith(b"HTTP/1.1"):
                        cut[i] = time.time() - start
                except BlockingIOError:
                    pass
                s.settimeout(None)
            except OSError:
                cut[i] = time.time() - start
        time.sleep(1)
    if cut:
        print("%d of %d slow bodies cut off, after %.1f to %.1f s" % (len(cut), n, min(cut.values()), max(cut.values())))
    else:
        print("none of %d slow bodies was cut off in %d s" % (n, seconds))

cmd = sys.argv[1]
port = int(sys.argv[2])
if cmd == "one": one(port)
elif cmd == "headers": headers(port, int(sys.argv[3]), int(sys.argv[4]))
elif cmd == "bodies": bodies(port, int(sys.argv[3]), int(sys.argv[4]))
elif cmd == "idle": idle(port, int(sys.argv[3]))
elif cmd == "spaces": spaces(port, int(sys.argv[3]))
elif cmd == "slow": slow(port, int(sys.argv[3]), int(sys.argv[4]))
EOF

body=$((31 * 1000 * 1000))
for probe in "${probes[@]}"; do
	case $probe in
	headers)
		echo "== 100 header-only connections announcing 31 MB bodies"
		serve "-n 4096"
		echo "before:  $(mem)"
		r0=$(rss)
		coproc HOLD { python3 "$work/probe.py" headers "$port" 100 "$body"; }
		read -r line <&"${HOLD[0]}"
		echo "$line"
		sleep 1
		a=$(answer)
		r1=$(rss)
		echo "holding: $(mem); $a; server $(alive)"
		echo >&"${HOLD[1]}"
		wait "$HOLD_PID" 2>/dev/null || true
		verdict "$(served "$a")" "$( ((r1 - r0 < 100)) || echo "RSS grew by $((r1 - r0)) MB")"
		stop
		;;
	bodies)
		for inflight in 512MiB 128MiB; do
			echo "== 32 concurrent 31 MB bodies, GOMEMLIMIT=2GiB, --max-inflight $inflight"
			GOMEMLIMIT=2GiB serve "-n 4096" --max-inflight "$inflight"
			echo "before:  $(mem)"
			echo "answers: $(python3 "$work/probe.py" bodies "$port" 32 "$body")"
			a=$(answer)
			p=$(peak)
			echo "after:   $(mem); $a; server $(alive)"
			oom=$(grep -i "out of memory\|fatal" "$work/serve.log" || true)
			bound=$((3 * ${inflight%MiB} + 128))
			verdict "$(served "$a")" "${oom:+the log says: $oom}" "$( ((p < bound && p < 2048)) || echo "peak RSS $p MB over $bound MB")"
			stop
		done
		;;
	idle)
		echo "== 1,100 idle connections, server under ulimit -n 1024"
		serve "-n 1024"
		echo "before:  $(mem)"
		coproc HOLD { python3 "$work/probe.py" idle "$port" 1100; }
		read -r line <&"${HOLD[0]}"
		echo "$line"
		a=$(answer)
		echo "holding: $(mem); $a; server $(alive)"
		echo >&"${HOLD[1]}"
		read -r line <&"${HOLD[0]}" || true
		echo "$line"
		wait "$HOLD_PID" 2>/dev/null || true
		n=$(grep -c "too many open files" "$work/serve.log" || true)
		echo "server log: $n lines with 'too many open files'"
		verdict "$(served "$a")" "$( ((n == 0)) || echo "$n descriptor errors")"
		stop
		;;
	dataidle)
		echo "== 1,100 idle connections, server under ulimit -n 1024 with --data and 64 spaces"
		serve "-n 1024" --data "$work/data"
		python3 "$work/probe.py" spaces "$port" 64
		echo "before:  $(mem); $(find "$work/data" -name 'log-*' | wc -l) data logs"
		coproc HOLD { python3 "$work/probe.py" idle "$port" 1100; }
		read -r line <&"${HOLD[0]}"
		echo "$line"
		a=$(answer)
		echo "holding: $(mem); $a; server $(alive)"
		echo >&"${HOLD[1]}"
		read -r line <&"${HOLD[0]}" || true
		echo "$line"
		wait "$HOLD_PID" 2>/dev/null || true
		n=$(grep -c "too many open files" "$work/serve.log" || true)
		echo "server log: $n lines with 'too many open files'"
		verdict "$(served "$a")" "$( ((n == 0)) || echo "$n descriptor errors")"
		stop
		;;
	slow)
		echo "== 32 slow bodies (a byte a second), server with --read-timeout 3s"
		serve "-n 4096" --read-timeout 3s
		python3 "$work/probe.py" slow "$port" 32 20 >"$work/slow.out" &
		slowpid=$!
		sleep 1
		a=$(answer)
		echo "meanwhile: $a"
		wait "$slowpid"
		cat "$work/slow.out"
		echo "after:   $(mem); server $(alive)"
		verdict "$(served "$a")" "$(grep -q "^32 of 32 slow bodies cut off" "$work/slow.out" || echo "not every slow body was cut off")"
		stop
		;;
	*) die "unknown probe $probe (want headers, bodies, idle, dataidle, slow)" ;;
	esac
done
if ((failed)); then
	echo "adversarial.sh: a verdict failed" >&2
	exit 3
fi
