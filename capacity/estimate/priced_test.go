package estimate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// TestMonthUSD: pricing the static figures of every variant gives the
// operation's line of Month, and one more write unit on a shared variant
// costs its share of the runs.
func TestMonthUSD(t *testing.T) {
	m, err := catalog.Load("../../model.yaml")
	require.NoError(t, err)
	e := estimate.New(m, capacity.Default())
	p := estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)
	bill, err := e.Month(estimate.Options{Prices: p, Utilisation: 0.7})
	require.NoError(t, err)
	for _, op := range m.Operations {
		vs, err := e.Operation(op)
		require.NoError(t, err)
		var priced []estimate.Priced
		for _, v := range vs {
			priced = append(priced, estimate.Priced{Variant: v.Name, Tables: v.Targets})
		}
		usd, basis, ok := e.MonthUSD(op, p, priced)
		_, declared := estimate.Runs(op.Volume)
		require.Equal(t, declared, ok, op.Name)
		if !ok {
			continue
		}
		var line *estimate.OpMonth
		for i := range bill.Operations {
			if bill.Operations[i].Operation == op.Name {
				line = &bill.Operations[i]
			}
		}
		require.NotNil(t, line, op.Name)
		assert.InDelta(t, line.USD, usd, 1e-9, op.Name)
		assert.Equal(t, line.Basis, basis, op.Name)
	}

	op := m.Operation("ApplySettlement")
	require.NotNil(t, op)
	vs, err := e.Operation(op)
	require.NoError(t, err)
	var base, more []estimate.Priced
	share := 0.0
	for _, v := range vs {
		base = append(base, estimate.Priced{Variant: v.Name, Tables: v.Targets})
		ts := append([]estimate.Target(nil), v.Targets...)
		if v.Name == "partial" {
			ts = append(ts, estimate.Target{Table: ts[0].Table, WRU: 1})
			for _, b := range op.Budgets {
				if b.Name == "partial" {
					share = *b.Share
				}
			}
		}
		more = append(more, estimate.Priced{Variant: v.Name, Tables: ts})
	}
	a, _, _ := e.MonthUSD(op, p, base)
	b, _, _ := e.MonthUSD(op, p, more)
	runs, _ := estimate.Runs(op.Volume)
	assert.InDelta(t, runs*share*p.WritePerMillion.Value/1e6, b-a, 1e-9)
}
