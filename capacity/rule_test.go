package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// rules lists the rule and size of each reason.
func rules(rs []Reason) []Reason {
	out := make([]Reason, len(rs))
	for i, r := range rs {
		out[i] = Reason{Target: r.Target, Rule: r.Rule, Bytes: r.Bytes}
	}
	return out
}

// TestReasonRules: every reason names the rule that gave its units and
// the size it rounded, so that a program can act on an explanation
// without reading its words.
func TestReasonRules(t *testing.T) {
	r := Default()
	it := workedItem(t, "A")
	_, why := r.ExplainWrite(gsiTable(), WriteOp{Kind: Put, After: it, Txn: true})
	assert.Equal(t, []Reason{{Target: "table", Rule: RuleWriteSize, Bytes: 1126}, {Target: "table", Rule: RuleTransaction},
		{Target: "G1", Rule: RuleIndexPut, Bytes: 410}}, rules(why))

	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: it, After: workedItem(t, "B")})
	assert.Equal(t, []Reason{{Target: "table", Rule: RuleWriteSize, Bytes: 1126}, {Target: "G1", Rule: RuleIndexKeyChange, Bytes: 410}}, rules(why))

	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: it, After: it.With("summary", attr.Str("short"))})
	assert.Equal(t, RuleIndexRewrite, why[1].Rule)
	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: it, After: it.With("x", attr.Str("y"))})
	assert.Equal(t, RuleIndexUnchanged, why[1].Rule)
	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Delete, Before: it})
	assert.Equal(t, []Reason{{Target: "table", Rule: RuleWriteSize, Bytes: 1126}, {Target: "G1", Rule: RuleIndexDelete, Bytes: 410}}, rules(why))

	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: it, After: it, Failed: true})
	assert.Equal(t, []Reason{{Target: "table", Rule: RuleFailedCondition, Bytes: 1126}}, rules(why))
	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Update, Before: it, Failed: true, Txn: true})
	assert.Equal(t, RuleCancelled, why[0].Rule)
	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: ConditionCheck, Before: it})
	assert.Equal(t, RuleConditionCheck, why[0].Rule)
	_, why = r.ExplainWrite(gsiTable(), WriteOp{Kind: Expire, Before: it})
	assert.Equal(t, RuleTTL, why[0].Rule)
	_, why = Rules{DoubleIndexInTxn: true}.ExplainWrite(gsiTable(), WriteOp{Kind: Put, After: it, Txn: true})
	assert.Equal(t, RuleIndexTransaction, why[len(why)-1].Rule)

	_, why, err := r.ExplainRead(gsiTable(), ReadOp{Kind: GetItem, Consistency: Strong, Bytes: 5000})
	require.NoError(t, err)
	assert.Equal(t, []Reason{{Target: "table", Rule: RuleReadSize, Bytes: 5000}}, rules(why))
	_, why, err = r.ExplainRead(gsiTable(), ReadOp{Kind: Page, Consistency: Eventual, Index: "G1", Bytes: 9000, Count: 30})
	require.NoError(t, err)
	assert.Equal(t, []Reason{{Target: "G1", Rule: RulePage, Bytes: 9000}}, rules(why))
}
