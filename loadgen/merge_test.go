package loadgen

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// TestMergeParts runs the orders example's month-end lookups as two parts
// of one run, each on its own engine, and merges their results files:
// counts add up, histograms merge exactly (the merged count is the sum,
// the merged max the larger), the join invariant is completed from both
// parts' groups, and a file without a summary or of another run is
// refused.
func TestMergeParts(t *testing.T) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var files [2]bytes.Buffer
	var sums [2]*Summary
	units := 0
	for i := range 2 {
		sums[i], err = Run(context.Background(), m, Options{Scenario: "month-end-lookups", Scale: 0.0002, Speed: 0, Part: i, Parts: 2, Seed: 5,
			Duration: 20e9, Target: endpoint.Options{Retry: endpoint.NoRetry}, Results: &files[i]})
		if err != nil {
			t.Fatal(err)
		}
		// Without the throughput model a second has units, no limits.
		units += checkSecondUnits(t, sums[i], readSeconds(t, files[i].Bytes()), false)
	}
	if units == 0 {
		t.Error("neither part's summary has units")
	}
	var parts []*Summary
	for i := range 2 {
		s, err := ReadSummary("part", bytes.NewReader(files[i].Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, s)
	}
	got, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range got.Operations {
		a, b := sums[0].Operations[name], sums[1].Operations[name]
		if o.Completed != a.Completed+b.Completed || o.Offered != a.Offered+b.Offered {
			t.Errorf("%s: merged completed %d offered %d, parts %d+%d, %d+%d", name, o.Completed, o.Offered, a.Completed, b.Completed, a.Offered, b.Offered)
		}
		h, err := decodeHist(got.Histograms[name])
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != o.Completed {
			t.Errorf("%s: merged histogram holds %d, %d completed", name, h.TotalCount(), o.Completed)
		}
		if o.LatencyMs.Max != max(a.LatencyMs.Max, b.LatencyMs.Max) {
			t.Errorf("%s: merged max %v, parts %v %v", name, o.LatencyMs.Max, a.LatencyMs.Max, b.LatencyMs.Max)
		}
	}
	if got.Operations["FindByExternalId"].Completed == 0 {
		t.Fatal("no lookups ran")
	}
	for _, v := range got.Invariants {
		if v.Pending || v.Violations != 0 {
			t.Errorf("%s: pending %v, %d violations %+v", v.Name, v.Pending, v.Violations, v.Details)
		}
		if v.Name == "payment-lookup-once" && v.Checked == 0 {
			t.Error("payment-lookup-once: no group checked")
		}
	}
	if !got.OK {
		t.Errorf("merged run failed: %+v", got.Expectations)
	}
	if _, err := Merge([]*Summary{parts[0], parts[0]}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("the same part twice: %v", err)
	}
	other := *parts[1]
	other.Scenario = "queue-0900"
	if _, err := Merge([]*Summary{parts[0], &other}); err == nil || !strings.Contains(err.Error(), "not of the same run") {
		t.Errorf("parts of two runs: %v", err)
	}
	head := files[0].String()
	head = head[:strings.Index(head, "\n")+1]
	if _, err := ReadSummary("cut", strings.NewReader(head)); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("a file without its summary: %v", err)
	}
}
