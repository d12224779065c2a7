package capacity

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cardapio/cardapio/attr"
)

// TestPutPlan: a plan's figures are Put's on every subset of a shape's
// attributes, on tables with and without indexes of each projection,
// with index keys absent, present but not scalar, or not in the shape.
func TestPutPlan(t *testing.T) {
	r := Default()
	multi := &Table{Name: "T", PK: "pk", SK: "sk", GSIs: []Index{
		{Name: "G1", PK: []string{"g"}, Projection: ProjectInclude, Include: []string{"summary"}},
		{Name: "G2", PK: []string{"g", "n"}, SK: []string{"l"}, Projection: ProjectAll},
		{Name: "G3", PK: []string{"nowhere"}, Projection: ProjectAll},
		{Name: "G4", PK: []string{"m"}, Projection: ProjectKeysOnly},
	}, LSIs: []Index{{Name: "L1", SK: []string{"l"}, Projection: ProjectKeysOnly}}}
	tables := []*Table{{Name: "T", PK: "pk", SK: "sk"}, gsiTable(), multi}
	names := []string{"g", "l", "m", "n", "pk", "sk", "summary", "x"}
	values := []attr.Value{
		attr.Str("A"), attr.Num("12"), attr.MapOf(item("k", attr.Num("-1.50"), "v", attr.ListOf(attr.Bool(true), attr.Null()))),
		attr.Num("123456789012345678.25"), attr.Str("p1"), attr.Str("s1"), attr.Str("some words, é"), attr.StrSet("a", "bc"),
	}
	for _, tb := range tables {
		p := r.PutPlan(tb, names)
		sizes := make([]int, len(names))
		for mask := 0; mask < 1<<len(names); mask++ {
			vals := make([]*attr.Value, len(names))
			var it attr.Item
			for i := range names {
				if mask&(1<<i) != 0 {
					vals[i] = &values[i]
					it = append(it, attr.Field{Name: names[i], Value: values[i]})
				}
			}
			assert.Equal(t, r.Put(tb, it), p.Put(vals, sizes), "table %v, item %v", tb.GSIs, it)
			assert.Equal(t, r.Put(tb, it), p.Put(vals, nil))
		}
	}
}

// The plain-integer path of NumberSize agrees with the general one.
func TestNumberSizeFastPath(t *testing.T) {
	r := Default()
	texts := []string{"0", "1", "9", "10", "100", "101", "1000000", "1234567890", "00", "01", "007", "-1", "1.5", "1e3", "", "x", "12a",
		"99999999999999999999999999999999999999", "100000000000000000000000000000000000000", "123456789012345678901234567890123456789"}
	for i := int64(1); i < 1e12; i = i*7 + 3 {
		texts = append(texts, strconv.FormatInt(i, 10), strconv.FormatInt(i*1000, 10))
	}
	for _, s := range texts {
		if n, ok := plainIntSize(s); ok {
			assert.Equal(t, r.numberSize(s), n, s)
		}
		assert.Equal(t, r.numberSize(s), r.NumberSize(s), s)
	}
}
