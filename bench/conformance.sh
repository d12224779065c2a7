#!/usr/bin/env bash
# Run the public DynamoDB conformance suite (nubo-db/dynamodb-conformance,
# checked out beside the project, never copied into it) against a local
# endpoint and print pass/fail/skip per tier and per group.
#
# Usage:
#   bench/conformance.sh SUITE_DIR ENDPOINT [VITEST_ARGS...]
#   e.g. bench/conformance.sh /tmp/conf http://127.0.0.1:8000
#
# ENDPOINT must be a loopback http URL: with no endpoint the suite talks to
# real AWS, which this script refuses to do. Credentials are fake.
#
# Outputs (OUT_DIR, default <repo>/bench/out/conformance):
#   results.json   vitest's JSON report
#   summary.txt    the tables printed on stdout
#   failures.txt   every failed test with the first lines of its error
#
# The ratio is pass / (pass + fail + skip): a skipped test counts as a gap.
# When SUITE_DIR has no node_modules, the suite's lockfile (which pins
# versions the registry no longer serves) is set aside and `npm install` run.
set -euo pipefail
# Measure cardapio itself: one process, not a supervisor and its child.
export CARDAPIO_SUPERVISE=0

die() { echo "conformance.sh: $*" >&2; exit 2; }

suite=${1:-}
endpoint=${2:-}
[[ -n $suite && -n $endpoint ]] || die "usage: conformance.sh SUITE_DIR ENDPOINT [VITEST_ARGS...]"
shift 2
[[ -f $suite/package.json && -d $suite/tests ]] || die "$suite does not look like the conformance suite"
[[ $endpoint =~ ^http://(127\.[0-9]+\.[0-9]+\.[0-9]+|localhost|\[::1\]):[0-9]+/?$ ]] ||
	die "endpoint must be a loopback http URL (got '$endpoint')"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT_DIR:-$repo/bench/out/conformance}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ ! -d $suite/node_modules ]]; then
	if [[ -f $suite/package-lock.json ]]; then
		mv "$suite/package-lock.json" "$suite/package-lock.json.aside"
	fi
	(cd "$suite" && npm install --no-audit --no-fund >&2)
fi

# The suite reads these; AWS_PROFILE and friends are cleared so that nothing
# can steer it to a real account.
export DYNAMODB_ENDPOINT=$endpoint
export AWS_ACCESS_KEY_ID=fake AWS_SECRET_ACCESS_KEY=fake AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_DEFAULT_PROFILE AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE

# A config beside the suite's own that only lifts chai's 40-character cut of
# expected and received values, so that failures.txt shows them whole.
cat >"$suite/vitest.untruncated.config.mts" <<'CONF'
import { mergeConfig } from 'vitest/config'
import base from './vitest.config'
export default mergeConfig(base, { test: { chaiConfig: { truncateThreshold: 0 } } })
CONF

rm -f "$out/results.json"
(cd "$suite" && npx vitest run --config vitest.untruncated.config.mts --reporter=json --outputFile="$out/results.json" "$@" >"$out/vitest.log" 2>&1) || true
[[ -s $out/results.json ]] || { tail -50 "$out/vitest.log" >&2; die "the suite produced no report (see $out/vitest.log)"; }

node - "$out/results.json" "$out/failures.txt" "$endpoint" <<'EOF' | tee "$out/summary.txt"
const fs = require('fs')
const [file, failFile, endpoint] = process.argv.slice(2)
const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
const tiers = {}, groups = {}, failures = []
const add = (m, k, st) => {
  m[k] ??= { pass: 0, fail: 0, skip: 0 }
  m[k][st]++
}
for (const tr of raw.testResults ?? []) {
  const m = tr.name.match(/tests\/(tier\d)\/(.+?)\/[^/]+\.test\.ts$/)
  if (!m) continue
  const [, tier, dir] = m
  const fileBase = tr.name.replace(/.*\/tests\//, '')
  const results = tr.assertionResults ?? []
  // A file whose hooks failed reports no assertions: count it as one failure
  // so that a broken group never disappears from the totals.
  if (results.length === 0 && tr.status === 'failed') {
    add(tiers, tier, 'fail'); add(groups, `${tier}/${dir}`, 'fail')
    failures.push({ file: fileBase, name: '(file)', msg: tr.message ?? '' })
  }
  for (const a of results) {
    const st = a.status === 'passed' ? 'pass' : a.status === 'failed' ? 'fail' : 'skip'
    add(tiers, tier, st); add(groups, `${tier}/${dir}`, st)
    if (st === 'fail') failures.push({ file: fileBase, name: a.fullName, msg: (a.failureMessages ?? []).join('\n') })
  }
}
const line = (k, v) => {
  const n = v.pass + v.fail + v.skip
  const pct = n ? (100 * v.pass / n).toFixed(1) + '%' : '-'
  return `${k.padEnd(34)} ${String(v.pass).padStart(5)} ${String(v.fail).padStart(5)} ${String(v.skip).padStart(5)}   ${String(v.pass + '/' + n).padStart(8)}  ${pct.padStart(6)}`
}
const head = `${'group'.padEnd(34)} ${'pass'.padStart(5)} ${'fail'.padStart(5)} ${'skip'.padStart(5)}   ${'ratio'.padStart(8)}  ${'%'.padStart(6)}`
console.log(`conformance against ${endpoint}`)
console.log('\n' + head.replace('group', 'tier '))
const total = { pass: 0, fail: 0, skip: 0 }
for (const k of Object.keys(tiers).sort()) {
  console.log(line(k, tiers[k]))
  for (const s of ['pass', 'fail', 'skip']) total[s] += tiers[k][s]
}
console.log(line('total', total))
console.log('\n' + head)
for (const k of Object.keys(groups).sort()) console.log(line(k, groups[k]))
const text = failures.map(f => {
  const msg = f.msg.split('\n').filter(l => l.trim() && !/^\s+at /.test(l)).slice(0, 6)
    .map(l => l.length > 600 ? l.slice(0, 600) + ' …' : l).join('\n    ')
  return `${f.file} :: ${f.name}\n    ${msg}`
}).join('\n\n')
fs.writeFileSync(failFile, text + '\n')
console.log(`\n${failures.length} failed tests listed in ${failFile}`)
EOF
