#!/usr/bin/env bash
# Times `cardapio capacity item --jsonl` on a generated stream of Lastro-like
# items (about 300-400 B each) and prints items/s.
#
#   bench/capacity-jsonl.sh [LINES]     (default 2,000,000)
#
# The stream and the binary go to a temporary directory, removed on exit.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0
lines=${1:-2000000}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/cardapio" "$root/cmd/cardapio"

awk -v n="$lines" 'BEGIN {
  split("D001_030 D031_060 D061_090 D090_PLUS", buckets, " ")
  for (i = 0; i < n; i++) {
    printf "{\"PK\":{\"S\":\"T#t%03d#D#%016x\"},\"SK\":{\"S\":\"CT#C-2026-%06d\"},", i % 40, i * 2654435761 % 4294967296, i
    printf "\"type\":{\"S\":\"CONTRACT\"},\"tenantId\":{\"S\":\"t%03d\"},\"contractId\":{\"S\":\"C-2026-%06d\"},", i % 40, i
    printf "\"productCode\":{\"S\":\"CREDIARIO_12X\"},\"currency\":{\"S\":\"BRL\"},\"status\":{\"S\":\"IN_COLLECTION\"},"
    printf "\"oldestOverdueDueDate\":{\"S\":\"2026-08-%02d\"},\"bucket\":{\"S\":\"%s\"},", i % 28 + 1, buckets[i % 4 + 1]
    printf "\"outstandingCents\":{\"N\":\"%d\"},\"nextActionDate\":{\"S\":\"2026-09-24\"},\"nextAction\":{\"S\":\"SMS_D45\"},", i * 37 % 1000000
    printf "\"shard\":{\"N\":\"%d\"},\"channelPrefs\":{\"SS\":[\"SMS\",\"EMAIL\"]},\"version\":{\"N\":\"%d\"}}\n", i % 16, i % 50
  }
}' > "$tmp/items.jsonl"

bytes=$(wc -c < "$tmp/items.jsonl")
start=$(date +%s.%N)
"$tmp/cardapio" capacity item --jsonl "$tmp/items.jsonl"
end=$(date +%s.%N)
awk -v n="$lines" -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN {
  t = e - s
  printf "%d items, %.1f MB in %.2f s: %.0f items/s, %.1f MB/s\n", n, b / 1e6, t, n / t, b / 1e6 / t
}'
