package catalog

import "testing"

// A failure is named by its meaning's first clause, less articles, in at
// most four words: the generator's error names and the load's outcome
// labels read the same words.
func TestMeaningLabel(t *testing.T) {
	for meaning, want := range map[string]string{
		"contract settled or owes less than the payment": "contract-settled-or-owes",
		"do NOT contact - the daily limit is reached":    "not-contact",
		"the order changed since it was read; re-read":   "order-changed-since-read",
		"\"quoted\" (a note)":                            "quoted",
		"":                                               "",
	} {
		if got := MeaningLabel(meaning); got != want {
			t.Errorf("MeaningLabel(%q) = %q, want %q", meaning, got, want)
		}
	}
}
