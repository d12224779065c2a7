package estimate_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

func peaks(t *testing.T, name string, data []byte) *estimate.Peaks {
	t.Helper()
	m, err := catalog.Parse(name, data)
	require.NoError(t, err)
	p, err := estimate.New(m, capacity.Default()).Peaks()
	require.NoError(t, err)
	return p
}

func structure(t *testing.T, p *estimate.Peaks, name string) estimate.PeakStructure {
	t.Helper()
	for _, s := range p.Structures {
		if s.Name() == name {
			return s
		}
	}
	require.Failf(t, "no structure", name)
	return estimate.PeakStructure{}
}

// Every new ticket enters the queue partition of the constant OPEN: 1,500
// puts a second on one partition, against 1,000. Ten shards spread them.
func TestPeakConstantPartition(t *testing.T) {
	data, err := os.ReadFile("testdata/queue.yaml")
	require.NoError(t, err)
	p := peaks(t, "queue.yaml", data)
	q := structure(t, p, "QUEUE")
	require.NotNil(t, q.Write)
	assert.Equal(t, 1500.0, q.Write.Units)
	assert.True(t, q.Write.Over())
	assert.Equal(t, 2, q.Write.Fit, "ceil(1,500 / 1,000)")
	fs := p.Failures()
	require.Len(t, fs, 1)
	assert.Equal(t, "QUEUE: 1,500 WCU/s on `queueState = OPEN` vs 1,000 (OpenTicket: 1,500 puts/s, 1 WCU each; operations.OpenTicket.volume.peakPerSecond); 2 shards would fit", fs[0].String())
	// The readers: the velocity of the question, 20 a second, each run a
	// fan-out of 4 workers on the one partition, 4 x 1 RRU: 20 RCU/s.
	require.NotNil(t, q.Read)
	assert.Equal(t, 20.0, q.Read.Units)
	assert.Equal(t, "accessPatterns.desk.queue.velocity.peak, 4 requests a run", q.Read.Source)

	sharded := strings.NewReplacer(
		"  subject: {type: S, description: what it is about}\n",
		"  subject: {type: S, description: what it is about}\n  queueShard: {type: N, description: shard, computed: {kind: hashMod, hash: fnv1a32, input: ticketId, modulo: 10}}\n",
		"queueState: optional, openedAt", "queueState: optional, queueShard: required, openedAt",
		"openedAt: \"2026-03-01T09:00:00.000Z\", subject: printer}", "openedAt: \"2026-03-01T09:00:00.000Z\", subject: printer, queueShard: 9}",
		"    partition: [queueState]\n", "    partition: [queueState, queueShard]\n",
		"    unsharded: a test of the gate\n", "    shards: {attribute: queueShard, count: 10}\n",
		"        queueState: {eq: OPEN}\n", "        queueState: {eq: OPEN}\n        queueShard: {eq: \"{queueShard}\"}\n",
		"            queueState: {eq: OPEN}\n", "            queueState: {eq: OPEN}\n            queueShard: {eq: \"{queueShard}\"}\n",
		"item: {queueState: OPEN,", "item: {queueShard: \"{queueShard}\", queueState: OPEN,",
		"      subject: {sample: printer}\n", "      subject: {sample: printer}\n      queueShard: {sample: 9}\n",
		"    params: {}\n", "    params:\n      queueShard: {sample: 9}\n",
		"      page: {rru: 4}", "      page: {rru: 10}",
	).Replace(string(data))
	p = peaks(t, "sharded.yaml", []byte(sharded))
	q = structure(t, p, "QUEUE")
	assert.Equal(t, 150.0, q.Write.Units, "1,500 / 10 shards")
	assert.Empty(t, p.Failures())
	assert.Contains(t, q.Write.Terms[0].Partition, "queueShard = one of 10 shards")
}

