package dataset

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cardapio/cardapio/catalog"
)

// ExpiryNote warns a load into a target that deletes expired items at its
// own clock (DynamoDB within days, cardapio serve every --ttl-sweep) that
// a population drawn as of a day before today carries expiries drawn
// from that day, many of them already past: they vanish after the load,
// and a count or an invariant then reads less than was written. It is ""
// when no table expires items that a population carries, or asOf is not
// before today.
func ExpiryNote(m *catalog.Model, asOf string, now time.Time) string {
	day, err := time.Parse("2006-01-02", asOf)
	if err != nil || !day.Before(now.UTC().Truncate(24*time.Hour)) {
		return ""
	}
	var parts []string
	for _, tb := range m.Tables {
		if tb.TTL == "" {
			continue
		}
		var ents []string
		for _, e := range m.Entities {
			if e.Table == tb && e.Population != nil && e.Has(tb.TTL) != "" {
				ents = append(ents, e.Name)
			}
		}
		if len(ents) > 0 {
			sort.Strings(ents)
			parts = append(parts, fmt.Sprintf("%s on %s (%s)", tb.Name, tb.TTL, strings.Join(ents, ", ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("note: the population is drawn as of %s, before today, and its items expire by %s: a target that sweeps expired items at its clock deletes those already past (cardapio serve every --ttl-sweep, DynamoDB within days); draw it as of today (--as-of), or serve it without a sweep (cardapio serve --ttl-sweep 0)",
		asOf, strings.Join(parts, "; "))
}
