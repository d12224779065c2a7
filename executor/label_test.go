package executor

import "testing"

// A plain failed condition is labelled by the model's meaning; every
// other outcome by its kind.
func TestOutcomeLabel(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Kind: ConditionFailed, Meaning: "contract settled or owes less than the payment"}, "contract-settled-or-owes"},
		{Outcome{Kind: ConditionFailed}, "condition-failed"},
		{Outcome{Kind: LimitReached, Meaning: "the daily limit is reached"}, "limit-reached"},
		{Outcome{Kind: Applied}, "applied"},
	} {
		if got := c.o.Label(); got != c.want {
			t.Errorf("%+v: Label() = %q, want %q", c.o, got, c.want)
		}
	}
}