// The reference model passes: at 00h07 the largest tenant's reschedules
// reach about 2,000 a second, 125 on each of GSI1's 16 shards.
func TestPeakReference(t *testing.T) {
	data, err := os.ReadFile("../../model.yaml")
	require.NoError(t, err)
	p := peaks(t, "model.yaml", data)
	assert.Empty(t, p.Failures())
	g := structure(t, p, "GSI1")
	require.NotNil(t, g.Write)
	assert.InDelta(t, 126.875, g.Write.Units, 0.001, "2,000 a second / 16 shards, and the midnight settlements of the largest tenant (60% of 50 a second, over 16 shards)")
	assert.Equal(t, "scenarios.midnight-0007", g.Write.Source)
	assert.Equal(t, "RescheduleNextAction", g.Write.Terms[0].Operation)
	assert.Equal(t, 2000.0, g.Write.Terms[0].Rate)
	assert.Equal(t, 16, g.Shards)
}

// With GSI1 unsharded the 00h07 numbers fail it: about 2,000
// reschedules a second, each entry entering tomorrow's partition of the
// largest tenant (1 WCU), against 1,000.
func TestPeakReferenceUnsharded(t *testing.T) {
	data, err := os.ReadFile("../../internal/cli/testdata/check/unsharded-gsi1.yaml")
	require.NoError(t, err)
	p := peaks(t, "unsharded-gsi1.yaml", data)
	fs := p.Failures()
	require.Len(t, fs, 1)
	f := fs[0]
	assert.Equal(t, "GSI1", f.Structure.Name())
	assert.InDelta(t, 2030, f.Load.Units, 0.001, "2,000 reschedules + the largest tenant's 60% of 50 settlements (tenantId's skew)")
	assert.Equal(t, 3, f.Load.Fit)
	assert.Contains(t, f.String(), "GSI1: 2,030 WCU/s on `tenantId = its largest value (focus), nextActionDate = one value (a time: the peak falls on one)` vs 1,000 (RescheduleNextAction: 2,000 updates/s, 1 WCU each (the entry moves to another partition: counted on the one it enters)")
}

// A system unlike either example: a ticket on-sale. The planted
// regressions are each caught with their cause at their line.
func TestPeakOnSale(t *testing.T) {
	data, err := os.ReadFile("testdata/onsale.yaml")
	require.NoError(t, err)
	p := peaks(t, "onsale.yaml", data)
	fs := p.Failures()
	require.Len(t, fs, 1, "the table's seats are spread by seat; the state index is not")
	assert.Equal(t, "BYSTATE", fs[0].Structure.Name())
	assert.Equal(t, 5000.0, fs[0].Load.Units)
	assert.Equal(t, 5, fs[0].Load.Fit)
	assert.Contains(t, fs[0].String(), "5,000 WCU/s on `eventId = its largest value (focus), state = HELD` vs 1,000 (HoldSeat: 5,000 updates/s, 1 WCU each")

	// Sharded 8 ways by a hash of the seat: 625 WCU/s a partition.
	sharded := strings.NewReplacer(
		"  rev: {type: N, description: revision of the seat}\n",
		"  rev: {type: N, description: revision of the seat}\n  seatShard: {type: N, description: shard, computed: {kind: hashMod, hash: fnv1a32, input: seatId, modulo: 8}}\n",
		"buyer: optional, rev: required}", "buyer: optional, rev: required, seatShard: required}",
		"state: FREE, rev: 4}", "state: FREE, rev: 4, seatShard: 4}",
		"state: HELD, buyer: b77, rev: 5}", "state: HELD, buyer: b77, rev: 5, seatShard: 4}",
		"    partition: [eventId, state]\n", "    partition: [eventId, state, seatShard]\n",
		"    unsharded: few states per event\n", "    shards: {attribute: seatShard, count: 8}\n",
		"        state: {eq: FREE}\n", "        state: {eq: FREE}\n        seatShard: {eq: \"{seatShard}\"}\n      shards: {fanOut: all}\n",
		"            state: {eq: FREE}\n", "            state: {eq: FREE}\n            seatShard: {eq: \"{seatShard}\"}\n          shards: {fanOut: all}\n",
		"      eventId: {sample: e1}\n    steps:\n      - id: page", "      eventId: {sample: e1}\n      seatShard: {sample: 4}\n    steps:\n      - id: page",
		"      page: {rru: 1}", "      page: {rru: 4}",
	).Replace(string(data))
	p = peaks(t, "sharded.yaml", []byte(sharded))
	assert.Empty(t, p.Failures())
	assert.Equal(t, 625.0, structure(t, p, "BYSTATE").Write.Units)

	// A sample that contradicts its update, and an exact question on a
	// GSI: refused at the line of the cause.
	for _, c := range []struct{ name, from, to, want string }{
		{"contradicting sample", "state: HELD, buyer: b77, rev: 5}", "state: HELD, buyer: b77, rev: 6}",
			`onsale.yaml:75:18: operations.HoldSeat.steps[0].update.after: sample held is not what the update leaves of sample free: rev (sample 6, computed 5)` + "\nhint: fix the sample, or drop after: the catalog computes it"},
		{"exact question on a GSI", "    consistency: eventual\n    answer:\n      index: BYSTATE", "    consistency: exact\n    answer:\n      index: BYSTATE",
			"onsale.yaml:41:14: accessPatterns.seats.free.answer.index: an exact question cannot be answered by global index BYSTATE: GSIs are eventually consistent only\nhint: answer it from the base table with a strongly consistent read or a conditional write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(data), c.from, c.to, 1)
			require.NotEqual(t, string(data), bad)
			_, err := catalog.Parse("onsale.yaml", []byte(bad))
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error(), "one error, with its cause, at its line")
		})
	}
}

