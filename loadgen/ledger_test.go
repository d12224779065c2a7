package loadgen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// A message the operation refused by a declared stop is expected to leave
// nothing: counted refused, not a violation. One that errored, or stayed
// dead-lettered, is a violation with its keys.
func TestExistsCountsDeclaredStopsApart(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inv := m.Invariant("webhook-applied-once")
	lr := &loadRun{name: "ApplySettlement", op: m.Operation("ApplySettlement")}
	vals := func(id string) map[string]attr.Value {
		return map[string]attr.Value{"tenantId": attr.Str("t001"), "settlementId": attr.Str(id)}
	}
	msgs := []*message{
		{load: lr, k: 1, values: vals("S1"), outcome: "condition-failed", ok: true, refused: "the instalment is already paid"},
		{load: lr, k: 2, values: vals("S2"), outcome: "error"},
		{load: lr, k: 3, values: vals("S3"), outcome: "throttled", dead: true},
	}
	c := newExistsChecker(inv, invariantInput{m: m, messages: msgs, parts: 1})
	res := c.result()
	if res.Refused != 1 || res.Violations != 2 {
		t.Fatalf("refused %d, violations %d, want 1 and 2: %+v", res.Refused, res.Violations, res.Details)
	}
	if !strings.Contains(res.Details[0].Keys, "S2") || !strings.Contains(res.Details[1].Message, "dead-lettered") {
		t.Errorf("details %+v", res.Details)
	}
}

// The ledger a run writes reads back as the messages and writes the
// invariants check, and a file of another model, or one without a
// summary, is refused.
func TestLedgerRoundTrip(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lr := &loadRun{name: "ApplySettlement", op: m.Operation("ApplySettlement")}
	sp, err := newLedgerSpill(m.Invariants)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	r := &runner{spill: sp}
	r.final(&openMsg{msg: &message{load: lr, k: 7, values: map[string]attr.Value{"settlementId": attr.Str("S7"), "amountCents": attr.Num("48790")}, outcome: "applied", applied: true, ok: true}})
	r.final(&openMsg{msg: &message{load: lr, k: 8, outcome: "condition-failed", ok: true, refused: "already paid"}})
	vi := m.Invariant("no-lost-update").Versions
	sp.write(versionWrite{inv: vi, key: "PK a, SK b", expected: "22", load: "ApplySettlement"})
	var buf bytes.Buffer
	st := newStream(&buf)
	st.write(Start{Type: "start", Model: m.Name})
	if err := r.writeLedger(st); err != nil {
		t.Fatal(err)
	}
	st.write(summaryLine{Type: "summary", Summary: &Summary{Model: m.Name, Tables: map[string]string{"collections": "x-collections"}}})

	back := func(data []byte, m *catalog.Model) (*runLedger, []*message, []versionWrite, error) {
		sp, err := newLedgerSpill(m.Invariants)
		if err != nil {
			t.Fatal(err)
		}
		defer sp.close()
		l, err := readLedger("r.jsonl", bytes.NewReader(data), m, sp)
		if err != nil {
			return nil, nil, nil, err
		}
		var ms []*message
		var ws []versionWrite
		err = sp.each(m, func(lm ledgerMsg) error { ms = append(ms, lm.message); return nil }, func(w versionWrite, _ int64) error { ws = append(ws, w); return nil })
		return l, ms, ws, err
	}
	l, msgs, writes, err := back(buf.Bytes(), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || len(writes) != 1 || l.summary.Tables["collections"] != "x-collections" {
		t.Fatalf("read %d messages, %d writes, tables %v", len(msgs), len(writes), l.summary.Tables)
	}
	got := msgs[0]
	if got.k != 7 || got.load.op != lr.op || !got.applied || !attr.Equal(got.values["amountCents"], attr.Num("48790")) {
		t.Errorf("message %+v", got)
	}
	if msgs[1].refused != "already paid" || writes[0].inv != vi || writes[0].expected != "22" {
		t.Errorf("message %+v, write %+v", msgs[1], writes[0])
	}

	orders, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := back(buf.Bytes(), orders); err == nil || !strings.Contains(err.Error(), "not orders") {
		t.Errorf("another model's file: %v", err)
	}
	cut := buf.Bytes()[:bytes.LastIndex(bytes.TrimRight(buf.Bytes(), "\n"), []byte("\n"))+1]
	if _, _, _, err := back(cut, m); err == nil || !strings.Contains(err.Error(), "no summary") {
		t.Errorf("a file without its summary: %v", err)
	}
}

// FuzzReadLedger: whatever a results file holds, reading its ledger
// returns the ledger or an error, never a panic.
func FuzzReadLedger(f *testing.F) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"type":"start","model":"lastro"}` + "\n" + `{"type":"ledger","messages":[{"load":"ApplySettlement","operation":"ApplySettlement","k":1,"values":{"settlementId":{"S":"S1"}}}],"writes":[{"invariant":"no-lost-update","key":"k","expected":"1"}]}` + "\n" + `{"type":"summary","model":"lastro"}`))
	f.Add([]byte(`{"type":"ledger","messages":[{"operation":"Nope"}]}`))
	f.Add([]byte(`{"type":"ledger","messages":[{"operation":"ApplySettlement","values":{"a":{"N":"x"}}}]}`))
	f.Add([]byte("{\n"))
	sp, err := newLedgerSpill(m.Invariants)
	if err != nil {
		f.Fatal(err)
	}
	defer sp.close()
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := readLedger("f", bytes.NewReader(data), m, sp)
		if err == nil && l.summary == nil {
			t.Fatal("a ledger without its summary")
		}
	})
}
