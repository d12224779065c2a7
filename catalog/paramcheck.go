package catalog

import (
	"fmt"

	"github.com/cardapio/cardapio/attr"
)

// CheckParam checks a value given for an operation parameter: its type,
// and the domain of the attribute it stands for (Attribute.Check: enum
// values, ranges, lengths, patterns, list and map bounds, civil dates and
// instants). The error does not name the parameter; callers say which
// one.
func CheckParam(p *Param, v attr.Value) error {
	if v.Type == attr.Invalid {
		return fmt.Errorf("no value")
	}
	if v.Type != p.Type {
		return fmt.Errorf("expected %s, got %s", typeArticle(p.Type)+" value", typeArticle(v.Type)+" value")
	}
	if v.Type == attr.N {
		if err := checkNumber(v.Str); err != nil {
			return err
		}
	}
	if p.Attribute != nil {
		return p.Attribute.Check(v)
	}
	return nil
}

// Hint returns "did you mean X?" for the candidate nearest to s, or ""
// when none is near: the hints of the model's errors, for callers that
// report on the model's names.
func Hint(s string, candidates []string) string { return didYouMean(s, candidates) }