// A local index lives in its table's partitions: its units add to the
// table's, spread like the item's key. An account id without a declared
// spread is assumed to spread, and the report says so; the population of
// the entity it alone keys weighs it.
func TestPeakLocalIndexAndIdentity(t *testing.T) {
	data, err := os.ReadFile("../../catalog/testdata/valid/consistency.yaml")
	require.NoError(t, err)
	src := strings.NewReplacer(
		"    question: The transfers of an account, latest first\n    askedBy: [teller]\n",
		"    question: The transfers of an account, latest first\n    askedBy: [teller]\n    velocity: {peak: {count: 500, per: second}}\n",
		"      expected: {attribute: rev, sample: 3}\n    steps:",
		"      expected: {attribute: rev, sample: 3}\n    volume: {perDay: 100000, peakPerSecond: 300}\n    steps:",
	).Replace(string(data))
	p := peaks(t, "ledger.yaml", []byte(src))
	tb := structure(t, p, "ledger")
	require.NotNil(t, tb.Write)
	assert.Zero(t, tb.Write.Units)
	assert.Contains(t, tb.Write.Terms[0].Partition, "accountId = spread (nothing declared")

	withPop := strings.Replace(src, "    attributes: {accountId: key, balance: required, rev: required}\n",
		"    attributes: {accountId: key, balance: required, rev: required}\n    population: {total: 100}\n", 1)
	p = peaks(t, "ledger.yaml", []byte(withPop))
	tb = structure(t, p, "ledger")
	// A booking: TRANSFER put 2 + its BYTIME entry 1 (the local index, in
	// the same partition) + ACCOUNT update 2 = 5 WCU, on one of 100
	// accounts: 300 x 5 / 100.
	assert.InDelta(t, 15, tb.Write.Units, 1e-9)
	assert.Contains(t, tb.Write.Terms[0].Partition, "accountId = one of 100 values (one per item of its entity)")
	lsi := structure(t, p, "BYTIME")
	assert.InDelta(t, 3, lsi.Write.Units, 1e-9, "300 entries a second over 100 accounts")
}
