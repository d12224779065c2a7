package capacity

import (
	"strings"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

func TestCancelled(t *testing.T) {
	tb := &Table{Name: "T", PK: "pk", GSIs: []Index{{Name: "G", PK: []string{"g"}}}}
	old := attr.Item{{Name: "g", Value: attr.Str("x")}, {Name: "pk", Value: attr.Str("a")}}
	big := old.With("pad", attr.Str(strings.Repeat("x", 1500)))
	var r Rules
	cases := []struct {
		name string
		op   WriteOp
		want float64
	}{
		{"put on a missing item", WriteOp{Kind: Put, After: old}, 2},
		{"put over an existing item", WriteOp{Kind: Put, Before: old, After: old}, 2},
		{"update growing past 1 KB", WriteOp{Kind: Update, Before: old, After: big}, 4},
		{"condition check", WriteOp{Kind: ConditionCheck, Before: big}, 4},
	}
	for _, c := range cases {
		got := r.Cancelled(tb, c.op)
		if got.Table.Write != c.want || len(got.GSIs) != 0 || !got.Txn {
			t.Errorf("%s: got %+v, want %v WRU on the table only", c.name, got, c.want)
		}
		e, why := r.ExplainCancelled(tb, c.op, true)
		if e.Table != got.Table || len(why) != 1 || !strings.Contains(why[0].Text, "its condition fails") {
			t.Errorf("%s: explained %+v %v", c.name, e, why)
		}
	}
	_, why := r.ExplainCancelled(tb, WriteOp{Kind: Put, After: old, Label: "X"}, false)
	if !strings.Contains(why[0].Text, "put of X: its condition holds") {
		t.Errorf("holding action: %q", why[0].Text)
	}
}
