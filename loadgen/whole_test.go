package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// TestPartsEqualWhole runs scenarios whole and in three parts and merges
// the parts: the merged run sent what the whole run sent and met what it
// met. Every load's messages, duplicates, outcomes and units are the
// whole run's, so are the ledger's lines, the subjects are numbered
// alike, and every invariant checked the same items with the same
// verdict. The scenarios: the orders example's month-end lookups and a
// webhook storm whose outcomes depend on which order each arrival draws
// (each part on an engine of its own, holding the pieces of the
// population it wrote), and the reference's peak minute of the 00h07
// night against shared tables.
func TestPartsEqualWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario four times")
	}
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Payments for orders drawn at random, paid or not: one for an order
	// still PLACED applies, any other is refused by the operation's
	// condition; a fifth of the webhooks are resent.
	path := filepath.Join(t.TempDir(), "storm.yaml")
	text := `scenarios:
  storm:
    description: webhooks for any order
    at: "10:00"
    load:
      - operation: PaymentConfirmed
        rate: {count: 200, per: second}
        window: 1m
        subjects: {entity: ORDER, pick: random}
        params:
          paymentId: {copy: ORDER.paymentId}
          expected: {copy: ORDER.version}
        duplicates: {share: 0.2, after: 5s}
      - operation: CreateOrder
        rate: {count: 50, per: second}
        window: 1m
        subjects: {entity: ORDER, pick: random}
        params:
          orderId: {unique: true}
          paymentId: {unique: true}
          customerId: {copy: ORDER.customerId}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, path)
	if err != nil {
		t.Fatal(err)
	}
	orders := Options{File: f, Scale: 0.01, Population: 0.001, Duration: 300e9}
	for _, sc := range []string{"month-end-lookups", "storm"} {
		o := orders
		o.Scenario = sc
		t.Run(sc, func(t *testing.T) { partsEqualWhole(t, m, o, "PaymentConfirmed", nil) })
	}
	// The reference's peak minute of the 00h07 night: subjects of the
	// largest tenant each once, resent webhooks, settlements. Its 08:00
	// run is left out: the agenda it reads is what every part's 00:07
	// reschedules left, which a part run after another, as here, does not
	// see (parts running together at one --speed do). The parts run
	// against tables that hold the population (--existing), as a
	// deployment's share one, and the whole run against a copy of its own.
	c := existingCases[0]
	ref, err := catalog.Load(c.model)
	if err != nil {
		t.Fatal(err)
	}
	night, err := os.ReadFile(c.file)
	if err != nil {
		t.Fatal(err)
	}
	minute := strings.Replace(string(night), "    then: [dunning-0800]\n", "", 1)
	if minute == string(night) {
		t.Fatalf("%s no longer chains the 08:00 run as this test expects", c.file)
	}
	mpath := filepath.Join(t.TempDir(), "minute.yaml")
	if err := os.WriteFile(mpath, []byte(minute), 0o644); err != nil {
		t.Fatal(err)
	}
	rf, err := catalog.LoadScenarioFile(ref, mpath)
	if err != nil {
		t.Fatal(err)
	}
	var urls [2]string
	for i := range urls {
		_, urls[i] = serveCounted(t)
		writePopulation(t, ref, c, urls[i], 11)
	}
	t.Run("reference", func(t *testing.T) {
		o := c.options(rf, "")
		o.Existing = true
		partsEqualWhole(t, ref, o, "ApplySettlement", func(whole bool) string {
			if whole {
				return urls[0]
			}
			return urls[1]
		})
	})
}

// partsEqualWhole runs o whole and in three parts and compares them; dup
// names a load whose run must have resent duplicates ("" none); url,
// when set, gives the whole run's and the parts' endpoint (nil: each run
// on an embedded engine of its own).
func partsEqualWhole(t *testing.T, m *catalog.Model, o Options, dup string, url func(whole bool) string) {
	var sent [2][]string // the ledger's messages and writes: the whole run's, the parts'
	run := func(part, parts int) *Summary {
		t.Helper()
		var buf bytes.Buffer
		o := o
		o.Speed, o.Part, o.Parts, o.Seed, o.Results = 0, part, parts, 11, &buf
		o.Target = endpoint.Options{Retry: endpoint.NoRetry}
		if url != nil {
			o.Target.EndpointURL = url(parts == 1)
		}
		_, err := Run(context.Background(), m, o)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummary("part", bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		w := min(parts-1, 1)
		for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
			var l ledgerLine
			if json.Unmarshal(line, &l) != nil || l.Type != "ledger" {
				continue
			}
			for _, m := range l.Messages {
				sent[w] = append(sent[w], fmt.Sprintf("%s #%d %s: %s", m.Load, m.K, m.Values, m.Outcome))
			}
			for _, x := range l.Writes {
				sent[w] = append(sent[w], fmt.Sprintf("%s wrote %s at version %s", x.Load, x.Key, x.Expected))
			}
		}
		return s
	}
	whole := run(0, 1)
	var parts []*Summary
	for i := range 3 {
		parts = append(parts, run(i, 3))
	}
	got, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(whole.Population.Subjects, got.Population.Subjects); d != "" {
		t.Errorf("subjects (-whole +merged):\n%s", d)
	}
	sort.Strings(sent[0])
	sort.Strings(sent[1])
	if d := cmp.Diff(sent[0], sent[1]); d != "" || len(sent[0]) == 0 {
		t.Errorf("the ledger's %d lines (-whole +parts):\n%s", len(sent[0]), d)
	}
	total := int64(0)
	for name, w := range whole.Operations {
		g := got.Operations[name]
		if g == nil {
			t.Errorf("%s: not in the merged run", name)
			continue
		}
		// The units each table and index consumed: the same requests
		// on the same items (the peaks apart, which are the seconds').
		type figures struct {
			Offered, Completed, Duplicates int64
			Outcomes                       map[string]int64
			Units                          map[string][2]float64
		}
		units := func(us map[string]Units) map[string][2]float64 {
			out := map[string][2]float64{}
			for k, u := range us {
				out[k] = [2]float64{u.Read, u.Write}
			}
			return out
		}
		wf := figures{w.Offered, w.Completed, w.Duplicates, w.Outcomes, units(w.Units)}
		gf := figures{g.Offered, g.Completed, g.Duplicates, g.Outcomes, units(g.Units)}
		if d := cmp.Diff(wf, gf); d != "" {
			t.Errorf("%s (-whole +merged):\n%s", name, d)
		}
		total += w.Offered
		t.Logf("%s: %d messages (%d duplicates), outcomes %v", name, w.Offered, w.Duplicates, w.Outcomes)
		for _, p := range parts {
			if po := p.Operations[name]; po != nil && po.Offered == w.Offered && len(parts) > 1 && w.Offered > 2 {
				t.Errorf("%s: part %d sent all %d messages: the arrivals were not shared out", name, p.Part, w.Offered)
			}
		}
	}
	if total == 0 {
		t.Fatal("the whole run sent nothing: nothing to compare")
	}
	if w := whole.Operations[dup]; dup != "" && (w == nil || w.Duplicates == 0 || len(w.Outcomes) < 2) {
		t.Fatalf("%s: the whole run resent no duplicate or met one outcome (%+v): nothing to compare", dup, w)
	}
	type verdict struct {
		Name                string
		Checked, Violations int64
	}
	var wv, gv []verdict
	for _, v := range whole.Invariants {
		wv = append(wv, verdict{v.Name, v.Checked, v.Violations})
	}
	for _, v := range got.Invariants {
		gv = append(gv, verdict{v.Name, v.Checked, v.Violations})
	}
	if d := cmp.Diff(wv, gv); d != "" {
		t.Errorf("invariants (-whole +merged):\n%s", d)
	}
}
