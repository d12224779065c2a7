package loadgen

import (
	"testing"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// A load that names neither bound of a range draws them as a pair: the
// upper bound the clock, the lower one the samples' width before it, so
// the period is never empty; a load that names one keeps what it named.
func TestRangeDefaults(t *testing.T) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	op := m.Operation("CustomerOrdersBetween")
	rgs := op.Ranges()
	if len(rgs) != 1 || rgs[0].Lower.Name != "from" || rgs[0].Upper.Name != "to" || rgs[0].Attribute.Name != "createdAt" {
		t.Fatalf("ranges of %s: %+v", op.Name, rgs)
	}
	subj := m.Entity("ORDER")
	var all []*catalog.Source
	for _, p := range op.Params {
		s, err := defaultSource(op, p, subj, []*catalog.Entity{subj}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	order, err := orderSources(rangeDefaults(op, map[string]*catalog.Source{}, all))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 9, 30, 10, 0, 0, 0, time.UTC)
	r := &runner{clock: newClock(now, 0, 0, &fakeWall{now: now}), loc: time.UTC}
	ctx := &Context{Items: []CtxItem{{Entity: subj, Item: mustSample(t, subj, "delivered")}}}
	a := &arrival{ctx: ctx, fixed: map[string]attr.Value{}}
	done := map[string]attr.Value{}
	for _, s := range order {
		v, ok, err := r.eval(nil, s, a, ctx, nil, done)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", s.Param.Name, ok, err)
		}
		done[s.Param.Name] = v
	}
	if got := done["to"].Str; got != "2026-09-30T10:00:00.000Z" {
		t.Errorf("to = %s, want the clock", got)
	}
	// The samples span August: 31 days less a millisecond, whole seconds.
	if got := done["from"].Str; got != "2026-08-30T10:00:01.000Z" {
		t.Errorf("from = %s, want the samples' width before to", got)
	}
	if done["customerId"].Str != "cus-4f8a2b9c1d" {
		t.Errorf("customerId = %v, want the subject's", done["customerId"])
	}

	// Named, a bound keeps its source; the other keeps its own default.
	given := map[string]*catalog.Source{"from": {Param: op.Param("from"), Kind: catalog.SourceValue, Value: attr.Str("2026-01-01T00:00:00.000Z")}}
	for _, s := range rangeDefaults(op, given, all) {
		if s.Param.Name == "from" && s.Date != nil && s.Date.From != nil {
			t.Errorf("a named bound's partner was paired anyway: %+v", s.Date)
		}
	}
}

func mustSample(t *testing.T, e *catalog.Entity, name string) attr.Item {
	t.Helper()
	it, ok := e.Sample(name)
	if !ok {
		t.Fatalf("%s has no sample %s", e.Name, name)
	}
	return it
}
