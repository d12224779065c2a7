package catalog

import (
	"fmt"

	"github.com/cardapio/cardapio/attr"
)

// CheckParam checks a value given for an operation parameter: its type,
// and the domain of the attribute it stands for (enum values, civil dates
// and instants, numbers). The error does not name the parameter; callers
// say which one.
func CheckParam(p *Param, v attr.Value) error {
	if v.Type == attr.Invalid {
		return fmt.Errorf("no value")
	}
	if v.Type != p.Type {
		return fmt.Errorf("expected %s, got %s", typeArticle(p.Type)+" value", typeArticle(v.Type)+" value")
	}
	switch v.Type {
	case attr.N:
		if err := checkNumber(v.Str); err != nil {
			return err
		}
	case attr.S:
		if p.Attribute != nil {
			if err := checkString(p.Attribute, v.Str); err != nil {
				return err
			}
		}
	}
	return nil
}

// Hint returns "did you mean X?" for the candidate nearest to s, or ""
// when none is near: the hints of the model's errors, for callers that
// report on the model's names.
func Hint(s string, candidates []string) string { return didYouMean(s, candidates) }
