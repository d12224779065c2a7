package dataset

import (
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// The entity encoder writes what attr writes, for any string (escapes,
// control bytes, invalid UTF-8, every length around the 8-byte steps)
// and for items whose names the encoder does not know.
func FuzzItemEncoder(f *testing.F) {
	for _, s := range []string{"", "a", "T#t001#D#9f2c1a7e4b0d3e61", "quote\"d", "back\\slash", "tab\there", "nul\x00", "ação", "\xff\xfe", "12345678", "1234567\"", "x\u2028y"} {
		f.Add(s, "name")
	}
	f.Fuzz(func(t *testing.T, s, extra string) {
		c := &compiled{out: []outField{{name: "a"}, {name: "b\"q"}, {name: "n"}, {name: "s"}}}
		e := newItemEncoder(c)
		items := []attr.Item{
			{{Name: "a", Value: attr.Str(s)}, {Name: "n", Value: attr.Num("12")}, {Name: "s", Value: attr.Str(s + s)}},
			{{Name: "b\"q", Value: attr.Str(s)}, {Name: "s", Value: attr.Bool(true)}},
			{{Name: "a", Value: attr.Str(s)}, {Name: extra, Value: attr.Str(s)}},
			{{Name: "s", Value: attr.MapOf(attr.Item{{Name: s, Value: attr.Str(s)}})}},
			{},
		}
		for _, it := range items {
			it = attr.Sorted(it)
			want := attr.AppendItemJSON([]byte("prefix"), it)
			got := appendItem([]byte("prefix"), e, it)
			if string(got) != string(want) {
				t.Fatalf("item %v:\n got %q\nwant %q", it, got, want)
			}
		}
	})
}
