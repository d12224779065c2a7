package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// streamedRun is one run of the unsharded night (see runMidnight) with
// the ledger joined in buckets of bucket messages and the summary
// listing sample dead letters, its tables kept on its engine.
type streamedRun struct {
	sum     *Summary
	results []byte
	tg      *endpoint.Target
}

func runStreamed(t *testing.T, m *catalog.Model, f *catalog.ScenarioFile, bucket int64, sample int) streamedRun {
	t.Helper()
	oldBucket, oldSample := ledgerBucket, deadSample
	ledgerBucket, deadSample = bucket, sample
	var tg *endpoint.Target
	opened = func(x *endpoint.Target) { tg = x }
	defer func() { ledgerBucket, deadSample, opened = oldBucket, oldSample, nil }()
	var results bytes.Buffer
	sum, err := Run(context.Background(), m, Options{Scenario: "midnight-peak", File: f, Scale: 0.01, Population: 0.0004, Speed: 0, Throughput: true,
		Seed: 3, Target: endpoint.Options{Retry: endpoint.NoRetry}, Results: &results, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	return streamedRun{sum, results.Bytes(), tg}
}

// resultsLedger reads a results file's ledger messages (load and
// number, in file order) and its dead letters past the summary's.
func resultsLedger(t *testing.T, b []byte) (msgs []string, dead []deadLetter) {
	t.Helper()
	err := resultLines("r", bytes.NewReader(b), func(_ int, typ string, line []byte) error {
		switch typ {
		case "ledger":
			var l ledgerLine
			if err := json.Unmarshal(line, &l); err != nil {
				return err
			}
			for _, m := range l.Messages {
				msgs = append(msgs, fmt.Sprintf("%s/%d", m.Load, m.K))
			}
		case "deadLetters":
			var d deadLine
			if err := json.Unmarshal(line, &d); err != nil {
				return err
			}
			dead = append(dead, d.DeadLetters...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs, dead
}

// ledgerVerdicts are the results of the invariants that read the ledger.
func ledgerVerdicts(m *catalog.Model, rs []InvariantResult) []InvariantResult {
	var out []InvariantResult
	for _, r := range rs {
		if v := m.Invariant(r.Name); v != nil && (v.Ledger != nil || v.Versions != nil) {
			out = append(out, r)
		}
	}
	return out
}

// TestLedgerStreamedVerdicts: the unsharded night dead-letters
// settlements, replays them at 09:30 and resends some twice, and its
// ledger invariants find violations. The run joins its ledger in buckets
// of three messages; its verdicts and their details are those of the
// whole ledger held in memory, in the order the run sent it, as runs
// always checked it. Every message is in the ledger once, written when
// its duplicates and replays were done, and the dead letters past the
// summary's sample are on the results file's lines, with their replays'
// outcomes.
func TestLedgerStreamedVerdicts(t *testing.T) {
	m, err := catalog.Load("../examples/unsharded-gsi1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, "../examples/midnight-peak.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := runStreamed(t, m, f, 3, 5)
	st := r.sum.Operations["ApplySettlement"]
	if st == nil || st.DeadLettered < 10 || st.Duplicates == 0 || r.sum.Replayed == 0 {
		t.Fatalf("want dead letters, duplicates and replays: %+v, replayed %d", st, r.sum.Replayed)
	}
	lv := ledgerVerdicts(m, r.sum.Invariants)
	violated := 0
	for _, v := range lv {
		if v.Violations > 0 {
			violated++
		}
	}
	if len(lv) < 3 || violated == 0 {
		t.Fatalf("want the ledger invariants, some violated: %+v", lv)
	}

	// The ledger in memory, messages by load and number.
	sp, err := newLedgerSpill(m.Invariants)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if _, err := readLedger("r.jsonl", bytes.NewReader(r.results), m, sp); err != nil {
		t.Fatal(err)
	}
	in := invariantInput{m: m, parts: 1}
	var ord [][3]int64
	err = sp.each(m, func(lm ledgerMsg) error {
		in.messages = append(in.messages, lm.message)
		ord = append(ord, lm.ord)
		return nil
	}, func(w versionWrite, _ int64) error {
		in.writes = append(in.writes, w)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(in.messages, func(i, j int) bool {
		a, b := in.messages[i], in.messages[j]
		return a.load.idx < b.load.idx || a.load.idx == b.load.idx && a.k < b.k
	})
	var invs []*catalog.Invariant
	for _, v := range lv {
		invs = append(invs, m.Invariant(v.Name))
	}
	old := ledgerBucket
	ledgerBucket = 1 << 40
	want, _, err := checkInvariants(context.Background(), r.tg, r.sum.Tables, invs, in)
	ledgerBucket = old
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, lv); d != "" {
		t.Errorf("the run's verdicts differ from the ledger's in memory (-memory +run):\n%s", d)
	}

	msgs, dead := resultsLedger(t, r.results)
	seen := map[string]bool{}
	for _, k := range msgs {
		if seen[k] {
			t.Errorf("message %s twice in the ledger: written before its duplicate or replay was done", k)
		}
		seen[k] = true
	}
	if len(msgs) == 0 || len(msgs) != len(in.messages) {
		t.Errorf("%d messages in the ledger, %d read back", len(msgs), len(in.messages))
	}
	all := append(append([]deadLetter(nil), r.sum.DeadLetters...), dead...)
	if int64(len(all)) != r.sum.DeadLettered || int64(len(dead)) != r.sum.DeadLetterLines || len(r.sum.DeadLetters) != 5 {
		t.Errorf("%d dead letters in the summary (want 5) and %d on lines (summary says %d), %d dead-lettered", len(r.sum.DeadLetters), len(dead), r.sum.DeadLetterLines, r.sum.DeadLettered)
	}
	// A replay that ran to an outcome left it on its dead letters (one
	// its message no longer met is skipped, and leaves none).
	outcomes := 0
	for _, d := range dead {
		if d.Replay != "" && d.Outcome != "" {
			outcomes++
		}
	}
	if outcomes == 0 {
		t.Errorf("none of the %d dead letters on the results' lines has its replay's outcome", len(dead))
	}
}

// TestLedgerReadBackByCheck: the ledger lines of a results file, read by
// load check's reader, give the invariants the verdicts the run gave on
// the same tables, whether they are joined in one bucket or in many.
func TestLedgerReadBackByCheck(t *testing.T) {
	m, err := catalog.Load("../examples/unsharded-gsi1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, "../examples/midnight-peak.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := runStreamed(t, m, f, 4, 3)
	var invs []*catalog.Invariant
	for _, v := range m.Invariants {
		if v.Ledger != nil || v.Versions != nil {
			invs = append(invs, v)
		}
	}
	want := ledgerVerdicts(m, r.sum.Invariants)
	for _, bucket := range []int64{1 << 40, 4, 1} {
		sp, err := newLedgerSpill(m.Invariants)
		if err != nil {
			t.Fatal(err)
		}
		l, err := readLedger("r.jsonl", bytes.NewReader(r.results), m, sp)
		if err != nil {
			t.Fatal(err)
		}
		if l.lines == 0 {
			t.Fatal("no ledger lines")
		}
		old := ledgerBucket
		ledgerBucket = bucket
		got, _, err := checkInvariants(context.Background(), r.tg, r.sum.Tables, invs, invariantInput{m: m, spill: sp, parts: 1})
		ledgerBucket = old
		sp.close()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("buckets of %d: check's verdicts differ from the run's (-run +check):\n%s", bucket, d)
		}
	}
}
