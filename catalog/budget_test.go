package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// TestReferenceBudgetsHonest estimates every budget variant of the
// reference model from its samples with the capacity rules (through the
// one estimator, capacity/estimate) and checks that the declared budgets
// hold: the arithmetic written in the model is the arithmetic of the
// billing rules.
func TestReferenceBudgetsHonest(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	g, err := budget.Judge(m, capacity.Default(), false)
	require.NoError(t, err)
	require.NotEmpty(t, g.Variants)
	assert.Empty(t, g.Of(budget.FindingOverBudget))
	for _, v := range g.Variants {
		t.Logf("%-24s %-16s wru %5.1f / %-5v rru %6.1f / %v", v.Operation, v.Name, v.WRU, fmtp(v.BudgetWRU), v.RRU, fmtp(v.BudgetRRU))
	}
}

func fmtp(p *float64) any {
	if p == nil {
		return "-"
	}
	return *p
}
