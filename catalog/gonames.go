package catalog

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// goFold is a name as the generated Go code spells it, reduced to what
// tells two such spellings apart: its letters and digits, in lower case.
// order_id, orderId and ORDER_ID all fold to orderid, and all become the
// field OrderID and the parameter orderID.
func goFold(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, name)
}

// checkGoNames refuses names of one scope that the generated package
// would declare as one identifier: two attributes (fields of an entity,
// parameters of a key builder), two parameters of an operation, two
// members of a map. Names the generator can number apart (entities,
// tables, indexes, patterns, operations) are not refused.
func (r *resolver) checkGoNames() {
	clash := func(ptr string, names []string) {
		seen := map[string]string{}
		for _, n := range names {
			f := goFold(n)
			if prev, ok := seen[f]; ok {
				r.errAt(ptr+"/"+escapePtr(n), true, "rename one of them: the generated Go code spells both the same",
					"%s and %s are one name in Go", prev, n)
				continue
			}
			seen[f] = n
		}
	}
	var domain func(ptr string, d *rawDomain)
	domain = func(ptr string, d *rawDomain) {
		if d == nil {
			return
		}
		if len(d.Fields) > 0 {
			clash(ptr+"/fields", slices.Sorted(maps.Keys(d.Fields)))
			for _, n := range slices.Sorted(maps.Keys(d.Fields)) {
				f := d.Fields[n]
				domain(ptr+"/fields/"+escapePtr(n), &f.rawDomain)
			}
		}
		if d.Items != nil {
			domain(ptr+"/items", &d.Items.rawDomain)
		}
	}
	clash("/attributes", slices.Sorted(maps.Keys(r.raw.Attributes)))
	for _, n := range slices.Sorted(maps.Keys(r.raw.Attributes)) {
		a := r.raw.Attributes[n]
		domain(p("attributes", n), &a.rawDomain)
	}
	for _, n := range slices.Sorted(maps.Keys(r.raw.Operations)) {
		clash(p("operations", n, "params"), slices.Sorted(maps.Keys(r.raw.Operations[n].Params)))
	}
}
